"""The package installs beside a user's own, newest Pulumi: in a fresh virtualenv of this
leg's Python (3.13 where the machine has it), `pip install <checkout>` next to the newest
pulumi SDK, and every kind of the registry imports from `providers`, as a program does."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

from packaging.version import Version

from providers.registry import names as kind_names
from stacks.pulumi_cli import engine_bin_dir
from tests.checkout import copy_checkout, outside_env


def run(*argv: str, cwd: Path) -> str:
    return subprocess.run(
        argv, check=True, capture_output=True, text=True, cwd=cwd, env=outside_env(), timeout=600
    ).stdout


def test_pip_install_beside_the_newest_pulumi(tmp_path: Path) -> None:
    checkout = copy_checkout(tmp_path / "workspace-iac")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    newest = importlib.metadata.version("pulumi")  # this leg's, upgraded at every run
    run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        f"pulumi=={newest}", str(checkout), cwd=tmp_path)

    names = [name for kind in kind_names() for name in (kind, f"{kind}Args")]
    program = (
        f"from providers import WorkspaceAuth, WorkspaceAuthArgs, {', '.join(names)}\n"
        "import importlib.metadata, platform, providers\n"
        "print(platform.python_version(), importlib.metadata.version('pulumi'),"
        " providers.__file__)\n"
    )
    python_version, pulumi_version, where = run(python, "-c", program, cwd=tmp_path).split()

    assert python_version == ".".join(map(str, sys.version_info[:3]))
    assert pulumi_version == newest
    assert Path(where).is_relative_to(venv), where  # the installed copy, not the checkout
    # The provider host, under the plugin's name, for a Pulumi.yaml that points at bin/.
    assert (venv / "bin" / "pulumi-resource-pulumi-python").exists()


def test_this_leg_runs_the_newest_sdk_under_the_modern_engine() -> None:
    """The SDK is newer than the lock-step release, the engine the modern build."""
    engine = engine_bin_dir()
    version = subprocess.run(
        [str(engine / "pulumi"), "version"], check=True, capture_output=True, text=True
    ).stdout.strip()
    constraints = (Path(__file__).parents[2] / "constraints.txt").read_text()
    [pinned] = [ln.split("==")[1] for ln in constraints.splitlines() if ln.startswith("pulumi==")]

    assert Version(importlib.metadata.version("pulumi")) > Version(pinned)
    assert Version(version.removeprefix("v")) > Version(pinned)
    assert not (engine / "pulumi-language-python").exists()  # inline programs only
