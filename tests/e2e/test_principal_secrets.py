"""A service principal declared by its display name alone and an OAuth secret of it, in one
stack under the real engine against the emulator (public wire form): up (the service assigns
the application id; the secret signs the principal in), a second up without changes or
writes, the value in plain text nowhere (`pulumi stack export`, `pulumi stack output`, the
engine's output, the emulator's request log), still encrypted after a refresh, a rotation
by replacement that makes the new secret before it deletes the old, a rename in place, and
a destroy back to the initial data.

One stack walks through the steps, a test each: a failure names its step, and the steps
after it do not run. (The engine's own verbose log, `-v=9`, prints every output a provider
answers, this value too, whatever its secret mark: docs/service-principal-secret.md.)"""

from __future__ import annotations

import copy
import dataclasses
import json
import uuid
from typing import Any

import pytest
import requests

from providers.client import WorkspaceClient
from providers.identity.service_principals_api import ServicePrincipalsApi
from stacks.pulumi_cli import PulumiCli
from tests.conftest import emulator_client
from tests.e2e.conftest import (
    TYPE_PREFIX,
    StackFactory,
    assert_no_changes,
    preview_steps,
    refreshed,
    write_objects,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

pytestmark = pytest.mark.engine

PRINCIPAL = "e2e-ci"
SECRET = "e2e-ci-secret"
KINDS = {PRINCIPAL: "ServicePrincipal", SECRET: "ServicePrincipalSecret"}
NINETY_DAYS = f"{90 * 24 * 3600}s"


def declared(display_name: str, lifetime: str) -> dict[str, list[dict[str, Any]]]:
    return {
        "servicePrincipals": [
            {"name": PRINCIPAL, "display_name": display_name, "entitlements": ["workspace-access"]}
        ],
        "servicePrincipalSecrets": [
            {"name": SECRET, "service_principal": PRINCIPAL, "lifetime": lifetime}
        ],
    }


def principals(client: WorkspaceClient) -> dict[str, str]:
    """Display name -> application id of every principal of the workspace."""
    return {
        p.get("displayName", ""): p["applicationId"] for p in ServicePrincipalsApi(client).list()
    }


def signs_in(info: EmulatorInfo, client_id: str, client_secret: str) -> bool:
    answer = requests.post(
        f"{info.base_url}/oidc/v1/token",
        data={"grant_type": "client_credentials", "scope": "all-apis"},
        auth=(client_id, client_secret),
        timeout=10,
    )
    return answer.status_code == 200


def ops(stack: PulumiCli) -> dict[str, str]:
    """The preview's op of each resource of `KINDS`; "same" where it lists none."""
    steps = preview_steps(stack, KINDS)
    return {name: steps.get(name, {}).get("op", "same") for name in KINDS}


def assert_nowhere(value: str, *texts: str, where: str) -> None:
    for text in texts:
        assert value not in text, f"{where}: the secret's value in plain text"


@dataclasses.dataclass
class Lifecycle:
    info: EmulatorInfo
    client: WorkspaceClient
    stack: PulumiCli
    display_name: str
    before: dict[str, str]
    values: list[str] = dataclasses.field(default_factory=list)  # every value the secret had
    logs: list[str] = dataclasses.field(default_factory=list)

    def exported(self) -> str:
        return json.dumps(self.stack.export())

    def secret_output(self) -> dict[str, Any]:
        return self.stack.outputs(show_secrets=True)["service_principal_secrets"][SECRET]


@pytest.fixture(scope="class")
def lifecycle(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Lifecycle:
    client = emulator_client(emulator, "public")
    display_name = f"e2e-ci-{uuid.uuid4().hex[:8]}"
    stack = workspace_stack(wire_form="public", **declared(display_name, NINETY_DAYS))
    return Lifecycle(emulator, client, stack, display_name, principals(client))


@pytest.mark.steps
class TestPrincipalSecretLifecycle:
    def test_1_up_assigns_the_application_id_and_the_secret_signs_in(
        self, lifecycle: Lifecycle
    ) -> None:
        assert ops(lifecycle.stack) == {PRINCIPAL: "create", SECRET: "create"}, "1. preview"
        clear_request_log(lifecycle.info)
        result = lifecycle.stack.up()
        lifecycle.logs += [result.stdout, result.stderr, json.dumps(request_log(lifecycle.info))]
        assigned = principals(lifecycle.client).get(lifecycle.display_name)
        assert assigned, "1. up: the principal made by its display name"
        output = lifecycle.secret_output()
        lifecycle.values.append(output["client_secret"])
        assert output["client_id"] == assigned, "1. the secret's client id: the assigned one"
        assert signs_in(lifecycle.info, assigned, output["client_secret"]), "1. it signs in"

    def test_2_a_second_up_changes_nothing(self, lifecycle: Lifecycle) -> None:
        assert_no_changes(lifecycle.stack, lifecycle.info, "2.")

    def test_3_the_value_is_in_no_state_log_or_request(self, lifecycle: Lifecycle) -> None:
        value = lifecycle.values[0]
        exported = lifecycle.exported()
        assert_nowhere(value, exported, *lifecycle.logs, where="3. export, up, requests")
        [secret] = [
            r
            for r in lifecycle.stack.export()["deployment"]["resources"]
            if r["type"] == TYPE_PREFIX + "ServicePrincipalSecret"
        ]
        assert "ciphertext" in json.dumps(secret["outputs"]["secret"]), "3. encrypted in state"
        shown = lifecycle.stack.run(
            "stack", "output", "--json", "--stack", lifecycle.stack.stack
        ).stdout
        assert_nowhere(value, shown, where="3. stack output without --show-secrets")

    def test_4_a_refresh_keeps_it_encrypted_and_changes_nothing(self, lifecycle: Lifecycle) -> None:
        found = {name: op for name, (op, _) in refreshed(lifecycle.stack).items() if name in KINDS}
        assert found == {PRINCIPAL: "same", SECRET: "same"}, "4. refresh reads both as recorded"
        assert_nowhere(lifecycle.values[0], lifecycle.exported(), where="4. export")
        assert lifecycle.secret_output()["client_secret"] == lifecycle.values[0], "4. kept"
        assert_no_changes(lifecycle.stack, lifecycle.info, "4. then")

    def test_5_rotation_replaces_new_secret_first(self, lifecycle: Lifecycle) -> None:
        stack, info = lifecycle.stack, lifecycle.info
        write_objects(stack, declared(lifecycle.display_name, "3600s"))
        assert ops(stack) == {PRINCIPAL: "same", SECRET: "replace"}, "5. preview: replace"
        clear_request_log(info)
        result = stack.up()
        writes = [
            f"{r['method']} {r['path']}"
            for r in request_log(info)
            if r["method"] in ("POST", "DELETE") and "credentials/secrets" in r["path"]
        ]
        assert [w.split()[0] for w in writes] == ["POST", "DELETE"], "5. made, then deleted"
        new = lifecycle.secret_output()["client_secret"]
        old = lifecycle.values[0]
        lifecycle.values.append(new)
        assigned = principals(lifecycle.client)[lifecycle.display_name]
        assert new != old and signs_in(info, assigned, new), "5. the new secret signs in"
        assert not signs_in(info, assigned, old), "5. the old one no longer does"
        for value in (old, new):
            assert_nowhere(
                value,
                result.stdout,
                result.stderr,
                lifecycle.exported(),
                json.dumps(request_log(info)),
                where="5. rotation",
            )
        assert_no_changes(stack, info, "5. then")

    def test_6_a_new_display_name_renames_the_principal_in_place(
        self, lifecycle: Lifecycle
    ) -> None:
        renamed = lifecycle.display_name + "-v2"
        objects = declared(renamed, "3600s")
        write_objects(lifecycle.stack, copy.deepcopy(objects))
        assert ops(lifecycle.stack) == {PRINCIPAL: "update", SECRET: "same"}, "6. an update"
        assigned = principals(lifecycle.client)[lifecycle.display_name]
        lifecycle.stack.up()
        assert principals(lifecycle.client).get(renamed) == assigned, "6. same principal"
        lifecycle.display_name = renamed

    def test_7_destroy_leaves_the_workspace_as_before(self, lifecycle: Lifecycle) -> None:
        assigned = principals(lifecycle.client)[lifecycle.display_name]
        lifecycle.stack.destroy()
        assert principals(lifecycle.client) == lifecycle.before, "7. destroy: as before"
        for value in lifecycle.values:
            assert not signs_in(lifecycle.info, assigned, value), "7. no secret signs in"
