"""The stack program under the real engine against the emulator: WorkspaceAuth checks the
credentials at preview, secret scopes go through up, no-op up and destroy, and the client
secret never reaches the state in plain text."""

import json
from typing import Any

import pytest
import requests

from tests.e2e.conftest import StackFactory
from workspace_emulator.testing import EmulatorInfo, clear_request_log, fetch_token, request_log

pytestmark = pytest.mark.engine

SCOPES: list[dict[str, Any]] = [
    {"name": "etl-secrets"},
    {
        "name": "vault-secrets",
        "keyvault": {
            "resource_id": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/"
            "dp/providers/Microsoft.KeyVault/vaults/dp-e2e-kv",
            "dns_name": "https://dp-e2e-kv.vault.azure.net/",
        },
    },
]


def listed_scopes(info: EmulatorInfo, token: str) -> dict[str, dict]:
    response = requests.get(
        f"{info.base_url}/api/2.0/secrets/scopes/list",
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    return {s["name"]: s for s in response.json().get("scopes", [])}


@pytest.mark.parametrize("wire_form", ["public"])  # legacy: docs/testing.md, "Test legs"
def test_scopes_up_noop_destroy(
    workspace_stack: StackFactory, emulator: EmulatorInfo, wire_form: str
) -> None:
    stack = workspace_stack(wire_form=wire_form, secretScopes=SCOPES)
    preview = stack.preview()
    # the stack, the auth component, its provider, two scopes
    assert "+ 5 to create" in preview.stdout

    stack.up()
    scopes = listed_scopes(emulator, fetch_token(emulator))
    assert {"etl-secrets", "vault-secrets"} <= set(scopes)
    assert (
        scopes["vault-secrets"]["keyvault_metadata"]["dns_name"]
        == SCOPES[1]["keyvault"]["dns_name"]
    )

    clear_request_log(emulator)
    again = stack.up("--expect-no-changes")
    assert "5 unchanged" in again.stdout
    platform_calls = [r for r in request_log(emulator) if r["service"] == "platform"]
    assert [r for r in platform_calls if r["method"] != "GET"] == []

    state = json.dumps(stack.export())
    assert emulator.client_secret not in state

    stack.destroy()
    assert not {"etl-secrets", "vault-secrets"} & set(
        listed_scopes(emulator, fetch_token(emulator))
    )


def test_wrong_client_secret_fails_preview(
    workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    stack = workspace_stack(secret="not-the-secret", secretScopes=SCOPES)
    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "client secret" in output
    assert emulator.client_id in output
    assert "not-the-secret" not in output
    assert "etl-secrets" not in listed_scopes(emulator, fetch_token(emulator))


def test_bad_scope_name_fails_preview_naming_the_field(
    workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    stack = workspace_stack(secretScopes=[{"name": "no spaces allowed"}])
    result = stack.preview(check=False)
    assert result.returncode != 0
    assert "name" in result.stdout and "1 to 128 characters" in result.stdout
