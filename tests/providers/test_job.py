"""JobProvider against the emulator, in both wire forms."""

from __future__ import annotations

import copy
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pulumi
import pytest

from providers import (
    AutoscaleArgs,
    ClusterLogConfArgs,
    DbfsStorageArgs,
    Job,
    JobArgs,
    LibraryArgs,
    NewClusterArgs,
    PypiLibraryArgs,
    SparkPythonTaskArgs,
)
from providers.client import (
    NotFound,
    ServerError,
    WorkspaceClient,
)
from providers.core.lifecycle import UNKNOWN
from providers.jobs import jobs_api
from providers.jobs.job import DEPLOYMENT_TAG_KEY, JobProvider
from providers.jobs.job_diff import canonical
from providers.jobs.job_model import JobModel
from providers.jobs.job_wire import lift
from providers.jobs.jobs_api import JobsApi
from tests.providers.resource_mocks import RecordingMocks
from tests.providers.support import client_of

provider = JobProvider()


def public_inputs(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "new_cluster": {
            "spark_version": "13.3.x-scala2.12",
            "node_type_id": "Standard_DS3_v2",
            "autoscale": {"min_workers": 1, "max_workers": 4},
            "init_scripts": [
                {"dbfs": {"destination": "dbfs:/init/a.sh"}},
                {"dbfs": {"destination": "dbfs:/init/b.sh"}},
            ],
            "cluster_log_conf": {"dbfs": {"destination": "dbfs:/mnt/logs/job"}},
            "spark_env_vars": {"ENVIRONMENT": "test"},
        },
        "libraries": [
            {"pypi": {"package": "requests==2.32.3"}},
            {"pypi": {"package": "pandas==2.2.2"}},
        ],
        "timeout_seconds": 3600,
        "max_retries": 2,
        "spark_python_task": {"python_file": "dbfs:/jobs/etl.py", "parameters": ["--full"]},
        "deployment_tag": f"project/stack/{name}",
    }


def legacy_form_inputs(name: str) -> dict[str, Any]:
    """The same job in the specification's nesting."""
    inputs = public_inputs(name)
    cluster = inputs["new_cluster"]
    for field in ("timeout_seconds", "max_retries", "spark_python_task"):
        cluster[field] = inputs.pop(field)
    cluster["cluster_log_conf"]["spark_env_vars"] = cluster.pop("spark_env_vars")
    return inputs


def with_connection(inputs: dict[str, Any], connection: dict[str, Any]) -> dict[str, Any]:
    return {**copy.deepcopy(inputs), "connection": connection}


def unique_name() -> str:
    return f"job-{uuid.uuid4().hex[:10]}"


def get_job(connection: dict[str, Any], job_id: str) -> dict[str, Any]:
    """The job as the service stores it, read through Jobs 2.0 (a legacy job in its shape)."""
    return client_of(connection).get("/api/2.0/jobs/get", {"job_id": int(job_id)})


def settings_of(connection: dict[str, Any], job_id: str) -> dict[str, Any]:
    """The job's settings in the canonical multi-task shape."""
    return lift(get_job(connection, job_id)["settings"])


def main_task(settings: dict[str, Any]) -> dict[str, Any]:
    """The one task a legacy single-task job is lifted to."""
    (task,) = settings["tasks"]
    assert task["task_key"] == "main"
    return task


