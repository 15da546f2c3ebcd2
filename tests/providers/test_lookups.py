"""Lookups against the emulator, in both wire forms: each finds what it is asked for, and
fails naming what it looked up when there is nothing (or more than one) to find."""

from __future__ import annotations

import uuid
from typing import Any

import pulumi
import pytest

from providers import lookups
from providers.client import WorkspaceClient
from providers.jobs.jobs_api import JobsApi
from providers.lookups import LookupFailed
from providers.unity_catalog.catalogs_api import CatalogsApi
from tests.providers.resource_mocks import RecordingMocks
from tests.providers.support import import_notebook
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

SHARED_CLUSTER = "0101-120000-shared01"
OTHER_WORKSPACE = 2345678901234567


def make_job(client: WorkspaceClient, name: str) -> int:
    settings = {
        "name": name,
        "existing_cluster_id": SHARED_CLUSTER,
        "spark_python_task": {"python_file": "dbfs:/scripts/etl.py"},
    }
    return JobsApi(client).create(settings)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_cluster_by_name_and_by_id(client: WorkspaceClient) -> None:
    by_name = lookups.find_cluster(client, name="shared-autoscaling")
    assert by_name["cluster_id"] == SHARED_CLUSTER
    assert by_name["autoscale"] == {"min_workers": 1, "max_workers": 4}
    by_id = lookups.find_cluster(client, cluster_id="0101-120000-etl00002")
    assert by_id["cluster_name"] == "etl-nightly"
    assert by_id["num_workers"] == 2
    assert by_id["state"] in {"TERMINATED", "PENDING", "RUNNING", "TERMINATING"}


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"name": "no-such-cluster"}, "no cluster named 'no-such-cluster' in the workspace"),
        (
            {"cluster_id": "0000-000000-missing0"},
            "no cluster with cluster_id '0000-000000-missing0'",
        ),
    ],
)
def test_missing_cluster_is_named(client: WorkspaceClient, keys: dict, message: str) -> None:
    with pytest.raises(LookupFailed, match=message):
        lookups.find_cluster(client, **keys)


def test_job_by_name_and_id_and_ambiguous_name(client: WorkspaceClient) -> None:
    name = unique("lookup-job")
    job_id = make_job(client, name)
    by_name = lookups.find_job(client, name=name)
    assert by_name["job_id"] == job_id
    (task,) = by_name["settings"]["tasks"]  # the full settings, in the canonical shape
    assert task["spark_python_task"]["python_file"] == "dbfs:/scripts/etl.py"
    assert lookups.find_job(client, job_id=str(job_id))["name"] == name

    twin = make_job(client, name)
    with pytest.raises(
        LookupFailed, match=rf"2 objects match: job named '{name}'.*job_id"
    ) as raised:
        lookups.find_job(client, name=name)
    assert str(job_id) in str(raised.value) and str(twin) in str(raised.value)


def test_missing_job_is_named(client: WorkspaceClient) -> None:
    with pytest.raises(LookupFailed, match="no job named 'no-such-job-x1'"):
        lookups.find_job(client, name="no-such-job-x1")
    with pytest.raises(LookupFailed, match="no job with job_id 999"):
        lookups.find_job(client, job_id=999)
    with pytest.raises(LookupFailed, match="a job id is a number, got 'abc'"):
        lookups.find_job(client, job_id="abc")


def test_job_run_by_id(client: WorkspaceClient) -> None:
    job_id = make_job(client, unique("lookup-run"))
    run_id = JobsApi(client).run_now(job_id, python_params=["--date", "2024-01-01"])["run_id"]
    run = lookups.find_job_run(client, run_id=run_id)
    assert run["run_id"] == run_id and run["job_id"] == job_id
    assert run["python_params"] == ["--date", "2024-01-01"]
    assert run["life_cycle_state"] == "TERMINATED" and run["result_state"] == "SUCCESS"
    assert run["run_page_url"].endswith(f"/run/{run_id}")
    with pytest.raises(LookupFailed, match="no job run with run_id 12345"):
        lookups.find_job_run(client, run_id=12345)


