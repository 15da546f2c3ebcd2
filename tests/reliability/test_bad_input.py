"""Bad input fails `pulumi preview` before any call: one line per invalid input naming the
field and the reason, and the emulator sees no request at all (not even a token request).

The catalogue (bad_inputs.py) holds one defect per config item across all six kinds, plus
stack settings; the stack judges its whole config at once, so each batch is one preview,
and every input is still asserted on its own line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stacks.pulumi_cli import PulumiCli
from tests.conftest import emulator_fixture
from tests.reliability.bad_inputs import Batch, item_batch, setting_batch
from tools.drills.local_stack import connection_config, scratch_stack, write_stack_config
from workspace_emulator.testing import EmulatorInfo, request_log

pytestmark = pytest.mark.engine

PROBLEM_COUNT = re.compile(r"the stack's config has (\d+) problem\(s\)")


emulator = emulator_fixture("module")


@pytest.fixture(scope="module")
def stack(emulator: EmulatorInfo, tmp_path_factory: pytest.TempPathFactory) -> PulumiCli:
    return scratch_stack(tmp_path_factory.mktemp("bad-input"), emulator, objects={})


def failed_preview(stack: PulumiCli, config: dict) -> str:
    write_stack_config(stack, config)
    result = stack.preview(check=False)
    assert result.returncode != 0, result.stdout
    return result.stdout + result.stderr


def assert_each_reported(output: str, batch: Batch) -> None:
    lines = [line.strip() for line in output.splitlines()]
    for case, path in batch.expected:
        hits = [line for line in lines if line.startswith(f"{path}: ") and case.reason in line]
        assert len(hits) >= 1, f"{case.kind} / {case.label}: no line `{path}: ...{case.reason}`"
    counts = {int(n) for n in PROBLEM_COUNT.findall(output)}
    assert counts == {len(batch.expected)}, f"expected {len(batch.expected)} problems: {counts}"


def test_invalid_items_of_every_kind(stack: PulumiCli, emulator: EmulatorInfo) -> None:
    batch = item_batch()
    assert len(batch.expected) >= 120
    # Jobs at full depth: the legacy shapes and every family of a multi-task job's settings.
    assert sum(case.kind == "jobs" for case, _ in batch.expected) >= 80
    assert {case.kind for case, _ in batch.expected} == {
        "jobs", "servicePrincipals", "secretScopes", "jobPermissions", "repoBranches",
        "catalogBindings", "groups", "groupMembers", "repos", "ipAccessLists"}
    output = failed_preview(stack, {**connection_config(emulator), **batch.config})
    assert_each_reported(output, batch)
    assert request_log(emulator) == []


def test_invalid_stack_settings(stack: PulumiCli, emulator: EmulatorInfo) -> None:
    batch = setting_batch()
    output = failed_preview(stack, {**connection_config(emulator), **batch.config})
    assert_each_reported(output, batch)
    assert "hunter2" not in output  # the plain-text secret is named, never echoed
    assert request_log(emulator) == []


def test_missing_connection_settings(stack: PulumiCli, emulator: EmulatorInfo) -> None:
    config = connection_config(emulator)
    del config["workspace:baseUrl"], config["workspace:clientId"]
    output = failed_preview(stack, config)
    assert "workspace:baseUrl: required" in output
    assert "workspace:clientId: required" in output
    assert request_log(emulator) == []


def test_plain_http_needs_the_explicit_switch(stack: PulumiCli, emulator: EmulatorInfo) -> None:
    config = {**connection_config(emulator), "workspace:allowInsecureHttp": False}
    output = failed_preview(stack, config)
    assert re.search(r"workspace:baseUrl: .*uses http://; set allow(_insecure_http|"
                     r"InsecureHttp) to true", output), output
    assert request_log(emulator) == []


def test_no_client_secret(emulator: EmulatorInfo, tmp_path: Path) -> None:
    stack = scratch_stack(tmp_path, emulator, objects={}, secret="")
    result = stack.preview(check=False)
    assert result.returncode != 0
    assert "workspace:clientSecret: required (`pulumi config set --secret" in (
        result.stdout + result.stderr)
    assert request_log(emulator) == []
