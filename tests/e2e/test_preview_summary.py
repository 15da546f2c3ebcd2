"""The pull-request preview summary on real `pulumi preview --json` output: the engine runs
stacks/ against the emulator with the objects of Pulumi.local.yaml (creates), then, after
`pulumi up`, with changes making updates, a replacement, a create and a delete."""

from __future__ import annotations

import copy
import json

import pytest

from tests.e2e.conftest import LOCAL_OBJECTS, StackFactory, summary_of, write_config
from tests.unit.test_preview_summary import rows
from workspace_emulator.testing import EmulatorInfo

pytestmark = pytest.mark.engine


def test_summary_of_real_previews(workspace_stack: StackFactory, emulator: EmulatorInfo) -> None:
    stack = workspace_stack(**LOCAL_OBJECTS)
    declared = sum(len(items) for items in LOCAL_OBJECTS.values())

    created = summary_of(stack.preview("--json").stdout)
    # + the WorkspaceAuth; its explicit provider is plumbing and left out of the summary
    assert f"**{declared + 1} to create** (0 unchanged)" in created
    table = rows(created)
    names = {item["name"] for items in LOCAL_OBJECTS.values() for item in items}
    assert set(table) == {"workspace"} | names
    assert all(row.startswith("| `+` create |") for row in table.values())
    assert table["nightly-etl"].startswith("| `+` create | `nightly-etl` | Job |")

    stack.up()
    assert "No changes" in summary_of(stack.preview("--json").stdout)

    changed = copy.deepcopy(LOCAL_OBJECTS)
    changed["jobs"][0]["tasks"][0]["max_retries"] = 5
    changed["repoBranches"][0]["branch"] = "main"
    changed["catalogBindings"][0]["catalog_name"] = "sandbox"
    changed["secretScopes"] = [{"name": "etl-secrets"}, {"name": "reporting-secrets"}]
    write_config(stack, {f"workspace:{k}": v for k, v in changed.items()})
    preview = stack.preview("--json")
    engine_counts = json.loads(preview.stdout)["changeSummary"]
    summary = summary_of(preview.stdout)
    tally = ", ".join(
        f"{engine_counts[op]} to {op}"
        for op in ("create", "update", "replace", "delete")
        if engine_counts.get(op)
    )
    assert f"**{tally}** (" in summary
    assert engine_counts["create"] == 1 and engine_counts["delete"] == 1
    table = rows(summary)
    assert table["nightly-etl"] == (
        "| `~` update | `nightly-etl` | Job | `tasks[ingest].max_retries`: `2` → `5` |"
    )
    assert table["data-pipelines"] == (
        '| `~` update | `data-pipelines` | RepoBranch | `branch`: `"develop"` → `"main"` |'
    )
    assert table["finance"] == (
        "| `+-` replace | `finance` | CatalogBinding "
        '| `catalog_name`: `"finance"` → `"sandbox"` (forces replacement) |'
    )
    assert table["reporting-secrets"].startswith("| `+` create | `reporting-secrets` | SecretScope")
    assert table["vault-secrets"].startswith("| `-` delete | `vault-secrets` | SecretScope")
    assert "etl-secrets" not in table and "[secret]" not in summary
    assert emulator.client_secret not in preview.stdout

    stack.destroy()
