"""`python -m stacks.adopt` under the real engine against a workspace holding every kind the
filler makes (tools/fill_workspace.py with `kinds=ALL_KINDS`, `--all-kinds`: Unity Catalog
catalogs, schemas, volumes, grants, storage and service credentials, external locations,
SQL warehouses, instance pools, users, notebooks and Git credentials besides the default
kinds), and a storage credential of an Azure service principal made by hand, taken over at
once (docs/adopt.md). The stack names its account and the account host, so the service
principals' rule sets are listed too, and so is the account around the workspace: an account
group assigned to the workspace with entitlements is taken over as its three items
(accountGroups, workspaceAssignments, entitlements naming the group's item), not as a
workspace group.

Adopt refuses only what cannot be declared by design, each with its reason and the command
that sets the value: a secret's value, a Git credential's token and the storage credential's
client secret (the service returns none of them). The one `pulumi up` after it imports
everything else with no write to the workspace, the preview after it shows no changes, the
audit reports exactly the refused objects unmanaged, and adopting again adds nothing. Then
each refused object is declared as its refusal says (the item shown, named; the value set
with the command given; the nameless Git credential named in the workspace first): the next
up imports them with no write either, and the audit finds nothing unmanaged.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import uuid

import pytest

from providers.client import WorkspaceClient
from providers.identity.account_api import AccountGroupsApi, WorkspaceAssignmentApi
from providers.identity.groups_api import GroupsApi
from providers.secrets.secrets_api import SecretsApi
from providers.unity_catalog.storage_credentials_api import StorageCredentialsApi
from providers.workspace.git_credentials_api import GitCredentialsApi
from stacks.pulumi_cli import REPO_ROOT, PulumiCli
from tests.conftest import emulator_client, emulator_connection
from tests.e2e.conftest import StackFactory, platform_writes, write_config
from tests.e2e.team_support import audit_report, config_items, refused_objects, run_adopt
from tests.emulator.support import WORKSPACE_ID
from tools.fill_workspace import ALL_KINDS, EMULATOR_ACCOUNT_ID, Filled, fill
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

# Small enough for a loaded 2-core machine (about 25 s here, fill to audit), large enough
# that the filler makes at least one object of every kind.
FILL_SIZE = 48
FILL_RANDOM_STATE = 33
# A storage credential of an Azure service principal: its client secret is never answered.
CLIENT_SECRET = "sp-secret-made-by-hand"
SERVICE_PRINCIPAL = {"directory_id": "dd523c38-5331-469f-bb30-6ee31e3da8ff",
                     "application_id": "b946402c-4f47-469a-bead-ef6610b453f5",
                     "client_secret": CLIENT_SECRET}

# Each kind refused by design, with the words of its reason and the config path of the
# value the user sets (docs/adopt.md, "What is refused").
REASONS = {
    "secret": ("never returns a secret's value", "string_value"),
    "git_credential": ("never returns a secret's value", "personal_access_token"),
    "storage_credential": ("never returns a secret's value",
                           "azure_service_principal.client_secret"),
}


def refused_by_design(filled: Filled, credential: str) -> set[tuple[str, str]]:
    """(kind, id) of what adopt must refuse: each secret's value, each Git credential's
    token, and the client secret of the storage credential made by hand."""
    return ({("secret", id_) for id_ in filled.ids("Secret")}
            | {("git_credential", id_) for id_ in filled.ids("GitCredential")}
            | {("storage_credential", credential)})


def assign_an_account_group(emulator: EmulatorInfo) -> dict[str, str]:
    """An account group assigned to the workspace as USER and given an entitlement there, as
    an administrator does in the account console and the workspace's settings."""
    workspace = emulator_client(emulator, "public")
    account = WorkspaceClient(emulator_connection(emulator, "public").model_copy(
        update={"account_id": EMULATOR_ACCOUNT_ID}))
    group = AccountGroupsApi(account).create({"displayName": f"analysts-{uuid.uuid4().hex[:6]}"})
    WorkspaceAssignmentApi(account).set(WORKSPACE_ID, str(group["id"]), ["USER"])
    GroupsApi(workspace).patch(str(group["id"]), [
        {"op": "add", "path": "entitlements", "value": [{"value": "databricks-sql-access"}]}])
    return {"id": str(group["id"]), "name": group["displayName"]}


def assert_taken_over_as_the_accounts(stack: PulumiCli, group: dict[str, str]) -> None:
    """The assigned account group is its three items, the assignment's and the
    entitlements' naming the group's item; no workspace group."""
    [item] = [i for i in config_items(stack, "accountGroups") if i["import"] == group["id"]]
    assert item["display_name"] == group["name"], item
    assert [{k: v for k, v in i.items() if k != "name"}
            for i in config_items(stack, "workspaceAssignments")] == [
        {"import": f"{WORKSPACE_ID}|{group['id']}", "workspace_id": WORKSPACE_ID,
         "account_group": item["name"]}]
    assert [{k: v for k, v in i.items() if k != "name"}
            for i in config_items(stack, "entitlements")] == [
        {"import": f"groups/{group['id']}", "account_group": item["name"],
         "entitlements": ["databricks-sql-access"]}]
    assert group["id"] not in {i.get("import") for i in config_items(stack, "groups")}


