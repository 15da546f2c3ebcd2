"""Permissions, Secret and SecretAcl in one stack under the real engine against the emulator,
in both wire forms: preview, up, a no-op up without writes, in-place updates, replacements,
out-of-band drift found by refresh and undone by up, import by id without a diff, destroy
back to the initial data; and the secret's value in plain text nowhere: not in `pulumi stack
export`, the `-v=9` engine log, previews, error text or the emulator's request log.

One stack per wire form walks through the steps, a test each (a class per wire form)."""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from providers.access.acl import direct_entries
from providers.client import WorkspaceClient
from providers.secrets.secret_scopes_api import SecretScopesApi
from providers.secrets.secrets_api import SecretsApi
from stacks.pulumi_cli import PulumiCli
from tests.conftest import emulator_client
from tests.e2e.conftest import (
    TYPE_PREFIX,
    StackFactory,
    assert_no_changes,
    import_stack,
    platform_writes,
    preview_steps,
    refreshed,
    write_config,
    write_objects,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

pytestmark = pytest.mark.engine

SCOPE = "e2e-perm-scope"
CLUSTER = "0101-120000-shared01"
OTHER_CLUSTER = "0101-120000-etl00002"
WAREHOUSE = "5a1e2b3c4d5e6f70"
NOTEBOOK = "1710000000000001"
KINDS = {
    "e2e-token": "Secret",
    "e2e-analysts": "SecretAcl",
    "e2e-cluster-access": "Permissions",
    "e2e-warehouse": "Permissions",
}
IN_THE_STACK = {**KINDS, SCOPE: "SecretScope"}


def declared(value: str, owner: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    return {
        "secretScopes": [{"name": SCOPE}],
        "secrets": [
            {"name": "e2e-token", "secret_scope": SCOPE, "key": "api-token", "string_value": value}
        ],
        "secretAcls": [
            {"name": "e2e-analysts", "secret_scope": SCOPE, "principal": "analysts",
             "permission": "READ"}
        ],
        "permissions": [
            {
                "name": "e2e-cluster-access",
                "object_type": "clusters",
                "object_id": CLUSTER,
                "access_controls": [
                    {"group_name": "data-engineers", "permission_level": "CAN_RESTART"},
                    {"group_name": "analysts", "permission_level": "CAN_ATTACH_TO"},
                ],
            },
            {
                "name": "e2e-warehouse",
                "object_type": "warehouses",
                "object_id": WAREHOUSE,
                "access_controls": [{"group_name": "analysts", "permission_level": "CAN_USE"}],
                "owner": owner,
            },
        ],
    }


def new_value() -> str:
    return f"sv-{uuid.uuid4().hex}"


# --- the workspace and the engine ---------------------------------------------------------


def entries(client: WorkspaceClient, object_type: str, object_id: str) -> dict[str, str]:
    answer = client.permissions(object_type).get(object_id)
    return {p[1]: e["permission_level"] for p, e in direct_entries(answer).items()}


def secret_value(client: WorkspaceClient, key: str = "api-token") -> str:
    return base64.b64decode(SecretsApi(client).get(SCOPE, key)["value"]).decode()


def snapshot(client: WorkspaceClient) -> dict[str, Any]:
    scopes = {s["name"] for s in SecretScopesApi(client).list()}
    return {
        "scopes": scopes,
        "cluster": entries(client, "clusters", CLUSTER),
        "other_cluster": entries(client, "clusters", OTHER_CLUSTER),
        "warehouse": entries(client, "warehouses", WAREHOUSE),
    }


def steps(stack: PulumiCli) -> dict[str, dict[str, Any]]:
    """The preview's steps of `KINDS` (the scope they are in left out)."""
    return {n: step for n, step in preview_steps(stack, IN_THE_STACK).items() if n in KINDS}


def ops(stack: PulumiCli) -> dict[str, str]:
    return {name: step["op"] for name, step in steps(stack).items()}


def refresh_ops(stack: PulumiCli) -> dict[str, str]:
    return {name: op for name, (op, _) in refreshed(stack).items() if name in KINDS}


def configure(stack: PulumiCli, objects: dict[str, Any]) -> None:
    """The lists in the settings file, each secret's value encrypted in place (`--path
    --secret`, as docs/secret.md says): the engine hides a secret of the stack's config from
    its logs, never a plain one."""
    plain = copy.deepcopy(objects)
    values = {i: item.pop("string_value") for i, item in enumerate(plain["secrets"])
              if "string_value" in item}
    write_objects(stack, plain)
    for index, value in values.items():
        set_secret(stack, f"workspace:secrets[{index}].string_value", value)


def set_secret(stack: PulumiCli, path: str, value: str) -> None:
    stack.run("config", "set", "--stack", stack.stack, "--path", "--secret", "--", path, value)


def assert_nowhere(value: str, *texts: str, where: str) -> None:
    encoded = base64.b64encode(value.encode()).decode()
    for text in texts:
        assert value not in text, f"{where}: the secret's value in plain text"
        assert encoded not in text, f"{where}: the secret's value in base64"


# --- the scenario ----------------------------------------------------------------------------


@dataclasses.dataclass
class Lifecycle:
    wire_form: str
    info: EmulatorInfo
    client: WorkspaceClient
    before: dict[str, Any]
    stack: PulumiCli
    objects: dict[str, Any]
    values: list[str]  # every value the secret has had


@pytest.fixture(scope="class")
def lifecycle(
    class_wire_form: str, workspace_stack: StackFactory, emulator: EmulatorInfo
) -> Lifecycle:
    client = emulator_client(emulator, class_wire_form)
    value = new_value()
    objects = declared(value, {"user_name": "alice@example.com"})
    stack = workspace_stack(wire_form=class_wire_form)
    configure(stack, objects)
    return Lifecycle(class_wire_form, emulator, client, snapshot(client), stack, objects, [value])


@pytest.mark.steps
class PermsSecretsLifecycle:
    wire_form: str

    def test_1_preview_lists_the_creates_and_hides_the_value(self, lifecycle: Lifecycle) -> None:
        clear_request_log(lifecycle.info)
        stack = lifecycle.stack
        assert ops(stack) == {name: "create" for name in KINDS}, "1. preview: four creates"
        shown = stack.preview("--diff")
        assert_nowhere(lifecycle.values[0], shown.stdout, shown.stderr, where="1. preview")
        assert platform_writes(lifecycle.info) == [], "1. preview wrote to the workspace"

    def test_2_up_makes_the_objects_and_logs_no_value(self, lifecycle: Lifecycle) -> None:
        client, value = lifecycle.client, lifecycle.values[0]
        result = lifecycle.stack.up("-v=9", "--logtostderr")
        assert_nowhere(value, result.stdout, result.stderr, where="2. up -v=9")
        assert secret_value(client) == value, "2. up: the secret holds the value"
        acls = {a["principal"]: a["permission"] for a in SecretsApi(client).list_acls(SCOPE)}
        assert acls["analysts"] == "READ", "2. up: the scope's ACL"
        assert entries(client, "clusters", CLUSTER) == {
            "data-engineers": "CAN_RESTART", "analysts": "CAN_ATTACH_TO"}, "2. up: cluster"
        assert entries(client, "warehouses", WAREHOUSE) == {
            "alice@example.com": "IS_OWNER", "analysts": "CAN_USE"}, "2. up: ownership moved"

    def test_3_the_state_and_request_log_hold_no_value(self, lifecycle: Lifecycle) -> None:
        exported = json.dumps(lifecycle.stack.export())
        log = json.dumps(request_log(lifecycle.info))
        assert_nowhere(lifecycle.values[0], exported, log, where="3. stack export, request log")
        [secret] = [r for r in lifecycle.stack.export()["deployment"]["resources"]
                    if r["type"] == TYPE_PREFIX + "Secret"]
        for place in ("inputs", "outputs"):
            held = secret[place]
            assert "ciphertext" in json.dumps(held["string_value" if place == "inputs"
                                                   else "value_digest"]), f"3. {place}"

    def test_4_a_second_up_changes_nothing(self, lifecycle: Lifecycle) -> None:
        assert_no_changes(lifecycle.stack, lifecycle.info, "4.")

    def test_5_in_place_updates(self, lifecycle: Lifecycle) -> None:
        stack, client = lifecycle.stack, lifecycle.client
        updated = copy.deepcopy(lifecycle.objects)
        value = new_value()
        lifecycle.values.append(value)
        updated["secrets"][0]["string_value"] = value
        updated["secretAcls"][0]["permission"] = "WRITE"
        updated["permissions"][0]["access_controls"][1]["permission_level"] = "CAN_RESTART"
        # ownership back to the stack's own principal: the workspace as it was before
        updated["permissions"][1]["owner"] = {"service_principal_name": lifecycle.info.client_id}
        lifecycle.objects = updated
        configure(stack, updated)
        assert ops(stack) == {name: "update" for name in KINDS}, "5. preview: four updates"
        shown = stack.preview("--diff")
        assert_nowhere(value, shown.stdout, shown.stderr, where="5. preview --diff")
        assert_nowhere(lifecycle.values[0], shown.stdout, shown.stderr, where="5. preview")
        stack.up()
        assert secret_value(client) == value, "5. up: the value rewritten"
        assert SecretsApi(client).get_acl(SCOPE, "analysts")["permission"] == "WRITE", "5. up: ACL"
        assert entries(client, "clusters", CLUSTER)["analysts"] == "CAN_RESTART", "5. up"
        assert entries(client, "warehouses", WAREHOUSE) == {
            lifecycle.info.client_id: "IS_OWNER", "analysts": "CAN_USE"}, "5. up: owner back"

    def test_6_replacements(self, lifecycle: Lifecycle) -> None:
        stack, client = lifecycle.stack, lifecycle.client
        updated = copy.deepcopy(lifecycle.objects)
        updated["secrets"][0]["key"] = "api-token-2"
        updated["secretAcls"][0]["principal"] = "data-engineers"
        updated["permissions"][0]["object_id"] = OTHER_CLUSTER
        lifecycle.objects = updated
        configure(stack, updated)
        found = steps(stack)
        assert {n: s["op"] for n, s in found.items()} == {
            "e2e-token": "replace", "e2e-analysts": "replace", "e2e-cluster-access": "replace"
        }, "6. preview: three replacements"
        stack.up()
        assert [s["key"] for s in SecretsApi(client).list_secrets(SCOPE)] == ["api-token-2"], "6."
        assert secret_value(client, "api-token-2") == lifecycle.values[-1], "6. up: new key"
        acls = {a["principal"] for a in SecretsApi(client).list_acls(SCOPE)}
        assert "analysts" not in acls and "data-engineers" in acls, "6. up: ACL replaced"
        assert entries(client, "clusters", CLUSTER) == {}, "6. up: old cluster's entries gone"
        assert entries(client, "clusters", OTHER_CLUSTER) == {
            "data-engineers": "CAN_RESTART", "analysts": "CAN_RESTART"}, "6. up: new cluster"

    def test_7_drift_found_by_refresh_and_undone_by_up(self, lifecycle: Lifecycle) -> None:
        stack, client = lifecycle.stack, lifecycle.client
        SecretsApi(client).put(SCOPE, "api-token-2", string_value="written-by-someone-else")
        SecretsApi(client).put_acl(SCOPE, "data-engineers", "MANAGE")
        current = client.permissions("clusters").get(OTHER_CLUSTER)
        kept = [e for p, e in direct_entries(current).items() if p[1] != "analysts"]
        client.permissions("clusters").set(OTHER_CLUSTER, kept)
        client.permissions("warehouses").update(WAREHOUSE, [
            {"user_name": "bob@example.com", "permission_level": "IS_OWNER"}])
        assert refresh_ops(stack) == {
            "e2e-token": "update", "e2e-analysts": "update", "e2e-cluster-access": "update",
            "e2e-warehouse": "update"}, "7. refresh reads the four drifted objects as changed"
        assert ops(stack) == {name: "update" for name in KINDS}, "7. preview after refresh"
        stack.up()
        assert secret_value(client, "api-token-2") == lifecycle.values[-1], "7. up: value back"
        assert SecretsApi(client).get_acl(SCOPE, "data-engineers")["permission"] == "WRITE", "7. up"
        assert entries(client, "clusters", OTHER_CLUSTER)["analysts"] == "CAN_RESTART", "7."
        assert entries(client, "warehouses", WAREHOUSE)[lifecycle.info.client_id] == "IS_OWNER"
        assert_no_changes(stack, lifecycle.info, "7. then")

    def test_8_objects_deleted_out_of_band_are_made_again(self, lifecycle: Lifecycle) -> None:
        stack, client = lifecycle.stack, lifecycle.client
        SecretsApi(client).delete(SCOPE, "api-token-2")
        SecretsApi(client).delete_acl(SCOPE, "data-engineers")
        assert {n: op for n, op in refresh_ops(stack).items() if op == "delete"} == {
            "e2e-token": "delete", "e2e-analysts": "delete"}, "8. refresh drops the deleted"
        stack.up()
        assert secret_value(client, "api-token-2") == lifecycle.values[-1], "8. up: made again"
        assert SecretsApi(client).get_acl(SCOPE, "data-engineers")["permission"] == "WRITE"

    def test_9_an_error_names_no_value(self, lifecycle: Lifecycle) -> None:
        broken = copy.deepcopy(lifecycle.objects)
        value = new_value()
        broken["secrets"].append(
            {"name": "e2e-stray", "scope": "no-such-scope", "key": "k", "string_value": value})
        configure(lifecycle.stack, broken)
        result = lifecycle.stack.up("-v=9", "--logtostderr", check=False)
        assert result.returncode != 0, "9. a put into a missing scope fails"
        assert "no-such-scope" in result.stdout + result.stderr, "9. the error names the scope"
        assert_nowhere(value, result.stdout, result.stderr, json.dumps(request_log(lifecycle.info)),
                       json.dumps(lifecycle.stack.export()), where="9. a failed put")
        configure(lifecycle.stack, lifecycle.objects)

    def test_10_destroy_leaves_the_workspace_as_before(self, lifecycle: Lifecycle) -> None:
        lifecycle.stack.destroy()
        assert snapshot(lifecycle.client) == lifecycle.before, "10. destroy: as before"


class TestPermsSecretsInThePublicForm(PermsSecretsLifecycle):
    wire_form = "public"


# --- import -------------------------------------------------------------------------------


@pytest.mark.parametrize("wire_form", ["public"])  # legacy: docs/testing.md, "Test legs"
def test_import_by_id_shows_no_change(
    tmp_path: Path, emulator: EmulatorInfo, wire_form: str
) -> None:
    client = emulator_client(emulator, wire_form)
    scope, value = f"imported-{uuid.uuid4().hex[:8]}", new_value()
    SecretScopesApi(client).create(scope)
    SecretsApi(client).put(scope, "token", string_value=value)
    SecretsApi(client).put_acl(scope, "analysts", "READ")
    entry = {"group_name": "analysts", "permission_level": "CAN_READ"}
    client.permissions("notebooks").update(NOTEBOOK, [entry])
    objects: dict[str, dict[str, Any]] = {
        "Secret": {"id": f"{scope}/token",
                   "args": {"scope": scope, "key": "token", "string_value": value}},
        "SecretAcl": {"id": f"{scope}/analysts",
                      "args": {"scope": scope, "principal": "analysts", "permission": "READ"}},
        "Permissions": {"id": f"notebooks/{NOTEBOOK}",
                        "args": {"object_type": "notebooks", "object_id": NOTEBOOK,
                                 "access_controls": [entry]}},
    }
    stack = import_stack(tmp_path, emulator, wire_form)
    del objects["Secret"]["args"]["string_value"]
    write_config(stack, {"workspace:objects": objects})
    set_secret(stack, "workspace:objects.Secret.args.string_value", value)
    clear_request_log(emulator)
    result = stack.up("-v=9", "--logtostderr")
    assert platform_writes(emulator) == [], "import: nothing written"
    assert_nowhere(value, result.stdout, result.stderr, json.dumps(stack.export()),
                   json.dumps(request_log(emulator)), where="import")
    preview = json.loads(stack.preview("--json").stdout)
    changed = [s["urn"] for s in preview.get("steps", []) if s["op"] != "same"]
    assert changed == [], f"import: a preview after it shows no change, got {changed}"
    stack.destroy()
    assert SecretsApi(client).list_secrets(scope) == [], "import: destroy removed the secret"
    assert entries(client, "notebooks", NOTEBOOK) == {}, "import: destroy removed the entry"


def test_bad_inputs_fail_preview_naming_the_field_without_a_call(
    workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    value = new_value()
    objects = {
        "secretScopes": [{"name": SCOPE}],
        "secrets": [
            {"name": "s1", "scope": "has space", "key": "k", "string_value": value},
            {"name": "s2", "scope": SCOPE, "key": "a/b", "string_value": value},
            {"name": "s3", "scope": SCOPE, "key": "k3", "bytes_value": value + "!"},
            {"name": "s4", "scope": SCOPE, "key": "k4"},
            {"name": "s5", "scope": SCOPE, "key": "k5", "string_value": value, "colour": "x"},
        ],
        "secretAcls": [
            {"name": "a1", "scope": SCOPE, "principal": "analysts", "permission": "OWN"},
            {"name": "a2", "scope": SCOPE, "principal": "", "permission": "READ"},
            {"name": "a3", "scope": "has space", "principal": "analysts", "permission": "READ"},
            {"name": "a4", "scope": SCOPE, "principal": "analysts"},
            {"name": "a5", "scope": SCOPE, "principal": " x", "permission": "READ"},
        ],
        "permissions": [
            {"name": "p1", "object_type": "gizmos", "object_id": "1",
             "access_controls": [{"group_name": "analysts", "permission_level": "CAN_USE"}]},
            {"name": "p2", "object_type": "clusters", "object_id": CLUSTER,
             "access_controls": [{"group_name": "analysts", "permission_level": "CAN_VIEW"}]},
            {"name": "p3", "object_type": "clusters", "object_id": CLUSTER,
             "owner": {"user_name": "alice@example.com"}},
            {"name": "p4", "object_type": "notebooks", "object_id": "",
             "access_controls": [{"group_name": "analysts", "permission_level": "CAN_READ"}]},
            {"name": "p5", "object_type": "notebooks", "object_id": NOTEBOOK,
             "access_controls": [{"permission_level": "CAN_READ"}]},
        ],
    }
    stack = workspace_stack(wire_form="legacy")
    configure(stack, objects)
    clear_request_log(emulator)
    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    for where in (
        "secrets[0].scope", "secrets[1].key", "secrets[2].bytes_value", "secrets[3].(inputs)",
        "secrets[4].colour", "secretAcls[0].permission", "secretAcls[1].principal",
        "secretAcls[2].scope", "secretAcls[3].permission", "secretAcls[4].principal",
        "permissions[0].object_type", "permissions[1].access_controls[0].permission_level",
        "permissions[2].owner", "permissions[3].object_id", "permissions[4].access_controls[0]",
    ):
        assert f"workspace:{where}" in output, f"preview names {where}:\n{output}"
    assert [r for r in request_log(emulator) if r["service"] == "platform"] == []
    assert_nowhere(value, output, where="bad inputs")
