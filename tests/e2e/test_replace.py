"""`pulumi up --replace` of objects whose create adopts what it finds (a job by its deployment
tag, a scope by its name): the engine creates the replacement first, and that create finds
the very object it replaces. The provider host keeps it rather than deleting it as the old
resource's: nothing is lost, the state names an object that exists, and a further up
changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from providers.jobs.jobs_api import JobsApi
from providers.secrets.secret_scopes_api import SecretScopesApi
from providers.secrets.secrets_api import SecretsApi
from stacks.pulumi_cli import PulumiCli
from tests.conftest import emulator_client
from tests.e2e.conftest import LOCAL_OBJECTS, TYPE_PREFIX, StackFactory
from workspace_emulator.testing import EmulatorInfo, request_log

pytestmark = pytest.mark.engine


def resource(stack: PulumiCli, kind: str) -> dict[str, Any]:
    [found] = [r for r in stack.export()["deployment"]["resources"]
               if r["type"] == TYPE_PREFIX + kind]
    return found


def test_replace_keeps_what_the_replacement_adopted(
    workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    scope = LOCAL_OBJECTS["secretScopes"][0]
    secret = next(s for s in LOCAL_OBJECTS["secrets"] if s["secret_scope"] == scope["name"])
    stack = workspace_stack(jobs=LOCAL_OBJECTS["jobs"][:1], secretScopes=[scope],
                            secrets=[secret])
    stack.up()
    job, made_scope = resource(stack, "Job"), resource(stack, "SecretScope")

    replaced = stack.up("--replace", job["urn"], "--replace", made_scope["urn"])

    client = emulator_client(emulator)
    assert resource(stack, "Job")["id"] == job["id"]
    assert JobsApi(client).get(int(job["id"]))["job_id"] == int(job["id"])  # still there
    assert scope["name"] in {s["name"] for s in SecretScopesApi(client).list()}
    keys = {s["key"] for s in SecretsApi(client).list_secrets(scope["name"])}
    assert secret["key"] in keys  # the scope's secrets were not deleted with it
    deletes = [e for e in request_log(emulator)
               if e["path"] in ("/api/2.0/jobs/delete", "/api/2.0/secrets/scopes/delete")]
    assert deletes == []
    assert "which its replacement adopted" in replaced.stdout + replaced.stderr
    stack.up("--expect-no-changes")