def make_multi_task_job(client: WorkspaceClient, name: str) -> int:
    """Two tasks on a job cluster, the second failing (`--fail`), and a job parameter."""
    cluster = {"spark_version": "15.4.x-scala2.12", "node_type_id": "n", "num_workers": 1}
    import_notebook(client, "/Workspace/etl/load")
    return JobsApi(client).create(
        {
            "name": name,
            "job_clusters": [{"job_cluster_key": "etl", "new_cluster": cluster}],
            "tasks": [
                {
                    "task_key": "load",
                    "job_cluster_key": "etl",
                    "notebook_task": {"notebook_path": "/Workspace/etl/load"},
                },
                {
                    "task_key": "check",
                    "depends_on": [{"task_key": "load"}],
                    "job_cluster_key": "etl",
                    "spark_python_task": {"python_file": "dbfs:/etl/--fail.py"},
                },
            ],
            "parameters": [{"name": "date", "default": "2024-01-01"}],
        }
    )


def test_multi_task_job_comes_with_its_full_settings(client: WorkspaceClient) -> None:
    name = unique("lookup-multi")
    job_id = make_multi_task_job(client, name)
    for found in (lookups.find_job(client, job_id=job_id), lookups.find_job(client, name=name)):
        assert found["job_id"] == job_id and found["name"] == name
        settings = found["settings"]
        assert [t["task_key"] for t in settings["tasks"]] == ["load", "check"]
        assert settings["tasks"][1]["depends_on"] == [{"task_key": "load"}]
        assert settings["job_clusters"][0]["job_cluster_key"] == "etl"
        assert settings["parameters"] == [{"name": "date", "default": "2024-01-01"}]


def test_job_run_of_a_multi_task_job_lists_its_tasks(client: WorkspaceClient) -> None:
    job_id = make_multi_task_job(client, unique("lookup-multi-run"))
    run_id = JobsApi(client).run_now(job_id, job_parameters={"date": "2024-06-01"})["run_id"]
    run = lookups.find_job_run(client, run_id=run_id)
    assert run["result_state"] == "FAILED"
    assert run["job_parameters"] == {"date": "2024-06-01"}
    load, check = run["tasks"]
    assert load["task_key"] == "load" and load["result_state"] == "SUCCESS"
    assert check["task_key"] == "check" and check["result_state"] == "FAILED"
    assert "contained '--fail'" in check["state_message"]
    assert check["life_cycle_state"] == "TERMINATED"
    assert isinstance(check["run_id"], int) and check["run_id"] not in (load["run_id"], run_id)


def test_service_principal_by_application_id_and_name(
    client: WorkspaceClient, emulator: EmulatorInfo
) -> None:
    by_id = lookups.find_service_principal(client, application_id=emulator.client_id)
    assert by_id["display_name"] == "iac-bootstrap"
    assert by_id["groups"] == ["admins"]
    assert by_id["entitlements"] == ["allow-cluster-create", "workspace-access"]
    by_name = lookups.find_service_principal(client, display_name="iac-bootstrap")
    assert by_name == by_id
    with pytest.raises(LookupFailed, match="no service principal named 'nobody-here'"):
        lookups.find_service_principal(client, display_name="nobody-here")


def test_secret_scope_by_name(client: WorkspaceClient) -> None:
    assert lookups.find_secret_scope(client, name="platform-shared")["name"] == "platform-shared"
    with pytest.raises(LookupFailed, match="no secret scope named 'absent-scope'"):
        lookups.find_secret_scope(client, name="absent-scope")


def test_ip_access_lists(client: WorkspaceClient) -> None:
    every = {item["label"]: item for item in lookups.find_ip_access_lists(client)}
    assert every["office-network"]["list_type"] == "ALLOW"
    assert every["office-network"]["ip_addresses"] == ["203.0.113.0/24", "198.51.100.7"]
    one = lookups.find_ip_access_list(client, label="known-bad")
    assert one["list_type"] == "BLOCK"
    assert lookups.find_ip_access_list(client, list_id=one["list_id"]) == one
    with pytest.raises(LookupFailed, match="no IP access list labelled 'home'"):
        lookups.find_ip_access_list(client, label="home")