def test_a_workspace_of_every_kind_is_taken_over_with_no_write(
    workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    filled = fill(emulator, size=FILL_SIZE, random_state=FILL_RANDOM_STATE, kinds=ALL_KINDS)
    made = filled.counts()
    assert all(made[kind] for kind in ALL_KINDS), made
    credential = f"by-hand-sp-cred-{uuid.uuid4().hex[:6]}"
    StorageCredentialsApi(emulator_client(emulator, "public")).create(
        {"name": credential, "azure_service_principal": SERVICE_PRINCIPAL})
    group = assign_an_account_group(emulator)
    stack = workspace_stack(wire_form="public")
    write_config(stack, {"workspace:accountId": EMULATOR_ACCOUNT_ID,
                         "workspace:accountHost": emulator.base_url})
    content_dir = f"build/e2e-adopt/every-kind-{uuid.uuid4().hex[:6]}"
    try:
        # Before adopt the audit reports the assigned account group as the account's
        # objects, not as a workspace group.
        before = {(o["kind"], o["id"]) for o in audit_report(stack)["unmanaged"]}
        assert {("account_group", group["id"]),
                ("workspace_assignment", f"{WORKSPACE_ID}|{group['id']}"),
                ("entitlements", f"groups/{group['id']}")} <= before
        assert ("group", group["id"]) not in before
        adopted = run_adopt(stack, "--content-dir", content_dir, expect=1)
        assert CLIENT_SECRET not in adopted.stdout + adopted.stderr
        refused = refused_objects(adopted.stdout)
        assert refused == refused_by_design(filled, credential), adopted.stdout
        assert_taken_over_as_the_accounts(stack, group)
        for kind, id_ in refused:
            row = next(line for line in adopted.stdout.splitlines()
                       if line.split()[:2] == [kind, id_])
            reason, value_path = REASONS[kind]
            assert reason in row and f"].{value_path}' <value>" in row, row
        clear_request_log(emulator)
        up = stack.up()
        assert "imported" in up.stdout, up.stdout
        assert platform_writes(emulator) == []
        stack.preview("--expect-no-changes")
        report = audit_report(stack)
        assert {(o["kind"], o["id"]) for o in report["unmanaged"]} == refused
        run_adopt(stack, "--content-dir", content_dir, expect=1, says="added 0 item(s)")

        declare_as_told(stack, emulator, adopted.stdout)
        clear_request_log(emulator)
        up = stack.up()
        assert f"{len(refused)} imported" in up.stdout, up.stdout
        assert platform_writes(emulator) == []
        stack.preview("--expect-no-changes")
        assert audit_report(stack)["unmanaged"] == []
    finally:
        shutil.rmtree(REPO_ROOT / content_dir, ignore_errors=True)


SHOWN = re.compile(r"add (\{.*?\})(?: with (?:a|that) `name`| \(its `name`[^)]*\))? to "
                   r"workspace:(\w+) yourself", re.IGNORECASE)
COMMAND = re.compile(r"`pulumi config set --secret --path '([^']+)' <value>`")


def declare_as_told(stack: PulumiCli, emulator: EmulatorInfo, report: str) -> None:
    """Each refused object declared as its refusal says, in the order reported: the item
    shown, with a name, at the end of its list; the value set with the command given (a
    secret's the one it holds, read here from the emulator; a token or client secret any,
    an import takes the declared one as held)."""
    client = emulator_client(emulator, "public")
    for row in report.splitlines():
        shown, command = SHOWN.search(row), COMMAND.search(row)
        if shown is None or command is None:
            continue
        item, key = json.loads(shown.group(1)), shown.group(2)
        if key == "gitCredentials" and "name" not in item:
            assert "give it one in the workspace first" in row, row
            name = f"{item['git_provider']}-credential"
            GitCredentialsApi(client).update(item["import"], {
                "git_provider": item["git_provider"], "name": name})
            item["name"] = name
        items = config_items(stack, key)
        items.append({"name": item.get("name") or f"{key}-{len(items)}", **item})
        write_config(stack, {f"workspace:{key}": items})
        path = command.group(1)
        assert path.startswith(f"workspace:{key}[{len(items) - 1}]."), (path, row)
        if key == "secrets":
            value = base64.b64decode(
                SecretsApi(client).get(item["scope"], item["key"])["value"]).decode()
        else:
            value = f"set-after-adopt-{uuid.uuid4().hex[:8]}"
        stack.run("config", "set", "--secret", "--path", "--stack", stack.stack, "--",
                  path, value)
