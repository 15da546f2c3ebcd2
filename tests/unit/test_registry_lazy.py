"""The registry names each kind's module and loads a kind only when asked for it: the order
is the stack program's, a lookup imports that kind's module alone, a plug-in joins at the
end, and an unknown name is refused by name. Import checks run in a fresh interpreter, as
this one has loaded every kind already."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from providers import registry
from providers.kind import Reference, declare
from providers.lifecycle import WorkspaceProvider
from providers.registry import UnknownKind, kind_named, kinds, names, register, unregister

REPO_ROOT = Path(__file__).resolve().parents[2]
KIND_MODULES = set(registry.MODULES.values())


def loaded_after(code: str) -> set[str]:
    """The kind modules a fresh interpreter has imported after running `code`."""
    script = (
        f"{code}\nimport json, sys\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m in {sorted(KIND_MODULES)!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True,
        timeout=120, check=True,
    )
    return set(json.loads(result.stdout.splitlines()[-1]))


def test_every_line_names_the_module_that_declares_that_kind() -> None:
    for name, module in registry.MODULES.items():
        assert kind_named(name).name == name
        assert kind_named(name).provider.__module__ == module, name


def test_kinds_keep_the_stack_programs_order() -> None:
    # A kind comes after the kinds its references point into.
    listed = [kind.name for kind in kinds()]
    assert listed == names() == list(registry.MODULES)
    position = {kind.config_key: index for index, kind in enumerate(kinds())}
    for index, kind in enumerate(kinds()):
        for reference in kind.references.values():
            if isinstance(reference, Reference):
                assert position[reference.target_key] < index, (kind.name, reference)


def test_a_lookup_imports_that_kinds_module_alone() -> None:
    assert loaded_after("from providers import registry") == set()
    assert loaded_after("from providers.registry import names; names()") == set()
    assert loaded_after("from providers.registry import kind_named; kind_named('Job')") == {
        "providers.job"
    }
    # Job permissions are built on the Permissions kind's module, and nothing else.
    assert loaded_after(
        "from providers.registry import kind_named; kind_named('JobPermissions')"
    ) == {"providers.job_permissions", "providers.permissions"}


def test_the_flat_surface_loads_only_the_kind_it_is_asked_for() -> None:
    assert loaded_after("from providers import WorkspaceAuth, lookups") == set()
    assert loaded_after("from providers import Job, JobArgs") == {"providers.job"}
    assert loaded_after("from providers import SecretScopeArgs") == {"providers.secret_scope"}
    # A nested args class belongs to no kind by name: every kind is searched.
    assert loaded_after("from providers import NewClusterArgs") == KIND_MODULES


def test_an_unknown_name_is_refused_by_name() -> None:
    with pytest.raises(UnknownKind, match="no resource kind is named 'Jobb'"):
        kind_named("Jobb")


class _PlugInProvider(WorkspaceProvider):
    from pydantic import BaseModel as args_model  # noqa: N813 - any model will do here


def test_a_plug_in_joins_at_the_end_and_leaves_again() -> None:
    plug_in = declare(_PlugInProvider, name="PlugIn", outputs={}, doc="docs/plug-in.md",
                      summary="a plug-in kind")
    register(plug_in)
    try:
        assert names()[-1] == "PlugIn" and kinds()[-1] is plug_in
        assert kind_named("PlugIn") is plug_in
        with pytest.raises(ValueError, match="'PlugIn' is registered already"):
            register(plug_in)
    finally:
        unregister(plug_in)
    assert "PlugIn" not in names()
    with pytest.raises(UnknownKind):
        kind_named("PlugIn")
