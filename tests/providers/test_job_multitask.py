"""JobProvider with multi-task jobs against an emulator of this module's own, in both wire
forms: create, read, update merging by key, authoritative reset, delete, import and adoption,
with the platform calls each costs counted from the emulator's request log."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import NotFound, WireForm, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.jobs.job import DEPLOYMENT_TAG_KEY, JobProvider
from providers.jobs.job_diff import canonical
from providers.jobs.jobs_api import JOBS_PATHS, JobsApi
from tests.conftest import emulator_fixture
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

# A workspace of its own: a create's listing of the jobs is one page.
emulator = emulator_fixture("module")

provider = JobProvider()
COMPUTED = {"job_id", "url", "creator_user_name", "deployment_tag", CONNECTION_KEY}
CLUSTER = {"spark_version": "15.4.x-scala2.12", "node_type_id": "Standard_DS3_v2", "num_workers": 2}
SCHEDULE = {"quartz_cron_expression": "0 30 2 * * ?", "timezone_id": "Europe/Amsterdam"}
# As the service shows it: unpaused unless the schedule says otherwise.
LIVE_SCHEDULE = {**SCHEDULE, "pause_status": "UNPAUSED"}



def outs(result: Any) -> dict[str, Any]:
    """A provider result's outputs, which a found object always has."""
    assert result.outs is not None
    return result.outs

def notebook(key: str, *upstream: str, **fields: Any) -> dict[str, Any]:
    task = {
        "task_key": key,
        "job_cluster_key": "shared",
        "notebook_task": {"notebook_path": f"/Workspace/etl/{key}"},
        **fields,
    }
    if upstream:
        task["depends_on"] = [{"task_key": name} for name in upstream]
    return task


def declaration(principal: str, *, schedule: bool = True) -> dict[str, Any]:
    """Five tasks on a shared job cluster, notifications, run as a service principal, job
    parameters, and (unless told otherwise) a schedule."""
    name = f"multi-{uuid.uuid4().hex[:10]}"
    settings: dict[str, Any] = {
        "name": name,
        "job_clusters": [{"job_cluster_key": "shared", "new_cluster": CLUSTER}],
        "tasks": [
            {
                "task_key": "ingest",
                "job_cluster_key": "shared",
                "spark_python_task": {
                    "python_file": "dbfs:/jobs/ingest.py",
                    "parameters": ["--date", "{{job.parameters.date}}"],
                },
            },
            notebook("clean", "ingest"),
            notebook("enrich", "ingest", libraries=[{"pypi": {"package": "requests==2.32.3"}}]),
            notebook("publish", "clean", "enrich", max_retries=2),
            notebook("report", "publish", timeout_seconds=600),
        ],
        "email_notifications": {"on_failure": ["data-eng@example.com"]},
        "run_as": {"service_principal_name": principal},
        "parameters": [{"name": "date", "default": "2024-01-01"}, {"name": "env", "default": "t"}],
        "deployment_tag": f"proj/dev/{name}",
    }
    if schedule:
        settings["schedule"] = SCHEDULE
    return settings


def props_of(settings: dict[str, Any], connection: dict[str, Any]) -> dict[str, Any]:
    return {**copy.deepcopy(settings), CONNECTION_KEY: connection}


def recorded_settings(outputs: dict[str, Any]) -> dict[str, Any]:
    """The recorded settings in normal form (the state keeps the declared order of tasks)."""
    return canonical({k: v for k, v in outputs.items() if k not in COMPUTED})


def declared_settings(settings: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in settings.items() if k != "deployment_tag"}


def task_named(settings: dict[str, Any], key: str) -> dict[str, Any]:
    (task,) = [t for t in settings["tasks"] if t["task_key"] == key]
    return task


def platform_calls(emulator: EmulatorInfo) -> list[tuple[str, str]]:
    return [
        (r["method"], r["path"]) for r in request_log(emulator) if r["path"].startswith("/api/")
    ]