def jobs_named(connection: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return client_of(connection).get("/api/2.0/jobs/list", {"name": name}).get("jobs", [])


@pytest.fixture
def made(connection: dict[str, Any]) -> Iterator[list[str]]:
    """Job ids a test made; deleted afterwards."""
    ids: list[str] = []
    yield ids
    for job_id in ids:
        provider.delete(job_id, {"connection": connection})


@pytest.fixture
def created(connection, made) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
    """(id, inputs, outputs) of a job created through the provider from input in the legacy
    form's nesting."""
    inputs = legacy_form_inputs(unique_name())
    result = provider.create(with_connection(inputs, connection))
    assert result.outs is not None
    made.append(result.id)
    return result.id, inputs, result.outs


# --- check ---------------------------------------------------------------------------


def bracketed(path: str) -> str:
    """A dotted path as check names it: `libraries.0.pypi.package` -> `libraries[0]...`."""
    return re.sub(r"\.(\d+)(?=\.|$)", r"[\1]", path)


def _set(inputs: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    target: Any = inputs
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    if last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value


BAD_FIELDS = [
    # (form of the input, field set to a bad value, the value, the failure's property)
    ("public", "name", "  ", "name"),
    ("public", "new_cluster.init_scripts.1.dbfs.destination", "s3://b/a.sh", None),
    ("public", "spark_python_task.python_file", "jobs/etl.py", None),
    ("legacy", "new_cluster.spark_python_task.python_file", "jobs/etl.py", None),
    ("public", "new_cluster.cluster_log_conf.dbfs.destination", "/mnt/logs", None),
    ("public", "libraries.0.pypi.package", "requests", None),
    ("public", "libraries.1.pypi.package", "pandas>=2", None),
    ("public", "libraries.1.pypi.package", "pandas==2.*", None),
    ("public", "new_cluster.autoscale.min_workers", -1, None),
    ("public", "new_cluster.autoscale.min_workers", 5, "new_cluster.autoscale"),
    ("public", "timeout_seconds", -1, None),
    ("legacy", "new_cluster.timeout_seconds", -5, None),
    ("public", "max_retries", -2, None),
    ("legacy", "new_cluster.max_retries", -2, None),
    ("public", "new_cluster.spark_env_vars", {"N": 1}, "new_cluster.spark_env_vars.N"),
    (
        "legacy",
        "new_cluster.cluster_log_conf.spark_env_vars",
        {"N": 1},
        "new_cluster.cluster_log_conf.spark_env_vars.N",
    ),
    ("public", "colour", "blue", None),
    ("public", "new_cluster.colour", "blue", None),
    ("public", "tags", {DEPLOYMENT_TAG_KEY: "mine"}, None),
    ("public", "timeout_seconds", 1.5, None),
]


@pytest.mark.parametrize(("form", "path", "value", "reported"), BAD_FIELDS)
def test_check_names_the_bad_field(connection, form, path, value, reported):
    inputs = (legacy_form_inputs if form == "legacy" else public_inputs)("j")
    _set(inputs, path, value)
    failures = provider.check({}, with_connection(inputs, connection)).failures
    assert [f.property for f in failures] == [reported or bracketed(path)]
    assert failures[0].reason


def test_check_accepts_the_paths_the_service_takes(connection):
    inputs = public_inputs("j")
    inputs["spark_python_task"]["python_file"] = "/Workspace/Shared/jobs/etl.py"
    inputs["new_cluster"]["cluster_log_conf"]["dbfs"]["destination"] = "dbfs:/logs"
    del inputs["new_cluster"]["spark_version"]  # a policy or pool may give these
    del inputs["new_cluster"]["node_type_id"]
    assert provider.check({}, with_connection(inputs, connection)).failures == []
    inputs["spark_python_task"]["python_file"] = "/Volumes/main/default/jobs/etl.py"
    assert provider.check({}, with_connection(inputs, connection)).failures == []


def test_check_reports_cluster_size_and_duplicate_placement(connection):
    inputs = public_inputs("j")
    del inputs["new_cluster"]["autoscale"]
    inputs["new_cluster"]["timeout_seconds"] = 60  # legacy-form place, other value than job level
    # Lifting the legacy shape comes first: a value given twice is named before the rest.
    failures = provider.check({}, with_connection(inputs, connection)).failures
    assert [f.property for f in failures] == ["new_cluster"]
    assert "timeout_seconds" in failures[0].reason

    del inputs["new_cluster"]["timeout_seconds"]
    failures = provider.check({}, with_connection(inputs, connection)).failures
    assert [f.property for f in failures] == ["new_cluster"]
    assert "num_workers" in failures[0].reason


def test_check_reports_every_bad_field_once(connection):
    inputs = public_inputs("")
    inputs["timeout_seconds"] = -1
    inputs["libraries"][0]["pypi"]["package"] = "requests"
    failures = provider.check({}, with_connection(inputs, connection)).failures
    assert sorted(f.property for f in failures) == [
        "libraries[0].pypi.package",
        "name",
        "timeout_seconds",
    ]


@pytest.mark.parametrize("make", [public_inputs, legacy_form_inputs])
def test_check_accepts_valid_input_in_either_nesting(connection, make):
    inputs = make("j")
    inputs["new_cluster"]["init_scripts"] = []
    inputs["libraries"].append({"pypi": {"package": "apache-beam[gcp]==2.57.0"}})
    assert provider.check({}, with_connection(inputs, connection)).failures == []


def test_check_leaves_unknown_values_unjudged_and_needs_a_connection(connection):
    inputs = public_inputs("j")
    inputs["name"] = UNKNOWN
    inputs["new_cluster"]["spark_env_vars"] = UNKNOWN
    assert provider.check({}, with_connection(inputs, connection)).failures == []
    failures = provider.check({}, copy.deepcopy(public_inputs("j"))).failures
    assert [f.property for f in failures] == ["connection"]


# --- diff ----------------------------------------------------------------------------


def test_diff_same_input_is_no_change(connection, created):
    id_, inputs, outs = created
    assert provider.diff(id_, outs, with_connection(inputs, connection)).changes is False


def test_diff_other_nesting_is_no_change(connection, created):
    id_, inputs, outs = created
    public = public_inputs(inputs["name"])
    assert provider.diff(id_, outs, with_connection(public, connection)).changes is False


def test_diff_reordered_libraries_is_no_change_reordered_init_scripts_is(connection, created):
    id_, inputs, outs = created
    inputs["libraries"].reverse()
    assert provider.diff(id_, outs, with_connection(inputs, connection)).changes is False
    inputs["new_cluster"]["init_scripts"].reverse()
    assert provider.diff(id_, outs, with_connection(inputs, connection)).changes is True


def test_diff_ignores_deployment_tag_and_credentials(connection, created):
    id_, inputs, outs = created
    news = with_connection(inputs, {**connection, "client_secret": "rotated", "max_attempts": 2})
    news["deployment_tag"] = "other/stack/name"
    assert provider.diff(id_, outs, news).changes is False


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("name", "renamed"),
        ("new_cluster.timeout_seconds", 60),
        ("new_cluster.autoscale.max_workers", 8),
        ("libraries.0.pypi.package", "requests==2.31.0"),
        ("new_cluster.cluster_log_conf.spark_env_vars", {"ENVIRONMENT": "prod"}),
    ],
)
def test_diff_changes_are_in_place(connection, created, path, value):
    id_, inputs, outs = created
    _set(inputs, path, value)
    diff = provider.diff(id_, outs, with_connection(inputs, connection))
    assert diff.changes is True
    assert diff.replaces == []