def test_repo_by_id_and_path(client: WorkspaceClient) -> None:
    by_path = lookups.find_repo(client, path="/Repos/iac/ml-models")
    assert by_path["id"] == 3000000000000002
    assert by_path["url"] == "https://github.com/example-org/ml-models.git"
    assert lookups.find_repo(client, repo_id=by_path["id"])["path"] == "/Repos/iac/ml-models"
    # A prefix of another repo's path is not that repo.
    with pytest.raises(LookupFailed, match="no repo at path '/Repos/iac/ml'"):
        lookups.find_repo(client, path="/Repos/iac/ml")
    with pytest.raises(LookupFailed, match="no repo with repo_id 42"):
        lookups.find_repo(client, repo_id=42)


def test_catalog_bindings(client: WorkspaceClient) -> None:
    CatalogsApi(client).update_isolation("sandbox", "ISOLATED")
    CatalogsApi(client).bind("sandbox", [OTHER_WORKSPACE])
    try:
        found = lookups.find_catalog_bindings(client, catalog="sandbox")
        assert found["isolation_mode"] == "ISOLATED"
        assert {"workspace_id": OTHER_WORKSPACE, "binding_type": "BINDING_TYPE_READ_WRITE"} in (
            found["bindings"]
        )
    finally:
        CatalogsApi(client).unbind("sandbox", [OTHER_WORKSPACE])
        CatalogsApi(client).update_isolation("sandbox", "OPEN")
    with pytest.raises(LookupFailed, match="no catalog named 'no_such_catalog'"):
        lookups.find_catalog_bindings(client, catalog="no_such_catalog")


def test_lookups_only_read(client: WorkspaceClient, emulator: EmulatorInfo) -> None:
    clear_request_log(emulator)
    lookups.find_cluster(client, name="etl-nightly")
    lookups.find_repo(client, path="/Repos/iac/data-pipelines")
    lookups.find_catalog_bindings(client, catalog="main")
    lookups.find_ip_access_lists(client)
    calls = [r for r in request_log(emulator) if r["service"] == "platform"]
    assert calls and {r["method"] for r in calls} == {"GET"}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda c: lookups.get_cluster(c), "get_cluster: give name or cluster_id"),
        (
            lambda c: lookups.get_job(c, name="a", job_id=1),
            r"get_job: give name or job_id \(got name, job_id\)",
        ),
        (lambda c: lookups.get_repo(c), "get_repo: give repo_id or path"),
    ],
)
def test_program_lookups_need_exactly_one_key(call: Any, message: str) -> None:
    with pytest.raises(LookupFailed, match=message):
        call({})


def test_program_lookup_takes_a_secret_connection_and_gives_a_plain_output(
    connection: dict[str, Any],
) -> None:
    pulumi.runtime.set_mocks(RecordingMocks({}), project="proj", stack="dev", preview=True)
    seen: dict[str, Any] = {}

    @pulumi.runtime.test
    def scenario():
        secret_connection = pulumi.Output.secret(connection)
        cluster = lookups.get_cluster(secret_connection, name=pulumi.Output.from_input("ml-gpu"))

        async def inspect():
            seen["secret"] = await cluster.is_secret()
            seen["value"] = await cluster.future()

        return pulumi.Output.from_input(inspect())

    scenario()
    assert seen["secret"] is False
    assert seen["value"]["cluster_id"] == "0101-120000-mlgpu004"


def test_program_lookup_failure_fails_the_program(connection: dict[str, Any]) -> None:
    pulumi.runtime.set_mocks(RecordingMocks({}), project="proj", stack="dev", preview=True)

    @pulumi.runtime.test
    def scenario():
        return lookups.get_secret_scope(pulumi.Output.secret(connection), name="absent")

    with pytest.raises(LookupFailed, match="no secret scope named 'absent'"):
        scenario()


def test_a_secret_key_keeps_the_result_secret(connection: dict[str, Any]) -> None:
    pulumi.runtime.set_mocks(RecordingMocks({}), project="proj", stack="dev", preview=True)
    seen: dict[str, Any] = {}

    @pulumi.runtime.test
    def scenario():
        scope = lookups.get_secret_scope(connection, name=pulumi.Output.secret("platform-shared"))

        async def inspect():
            seen["secret"] = await scope.is_secret()
            seen["value"] = await scope.future()

        return pulumi.Output.from_input(inspect())

    scenario()
    assert seen["secret"] is True
    assert seen["value"]["name"] == "platform-shared"
