"""A copy of this checkout as `pip install <checkout>` needs it, and an environment without
what would put the checkout itself on the path: for the tests that install the package."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from stacks.pulumi_cli import REPO_ROOT

# What `pip install <checkout>` needs of a checkout: the build file and the packages.
PACKAGE_SOURCES = ("pyproject.toml", "README.md", "providers", "workspace_emulator")


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