def test_diff_tolerates_unknown_values(connection, created):
    id_, inputs, outs = created
    inputs["new_cluster"]["spark_version"] = UNKNOWN
    diff = provider.diff(id_, outs, with_connection(inputs, connection))
    assert diff.changes is True
    assert diff.replaces == []


# --- create, read ----------------------------------------------------------------------


def test_create_makes_the_job_in_the_wire_form(connection, created):
    id_, inputs, outs = created
    job = get_job(connection, id_)
    settings = job["settings"]
    assert settings["name"] == inputs["name"]
    assert settings["tags"][DEPLOYMENT_TAG_KEY] == inputs["deployment_tag"]
    if connection["wire_form"] == "legacy":  # the legacy job in the legacy form's nesting
        assert settings["format"] == "SINGLE_TASK"
        assert settings["new_cluster"]["timeout_seconds"] == 3600
    else:  # Jobs 2.2 multi-task settings
        assert settings["format"] == "MULTI_TASK"
        assert main_task(settings)["timeout_seconds"] == 3600
    assert outs["job_id"] == int(id_)
    assert outs["url"].endswith(f"#job/{id_}")
    assert outs["creator_user_name"] == connection["client_id"]
    # Recorded in the normal form, without the tag and without server defaults.
    recorded = canonical({k: v for k, v in inputs.items() if k != "deployment_tag"})
    assert {k: outs[k] for k in recorded} == recorded
    assert main_task(outs)["timeout_seconds"] == 3600
    assert "tags" not in outs and "max_concurrent_runs" not in outs


def test_read_returns_the_recorded_spec(connection, created):
    id_, _inputs, outs = created
    read = provider.read(id_, outs)
    assert read.id == id_
    assert read.outs == outs


def test_read_shows_out_of_band_changes_of_declared_fields_only(connection, created):
    id_, inputs, outs = created
    settings = settings_of(connection, id_)
    main_task(settings)["timeout_seconds"] = 60
    settings["max_concurrent_runs"] = 5  # not declared: not ours to report
    JobsApi(client_of(connection)).reset(int(id_), settings)

    read = provider.read(id_, outs)
    assert read.outs is not None
    assert main_task(read.outs)["timeout_seconds"] == 60
    assert "max_concurrent_runs" not in read.outs
    diff = provider.diff(id_, read.outs, with_connection(inputs, connection))
    assert diff.changes is True


def test_read_of_a_missing_job_is_gone(connection, created):
    id_, _inputs, outs = created
    client_of(connection).post("/api/2.0/jobs/delete", {"job_id": int(id_)})
    read = provider.read(id_, outs)
    assert read.id is None