@pytest.fixture
def jobs_path(connection: dict[str, Any]) -> str:
    return JOBS_PATHS[WireForm(connection["wire_form"])]


@pytest.fixture
def made(connection: dict[str, Any]) -> Iterator[list[str]]:
    """Ids of the jobs a test made; deleted afterwards."""
    ids: list[str] = []
    yield ids
    for job_id in ids:
        provider.delete(job_id, {CONNECTION_KEY: connection})


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """(path, body) of each POST the provider sends, as it sends it."""
    posts: list[tuple[str, dict[str, Any]]] = []
    real_post = WorkspaceClient.post

    def post(self, path, body=None, *, idempotent=False):
        posts.append((path, copy.deepcopy(body)))
        return real_post(self, path, body, idempotent=idempotent)

    monkeypatch.setattr(WorkspaceClient, "post", post)
    return posts


def create(settings: dict[str, Any], connection: dict[str, Any], made: list[str]) -> Any:
    result = provider.create(props_of(settings, connection))
    made.append(result.id)
    return result


# --- create ------------------------------------------------------------------------------


def test_create_makes_the_whole_job_after_one_listing_per_deployment(
    emulator, connection, client, made, jobs_path
) -> None:
    declared = [declaration(emulator.client_id) for _ in range(4)]
    clear_request_log(emulator)
    results = [create(settings, connection, made) for settings in declared]

    calls = platform_calls(emulator)
    assert calls == [("GET", f"{jobs_path}/list")] + [("POST", f"{jobs_path}/create")] * 4
    assert len(calls) / len(declared) <= 1.5

    for settings, result in zip(declared, results, strict=True):
        job = JobsApi(client).get(int(result.id))
        live = job["settings"]
        assert live["tags"] == {DEPLOYMENT_TAG_KEY: settings["deployment_tag"]}
        assert canonical(live, declared=declared_settings(settings)) == canonical(
            declared_settings(settings)
        )
        assert [t["task_key"] for t in live["tasks"]] == [
            "ingest", "clean", "enrich", "publish", "report"
        ]  # fmt: skip
        assert live["run_as"] == {"service_principal_name": emulator.client_id}
        assert live["schedule"] == LIVE_SCHEDULE
        # The state records the declaration in the normal form.
        assert recorded_settings(result.outs) == canonical(declared_settings(settings))
        assert result.outs["job_id"] == int(result.id)
        assert result.outs["deployment_tag"] == settings["deployment_tag"]


def test_the_job_goes_out_as_jobs_2_2_settings(emulator, connection, made, sent) -> None:
    settings = declaration(emulator.client_id)
    create(settings, connection, made)
    [(path, body)] = [(p, b) for p, b in sent if p.endswith("/jobs/create")]
    assert "new_cluster" not in body and "spark_python_task" not in body
    assert {t["task_key"] for t in body["tasks"]} == {t["task_key"] for t in settings["tasks"]}
    assert body["job_clusters"] == settings["job_clusters"]


# --- read --------------------------------------------------------------------------------


def test_a_read_right_after_create_is_no_change(emulator, connection, made) -> None:
    settings = declaration(emulator.client_id)
    result = create(settings, connection, made)
    read = provider.read(result.id, result.outs)
    assert read.outs == result.outs
    assert not provider.diff(result.id, read.outs, props_of(settings, connection)).changes


def test_a_read_shows_an_out_of_band_change_of_a_declared_field(
    emulator, connection, client, made
) -> None:
    settings = declaration(emulator.client_id)
    result = create(settings, connection, made)
    publish = task_named(JobsApi(client).get(int(result.id))["settings"], "publish")
    JobsApi(client).update(int(result.id), {"tasks": [{**publish, "max_retries": 5}]})

    read = provider.read(result.id, result.outs)
    assert task_named(outs(read), "publish")["max_retries"] == 5
    diff = provider.diff(result.id, read.outs, props_of(settings, connection))
    assert diff.changes and diff.changed_keys == ["tasks"]
    assert diff.field_changes == ["tasks[publish].max_retries: 5 → 2"]


