"""JobRun against an emulator on a manual clock whose runs take 10 s (the provider's waits
move that clock), in both wire forms: a run waited
for to the end, a failed run failing with its message, one run per create however often
the create is retried, and a new run only for new inputs."""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.core import polling
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.jobs.job_run import JobRunFailed, JobRunProvider, idempotency_token
from providers.jobs.jobs_api import JOBS_PATHS, JobsApi
from tests.conftest import emulator_fixture
from tests.providers.support import (
    failures,
    import_notebook,
    waits_move_the_emulator_clock,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

# run-now in either wire form (Jobs 2.0 or 2.2).
RUN_NOW = {("POST", f"{base}/run-now") for base in JOBS_PATHS.values()}


emulator = emulator_fixture("module", clock="manual", transition_seconds=10)


@pytest.fixture(autouse=True)
def waits_on_the_emulator_clock(monkeypatch: pytest.MonkeyPatch, emulator: EmulatorInfo) -> None:
    waits_move_the_emulator_clock(monkeypatch, emulator)


@pytest.fixture
def provider() -> JobRunProvider:
    return JobRunProvider()


@pytest.fixture
def job_id(client: WorkspaceClient) -> int:
    settings = {
        "name": f"run-target-{uuid.uuid4().hex[:8]}",
        "existing_cluster_id": "0101-120000-shared01",
        "spark_python_task": {"python_file": "dbfs:/scripts/etl.py"},
    }
    return JobsApi(client).create(settings)


@pytest.fixture
def props(connection: dict[str, Any], job_id: int) -> dict[str, Any]:
    return {
        "job_id": job_id,
        "python_params": ["--date", "2024-06-01"],
        "trigger": "v1",
        "deployment_tag": f"proj/dev/run-{uuid.uuid4().hex[:6]}",
        CONNECTION_KEY: connection,
    }


def run_nows(emulator: EmulatorInfo) -> int:
    return sum(
        1
        for r in request_log(emulator)
        if r["service"] == "platform" and (r["method"], r["path"]) in RUN_NOW
    )


def runs_so_far(client: WorkspaceClient, job_id: int) -> int:
    """How many runs the job has had: one less than the number a probe run gets."""
    return int(JobsApi(client).run_now(job_id, python_params=[])["number_in_job"]) - 1


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"job_id": "abc"}, "job_id", "valid integer"),
        ({"job_id": 0}, "job_id", "greater than or equal to 1"),
        ({"python_params": "--x"}, "python_params", "valid list"),
        ({"python_params": [1]}, "python_params.0", "valid string"),
        ({"timeout_seconds": 0}, "timeout_seconds", "greater than or equal to 1"),
        ({"cluster": "x"}, "cluster", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert reason in failures(provider, {**props, **change})[field]


def test_check_accepts_unknowns(provider, props) -> None:
    assert failures(provider, {**props, "job_id": UNKNOWN}) == {}


def test_run_is_waited_for_and_its_outputs_recorded(provider, props, client, emulator) -> None:
    clear_request_log(emulator)
    created = provider.create(props)
    run = JobsApi(client).get_run(int(created.id))
    assert run["state"]["life_cycle_state"] == "TERMINATED"
    assert run["overriding_parameters"]["python_params"] == ["--date", "2024-06-01"]
    assert created.outs["run_id"] == int(created.id)
    assert created.outs["result_state"] == "SUCCESS"
    assert created.outs["run_page_url"] == run["run_page_url"]
    assert run_nows(emulator) == 1

    refreshed = provider.read(created.id, created.outs)
    assert refreshed.outs["result_state"] == "SUCCESS"
    assert not provider.diff(created.id, refreshed.outs, props).changes

    clear_request_log(emulator)
    provider.delete(created.id, created.outs)
    assert [r for r in request_log(emulator) if r["service"] == "platform"] == []


def test_a_failed_run_fails_with_its_state_message(provider, props, client, emulator) -> None:
    failing = {**props, "python_params": ["--fail"]}
    with pytest.raises(JobRunFailed) as raised:
        provider.create(failing)
    message = str(raised.value)
    assert "ended TERMINATED FAILED" in message
    assert "python_params contained '--fail'" in message
    assert "Change `trigger`" in message

    # The same inputs name the same run: no second run, the same failure.
    clear_request_log(emulator)
    with pytest.raises(JobRunFailed, match="python_params contained '--fail'") as again:
        provider.create(failing)
    assert str(again.value) == message
    assert run_nows(emulator) == 1
    assert runs_so_far(client, props["job_id"]) == 1


def test_a_retried_create_never_starts_a_second_run(provider, props, client, emulator) -> None:
    # The first attempt died after run-now (the run was started, nothing was recorded).
    token = idempotency_token(
        props["deployment_tag"],
        provider.spec(
            provider.args_model(**{k: v for k, v in props.items() if k != CONNECTION_KEY})
        ),
    )
    first = JobsApi(client).run_now(
        props["job_id"], python_params=props["python_params"], idempotency_token=token
    )["run_id"]
    created = provider.create(props)
    assert int(created.id) == first
    again = provider.create(props)
    assert again.id == created.id
    assert created.outs["result_state"] == "SUCCESS"
    assert runs_so_far(client, props["job_id"]) == 1


def test_a_timeout_leaves_the_run_for_the_next_attempt(
    provider, props, client, monkeypatch
) -> None:
    fake_now = [0.0]
    with monkeypatch.context() as patched:
        patched.setattr(polling, "monotonic", lambda: fake_now[0])
        patched.setattr(polling, "sleep", lambda s: fake_now.__setitem__(0, fake_now[0] + s))
        with pytest.raises(JobRunFailed, match=r"is still (PENDING|RUNNING) after 3 s") as raised:
            provider.create({**props, "timeout_seconds": 3})
    assert "Run `pulumi up` again to wait for this same run" in str(raised.value)
    run_id = int(str(raised.value).split("job run ")[1].split()[0])
    # The next attempt (same inputs; a longer timeout is no new run) waits for that run.
    created = provider.create({**props, "timeout_seconds": 60})
    assert int(created.id) == run_id
    assert created.outs["result_state"] == "SUCCESS"


def test_new_trigger_or_parameters_start_a_new_run(provider, props) -> None:
    created = provider.create(props)
    olds = created.outs
    assert not provider.diff(created.id, olds, props).changes
    for change in ({"trigger": "v2"}, {"python_params": ["--date", "2024-06-02"]}):
        diff = provider.diff(created.id, olds, {**props, **change})
        assert diff.changes and diff.replaces == list(change)
    timeout_only = provider.diff(created.id, olds, {**props, "timeout_seconds": 10})
    assert timeout_only.changes and timeout_only.replaces == []
    updated = provider.update(created.id, olds, {**props, "timeout_seconds": 10})
    assert updated.outs["run_id"] == olds["run_id"]

    rerun = provider.create({**props, "trigger": "v2"})
    assert rerun.id != created.id
    assert rerun.outs["number_in_job"] == olds["number_in_job"] + 1


@pytest.mark.parametrize(("given", "recorded"), [(3, "3"), (3.0, "3"), (2.5, "2.5"), ("v1", "v1")])
def test_a_numeric_trigger_is_text(provider, given, recorded) -> None:
    # Numbers reach the provider as floats through the engine.
    args = provider.args_model(job_id=1, trigger=given)
    assert provider.spec(args)["trigger"] == recorded


def test_a_run_keeps_its_token_when_parameters_are_added() -> None:
    # The first JobRun named a run by these keys, null where absent: a create retried after
    # an upgrade finds the run it started before.
    for spec in ({"job_id": 7, "python_params": ["--x"], "trigger": "v1"}, {"job_id": 7}):
        first = {"deployment": "p/s/r", "job_id": 7, "python_params": None, "trigger": None}
        first.update(spec)
        expected = hashlib.sha256(json.dumps(first, sort_keys=True).encode()).hexdigest()
        assert idempotency_token("p/s/r", spec) == expected


def test_tokens_differ_per_deployment_and_inputs() -> None:
    spec = {"job_id": 1, "python_params": [], "trigger": "a"}
    token = idempotency_token("p/s/r", spec)
    assert len(token) == 64
    assert token == idempotency_token("p/s/r", dict(spec))
    assert token != idempotency_token("p/s/other", spec)
    assert token != idempotency_token("p/s/r", {**spec, "trigger": "b"})
    assert token != idempotency_token("p/s/r", {**spec, "python_params": ["x"]})


# --- multi-task jobs -------------------------------------------------------------------------

SHARED_CLUSTER = "0101-120000-shared01"


@pytest.fixture
def chain_job_id(client: WorkspaceClient) -> int:
    """A chain of three tasks, a -> b -> c; b is the one Python task, and the job has a
    parameter `date`."""

    def on_cluster(key: str, task_type: dict[str, Any], *upstream: str) -> dict[str, Any]:
        task = {"task_key": key, "existing_cluster_id": SHARED_CLUSTER, **task_type}
        return {**task, "depends_on": [{"task_key": k} for k in upstream]} if upstream else task

    import_notebook(client, "/Workspace/etl/a")
    import_notebook(client, "/Workspace/etl/c")
    return JobsApi(client).create(
        {
            "name": f"chain-{uuid.uuid4().hex[:8]}",
            "tasks": [
                on_cluster("a", {"notebook_task": {"notebook_path": "/Workspace/etl/a"}}),
                on_cluster("b", {"spark_python_task": {"python_file": "dbfs:/etl/b.py"}}, "a"),
                on_cluster("c", {"notebook_task": {"notebook_path": "/Workspace/etl/c"}}, "b"),
            ],
            "parameters": [{"name": "date", "default": "2024-01-01"}],
        }
    )


@pytest.fixture
def chain_props(props: dict[str, Any], chain_job_id: int) -> dict[str, Any]:
    return {
        **{k: v for k, v in props.items() if k != "python_params"},
        "job_id": chain_job_id,
        "job_parameters": {"date": "2024-06-01"},
        "notebook_params": {"mode": "full"},
    }


def test_a_multi_task_run_takes_job_and_task_parameters_and_records_each_task(
    provider, chain_props, client
) -> None:
    created = provider.create(chain_props)
    run = JobsApi(client).get_run(int(created.id))
    assert run["overriding_parameters"] == {
        "job_parameters": {"date": "2024-06-01"},
        "notebook_params": {"mode": "full"},
    }
    assert created.outs["result_state"] == "SUCCESS"
    assert created.outs["task_results"] == {"a": "SUCCESS", "b": "SUCCESS", "c": "SUCCESS"}
    assert created.outs["run_page_url"] == run["run_page_url"]

    refreshed = provider.read(created.id, created.outs)
    assert refreshed.outs["task_results"] == created.outs["task_results"]
    assert not provider.diff(created.id, refreshed.outs, chain_props).changes


def test_a_failed_task_fails_the_run_naming_it_and_what_did_not_run(
    provider, chain_props, client
) -> None:
    # python_params reach the Python task only: b fails, c never runs.
    failing = {**chain_props, "python_params": ["--fail"]}
    with pytest.raises(JobRunFailed) as raised:
        provider.create(failing)
    message = str(raised.value)
    assert "ended TERMINATED FAILED: task 'b' FAILED: python_params contained '--fail'" in message
    assert "not run: 'c' UPSTREAM_FAILED" in message
    assert "'a'" not in message
    assert "Change `trigger`" in message

    run_id = int(message.split("job run ")[1].split()[0])
    states = {
        t["task_key"]: t["state"]["result_state"] for t in JobsApi(client).get_run(run_id)["tasks"]
    }
    assert states == {"a": "SUCCESS", "b": "FAILED", "c": "UPSTREAM_FAILED"}


@pytest.mark.parametrize(
    "change",
    [
        {"job_parameters": {"date": "2024-06-02"}},
        {"notebook_params": {"mode": "delta"}},
        {"jar_params": ["--x"]},
        {"pipeline_params": {"full_refresh": True}},
    ],
    ids=lambda change: next(iter(change)),
)
def test_new_job_or_task_parameters_start_a_new_run(provider, chain_props, change) -> None:
    created = provider.create(chain_props)
    diff = provider.diff(created.id, created.outs, {**chain_props, **change})
    assert diff.changes and diff.replaces == list(change)
    token = idempotency_token("d", provider.spec(provider.args_model(job_id=1)))
    assert token != idempotency_token("d", provider.spec(provider.args_model(job_id=1, **change)))


def test_check_names_a_bad_parameter(provider, chain_props) -> None:
    assert (
        "valid dictionary"
        in failures(provider, {**chain_props, "job_parameters": ["x"]})["job_parameters"]
    )
    assert (
        "valid string"
        in failures(provider, {**chain_props, "notebook_params": {"a": 1}})["notebook_params.a"]
    )
    assert (
        "valid boolean"
        in failures(provider, {**chain_props, "pipeline_params": {"full_refresh": "maybe"}})[
            "pipeline_params.full_refresh"
        ]
    )
