"""README.md stays true: the two commands CI and newcomers rely on, links that resolve, and
a configuration reference that names every key the program accepts."""

from __future__ import annotations

import re

from stacks import config_rules as stack_config
from stacks.pulumi_cli import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()


def test_names_the_two_commands_on_their_own_lines() -> None:
    lines = README.splitlines()
    assert "make demo" in lines and "make test" in lines


def test_relative_links_resolve() -> None:
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [t for t in targets if "://" not in t]
    assert local, "README links no local page"
    missing = [t for t in local if not (REPO_ROOT / t).exists()]
    assert missing == []


def test_configuration_reference_names_every_key() -> None:
    reference = README.split("## Configuration reference", 1)[1].split("\n## ", 1)[0]
    keys = [
        *stack_config.CONNECTION_KEYS,
        *stack_config.SECRET_KEYS,
        *stack_config.by_config_key(),
        *stack_config.EXTENSION_KEYS,
    ]
    assert [k for k in keys if f"`{k}`" not in reference] == []


def test_names_every_committed_stack() -> None:
    for path in REPO_ROOT.glob("Pulumi.*.yaml"):
        assert f"`{path.name}`" in README, path.name
