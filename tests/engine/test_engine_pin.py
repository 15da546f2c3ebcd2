"""The classic engine build and the Python SDK of the project's environment are one Pulumi
release; the package itself asks for a range that holds both engines' SDKs."""

import importlib.metadata
import re
import tomllib

from packaging.requirements import Requirement
from packaging.version import Version

from stacks.pulumi_cli import REPO_ROOT, engine_kind

ENGINE = REPO_ROOT / "tools" / "engine"


def engine_version(go_mod: str) -> str:
    found = re.search(r"github\.com/pulumi/pulumi/pkg/v3 v(\S+)", go_mod)
    assert found, "the wrapper module requires no github.com/pulumi/pulumi/pkg/v3"
    return found.group(1)


def constraint(name: str) -> str:
    for line in (REPO_ROOT / "constraints.txt").read_text().splitlines():
        if line.startswith(f"{name}=="):
            return line.removeprefix(f"{name}==")
    raise AssertionError(f"constraints.txt pins no {name}")


def pulumi_requirement() -> Requirement:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    [pulumi] = [
        r for r in map(Requirement, pyproject["project"]["dependencies"]) if r.name == "pulumi"
    ]
    return pulumi


def test_go_wrapper_pins_the_python_sdk_release_of_the_project_environment() -> None:
    go_mod = (ENGINE / "go.mod").read_text()
    sdk = re.search(r"github\.com/pulumi/pulumi/sdk/v3 v(\S+)", go_mod)

    assert sdk and engine_version(go_mod) == sdk.group(1) == constraint("pulumi")
    if engine_kind() == "classic":
        assert importlib.metadata.version("pulumi") == constraint("pulumi")


def test_the_package_accepts_both_engines_sdks() -> None:
    """The range's floor is the lock-step release; the modern engine is inside it."""
    required = pulumi_requirement().specifier
    floor = Version(constraint("pulumi"))
    modern = Version(engine_version((ENGINE / "modern" / "go.mod").read_text()))

    assert floor in required and modern in required
    assert Version(importlib.metadata.version("pulumi")) in required
    # Nothing older than the floor: no engine of this project was tested with it.
    assert Version(f"{floor.major}.{floor.minor - 1}") not in required
