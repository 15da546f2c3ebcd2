"""A stack deployed while the legacy wire form was the default is not moved to the public
form, the default now, silently.

Before, a stack config without `workspace:wireForm` talked the legacy form, then named
`seed` (now its deprecated alias), and the WorkspaceAuth's provider recorded `wire_form:
seed`. Left as it was, the first preview of this checkout would show an update of that
provider alone (`~wire_form`), and the up would switch the stack to the other form with no
other sign. The provider host refuses it instead: the preview fails, naming the key and both
values, until the config names the form (providers/core/host.py, `left_default_wire_form`).

The state is made honestly: the tree of OLD_COMMIT (the main before `public` became the
default, taken with `git archive`) deploys the stack with its own program and provider
host, then this checkout's program and provider host preview it on the same state and
emulator.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from stacks.pulumi_cli import REPO_ROOT, PulumiCli
from tests.e2e.conftest import (
    LOCAL_OBJECTS,
    PROVIDER_TYPE,
    StackFactory,
    changed_steps,
    platform_writes,
)
from tests.e2e.previous_code import run_program_of, tree_at
from tools.drills.local_stack import write_stack_config
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

pytestmark = pytest.mark.engine

# The main before the public form became the default (`seed` the default, by that name).
OLD_COMMIT = "6c98cdf"
WIRE_FORM_KEY = "workspace:wireForm"
SCOPES = [{"name": "upgrade-scope"}]
# A job: its paths say which form the provider talks (/api/2.0/jobs or /api/2.2/jobs).
[JOB] = LOCAL_OBJECTS["jobs"][:1]


def set_config(stack: PulumiCli, **changes: Any) -> None:
    """Sets (a value) or removes (None) keys of the stack's config, the secret kept."""
    path = stack.project_dir / f"Pulumi.{stack.stack}.yaml"
    config = dict(yaml.safe_load(path.read_text())["config"])
    for key, value in changes.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    write_stack_config(stack, config)


def recorded_wire_form(stack: PulumiCli) -> Any:
    """The wire form the state records for the WorkspaceAuth's provider (None: none)."""
    [provider] = [
        r for r in stack.export()["deployment"]["resources"]
        if r["urn"].split("::")[-2] == PROVIDER_TYPE
    ]
    return provider["inputs"].get("wire_form")


def token_methods(info: EmulatorInfo) -> set[str]:
    """How the token requests since the log was cleared were made: GET in the legacy form,
    POST in the public one."""
    return {r["method"] for r in request_log(info) if r["service"] == "identity"}


def deployed_by_the_old_code(
    workspace_stack: StackFactory, tmp_path: Path, wire_form: str | None
) -> PulumiCli:
    """A stack of a scope, deployed by OLD_COMMIT's code with `wire_form` (None: left out);
    this checkout's code runs it from then on."""
    stack = workspace_stack(secretScopes=SCOPES)
    set_config(stack, **{WIRE_FORM_KEY: wire_form})
    run_program_of(stack, tree_at(OLD_COMMIT, tmp_path / "old"))
    stack.up()
    run_program_of(stack, REPO_ROOT)
    return stack


def test_a_stack_that_left_the_wire_form_out_must_name_it(
    workspace_stack: StackFactory, emulator: EmulatorInfo, tmp_path: Path
) -> None:
    stack = deployed_by_the_old_code(workspace_stack, tmp_path, None)
    assert recorded_wire_form(stack) == "seed"  # the default then, by its name then

    # Left out: refused, naming the key and both values, before any object is read.
    clear_request_log(emulator)
    refused = stack.preview(check=False)
    assert refused.returncode != 0
    output = refused.stdout + refused.stderr
    assert "workspace:wireForm is not set" in output, output
    assert "deployed talking the legacy wire form" in output
    assert "to 'legacy' to keep talking" in output and "or to 'public' to switch" in output
    # nothing but the program's sign-in check (WorkspaceAuth, GET .../scim/v2/Me)
    assert [(r["method"], r["path"]) for r in request_log(emulator)
            if r["service"] == "platform"] in ([], [("GET", "/api/2.0/preview/scim/v2/Me")])
    refused_up = stack.up(check=False)
    assert refused_up.returncode != 0
    assert "workspace:wireForm is not set" in refused_up.stdout + refused_up.stderr, refused_up
    assert recorded_wire_form(stack) == "seed"  # nothing was deployed
    stack.refresh()  # runs with the recorded configuration: not refused

    # `legacy`: the stack as it was deployed. No change; it still talks the legacy form.
    set_config(stack, **{WIRE_FORM_KEY: "legacy"})
    stack.preview("--expect-no-changes")
    set_config(stack, **{WIRE_FORM_KEY: "legacy", "workspace:jobs": [JOB]})
    clear_request_log(emulator)
    stack.up()
    assert "POST /api/2.0/jobs/create" in platform_writes(emulator)  # the legacy form's path
    assert token_methods(emulator) <= {"GET"}
    stack.preview("--expect-no-changes")

    # `seed`, the deprecated name, is the same form: no change either.
    set_config(stack, **{WIRE_FORM_KEY: "seed"})
    stack.preview("--expect-no-changes")

    # `public`: a switch, asked for. The provider updates alone; then the stack talks it.
    set_config(stack, **{WIRE_FORM_KEY: "public"})
    assert changed_steps(stack) == [("update", PROVIDER_TYPE)]
    clear_request_log(emulator)
    stack.up()
    assert platform_writes(emulator) == []
    assert recorded_wire_form(stack) == "public"
    stack.preview("--expect-no-changes")
    job = {**JOB, "tags": {**JOB.get("tags", {}), "upgrade": "public"}}
    set_config(stack, **{"workspace:jobs": [job]})
    clear_request_log(emulator)
    stack.up()
    writes = platform_writes(emulator)
    assert writes and all(w.startswith("POST /api/2.2/jobs/") for w in writes), writes
    assert token_methods(emulator) <= {"POST"}

    # Left out again now: the stack talks the default, public, as recorded: no change.
    set_config(stack, **{WIRE_FORM_KEY: None})
    stack.preview("--expect-no-changes")
    stack.destroy()


def test_a_stack_deployed_in_the_public_form_may_leave_it_out(
    workspace_stack: StackFactory, emulator: EmulatorInfo, tmp_path: Path
) -> None:
    stack = deployed_by_the_old_code(workspace_stack, tmp_path, "public")
    assert recorded_wire_form(stack) == "public"
    set_config(stack, **{WIRE_FORM_KEY: None})
    stack.preview("--expect-no-changes")
    clear_request_log(emulator)
    stack.up("--expect-no-changes")
    assert platform_writes(emulator) == []
    assert recorded_wire_form(stack) in ("public", None)
    stack.preview("--expect-no-changes")
    stack.destroy()


def test_a_stack_deployed_with_the_legacy_form_named_seed_keeps_it(
    workspace_stack: StackFactory, emulator: EmulatorInfo, tmp_path: Path
) -> None:
    """A stack file that says `seed` (the local stack's, before) works unchanged, with a
    warning, and with the new name too."""
    stack = deployed_by_the_old_code(workspace_stack, tmp_path, "seed")
    preview = stack.preview("--expect-no-changes")
    assert "'seed' is the deprecated name of 'legacy'" in preview.stdout + preview.stderr
    set_config(stack, **{WIRE_FORM_KEY: "legacy"})
    stack.preview("--expect-no-changes")
    stack.destroy()
