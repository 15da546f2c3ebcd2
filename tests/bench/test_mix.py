"""The bench's mix (bench/programs/mix.py), declared once for ours and floor_same, and
floor_same's echoing providers (bench/programs/floor_same/echo.py): no engine, no network."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from bench.programs.floor_same.echo import DECLARED_PROVIDERS, PROVIDERS
from bench.programs.mix import (
    JOB,
    JOB_PERMISSIONS,
    KINDS,
    SECRET_SCOPE,
    SERVICE_PRINCIPAL,
    TASKS_PER_JOB,
    declare,
    principals_in,
)
from providers.core.registry import kind_named


@dataclass
class Made:
    kind: str
    name: str
    inputs: dict[str, Any]
    job_id: str = field(init=False)

    def __post_init__(self) -> None:
        self.job_id = f"id-of-{self.name}"


def declared(count: int) -> list[Made]:
    made: list[Made] = []

    def build(kind: str, name: str, inputs: dict[str, Any]) -> Made:
        made.append(Made(kind, name, inputs))
        return made[-1]

    declare(count, "proj-stack", iter(f"app-{n}" for n in range(count)), build)
    return made


def test_kinds_cycle_job_permissions_scope_principal():
    made = declared(10)
    assert [m.kind for m in made] == [KINDS[i % 4] for i in range(10)]
    assert [m.name for m in made] == [f"bench-{i:04d}" for i in range(10)]
    assert KINDS == (JOB, JOB_PERMISSIONS, SECRET_SCOPE, SERVICE_PRINCIPAL)


def test_job_permissions_are_on_the_job_just_before():
    made = declared(9)
    permissions = [m for m in made if m.kind == JOB_PERMISSIONS]
    assert [p.inputs["job_id"] for p in permissions] == ["id-of-bench-0000", "id-of-bench-0004"]
    assert permissions[0].inputs["access_controls"] == [
        {"group_name": "data-engineers", "permission_level": "CAN_MANAGE_RUN"}
    ]


def test_a_job_has_five_chained_tasks_on_one_shared_cluster_and_a_schedule():
    job = declared(1)[0].inputs
    assert job["name"] == "bench-0000"
    tasks = job["tasks"]
    assert len(tasks) == TASKS_PER_JOB == 5
    assert [t.get("depends_on") for t in tasks] == [None] + [
        [{"task_key": f"step_{step}"}] for step in range(4)
    ]
    assert {t["job_cluster_key"] for t in tasks} == {"shared"}
    assert [c["job_cluster_key"] for c in job["job_clusters"]] == ["shared"]
    assert job["schedule"]["quartz_cron_expression"] == "0 0 2 * * ?"


def test_scopes_are_prefixed_and_principals_take_the_application_ids_in_turn():
    made = declared(12)
    assert [m.inputs for m in made if m.kind == SECRET_SCOPE] == [
        {"name": f"proj-stack-bench-{i:04d}"} for i in (2, 6, 10)
    ]
    assert [m.inputs for m in made if m.kind == SERVICE_PRINCIPAL] == [
        {"application_id": f"app-{n}", "display_name": f"bench-{i:04d}"}
        for n, i in enumerate((3, 7, 11))
    ]


@pytest.mark.parametrize("count", [0, 1, 3, 4, 10, 201])
def test_principals_in_counts_what_declare_makes(count: int):
    assert principals_in(count) == sum(m.kind == SERVICE_PRINCIPAL for m in declared(count))


def test_the_mix_names_workspace_kinds_and_echo_mirrors_what_they_record():
    kinds = {kind: kind_named(kind) for kind in KINDS}
    assert set(PROVIDERS) == set(KINDS)
    for kind in KINDS:
        # Every output ours registers for the kind has its stand-in in floor_same.
        assert set(kinds[kind].outputs) <= set(PROVIDERS[kind].computed_keys), kind
    # floor_same's program stamps a deployment tag on jobs, and only on jobs, as ours does.
    assert {kind: list(kinds[kind].stamped) for kind in KINDS} == {
        JOB: ["deployment_tag"],
        JOB_PERMISSIONS: [],
        SECRET_SCOPE: [],
        SERVICE_PRINCIPAL: [],
    }


def test_echo_creates_return_the_inputs_and_stand_ins_of_the_computed_outputs():
    made = {m.kind: m.inputs for m in declared(4)}
    job = PROVIDERS[JOB]().create(made[JOB])
    outs = job.outs or {}
    assert outs == {
        **made[JOB],
        "job_id": int(job.id),
        "url": f"http://127.0.0.1:10000/#job/{job.id}",
        "creator_user_name": outs["creator_user_name"],
    }
    assert len(job.id) == 13 and len(outs["creator_user_name"]) == 36
    # The job id crosses the engine as a double; the permissions' id is still the job's.
    permissions = PROVIDERS[JOB_PERMISSIONS]().create({**made[JOB_PERMISSIONS], "job_id": 1e12})
    assert permissions.id == "1000000000000"
    scope = PROVIDERS[SECRET_SCOPE]().create(made[SECRET_SCOPE])
    assert (scope.id, scope.outs) == (
        "proj-stack-bench-0002",
        {**made[SECRET_SCOPE], "backend_type": "DATABRICKS"},
    )
    principal = PROVIDERS[SERVICE_PRINCIPAL]().create(made[SERVICE_PRINCIPAL])
    assert principal.outs == {**made[SERVICE_PRINCIPAL], "active": True}
    assert len(principal.id) == 16
    assert PROVIDERS[SERVICE_PRINCIPAL]().create(made[SERVICE_PRINCIPAL]).id != principal.id


def test_declared_echoes_repeat_no_input_but_what_a_delete_needs():
    made = {m.kind: m.inputs for m in declared(4)}
    made[JOB_PERMISSIONS] = {**made[JOB_PERMISSIONS], "job_id": 1e12}  # as the engine sends it
    assert set(DECLARED_PROVIDERS) == set(KINDS)
    outs = {
        kind: DECLARED_PROVIDERS[kind]().create(inputs).outs or {} for kind, inputs in made.items()
    }
    assert set(outs[JOB]) == {"job_id", "url", "creator_user_name"}
    assert outs[JOB_PERMISSIONS] == {"job_id": made[JOB_PERMISSIONS]["job_id"]}
    assert outs[SECRET_SCOPE] == {"backend_type": "DATABRICKS"}
    assert outs[SERVICE_PRINCIPAL] == {
        "application_id": made[SERVICE_PRINCIPAL]["application_id"],
        "active": True,
    }
    for kind in KINDS:  # the same computed outputs as floor_same's, under the same ids' shape
        assert set(DECLARED_PROVIDERS[kind].computed_keys) == set(PROVIDERS[kind].computed_keys)