def test_a_read_does_not_show_an_undeclared_schedule_added_out_of_band(
    emulator, connection, client, made
) -> None:
    settings = declaration(emulator.client_id, schedule=False)
    result = create(settings, connection, made)
    JobsApi(client).update(int(result.id), {"schedule": SCHEDULE})

    read = provider.read(result.id, result.outs)
    assert "schedule" not in outs(read)
    assert read.outs == result.outs
    assert not provider.diff(result.id, read.outs, props_of(settings, connection)).changes


# --- update ------------------------------------------------------------------------------


def test_an_update_sends_only_the_changed_task_in_one_write(
    emulator, connection, client, made, sent, jobs_path
) -> None:
    settings = declaration(emulator.client_id)
    result = create(settings, connection, made)
    news = copy.deepcopy(settings)
    task_named(news, "enrich")["libraries"].append({"pypi": {"package": "pandas==2.2.2"}})

    clear_request_log(emulator)
    sent.clear()
    updated = provider.update(
        result.id, result.outs, props_of(news, connection), old_inputs=settings
    )

    assert platform_calls(emulator) == [("POST", f"{jobs_path}/update")]
    [(_, body)] = sent
    assert body["new_settings"]["tasks"] == [task_named(news, "enrich")]
    assert "job_clusters" not in body["new_settings"]
    assert "fields_to_remove" not in body
    live = JobsApi(client).get(int(result.id))["settings"]
    assert canonical(live, declared=declared_settings(news)) == canonical(declared_settings(news))
    assert recorded_settings(outs(updated)) == canonical(declared_settings(news))
    assert not provider.diff(result.id, updated.outs, props_of(news, connection)).changes


def test_an_update_removes_a_task_by_its_key(
    emulator, connection, client, made, sent, jobs_path
) -> None:
    settings = declaration(emulator.client_id)
    result = create(settings, connection, made)
    news = copy.deepcopy(settings)
    news["tasks"] = [t for t in news["tasks"] if t["task_key"] != "report"]

    clear_request_log(emulator)
    sent.clear()
    provider.update(result.id, result.outs, props_of(news, connection), old_inputs=settings)

    assert platform_calls(emulator) == [("POST", f"{jobs_path}/update")]
    [(_, body)] = sent
    assert body["fields_to_remove"] == ["tasks/report"]
    assert "tasks" not in body["new_settings"]
    live = JobsApi(client).get(int(result.id))["settings"]
    assert [t["task_key"] for t in live["tasks"]] == ["ingest", "clean", "enrich", "publish"]


def test_an_update_after_a_refresh_undoes_what_the_preview_showed(
    emulator, connection, client, made, sent
) -> None:
    settings = declaration(emulator.client_id)
    result = create(settings, connection, made)
    live = JobsApi(client).get(int(result.id))["settings"]
    extra = {**notebook("audit", "report"), "timeout_seconds": 60}
    JobsApi(client).update(
        int(result.id), {"tasks": [{**task_named(live, "publish"), "max_retries": 5}, extra]}
    )
    refreshed = provider.read(result.id, result.outs)
    diff = provider.diff(result.id, refreshed.outs, props_of(settings, connection))
    assert [change.split(":")[0] for change in diff.field_changes] == [
        "tasks[audit]",
        "tasks[publish].max_retries",
    ]

    sent.clear()
    # The declaration is unchanged: the update brings the job back to it.
    provider.update(result.id, refreshed.outs, props_of(settings, connection), old_inputs=settings)
    [(_, body)] = sent
    assert body["new_settings"]["tasks"] == [task_named(settings, "publish")]
    assert body["fields_to_remove"] == ["tasks/audit"]
    live = JobsApi(client).get(int(result.id))["settings"]
    assert canonical(live, declared=declared_settings(settings)) == canonical(
        declared_settings(settings)
    )


