"""The documentation's examples use the flat public surface (`from providers import ...`,
only names in `providers.__all__`), and every link or citation of a section anchor in a
Markdown page (`docs/api.md#errors`, `README.md#import`) names a heading that exists."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest

import providers
from stacks.pulumi_cli import REPO_ROOT

DOC_PAGES = sorted([REPO_ROOT / "README.md", *(REPO_ROOT / "docs").glob("*.md")])
EXAMPLE_PROGRAMS = sorted((REPO_ROOT / "examples").glob("*/*.py"))
# A fenced Python block, also one indented inside a list item.
PYTHON_BLOCK = re.compile(r"^( *)```python\n(.*?)^\1```", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.MULTILINE)
# A Markdown link with an anchor, `[text](page.md#anchor)` or `[text](#anchor)`.
LINK_WITH_ANCHOR = re.compile(r"\]\(([^)\s#]*)#([^)\s]+)\)")
# A citation of the contract's sections in code or text: `docs/api.md#<anchor>`.
API_CITATION = re.compile(r"docs/api\.md#([A-Za-z0-9_-]+)")
CITING_FILES = ("*.py", "*.md", "*.yaml", "*.yml", "*.toml", "*.sh")
SKIPPED_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".pulumi-state", ".emulator"}


def python_blocks(page: Path) -> list[str]:
    return [textwrap.dedent(body) for _, body in PYTHON_BLOCK.findall(page.read_text())]


def surface_problems(source: str, where: str) -> list[str]:
    """Each import from `providers` that is not `from providers import <exported name>`."""
    problems = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("providers."):
                unexported = [a.name for a in node.names if a.name not in providers.__all__]
                problems.append(
                    f"{where}: `from {node.module} import ...` (a submodule)"
                    + (
                        f"; not exported by providers: {', '.join(unexported)}"
                        if unexported
                        else ""
                    )
                )
            elif node.module == "providers":
                unknown = [a.name for a in node.names if a.name not in providers.__all__]
                if unknown:
                    problems.append(f"{where}: `providers` exports no {', '.join(unknown)}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("providers."):
                    problems.append(f"{where}: `import {alias.name}` (a submodule)")
    return problems


def anchors_of(page: Path) -> set[str]:
    """The anchors a Markdown renderer gives the page's headings (lower case, punctuation
    dropped, spaces to hyphens), without repeated-heading suffixes."""
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.MULTILINE | re.DOTALL)
    return {slug(title) for title in HEADING.findall(text)}


def slug(title: str) -> str:
    plain = re.sub(r"[`*_]|\[([^]]*)\]\([^)]*\)", r"\1", title).strip().lower()
    return re.sub(r"[^\w\- ]", "", plain).replace(" ", "-")


def repository_files() -> list[Path]:
    found = []
    for pattern in CITING_FILES:
        for path in REPO_ROOT.rglob(pattern):
            if not SKIPPED_DIRS & set(path.relative_to(REPO_ROOT).parts):
                found.append(path)
    return sorted(found)


@pytest.mark.parametrize(
    "source", [*DOC_PAGES, *EXAMPLE_PROGRAMS], ids=lambda p: str(p.relative_to(REPO_ROOT))
)
def test_examples_import_only_the_flat_surface(source: Path) -> None:
    name = source.relative_to(REPO_ROOT)
    if source.suffix == ".py":
        programs = [(str(name), source.read_text())]
    else:
        programs = [(f"{name} block {i + 1}", b) for i, b in enumerate(python_blocks(source))]
    problems = [p for where, code in programs for p in surface_problems(code, where)]
    assert problems == [], "import from `providers` itself, names in providers.__all__:\n" + (
        "\n".join(problems)
    )


def test_the_surface_check_catches_submodules_and_unknown_names() -> None:
    code = (
        "from providers import Job, NotAName\n"
        "from providers.jobs.job import JobArgs\n"
        "from providers.jobs.job import JobArgs, NoSuchArgs\n"
        "import providers.auth\n"
        "from providers import WorkspaceAuth, lookups\n"
    )
    assert surface_problems(code, "x") == [
        "x: `providers` exports no NotAName",
        "x: `from providers.jobs.job import ...` (a submodule)",
        "x: `from providers.jobs.job import ...` (a submodule); not exported by providers: "
        "NoSuchArgs",
        "x: `import providers.auth` (a submodule)",
    ]


def test_api_contract_has_the_anchors_code_cites() -> None:
    anchors = anchors_of(REPO_ROOT / "docs" / "api.md")
    assert {"wire-forms", "jobs", "jobs-api-versions", "jobs-22-settings", "errors"} <= anchors
    missing = [
        f"{path.relative_to(REPO_ROOT)}: #{anchor}"
        for path in repository_files()
        for anchor in API_CITATION.findall(path.read_text(errors="replace"))
        if anchor not in anchors
    ]
    assert missing == [], "cites a section docs/api.md does not have:\n" + "\n".join(missing)


@pytest.mark.parametrize("page", DOC_PAGES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_links_to_sections_name_existing_headings(page: Path) -> None:
    broken = []
    for target, anchor in LINK_WITH_ANCHOR.findall(page.read_text()):
        if target and not target.endswith(".md"):
            continue  # another kind of file, or a web address
        linked = (page.parent / target).resolve() if target else page
        if not linked.is_file() or anchor not in anchors_of(linked):
            broken.append(f"{target}#{anchor}")
    assert broken == [], f"{page.relative_to(REPO_ROOT)} links to missing sections: {broken}"


def test_python_blocks_are_found_inside_list_items_too(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "1. A step:\n\n   ```python\n   from providers.jobs.job import Job\n   ```\n\n"
        "```python\nimport pulumi\n```\n"
    )
    assert python_blocks(page) == ["from providers.jobs.job import Job\n", "import pulumi\n"]
