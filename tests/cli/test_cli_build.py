"""The CLI the suite drives is the release tools/databricks_cli/go.mod pins, cached per
machine, and the documentation names that release."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from stacks.pulumi_cli import REPO_ROOT
from tools import databricks_cli

GO_MOD = REPO_ROOT / "tools" / "databricks_cli" / "go.mod"


def pinned_version() -> str:
    found = re.search(r"github\.com/databricks/cli (v\S+)", GO_MOD.read_text())
    assert found, f"{GO_MOD} requires no github.com/databricks/cli"
    return found.group(1)


def test_binary_is_the_pinned_release(cli_binary: Path) -> None:
    result = subprocess.run([str(cli_binary), "--version"], capture_output=True, text=True,
                            check=True, timeout=30)
    assert result.stdout.strip() == f"Databricks CLI {pinned_version()}"
    assert cli_binary.parent.parent.name == f"databricks-cli-{pinned_version()}"


def test_a_built_cli_is_reused(cli_binary: Path) -> None:
    started = time.monotonic()
    result = subprocess.run([str(databricks_cli.ENSURE_SCRIPT)], capture_output=True,
                            text=True, check=True, timeout=30)
    assert Path(result.stdout.strip()) == cli_binary
    assert time.monotonic() - started < 10


def test_documentation_names_the_pinned_release() -> None:
    version = pinned_version()
    testing = (REPO_ROOT / "docs" / "testing.md").read_text()
    assert f"databricks-cli-{version}/bin/databricks" in testing
    readme = REPO_ROOT / "workspace_emulator" / "README.md"
    assert f"Databricks CLI ({version}," in readme.read_text()
