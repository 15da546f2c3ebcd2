"""The module paths of the flat layout stay importable as the modules that replaced them, so
the providers a state recorded before the domain packages pickled (a resource on no
`WorkspaceAuth` keeps its `__provider`) unpickle in this checkout's provider host.

The pickles are made honestly: the flat layout's own code (`FLAT_LAYOUT`, taken with
`git archive`) pickles every kind's provider as its programs did, and also each provider
class by reference (what states recorded before the kinds were declared hold)."""

from __future__ import annotations

import base64
import importlib
import json
import subprocess
import sys
from pathlib import Path

import dill
import pytest

from providers.core import moved_modules
from providers.core.registry import kind_named
from tests.e2e.previous_code import tree_at
from tests.moved_modules_support import FLAT_LAYOUT

PICKLE_IN_THE_FLAT_LAYOUT = """
import base64, json, dill
from providers.kind import ProviderOf
from providers.registry import kinds
print(json.dumps({
    kind.name: [base64.b64encode(dill.dumps(ProviderOf(kind))).decode(),
                base64.b64encode(dill.dumps(kind.provider)).decode()]
    for kind in kinds()
}))
"""


@pytest.fixture(scope="module")
def flat_pickles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[bytes]]:
    tree = tree_at(FLAT_LAYOUT, tmp_path_factory.mktemp("flat"))
    assert (tree / "providers" / "kind.py").is_file()
    made = subprocess.run(
        [sys.executable, "-c", PICKLE_IN_THE_FLAT_LAYOUT],
        cwd=tree, env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, check=True,
    )
    return {
        name: [base64.b64decode(code) for code in codes]
        for name, codes in json.loads(made.stdout).items()
    }


def test_every_kind_the_flat_layout_pickled_unpickles_as_its_provider(
    flat_pickles: dict[str, list[bytes]],
) -> None:
    assert len(flat_pickles) == 35
    for name, (provider_code, class_code) in flat_pickles.items():
        assert b"providers.kind" in provider_code  # the old path of provider_in
        kind = kind_named(name)
        provider = dill.loads(provider_code)
        assert type(provider) is kind.provider, name
        assert dill.loads(class_code) is kind.provider, name


def test_an_old_path_is_the_module_that_replaced_it() -> None:
    for old, new in moved_modules.MOVED.items():
        assert importlib.import_module(old) is importlib.import_module(new), old
    assert importlib.import_module("providers.job").KIND is kind_named("Job")


def test_every_old_path_names_a_module_of_this_checkout() -> None:
    root = Path(__file__).resolve().parents[2]
    for new in moved_modules.MOVED.values():
        assert (root / (new.replace(".", "/") + ".py")).is_file(), new


def test_no_module_of_the_checkout_imports_an_old_path() -> None:
    root = Path(__file__).resolve().parents[2]
    olds = tuple(moved_modules.MOVED)
    offending = [
        f"{path.relative_to(root)}: {line.strip()}"
        for folder in ("providers", "stacks", "tools", "bench", "tests", "workspace_emulator")
        for path in (root / folder).rglob("*.py")
        if path.name not in ("moved_modules.py", "test_moved_modules.py")
        for line in path.read_text().splitlines()
        if line.lstrip().startswith(("from ", "import "))
        and any(f" {old} " in f"{line} " or f" {old}." in line for old in olds)
    ]
    assert offending == []
