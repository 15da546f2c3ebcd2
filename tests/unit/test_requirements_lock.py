"""L21: the project's own environment installs with hashes. requirements.lock pins every
package of `.[dev]` and of the editable build, each with the SHA-256 of its release files, at
the versions of constraints.txt; `make setup` installs it with --require-hashes (pip refuses
a file whose hash is not listed, and any package the lock does not pin), then the project
alone, fetching nothing."""

from __future__ import annotations

import re
import subprocess
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from stacks.pulumi_cli import REPO_ROOT

LOCK = REPO_ROOT / "requirements.lock"
CONSTRAINTS = REPO_ROOT / "constraints.txt"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+?)(?: \\)?$")


def lock_entries() -> dict[str, tuple[str, list[str]]]:
    """Each pinned package of the lock: its version and hashes."""
    entries: dict[str, tuple[str, list[str]]] = {}
    current = None
    for line in LOCK.read_text().splitlines():
        if match := PIN.match(line):
            current = canonicalize_name(match.group(1))
            entries[current] = (match.group(2), [])
        elif line.strip().startswith("--hash=") and current:
            entries[current][1].append(line.strip().removesuffix(" \\"))
        elif line and not line.startswith(" ") and not line.startswith("#"):
            raise AssertionError(f"requirements.lock line pins nothing: {line!r}")
    return entries


def constraints() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in CONSTRAINTS.read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version
    return pins


def test_every_locked_package_has_hashes() -> None:
    entries = lock_entries()
    assert len(entries) > 50
    for name, (_, hashes) in entries.items():
        assert hashes and all(re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", h) for h in hashes), name


def test_the_lock_pins_exactly_the_versions_of_constraints_txt() -> None:
    assert {name: version for name, (version, _) in lock_entries().items()} == constraints()


def test_the_lock_holds_every_requirement_of_the_dev_environment_and_the_build() -> None:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    requirements = [*pyproject["build-system"]["requires"], *pyproject["project"]["dependencies"]]
    for extra in pyproject["project"]["optional-dependencies"].values():
        requirements += extra
    entries = lock_entries()
    for text in requirements:
        requirement = Requirement(text)
        if canonicalize_name(requirement.name) == "workspace-iac":
            continue  # the project's own extras, listed here too
        version, _ = entries[canonicalize_name(requirement.name)]
        assert requirement.specifier.contains(version), text
    assert "workspace-iac" not in entries  # the project itself has no hash: installed apart


def test_setup_installs_the_lock_with_hashes_and_then_only_the_project() -> None:
    """What `make setup` runs for .venv, read from make's dry run of a fresh machine."""
    dry_run = subprocess.run(["make", "-n", "-B", ".venv/.installed"], cwd=REPO_ROOT,
                             capture_output=True, text=True, check=True).stdout
    installs = [line for line in dry_run.splitlines() if " pip install" in line]
    assert installs == [
        ".venv/bin/python -m pip install --quiet --require-hashes -r requirements.lock",
        ".venv/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .",
    ]
