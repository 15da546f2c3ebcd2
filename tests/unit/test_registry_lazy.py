"""The registry names every kind and its module, and loads a kind's module only when that
kind is looked up: the order is the stack program's, each line's module declares that kind,
a lookup loads that kind's module alone, a program declaring resources loads the modules of
the kinds it declares and builds no input model, a plug-in joins at the end, and an unknown
name is refused by name. Import checks run in a fresh interpreter, as this one has loaded
every kind's module already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from providers.core import registry
from providers.core.kind import Reference, ReferenceByType, declare
from providers.core.lifecycle import WorkspaceProvider
from providers.core.registry import (
    KINDS,
    UnknownKind,
    kind_named,
    kinds,
    names,
    register,
    unregister,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
KIND_MODULES = {module for _, module in KINDS}
# What only an implementation needs: the SDK's schemas and the models derived from them.
SDK_SCHEMAS = [
    "databricks.sdk.service.jobs",
    "providers.core.sdk_schema",
    "providers.jobs.job_settings",
    "providers.jobs.job_model",
]
# The input models derived from the SDK's schemas: built only by requests that judge inputs.
INPUT_MODELS = {
    "providers.core.sdk_schema",
    "providers.jobs.job_settings",
    "providers.jobs.job_model",
}


def loaded_after(code: str) -> set[str]:
    """The implementation modules (and SDK schemas) a fresh interpreter has imported after
    running `code`."""
    watched = sorted({*KIND_MODULES, *SDK_SCHEMAS})
    script = (
        f"{code}\nimport json, sys\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m in {watched!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return set(json.loads(result.stdout.splitlines()[-1]))


def test_each_lines_module_declares_that_kind_beside_its_provider() -> None:
    for name, module in KINDS:
        kind = kind_named(name)
        assert kind.name == name and kind.implementation == module
        assert kind.provider.__module__ == module, name
        assert kind.provider.computed_keys == {*kind.outputs, *kind.stamped}, name


def test_a_line_whose_module_declares_no_such_kind_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(registry._kinds, "Unbound", "providers.core.ids")
    refused = r"providers\.core\.ids does not declare the Unbound kind"
    with pytest.raises(RuntimeError, match=refused):
        kind_named("Unbound")


def test_kinds_keep_the_stack_programs_order() -> None:
    # A kind comes after the kinds its references point into.
    listed = [kind.name for kind in kinds()]
    assert listed == names() == [name for name, _ in KINDS]
    position = {kind.config_key: index for index, kind in enumerate(kinds())}
    for index, kind in enumerate(kinds()):
        for reference in kind.references.values():
            if isinstance(reference, Reference):
                assert position[reference.target_key] < index, (kind.name, reference)
            if isinstance(reference, ReferenceByType):
                for target in reference.targets.values():
                    assert position[target] < index, (kind.name, target)


def test_a_lookup_loads_that_kinds_module_alone() -> None:
    assert loaded_after("from providers.core.registry import names; names()") == set()
    lookup = "from providers.core.registry import kind_named; kind = kind_named"
    job = loaded_after(f"{lookup}('Job'); kind.resource, kind.provider")
    assert job - set(SDK_SCHEMAS) == {"providers.jobs.job"}
    assert job & INPUT_MODELS == set()
    # Job permissions are built on access's ACL module, not on another kind's module.
    assert loaded_after(f"{lookup}('JobPermissions')") - set(SDK_SCHEMAS) == {
        "providers.jobs.job_permissions",
    }


def test_a_jobs_read_and_delete_build_no_input_model() -> None:
    # The job's input model (some hundred pydantic models derived from the SDK) is built only
    # by the requests that judge inputs: a refresh or destroy of jobs never pays for it.
    provider = (
        "from providers.core.registry import kind_named; provider = kind_named('Job').provider"
    )
    assert loaded_after(f"{provider}; provider()") & INPUT_MODELS == set()
    assert loaded_after(f"{provider}; provider.args_model") >= INPUT_MODELS


def test_kinds_that_are_no_jobs_or_clusters_serve_without_the_sdks_schemas() -> None:
    # The SDK's dataclass modules are a third of a second to load: only the kinds built on
    # them (and a legacy job's settings) load them.
    lookup = "from providers.core.registry import kind_named; kind_named"
    for name in ("JobPermissions", "SecretScope", "ServicePrincipal", "Secret", "Group"):
        code = f"{lookup}({name!r}).provider(); from providers.client import client_for"
        assert loaded_after(code) & set(SDK_SCHEMAS) == set(), name
    lifted = "from providers.jobs.job_wire import lift; lift({'name': 'n', 'tags': {}})"
    assert loaded_after(lifted) == set()
    # A legacy job's settings ask for the task types: from the SDK's shapes, which load its
    # module only where they are not stored yet (test_sdk_shapes.py).
    legacy = "from providers.jobs.job_wire import lift; lift({'notebook_task': {}})"
    assert loaded_after(legacy) <= {"databricks.sdk.service.jobs"}


def test_the_flat_surface_loads_the_modules_of_the_kinds_named() -> None:
    named = loaded_after("from providers import WorkspaceAuth, Job, Secret")
    # A secret names its scope by its domain's rules (providers/secrets/names.py), not by
    # loading the scope kind.
    assert named - set(SDK_SCHEMAS) == {"providers.jobs.job", "providers.secrets.secret"}
    assert named & INPUT_MODELS == set()
    assert loaded_after("from providers import lookups") <= set(SDK_SCHEMAS)
    assert loaded_after("from providers import JobArgs") - set(SDK_SCHEMAS) == {
        "providers.jobs.job"
    }
    assert loaded_after("from providers import SecretScopeArgs") - set(SDK_SCHEMAS) == {
        "providers.secrets.secret_scope"
    }
    # A nested args class belongs to no kind by name: every kind is searched.
    assert loaded_after("from providers import NewClusterArgs") - set(SDK_SCHEMAS) == KIND_MODULES


DECLARE_UNDER_MOCKS = """
import base64, dill, pulumi
from pulumi.dynamic.dynamic import PROVIDER_KEY

class Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args):
        sent.append(args.inputs)
        return [f"{args.name}-id", args.inputs]

    def call(self, args):
        return {}

sent = []
pulumi.runtime.set_mocks(Mocks(), preview=False)
from providers import Job, SecretScope
connection = {"base_url": "http://127.0.0.1:1", "token": "t"}
job = Job("nightly", {"name": "nightly", "tasks": [{"task_key": "a"}]}, connection=connection)
scope = SecretScope("scope", {"name": "s"}, connection=connection)


@pulumi.runtime.test
def registered():
    return pulumi.Output.all(job.id, scope.id)


registered()
assert len(sent) >= 2, sent
"""


def test_a_program_declaring_resources_loads_their_kinds_modules_and_no_input_model() -> None:
    loaded = loaded_after(DECLARE_UNDER_MOCKS)
    assert loaded - set(SDK_SCHEMAS) == {"providers.jobs.job", "providers.secrets.secret_scope"}
    assert loaded & INPUT_MODELS == set()


def test_a_program_loads_the_http_stack_only_to_fetch_a_token(tmp_path: Path) -> None:
    # A cached token (most runs) needs no HTTP: requests and urllib3 load at a token request.
    # The job's module reads the SDK's shapes, stored by a first run (deriving them loads
    # the SDK, which loads requests): the stored ones are what a program's runs find.
    script = (
        "import sys\nfrom providers import WorkspaceAuth, Job\n"
        "print(sorted(m for m in ('requests', 'urllib3') if m in sys.modules))"
    )
    env = {**os.environ, "WORKSPACE_SDK_SHAPES_DIR": str(tmp_path)}
    for _ in ("store the shapes", "run as a program does"):
        result = subprocess.run(
            [sys.executable, "-c", script],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
            env=env,
        )
    assert result.stdout.strip() == "[]"


def test_the_provider_a_program_sends_is_its_kinds_provider_when_loaded() -> None:
    # What the host does with a program's `__provider`: unpickle it.
    loaded = loaded_after(
        DECLARE_UNDER_MOCKS
        # The mocks see a secret's value inside its signature dict.
        + "sent_providers = [dill.loads(base64.b64decode(i[PROVIDER_KEY]['value'])) for i in sent"
        + " if PROVIDER_KEY in i]\n"
        + "assert sorted(type(p).__name__ for p in sent_providers)"
        + " == ['JobProvider', 'SecretScopeProvider'], sent_providers\n"
    )
    assert {"providers.jobs.job", "providers.secrets.secret_scope"} <= loaded


def test_an_unknown_name_is_refused_by_name() -> None:
    with pytest.raises(UnknownKind, match="no resource kind is named 'Jobb'"):
        kind_named("Jobb")


class _PlugInProvider(WorkspaceProvider):
    from pydantic import BaseModel as args_model  # noqa: N813 - any model will do here


def test_a_plug_in_joins_at_the_end_and_leaves_again() -> None:
    plug_in = declare(
        name="PlugIn", provider=_PlugInProvider, doc="docs/plug-in.md", summary="a plug-in kind"
    )
    register(plug_in)
    try:
        assert names()[-1] == "PlugIn" and kinds()[-1] is plug_in
        assert kind_named("PlugIn") is plug_in and plug_in.provider is _PlugInProvider
        with pytest.raises(ValueError, match="'PlugIn' is registered already"):
            register(plug_in)
    finally:
        unregister(plug_in)
    assert "PlugIn" not in names()
    with pytest.raises(UnknownKind):
        kind_named("PlugIn")


def test_a_stacks_config_is_judged_loading_the_kinds_of_its_lists_alone() -> None:
    """The stack program judges its config, then declares the kinds of the lists it has:
    every list is known from providers/core/registry_keys.py, and only the kinds whose
    lists have items are loaded (a preview of a small stack no longer loads every kind)."""
    keys = "from providers.core.registry import config_keys, stack_outputs"
    assert loaded_after(f"{keys}; config_keys(); stack_outputs()") == set()
    judged = loaded_after(
        "from stacks.config_rules import problems, declared_kinds\n"
        "values = {'secretScopes': '[{\"name\": \"team\"}]',\n"
        "          'groups': '[{\"name\": \"g\", \"display_name\": \"data\"}]',\n"
        "          'jobs': '[]'}\n"
        "problems(values)\n"
        "from stacks.config_rules import decoded_list\n"
        "from providers.core.registry import config_keys\n"
        "lists = {key: decoded_list(values, key)[0] for key in config_keys()}\n"
        "assert list(declared_kinds(lists)) == ['secretScopes', 'groups']\n"
    )
    assert judged - set(SDK_SCHEMAS) == {"providers.secrets.secret_scope",
                                         "providers.identity.group"}


def test_an_index_that_disagrees_with_a_declaration_is_refused_naming_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from providers.core import registry_keys

    monkeypatch.setitem(registry_keys.KEYS, "SecretScope", ("scopes", "secret_scopes"))
    monkeypatch.setitem(registry._kinds, "SecretScope", "providers.secrets.secret_scope")
    with pytest.raises(RuntimeError, match=r"run `python -m tools.kinds_table`"):
        kind_named("SecretScope")
