"""The waiting logic of the two actions, for states the emulator never shows (a cluster in
ERROR, a start that loses a race, a run the service skipped), driven by a scripted client
and a clock that only moves when the code sleeps."""

from __future__ import annotations

from typing import Any

import pytest

from providers.client import InvalidState
from providers.compute.run_states import ClusterStateError, converge
from providers.core import polling
from providers.jobs.job_run import JobRunFailed, JobRunModel, JobRunProvider

# The fake client stands for the areas (tests/fake_areas.py).
pytestmark = pytest.mark.usefixtures("fake_areas")


class ScriptedClient:
    """Answers clusters.get / jobs.get_run with the next scripted state; records the writes.
    It stands in for the client and for both of its areas."""

    def __init__(self, states: list[str], start_fails_with: Exception | None = None) -> None:
        self.states = states
        self.calls: list[str] = []
        self.start_fails_with = start_fails_with

    def _next(self) -> str:
        return self.states.pop(0) if len(self.states) > 1 else self.states[0]

    @property
    def clusters(self) -> ScriptedClient:
        return self

    def get(self, cluster_id: str) -> dict[str, Any]:
        state = self._next()
        return {
            "cluster_id": cluster_id,
            "cluster_name": "c",
            "state": state,
            "state_message": f"message of {state}",
        }

    def start(self, cluster_id: str) -> None:
        self.calls.append("start")
        if self.start_fails_with is not None:
            error, self.start_fails_with = self.start_fails_with, None
            raise error

    def stop(self, cluster_id: str) -> None:
        self.calls.append("stop")

    @property
    def jobs(self) -> ScriptedClient:
        return self  # the runs' calls are the jobs area's

    def run_now(self, job_id: int, **params: Any) -> dict[str, Any]:
        self.calls.append("run-now")
        return {"run_id": 9}

    def get_run(self, run_id: int) -> dict[str, Any]:
        life_cycle, _, result = self._next().partition("/")
        return {
            "run_id": run_id,
            "job_id": 1,
            "run_page_url": "u",
            "state": {
                "life_cycle_state": life_cycle,
                "result_state": result or None,
                "state_message": "skipped: the job's concurrency limit",
            },
        }


@pytest.fixture(autouse=True)
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [0.0]
    monkeypatch.setattr(polling, "monotonic", lambda: now[0])
    monkeypatch.setattr(polling, "sleep", lambda seconds: now.__setitem__(0, now[0] + seconds))
    return now


def test_a_cluster_in_error_cannot_be_started() -> None:
    client = ScriptedClient(["ERROR"])
    with pytest.raises(ClusterStateError, match=r"is ERROR \(message of ERROR\); it cannot"):
        converge(client, "c1", "RUNNING", 60)  # type: ignore[arg-type]
    assert client.calls == []


def test_a_cluster_in_error_is_stopped() -> None:
    client = ScriptedClient(["ERROR", "TERMINATING", "TERMINATED"])
    assert converge(client, "c1", "TERMINATED", 60)["state"] == "TERMINATED"  # type: ignore[arg-type]
    assert client.calls == ["stop"]


def test_a_terminating_cluster_is_started_once_it_has_stopped() -> None:
    client = ScriptedClient(["TERMINATING", "TERMINATING", "TERMINATED", "PENDING", "RUNNING"])
    converge(client, "c1", "RUNNING", 60)  # type: ignore[arg-type]
    assert client.calls == ["start"]


def test_a_start_that_lost_a_race_looks_again() -> None:
    raced = InvalidState(
        status=400,
        code="INVALID_STATE",
        message="starting",
        method="POST",
        path="/api/2.0/clusters/start",
    )
    client = ScriptedClient(["TERMINATED", "PENDING", "RUNNING"], start_fails_with=raced)
    assert converge(client, "c1", "RUNNING", 60)["state"] == "RUNNING"  # type: ignore[arg-type]
    assert client.calls == ["start"]


def test_waits_back_off_and_stop_at_the_deadline(fake_clock: list[float]) -> None:
    client = ScriptedClient(["PENDING"])
    with pytest.raises(ClusterStateError, match="within 30 s: it is PENDING"):
        converge(client, "c1", "RUNNING", 30)  # type: ignore[arg-type]
    assert fake_clock[0] == 30.0
    assert client.calls == []


@pytest.mark.parametrize(
    ("states", "ending"),
    [
        (["PENDING", "SKIPPED"], "ended SKIPPED: skipped"),
        (["RUNNING", "INTERNAL_ERROR/FAILED"], "ended INTERNAL_ERROR FAILED: skipped"),
        (["RUNNING", "TERMINATED/CANCELED"], "ended TERMINATED CANCELED"),
    ],
)
def test_a_run_that_did_not_succeed_fails(states: list[str], ending: str) -> None:
    client = ScriptedClient(states)
    args = JobRunModel(job_id=1)
    provider = JobRunProvider()
    with pytest.raises(JobRunFailed, match=ending):
        provider.create_object(client, args, provider.spec(args))  # type: ignore[arg-type]
    assert client.calls == ["run-now"]
