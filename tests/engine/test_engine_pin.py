"""The engine build and the Python SDK must be the same Pulumi release."""

import importlib.metadata
import re
import tomllib

from tools.pulumi_cli import REPO_ROOT


def test_go_wrapper_pins_the_python_sdk_release() -> None:
    go_mod = (REPO_ROOT / "tools" / "engine" / "go.mod").read_text()
    engine = re.search(r"github\.com/pulumi/pulumi/pkg/v3 (v\S+)", go_mod)
    sdk = re.search(r"github\.com/pulumi/pulumi/sdk/v3 (v\S+)", go_mod)
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    pinned = next(d for d in pyproject["project"]["dependencies"] if d.startswith("pulumi=="))

    assert engine and sdk
    assert engine.group(1) == sdk.group(1) == "v" + pinned.removeprefix("pulumi==")
    assert importlib.metadata.version("pulumi") == pinned.removeprefix("pulumi==")
