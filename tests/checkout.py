"""A copy of this checkout as `pip install <checkout>` needs it, and an environment without
what would put the checkout itself on the path: for the tests that install the package."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from stacks.pulumi_cli import REPO_ROOT

# What `pip install <checkout>` needs of a checkout: the build file and the packages.
PACKAGE_SOURCES = ("pyproject.toml", "README.md", "providers", "stacks", "workspace_emulator")
# The example of a team's own program, which installs the package from a checkout.
EXAMPLE = REPO_ROOT / "examples" / "own-program"


def outside_env() -> dict[str, str]:
    """This process's environment without what would put the checkout on the path."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def copy_checkout(target: Path) -> Path:
    """The package's sources, copied: pip builds in the source tree it is given."""
    target.mkdir()
    for name in PACKAGE_SOURCES:
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target / name)
    return target


def project_virtualenv(project: Path, checkout: Path) -> Path:
    """The project's `venv`, with this package installed from `checkout` by the example's
    requirements.txt. Its other requirements (pulumi, requests, ...) are this test run's own
    packages, reached through a path entry, so nothing else is downloaded or built."""
    venv = project / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60
    )
    site_packages = Path(
        sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)})
    )
    # A plain path, not the site directory: this run's editable install of the checkout
    # (a .pth finder there) must not reach the project.
    (site_packages / "test-run-packages.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--ignore-installed",
            "--disable-pip-version-check",
            "-r",
            str(project / "requirements.txt"),
        ],
        check=True,
        timeout=300,
        env={**outside_env(), "WORKSPACE_IAC_CHECKOUT": str(checkout)},
    )
    return venv
