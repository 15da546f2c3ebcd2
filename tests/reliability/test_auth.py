"""Authentication during deployments: tokens that expire while the local stack deploys are
replaced without the user seeing anything; a principal removed from the workspace gets the
service's 403 naming it. (A wrong client secret failing preview with a clear message is
tests/e2e/test_auth_and_scopes.py::test_wrong_client_secret_fails_preview.)"""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from tools.drills import inventory
from tools.drills.local_stack import local_objects, scratch_stack
from workspace_emulator.testing import (
    auth_headers,
    clear_request_log,
    register_application,
    request_log,
    running_emulator,
    set_faults,
)

pytestmark = pytest.mark.engine

SCIM = "/api/2.0/preview/scim/v2/ServicePrincipals"
ADMINS_GROUP = "100000000000001"


def test_tokens_expiring_mid_deployment_are_replaced(tmp_path: Path) -> None:
    # 1-second tokens and 300 ms per request: the up outlives several tokens. The
    # inventories, the test's own look (a hundred reads), are read without the latency.
    with running_emulator(token_lifetime=1) as info:
        stack = scratch_stack(tmp_path, info)
        before = inventory.take(info, ("finance",))
        clear_request_log(info)
        set_faults(info, latency_ms=300)
        up = stack.up()
        set_faults(info)
        log = request_log(info)
        tokens = [e for e in log if e["service"] == "identity" and e["status"] == 200]
        platform = [e for e in log if e["service"] == "platform"]
        assert len(tokens) >= 2, "the deployment outlived one token, so it took more"
        assert platform[-1]["time"] - platform[0]["time"] > 1
        assert "error" not in up.stdout.lower() and "warning" not in up.stdout.lower()
        verdict = inventory.judge(before, inventory.take(info, ("finance",)), local_objects(),
                                  f"workspace/{stack.stack}/")
        assert verdict.problems == []
        set_faults(info, latency_ms=300)
        stack.up("--expect-no-changes")


def test_principal_removed_from_the_workspace_gets_a_clear_401(tmp_path: Path) -> None:
    with running_emulator() as info:
        app = register_application(info, "ci-deployer")
        admin = auth_headers(info)
        added = requests.post(f"{info.base_url}{SCIM}", headers=admin, timeout=10, json={
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:ServicePrincipal"],
            "applicationId": app["client_id"], "displayName": "ci-deployer",
            "groups": [{"value": ADMINS_GROUP}]})
        assert added.status_code == 201
        stack = scratch_stack(tmp_path, info, objects={"secretScopes": [{"name": "ci-scope"}]},
                              secret=app["client_secret"])
        settings = stack.project_dir / f"Pulumi.{stack.stack}.yaml"
        settings.write_text(settings.read_text().replace(info.client_id, app["client_id"]))
        stack.up()

        requests.delete(f"{info.base_url}{SCIM}/{added.json()['id']}", headers=admin,
                        timeout=10).raise_for_status()
        settings.write_text(settings.read_text().replace("ci-scope", "ci-scope-2"))
        result = stack.up(check=False)
        output = result.stdout + result.stderr
        assert result.returncode != 0
        # As the service: a principal the workspace does not know is not signed in (401).
        assert "401 UNAUTHENTICATED" in output
        assert f"Service principal {app['client_id']} is not a member of this " \
               "workspace" in output
        assert app["client_secret"] not in output
