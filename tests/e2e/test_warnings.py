"""A kind's warning is a warning of its resource under the real engine: a grant made outside
the stack to a principal a Grants item does not declare is removed by the next up, and the
refreshed preview says so as a `warning` diagnostic with the Grants resource's URN, in
`pulumi preview --json` and under "Diagnostics" of the plain preview (the provider host
sends it to the engine: providers/core/engine_log.py), and the pull request's summary lists it."""

from __future__ import annotations

import json
import uuid

import pytest
from databricks.sdk import WorkspaceClient as SdkClient
from databricks.sdk.service import catalog as uc

from tests.e2e.conftest import TYPE_PREFIX, StackFactory, summary_of
from workspace_emulator.testing import EmulatorInfo, fetch_token

pytestmark = pytest.mark.engine

BOB = "bob@example.com"
GRANTS_TYPE = TYPE_PREFIX + "Grants"


def test_a_grants_warning_is_a_warning_of_its_resource_in_the_preview(
    workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    catalog = f"warn_{uuid.uuid4().hex[:6]}"
    stack = workspace_stack(
        wire_form="public",
        catalogs=[{"name": catalog}],
        grants=[{"name": "catalog-grants", "securable_type": "catalog", "full_name": catalog,
                 "privilege_assignments": [{"principal": "users", "privileges": ["USE_CATALOG"]}]}],
    )
    stack.up()
    sdk = SdkClient(host=emulator.base_url, token=fetch_token(emulator))
    sdk.grants.update("catalog", catalog, changes=[
        uc.PermissionsChange(principal=BOB, add=[uc.Privilege.USE_CATALOG])])

    document = json.loads(stack.preview("--refresh", "--json").stdout)
    # One URN (newer engines list its refresh and its update as two steps).
    [grants_urn] = {step["urn"] for step in document["steps"]
                    if step["urn"].split("::")[-2] == GRANTS_TYPE}
    warnings = [d for d in document.get("diagnostics", []) if d.get("severity") == "warning"]
    expected = f"grants on catalog {catalog}: {BOB} (USE_CATALOG) lose(s) every direct privilege"
    # Newer engines diff a refresh too (docs/engines.md, "What differs between engines"): the
    # Grants' diff runs, and warns, twice.
    urns = [d["urn"] for d in warnings if expected in d.get("message", "")]
    assert urns and set(urns) == {grants_urn}, json.dumps(document.get("diagnostics"), indent=1)
    # The pull request's comment lists it once, under the resource's name.
    summary = summary_of(json.dumps(document))
    warned = [line for line in summary.split("**Warnings**", 1)[-1].splitlines()
              if line.startswith("- `catalog-grants`: ") and BOB in line]
    assert "**Warnings**" in summary and len(warned) == 1, summary

    shown = stack.preview("--refresh").stdout
    diagnostics = shown.split("Diagnostics:", 1)[-1]
    assert "Diagnostics:" in shown and _under_resource(diagnostics, "catalog-grants", expected), (
        shown)


def _under_resource(diagnostics: str, name: str, message: str) -> bool:
    """Whether the "Diagnostics:" section lists `warning: <message>` in the block of the
    Grants resource `name` (`  pulumi-python:dynamic/workspace:Grants (name):` and its
    indented lines)."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in diagnostics.splitlines():
        if line.startswith("  ") and not line.startswith("    ") and line.rstrip().endswith(":"):
            current = blocks.setdefault(line.strip(), [])
        elif line.startswith("    ") and current is not None:
            current.append(line.strip())
        elif line.strip() and not line.startswith(" "):
            break  # the next section (Resources:, Outputs:)
    block = blocks.get(f"{GRANTS_TYPE} ({name}):", [])
    return any(line.startswith("warning: ") and message in line for line in block)