def test_an_undeclared_schedule_added_out_of_band_survives_an_update(
    emulator, connection, client, made
) -> None:
    settings = declaration(emulator.client_id, schedule=False)
    result = create(settings, connection, made)
    JobsApi(client).update(int(result.id), {"schedule": SCHEDULE})
    refreshed = provider.read(result.id, result.outs)

    news = copy.deepcopy(settings)
    task_named(news, "report")["timeout_seconds"] = 1200
    provider.update(result.id, refreshed.outs, props_of(news, connection), old_inputs=settings)

    live = JobsApi(client).get(int(result.id))["settings"]
    assert live["schedule"] == LIVE_SCHEDULE
    assert task_named(live, "report")["timeout_seconds"] == 1200


def test_an_authoritative_update_resets_the_job_and_drops_the_undeclared_schedule(
    emulator, connection, client, made, jobs_path
) -> None:
    settings = {**declaration(emulator.client_id, schedule=False), "authoritative": True}
    result = create(settings, connection, made)
    JobsApi(client).update(int(result.id), {"schedule": SCHEDULE})

    # A refresh records the schedule, and the preview shows the reset removing it.
    refreshed = provider.read(result.id, result.outs)
    assert outs(refreshed)["schedule"] == SCHEDULE
    diff = provider.diff(result.id, refreshed.outs, props_of(settings, connection))
    assert diff.changed_keys == ["schedule"]
    assert [change.split(":")[0] for change in diff.field_changes] == ["schedule"]

    clear_request_log(emulator)
    updated = provider.update(
        result.id, refreshed.outs, props_of(settings, connection), old_inputs=settings
    )
    assert platform_calls(emulator) == [("POST", f"{jobs_path}/reset")]
    live = JobsApi(client).get(int(result.id))["settings"]
    assert "schedule" not in live
    assert live["tags"][DEPLOYMENT_TAG_KEY] == settings["deployment_tag"]
    assert not provider.diff(result.id, updated.outs, props_of(settings, connection)).changes


# --- delete, import, adoption ---------------------------------------------------------------


def test_delete_removes_the_job_and_a_gone_job_is_no_error(emulator, connection, client) -> None:
    result = provider.create(props_of(declaration(emulator.client_id), connection))
    provider.delete(result.id, outs(result))
    with pytest.raises(NotFound):
        JobsApi(client).get(int(result.id))
    provider.delete(result.id, outs(result))


def test_an_import_by_id_takes_the_whole_job_and_matches_its_declaration(
    emulator, connection, made
) -> None:
    settings = declaration(emulator.client_id)
    result = create(settings, connection, made)

    imported = provider.read(result.id, {CONNECTION_KEY: connection})
    assert imported.id == result.id
    assert recorded_settings(outs(imported)) == canonical(declared_settings(settings))
    assert outs(imported)["deployment_tag"] == settings["deployment_tag"]
    assert outs(imported)["job_id"] == int(result.id)
    assert not provider.diff(result.id, imported.outs, props_of(settings, connection)).changes


def test_a_job_left_by_an_interrupted_create_is_adopted_not_duplicated(
    emulator, connection, client, made, jobs_path
) -> None:
    settings = declaration(emulator.client_id)
    left_over = declared_settings(copy.deepcopy(settings))
    left_over["tags"] = {DEPLOYMENT_TAG_KEY: settings["deployment_tag"]}
    left_over["tasks"] = left_over["tasks"][:2]  # the earlier declaration
    left_id = JobsApi(client).create(left_over)

    clear_request_log(emulator)
    result = create(settings, connection, made)

    assert result.id == str(left_id)
    assert platform_calls(emulator) == [
        ("GET", f"{jobs_path}/list"),
        ("POST", f"{jobs_path}/reset"),
    ]
    named = list(JobsApi(client).list(settings["name"]))
    assert [j["job_id"] for j in named] == [left_id]
    live = JobsApi(client).get(left_id)["settings"]
    assert len(live["tasks"]) == 5
    assert not provider.diff(result.id, result.outs, props_of(settings, connection)).changes