def test_read_for_import_takes_the_whole_job(connection, created):
    id_, inputs, _outs = created
    read = provider.read(id_, {"connection": connection})
    assert read.outs is not None
    assert read.id == id_
    assert read.outs["name"] == inputs["name"]
    assert main_task(read.outs)["new_cluster"]["spark_env_vars"] == {"ENVIRONMENT": "test"}
    assert read.outs["deployment_tag"] == inputs["deployment_tag"]


# --- update, delete --------------------------------------------------------------------


def test_update_changes_the_settings_and_keeps_the_tag(connection, created):
    id_, inputs, outs = created
    news = public_inputs("renamed-" + inputs["name"])
    news["deployment_tag"] = inputs["deployment_tag"]
    news["max_retries"] = 1
    result = provider.update(id_, outs, with_connection(news, connection))
    assert result.outs is not None

    settings = settings_of(connection, id_)
    assert settings["name"] == news["name"]
    assert main_task(settings)["max_retries"] == 1
    assert settings["tags"][DEPLOYMENT_TAG_KEY] == inputs["deployment_tag"]
    assert result.outs["name"] == news["name"]
    assert provider.diff(id_, result.outs, with_connection(news, connection)).changes is False


def test_an_imported_untagged_job_is_updated_without_a_tag(connection, made):
    """A job made outside the stack and imported (`stacks.adopt`) has no deployment tag: an
    update changes what the stack declares and tags nothing."""
    inputs = public_inputs(unique_name())
    settings = provider.spec(JobModel.model_validate(inputs))
    job_id = str(client_of(connection).post("/api/2.0/jobs/create", settings)["job_id"])
    made.append(job_id)
    imported = provider.read(job_id, {"connection": connection})
    assert imported.outs is not None and not imported.outs.get("deployment_tag")
    news = {**inputs, "max_retries": 4}
    provider.update(job_id, imported.outs, with_connection(news, connection))
    updated = settings_of(connection, job_id)
    assert main_task(updated)["max_retries"] == 4
    assert DEPLOYMENT_TAG_KEY not in (updated.get("tags") or {})


def test_delete_removes_the_job_and_a_missing_job_is_deleted(connection, created):
    id_, _inputs, outs = created
    provider.delete(id_, outs)
    with pytest.raises(NotFound):
        get_job(connection, id_)
    provider.delete(id_, outs)


# --- no duplicates -----------------------------------------------------------------------


def _create_directly(connection: dict[str, Any], inputs: dict[str, Any]) -> int:
    settings = provider.spec(JobModel.model_validate(inputs))
    settings["tags"] = {DEPLOYMENT_TAG_KEY: inputs["deployment_tag"]}
    created = client_of(connection).post("/api/2.0/jobs/create", settings)
    return int(created["job_id"])


def test_create_adopts_a_job_left_by_an_interrupted_create(connection, made):
    inputs = public_inputs(unique_name())
    inputs["max_retries"] = 0
    left_over = _create_directly(connection, {**inputs, "max_retries": 7})
    made.append(str(left_over))

    result = provider.create(with_connection(inputs, connection))

    assert result.id == str(left_over)
    assert [j["job_id"] for j in jobs_named(connection, inputs["name"])] == [left_over]
    assert main_task(settings_of(connection, result.id)).get("max_retries", 0) == 0


def test_create_does_not_adopt_another_deployments_job(connection, made):
    inputs = public_inputs(unique_name())
    other = _create_directly(connection, {**inputs, "deployment_tag": "p/other-stack/r"})
    made.append(str(other))
    result = provider.create(with_connection(inputs, connection))
    made.append(result.id)
    assert result.id != str(other)


def test_create_finds_its_job_on_a_later_page(connection, made, monkeypatch):
    monkeypatch.setattr(jobs_api, "LIST_PAGE_SIZE", 2)
    inputs = public_inputs(unique_name())
    ours = _create_directly(connection, inputs)  # the oldest: listed last
    made.append(str(ours))
    for stack in ("a", "b", "c"):
        made.append(str(_create_directly(connection, {**inputs, "deployment_tag": stack})))
    assert provider.create(with_connection(inputs, connection)).id == str(ours)


