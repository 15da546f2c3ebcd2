"""The account connection's settings in a stack's config (docs/account.md): required, by
name, once the stack declares account items; judged before anything is registered; the
connection built from them is the workspace's sign-in at the account host."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from stacks.config import StackSettings, file_values
from stacks.config_rules import problems
from stacks.pulumi_cli import REPO_ROOT

ACCOUNT_ID = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"


@pytest.fixture()
def local() -> dict[str, Any]:
    values = copy.deepcopy(file_values(REPO_ROOT / "Pulumi.local.yaml")[0])
    del values["clientSecret"]
    values.pop("accountId", None)  # the audit's, where set
    return values


def with_account_items(values: dict[str, Any]) -> dict[str, Any]:
    return {**values,
            "accountGroups": [{"name": "eu", "display_name": "analysts-eu"}],
            "workspaceAssignments": [{"name": "eu-in", "account_group": "eu",
                                      "workspace_id": 1234567890123456}]}


def test_account_items_need_the_account_host_and_id(local) -> None:
    found = problems(with_account_items(local))
    needs = "required by the account's items (workspace:accountGroups, " \
            "workspace:workspaceAssignments)"
    assert found == [
        f"workspace:accountHost: {needs}: `pulumi config set workspace:accountHost <the "
        "account host, e.g. https://accounts.cloud.databricks.com>`",
        f"workspace:accountId: {needs}: `pulumi config set workspace:accountId <the account's "
        "id, from the account console>`",
    ]


def test_a_stack_without_account_items_needs_neither(local) -> None:
    assert problems(local) == []
    settings = StackSettings(values=local, lists={}, health=None)
    assert not settings.has_account_items


def test_the_account_host_and_id_are_judged(local) -> None:
    values = {**with_account_items(local), "accountHost": "ftp://accounts.example.com",
              "accountId": "not an id"}
    found = problems(values)
    assert any(p.startswith("workspace:accountHost: workspace:accountHost must be an absolute "
                            "https:// URL") for p in found), found
    assert "workspace:accountId: must be the account's id, as the account console shows it " \
           "(letters, digits and '-', e.g. 8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c), got " \
           "'not an id'" in found


def test_the_account_connection_is_the_workspace_sign_in_at_the_account_host(local) -> None:
    values = {**with_account_items(local), "accountHost": local["baseUrl"],
              "accountId": ACCOUNT_ID, "azureWorkspaceResourceId": "/subscriptions/x"}
    assert problems(values) == []
    settings = StackSettings(values=values, lists={
        "accountGroups": values["accountGroups"]}, health=None,
        credentials={"client_secret": "s"})
    assert settings.has_account_items
    workspace, account = settings.auth_args(), settings.account_auth_args()
    assert (account.base_url, account.account_id) == (local["baseUrl"], ACCOUNT_ID)
    assert account.azure_workspace_resource_id is None and account.wire_form is None
    assert (account.client_id, account.client_secret) == (workspace.client_id, "s")
