"""The import contracts of pyproject.toml ([tool.importlinter]) hold, and each one catches
the import it forbids (so none of them passes vacuously)."""

from __future__ import annotations

import copy
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import grimp
import pytest
from importlinter.api import read_configuration
from importlinter.contracts.acyclic_siblings import AcyclicSiblingsContract
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.independence import IndependenceContract
from importlinter.contracts.layers import LayersContract
from importlinter.domain.contract import Contract

ROOT = Path(__file__).resolve().parents[2]
CONTRACT_TYPES: dict[str, type[Contract]] = {
    "layers": LayersContract,
    "forbidden": ForbiddenContract,
    "acyclic_siblings": AcyclicSiblingsContract,
    "independence": IndependenceContract,
}
# One import per contract that the contract must refuse: (importer, imported).
FORBIDDEN_EXAMPLES = {
    "packages": ("providers.jobs.job", "stacks.config"),
    "providers-without-emulator": ("providers.core.host", "workspace_emulator.testing"),
    # The cycle the client and auth packages had before the tokens moved into the client.
    "client-at-the-bottom": ("providers.client.workspace", "providers.auth.component"),
    "auth-on-the-client": ("providers.auth.component", "providers.core.registry"),
    "no-cycles": ("providers.client.wire", "providers.client.workspace"),
    # A kind borrowing another domain's kind for a helper, as the flat layout allowed.
    "core-below-the-domains": ("providers.core.lifecycle", "providers.jobs.job_settings"),
    "domains-self-contained": (
        "providers.unity_catalog.storage_credential", "providers.secrets.secret"
    ),
    "ml-self-contained": ("providers.ml.registered_model", "providers.unity_catalog.uc_names"),
    "jobs-and-access-on-top": ("providers.compute.cluster", "providers.jobs.job_settings"),
    "jobs-names-compute-and-access": ("providers.jobs.job", "providers.workspace.repo"),
    "access-names-its-objects": ("providers.access.acl", "providers.unity_catalog.grants"),
    "domains-under-the-surface": ("providers.compute.cluster_state", "providers.lookups"),
}


def lint_imports_command() -> list[str]:
    beside_python = Path(sys.executable).with_name("lint-imports")
    found = str(beside_python) if beside_python.exists() else shutil.which("lint-imports")
    assert found, "lint-imports is not installed (the dev extra of pyproject.toml pins it)"
    return [found, "--no-cache", "--config", str(ROOT / "pyproject.toml")]


def test_the_contracts_hold() -> None:
    result = subprocess.run(
        lint_imports_command(), cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert f"Contracts: {len(FORBIDDEN_EXAMPLES)} kept, 0 broken." in report, report


@pytest.fixture(scope="module")
def configuration() -> dict[str, Any]:
    return read_configuration(str(ROOT / "pyproject.toml"))


@pytest.fixture(scope="module")
def graph(configuration: dict[str, Any]) -> grimp.ImportGraph:
    sys.path.insert(0, str(ROOT))  # this checkout's packages, not an installed copy
    try:
        return grimp.build_graph(*configuration["session_options"]["root_packages"], cache_dir=None)
    finally:
        sys.path.remove(str(ROOT))


def test_every_contract_has_a_forbidden_example(configuration: dict[str, Any]) -> None:
    ids = [options["id"] for options in configuration["contracts_options"]]
    assert sorted(ids) == sorted(FORBIDDEN_EXAMPLES)


@pytest.mark.parametrize("contract_id", sorted(FORBIDDEN_EXAMPLES))
def test_each_contract_refuses_its_example(
    contract_id: str, configuration: dict[str, Any], graph: grimp.ImportGraph
) -> None:
    options = next(o for o in configuration["contracts_options"] if o["id"] == contract_id)
    importer, imported = FORBIDDEN_EXAMPLES[contract_id]

    def check(with_example: bool) -> bool:
        contract = CONTRACT_TYPES[options["type"]](
            name=options["name"],
            session_options=configuration["session_options"],
            contract_options=options,
        )
        checked = copy.deepcopy(graph)
        if with_example:
            checked.add_import(importer=importer, imported=imported)
        return contract.check(checked, verbose=False).kept

    assert check(with_example=False), f"{contract_id} is broken as the code stands"
    assert not check(with_example=True), f"{contract_id} lets {importer} import {imported}"
