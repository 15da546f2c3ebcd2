"""The peer of bench/deploy_cost.py: ours' mix as an OpenTofu configuration of the service's
Terraform provider (bench/programs/mix_hcl.py), and the size of its state file. No engine,
no emulator, no OpenTofu."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest

from bench.deploy_cost import peer_state_size
from bench.programs.mix import (
    JOB,
    JOB_PERMISSIONS,
    KINDS,
    SECRET_SCOPE,
    SERVICE_PRINCIPAL,
    TASKS_PER_JOB,
    kind_at,
    name_at,
)
from bench.programs.mix_hcl import RESOURCE_TYPE, configuration, value

N = 10
RESOURCE = re.compile(r'^resource "(\w+)" "(\w+)" \{\n(.*?)^\}', re.MULTILINE | re.DOTALL)


def resources(text: str) -> list[tuple[str, str, str]]:
    return RESOURCE.findall(text)


@pytest.fixture
def written() -> str:
    return configuration(N, "bench-peer-n10", [f"app-{i}" for i in range(N)])


def test_every_object_of_the_mix_is_the_providers_resource_in_the_same_order(written: str):
    found = resources(written)
    assert [(t, name) for t, name, _ in found] == [
        (RESOURCE_TYPE[kind_at(i)], name_at(i).replace("-", "_")) for i in range(N)
    ]
    assert set(RESOURCE_TYPE) == set(KINDS)
    # The provider from the source address the dev override names, signed in from the
    # environment (no token in the file).
    assert 'databricks = { source = "databricks/databricks" }' in written
    assert 'provider "databricks" {}' in written
    assert "token" not in written.split('provider "databricks"')[1].split("\n")[0]


def test_a_job_has_its_cluster_its_chained_tasks_and_its_schedule(written: str):
    _, name, body = next(r for r in resources(written) if r[0] == RESOURCE_TYPE[JOB])
    assert f'name = "{name.replace("_", "-")}"' in body
    assert body.count("\n  job_cluster {") == 1
    assert 'spark_version = "13.3.x-scala2.12"' in body and "num_workers   = 1" in body
    assert body.count("\n  task {") == TASKS_PER_JOB
    for step in range(1, TASKS_PER_JOB):
        assert f'depends_on {{\n      task_key = "step_{step - 1}"\n    }}' in body
    assert body.count("depends_on {") == TASKS_PER_JOB - 1
    assert "max_retries     = 1" in body
    assert 'quartz_cron_expression = "0 0 2 * * ?"' in body


def test_permissions_name_the_job_before_them_scopes_and_principals_their_names(written: str):
    found = resources(written)
    for index, (_, _, body) in enumerate(found):
        kind = kind_at(index)
        if kind == JOB_PERMISSIONS:
            assert f"job_id = databricks_job.{found[index - 1][1]}.id" in body
            assert 'group_name       = "data-engineers"' in body
            assert 'permission_level = "CAN_MANAGE_RUN"' in body
        elif kind == SECRET_SCOPE:
            assert f'name = "bench-peer-n10-{name_at(index)}"' in body
    principals = [body for t, _, body in found if t == RESOURCE_TYPE[SERVICE_PRINCIPAL]]
    for i, body in enumerate(principals):
        assert f'application_id = "app-{i}"' in body


def test_values_are_written_as_hcl_and_a_template_sequence_is_refused():
    assert value('a "quoted" name') == '"a \\"quoted\\" name"'
    assert value(True) == "true" and value(3) == "3" and value(["a", 1]) == '["a", 1]'
    with pytest.raises(ValueError, match=re.escape("'${var.token}': a template sequence")):
        value("${var.token}")
    with pytest.raises(TypeError, match="is not a value this configuration writes"):
        value(object())


def tfstate(kinds: list[str]) -> dict[str, Any]:
    return {
        "version": 4,
        "resources": [
            {"mode": "managed", "type": RESOURCE_TYPE[kind], "name": f"r{i}",
             "instances": [{"attributes": {"id": str(i), "pad": "x" * (100 * (i + 1))}}]}
            for i, kind in enumerate(kinds)
        ] + [{"mode": "data", "type": "databricks_current_user", "name": "me",
              "instances": [{}]}],
    }


def test_the_peers_state_size_by_kind():
    kinds = [kind_at(i) for i in range(8)]
    stack = SimpleNamespace(state=lambda: tfstate(kinds))
    size = peer_state_size(stack, 8)  # type: ignore[arg-type]
    assert size.variant == "peer" and size.resources == 8
    assert set(size.entry_bytes_by_kind) == set(KINDS)
    assert size.entry_bytes_by_kind[JOB] == size.entry_bytes_per_job
    # The jobs are the first and fifth entries: 100 and 500 bytes of padding.
    assert size.entry_bytes_by_kind[JOB] < size.entry_bytes_by_kind[SERVICE_PRINCIPAL]
    with pytest.raises(RuntimeError, match="7 resources in state, not 8"):
        peer_state_size(SimpleNamespace(state=lambda: tfstate(kinds[:7])), 8)  # type: ignore[arg-type]