def _failing_create(monkeypatch, *, after_sending: bool) -> None:
    """jobs/create answers 500: after the service made the job, or before."""
    real_post = WorkspaceClient.post
    creates = {f"{base}/create" for base in jobs_api.JOBS_PATHS.values()}

    def post(self, path, body=None, *, idempotent=False):
        if path in creates:
            if after_sending:
                real_post(self, path, body, idempotent=idempotent)
            raise ServerError(
                status=500, code="INTERNAL_ERROR", message="boom", method="POST", path=path
            )
        return real_post(self, path, body, idempotent=idempotent)

    monkeypatch.setattr(WorkspaceClient, "post", post)


def test_create_adopts_after_an_ambiguous_failure(connection, made, monkeypatch):
    _failing_create(monkeypatch, after_sending=True)
    inputs = public_inputs(unique_name())
    result = provider.create(with_connection(inputs, connection))
    made.append(result.id)
    assert [str(j["job_id"]) for j in jobs_named(connection, inputs["name"])] == [result.id]


def test_create_reraises_an_ambiguous_failure_when_nothing_was_made(connection, monkeypatch):
    _failing_create(monkeypatch, after_sending=False)
    inputs = public_inputs(unique_name())
    with pytest.raises(ServerError):
        provider.create(with_connection(inputs, connection))
    assert jobs_named(connection, inputs["name"]) == []


# --- the resource (program side) ---------------------------------------------------------


def test_resource_sends_typed_args_and_its_deployment_tag(connection):
    mocks = RecordingMocks()
    pulumi.runtime.set_mocks(mocks, project="proj", stack="dev", preview=False)
    args = JobArgs(
        name="nightly",
        new_cluster=NewClusterArgs(
            spark_version="13.3.x-scala2.12",
            node_type_id="Standard_DS3_v2",
            autoscale=AutoscaleArgs(min_workers=1, max_workers=2),
            cluster_log_conf=ClusterLogConfArgs(dbfs=DbfsStorageArgs("dbfs:/mnt/logs")),
        ),
        libraries=[LibraryArgs(pypi=PypiLibraryArgs("requests==2.32.3"))],
        spark_python_task=SparkPythonTaskArgs("dbfs:/jobs/etl.py"),
    )

    @pulumi.runtime.test
    def scenario():
        Job("nightly-etl", args, connection=connection)

    scenario()
    (registered,) = mocks.registered
    inputs = registered.inputs
    assert inputs["deployment_tag"] == "proj/dev/nightly-etl"
    assert inputs["new_cluster"]["autoscale"] == {"min_workers": 1, "max_workers": 2}
    assert inputs["libraries"] == [{"pypi": {"package": "requests==2.32.3"}}]
    assert "existing_cluster_id" not in inputs
    inputs.pop("connection")
    assert provider.check({}, {**inputs, "connection": connection}).failures == []


# --- libraries in the specification's nesting ------------------------------------------------


def spec_nesting_inputs(name: str) -> dict[str, Any]:
    """legacy_form_inputs with the libraries inside new_cluster, as the specification's body has
    them (docs/api.md#create-job-body)."""
    inputs = legacy_form_inputs(name)
    inputs["new_cluster"]["libraries"] = inputs.pop("libraries")
    return inputs


def test_libraries_in_new_cluster_are_accepted_sent_in_the_wire_form_and_stable(connection, made):
    inputs = spec_nesting_inputs(unique_name())
    assert provider.check({}, with_connection(inputs, connection)).failures == []

    result = provider.create(with_connection(inputs, connection))
    assert result.outs is not None
    made.append(result.id)

    settings = get_job(connection, result.id)["settings"]
    if connection["wire_form"] == "legacy":  # the legacy form's nesting: in new_cluster
        holder, other = settings["new_cluster"], settings
    else:  # Jobs 2.2: the task's
        holder = main_task(settings)
        other = holder["new_cluster"]
    assert sorted(lib["pypi"]["package"] for lib in holder["libraries"]) == [
        "pandas==2.2.2",
        "requests==2.32.3",
    ]
    assert "libraries" not in other
    for nesting in (inputs, public_inputs(inputs["name"])):
        nesting["deployment_tag"] = inputs["deployment_tag"]
        diff = provider.diff(result.id, result.outs, with_connection(nesting, connection))
        assert diff.changes is False
    read = provider.read(result.id, result.outs)
    assert read.outs == result.outs


def test_check_refuses_libraries_given_twice_with_other_values(connection):
    inputs = spec_nesting_inputs("j")
    inputs["libraries"] = [{"pypi": {"package": "numpy==2.0.0"}}]
    failures = provider.check({}, with_connection(inputs, connection)).failures
    assert [f.property for f in failures] == ["new_cluster"]
    assert "libraries" in failures[0].reason
