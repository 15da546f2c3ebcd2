"""README.md stays a true landing page: the two commands CI and newcomers rely on, make
targets that exist, every kind in its domain's row linked to its page, links that resolve;
docs/README.md indexes every page of docs/; and the pages the README's manual moved to keep
naming every config key and every committed stack."""

from __future__ import annotations

import re

from providers.core.registry import kinds
from stacks import config_rules as stack_config
from stacks.pulumi_cli import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()
DOCS = REPO_ROOT / "docs"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)")
# A kind in the README's table: [`Job`](docs/job.md)
KIND_LINK = re.compile(r"\[`(\w+)`\]\(([^)]+)\)")


def section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_names_the_two_commands_on_their_own_lines() -> None:
    lines = README.splitlines()
    assert "make demo" in lines and "make test" in lines  # .ci/run greps `^make test$`


def test_is_a_landing_page() -> None:
    assert len(README.splitlines()) <= 200


def test_every_make_target_it_names_exists() -> None:
    makefile = (REPO_ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][\w-]*):", makefile, re.MULTILINE))
    # a command: in backticks, or a line of its own in a fenced block
    named = set(re.findall(r"(?:`|^)make ([a-z][\w-]*)", README, re.MULTILINE))
    assert {"demo", "test", "check", "lint", "audit", "adopt", "demo-down"} <= named
    assert sorted(named - targets) == []


def test_relative_links_resolve() -> None:
    local = [t for t in LINK.findall(README) if "://" not in t]
    assert local, "README links no local page"
    assert [t for t in local if not (REPO_ROOT / t).exists()] == []


def test_kinds_by_domain_name_every_kind_once_with_its_page() -> None:
    rows = [
        line for line in section(README, "Kinds by domain").splitlines()
        if line.startswith("| ") and not line.startswith("| Domain")
    ]
    listed = [link for row in rows for link in KIND_LINK.findall(row)]
    assert sorted(listed) == sorted((kind.name, kind.doc) for kind in kinds())
    domains = [row.split("|")[1].strip() for row in rows]
    assert len(domains) == len(set(domains)), domains
    # Each kind in the row of the domain package that holds it (providers/<domain>/).
    in_row = {name: row.split("|")[1].strip() for row in rows for name, _ in KIND_LINK.findall(row)}
    assert in_row == {kind.name: kind.implementation.split(".")[1] for kind in kinds()}


def test_says_truly_which_workflows_there_are() -> None:
    assert "ships four workflows" in README
    workflows = sorted(p.name for p in (REPO_ROOT / ".github" / "workflows").iterdir())
    assert workflows == ["deploy.yml", "drift.yml", "engine-cache.yml", "preview.yml"]
    for said in ("pull-request\npreview", "`workspace-iac deploy` of `dev`, then\n`staging`, "
                 "then `prod`", "nightly drift report", "engine cache"):
        assert said in README, said


def test_the_docs_index_links_every_page() -> None:
    index = (DOCS / "README.md").read_text()
    linked = {t for t in LINK.findall(index) if "/" not in t}
    pages = {p.name for p in DOCS.glob("*.md")} - {"README.md"}
    assert sorted(pages - linked) == []
    assert [t for t in LINK.findall(index) if not (DOCS / t).exists()] == []


def test_configuration_reference_names_every_key() -> None:
    reference = (DOCS / "configuration.md").read_text()
    keys = [
        *stack_config.CONNECTION_KEYS,
        *stack_config.SECRET_KEYS,
        *stack_config.by_config_key(),
        *stack_config.EXTENSION_KEYS,
    ]
    assert [k for k in keys if f"`{k}`" not in reference] == []


def test_environments_page_names_every_committed_stack() -> None:
    environments = (DOCS / "environments.md").read_text()
    stacks = list(REPO_ROOT.glob("Pulumi.*.yaml"))
    assert stacks
    assert [p.name for p in stacks if f"`{p.name}`" not in environments] == []
