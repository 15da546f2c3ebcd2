"""providers.jobs.lookups: a job run's tasks and job parameters as the service gives them."""

from __future__ import annotations

from providers.jobs.lookups import JobRunInfo

RUN = {
    "run_id": 11,
    "job_id": 3,
    "state": {"life_cycle_state": "TERMINATED", "result_state": "FAILED", "state_message": ""},
    "tasks": [
        {"task_key": "load", "run_id": 12, "state": {"life_cycle_state": "TERMINATED",
                                                     "result_state": "SUCCESS"}},
        {"task_key": "check", "run_id": 13, "state": {"life_cycle_state": "TERMINATED",
                                                      "result_state": "FAILED",
                                                      "state_message": "exit code 1"}},
    ],
}  # fmt: skip


def test_each_task_has_its_run_and_states():
    info = JobRunInfo.from_service(RUN).as_output()
    assert info["result_state"] == "FAILED"
    assert info["tasks"] == [
        {"task_key": "load", "run_id": 12, "life_cycle_state": "TERMINATED",
         "result_state": "SUCCESS", "state_message": None},
        {"task_key": "check", "run_id": 13, "life_cycle_state": "TERMINATED",
         "result_state": "FAILED", "state_message": "exit code 1"},
    ]  # fmt: skip
    assert JobRunInfo.from_service({**RUN, "tasks": None}).as_output()["tasks"] == []


def test_job_parameters_are_the_values_the_run_used():
    # Jobs 2.1+ lists every job parameter with its default and the value given.
    listed = {
        **RUN,
        "job_parameters": [
            {"name": "date", "default": "2024-01-01", "value": "2024-06-01"},
            {"name": "env", "default": "prod"},
            {"name": "empty"},
        ],
        "overriding_parameters": {"job_parameters": {"date": "2024-06-01"}},
    }
    assert JobRunInfo.from_service(listed).job_parameters == {"date": "2024-06-01", "env": "prod"}
    # Without that list, what run-now gave.
    given = {**RUN, "overriding_parameters": {"job_parameters": {"date": "2024-06-01"}}}
    assert JobRunInfo.from_service(given).job_parameters == {"date": "2024-06-01"}
    assert JobRunInfo.from_service(RUN).job_parameters == {}
