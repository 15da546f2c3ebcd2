"""`ResourceOptions(import_=id)` for all six kinds under the real engine, in both wire forms.

Objects are made out of band in the emulator, then a small program (import_program/)
declares each with its import id: up imports them, a preview shows no change, refresh
keeps them, other credentials are no change, destroy removes what each kind owns. A wrong
id fails naming the id, and the client secret stays out of the state in plain text.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from providers.client import NotFound, WireForm, WorkspaceClient
from providers.identity.service_principals_api import SCIM_SCHEMA, ServicePrincipalsApi
from providers.jobs.job_permissions_api import job_permissions_api
from providers.jobs.jobs_api import JobsApi
from providers.secrets.secret_scopes_api import SecretScopesApi
from providers.secrets.secrets_api import SecretsApi
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.workspace.repos_api import ReposApi
from stacks.pulumi_cli import PulumiCli, engine_kind
from tests.conftest import emulator_client
from tests.e2e.conftest import PROVIDER_TYPE, changed_steps, import_stack, write_config
from workspace_emulator.testing import (
    EmulatorInfo,
    clear_request_log,
    register_application,
    request_log,
)

pytestmark = pytest.mark.engine

ANALYSTS = "100000000000004"
ADMINS = "100000000000001"
REPO_ID = "3000000000000002"
CATALOG = "sandbox"
OTHER_WORKSPACE = "2345678901234567"


def make_objects_out_of_band(info: EmulatorInfo, client: WorkspaceClient) -> dict[str, Any]:
    """One object per kind, made with plain API calls; returns each kind's import entry."""
    suffix = uuid.uuid4().hex[:8]
    job_name = f"imported-job-{suffix}"
    settings = {
        "name": job_name,
        "new_cluster": {
            "spark_version": "13.3.x-scala2.12",
            "node_type_id": "Standard_DS3_v2",
            "num_workers": 2,
        },
        "max_retries": 1,
    }
    if client.connection.wire_form is WireForm.LEGACY:
        job_id = str(JobsApi(client).create(settings))
    else:
        # A job from before tasks had types: Jobs 2.0 still takes it as it stands, Jobs 2.2
        # (the public form's jobs area) refuses a task without a type.
        job_id = str(client.post("/api/2.0/jobs/create", settings)["job_id"])

    entry = {"group_name": "analysts", "permission_level": "CAN_VIEW"}
    job_permissions_api(client).update(int(job_id), [entry])

    application = register_application(info, f"imported-app-{suffix}")
    principal = ServicePrincipalsApi(client).create(
        {
            "schemas": [SCIM_SCHEMA],
            "applicationId": application["client_id"],
            "displayName": f"imported {suffix}",
            "entitlements": [{"value": "workspace-access"}],
            "groups": [{"value": ANALYSTS}],
        },
    )

    scope = f"imported-scope-{suffix}"
    SecretScopesApi(client).create(scope)
    ReposApi(client).update_branch(REPO_ID, "experiment")
    CatalogsApi(client).update_isolation(CATALOG, "ISOLATED")
    CatalogsApi(client).bind(CATALOG, [int(OTHER_WORKSPACE)])

    return {
        "Job": {"id": job_id, "args": settings},
        "JobPermissions": {
            "id": job_id,
            "args": {"job_id": job_id, "access_controls": [entry]},
        },
        "ServicePrincipal": {
            "id": principal["id"],
            "args": {
                "application_id": application["client_id"],
                "display_name": f"imported {suffix}",
                "entitlements": ["workspace-access"],
                "groups": [ANALYSTS],
            },
        },
        "SecretScope": {"id": scope, "args": {"name": scope}},
        "RepoBranch": {"id": REPO_ID, "args": {"repo_id": REPO_ID, "branch": "experiment"}},
        "CatalogBinding": {
            "id": CATALOG,
            "args": {
                "catalog_name": CATALOG,
                "isolation_mode": "ISOLATED",
                "bindings": [{"workspace_id": OTHER_WORKSPACE}],
            },
        },
    }


def writes(info: EmulatorInfo) -> list[str]:
    return [
        f"{r['method']} {r['path']}"
        for r in request_log(info)
        if r["service"] == "platform" and r["method"] != "GET"
    ]


def assert_rotated_credentials_update_the_provider_alone(
    stack: PulumiCli, info: EmulatorInfo
) -> None:
    """Other credentials (another client id and secret) are an update of the provider and
    change no resource."""
    rotated = register_application(info, "rotated-credentials")
    # A member of the workspace, as a principal a stack is moved to must be.
    ServicePrincipalsApi(emulator_client(info, "public")).create(
        {"schemas": [SCIM_SCHEMA], "applicationId": rotated["client_id"],
         "displayName": "rotated-credentials", "groups": [{"value": ADMINS}]})
    write_config(stack, {"workspace:clientId": rotated["client_id"]})
    stack.set_config("workspace:clientSecret", rotated["client_secret"], secret=True)
    assert changed_steps(stack) == [("update", PROVIDER_TYPE)]
    write_config(stack, {"workspace:clientId": info.client_id})
    stack.set_config("workspace:clientSecret", info.client_secret, secret=True)


@pytest.mark.parametrize("wire_form", ["public"])  # legacy: docs/testing.md, "Test legs"
def test_import_every_kind(tmp_path: Path, emulator: EmulatorInfo, wire_form: str) -> None:
    client = emulator_client(emulator, wire_form)
    imports = make_objects_out_of_band(emulator, client)
    stack = import_stack(tmp_path, emulator, wire_form)
    write_config(stack, {"workspace:objects": imports})

    clear_request_log(emulator)
    up = stack.up()
    assert "6 imported" in up.stdout, up.stdout
    assert writes(emulator) == []

    again = stack.preview("--expect-no-changes")
    assert "to update" not in again.stdout and "to replace" not in again.stdout
    stack.refresh("--expect-no-changes")
    clear_request_log(emulator)
    stack.up("--expect-no-changes")
    assert writes(emulator) == []
    assert_rotated_credentials_update_the_provider_alone(stack, emulator)

    state = stack.export()
    assert emulator.client_secret not in json.dumps(state)
    # The provider's configuration supplies the connection and the kind the provider code.
    recorded = {
        key
        for r in state["deployment"]["resources"]
        if r["type"].startswith("pulumi-python:dynamic/workspace:")
        for section in ("inputs", "outputs")
        for key in r.get(section) or {}
    }
    assert not recorded & {"connection", "__provider"}
    ids = {
        r["type"].rsplit(":", 1)[-1]: r["id"]
        for r in state["deployment"]["resources"]
        if r["type"].startswith("pulumi-python:dynamic/workspace:")
    }
    assert ids == {kind: entry["id"] for kind, entry in imports.items()}

    stack.destroy()
    job_id = imports["Job"]["id"]
    with pytest.raises(NotFound):
        client.get("/api/2.0/jobs/get", {"job_id": job_id})
    with pytest.raises(NotFound):
        ServicePrincipalsApi(client).get(imports["ServicePrincipal"]["id"])
    scopes = SecretScopesApi(client).list()
    assert imports["SecretScope"]["id"] not in {s["name"] for s in scopes}
    # The repo and the catalog are not the resources' own: an import recorded no earlier
    # branch to restore, and every binding found at import stays.
    assert ReposApi(client).get(REPO_ID)["branch"] == "experiment"
    bindings = CatalogsApi(client).get_bindings(CATALOG)
    assert int(OTHER_WORKSPACE) in [b["workspace_id"] for b in bindings]


def test_import_of_a_missing_id_or_of_other_settings_fails_saying_so(
    tmp_path: Path, emulator: EmulatorInfo
) -> None:
    stack = import_stack(tmp_path, emulator, "legacy")
    missing = {"SecretScope": {"id": "no-such-scope", "args": {"name": "no-such-scope"}}}
    write_config(stack, {"workspace:objects": missing})
    failed = stack.up(check=False)
    assert failed.returncode != 0
    assert "cannot import SecretScope 'no-such-scope'" in failed.stdout + failed.stderr
    assert "no such object" in failed.stdout + failed.stderr

    # The repo has "main" checked out; the program says "develop".
    other = {"RepoBranch": {"id": REPO_ID, "args": {"repo_id": REPO_ID, "branch": "develop"}}}
    write_config(stack, {"workspace:objects": other})
    preview = stack.preview("--diff", check=False)
    if engine_kind() == "classic":
        assert "importing this resource will fail" in preview.stdout + preview.stderr
    # Only the setting that differs, with both values, before anything is written.
    assert '~ branch: "main" => "develop"' in preview.stdout, preview.stdout
    assert "repo_id" not in preview.stdout
    clear_request_log(emulator)
    failed = stack.up(check=False)
    assert failed.returncode != 0
    if engine_kind() == "classic":  # the engine refuses the import
        assert "inputs to import do not match the existing resource" in failed.stdout
    else:  # the engine imports, then the provider host refuses the update that would follow
        assert f"cannot import RepoBranch '{REPO_ID}': its settings differ" in failed.stdout
        assert "(branch)" in failed.stdout, failed.stdout
    assert writes(emulator) == []
    assert ReposApi(emulator_client(emulator)).get(REPO_ID)["branch"] == "main"


def test_a_stack_from_before_the_provider_moves_over_without_replacements(
    tmp_path: Path, emulator: EmulatorInfo
) -> None:
    """Resources deployed on the default provider (a program without a WorkspaceAuth, as
    before WorkspaceAuth registered its own provider) are taken over by the component's
    provider when it is asked to: nothing is replaced or written. Without asking, the
    engine would replace them (a provider of its own aliases no other)."""
    stack = import_stack(tmp_path, emulator, "legacy")
    suffix = uuid.uuid4().hex[:8]
    objects = {
        "SecretScope": {"args": {"name": f"moved-scope-{suffix}"}},
        "Job": {
            "args": {
                "name": f"moved-job-{suffix}",
                "new_cluster": {
                    "spark_version": "13.3.x-scala2.12",
                    "node_type_id": "n",
                    "num_workers": 1,
                },
            }
        },
    }
    write_config(stack, {"workspace:objects": objects, "workspace:withoutAuth": True})
    stack.up()
    before = workspace_resources(stack)
    assert {r["provider"].split("::")[-2] for r in before.values()} == {"default"}

    write_config(stack, {"workspace:withoutAuth": False})
    unasked = stack.preview().stdout  # not asked to take the default provider over
    if engine_kind() == "classic":  # 3.79 replaces a resource whose provider changes
        assert "replace" in unasked, unasked
    write_config(stack, {"workspace:takeOver": True})
    clear_request_log(emulator)
    moved = stack.up()
    assert "replace" not in moved.stdout and "deleted" not in moved.stdout, moved.stdout
    assert writes(emulator) == []
    after = workspace_resources(stack)
    assert {name: r["id"] for name, r in after.items()} == {
        name: r["id"] for name, r in before.items()
    }
    assert {r["provider"].split("::")[-2] for r in after.values()} == {"workspace"}
    stack.preview("--expect-no-changes")
    write_config(stack, {"workspace:takeOver": False})  # moved: the alias is no longer needed
    stack.preview("--expect-no-changes")
    stack.destroy()


def test_rotated_credentials_serve_the_up_that_brings_them(
    tmp_path: Path, emulator: EmulatorInfo
) -> None:
    """The up after a rotation calls the workspace with the new credentials: newer engines
    keep a provider judged unchanged configured as the state recorded it, and bound
    resources send no connection of their own."""
    admin = emulator_client(emulator)
    rotated = register_application(emulator, "rotated-deployer")
    ServicePrincipalsApi(admin).create(
        {"schemas": [SCIM_SCHEMA], "applicationId": rotated["client_id"], "displayName": "deployer"}
    )
    stack = import_stack(tmp_path, emulator, "legacy")
    suffix = uuid.uuid4().hex[:8]
    scope = {"SecretScope": {"args": {"name": f"before-{suffix}"}}}
    write_config(stack, {"workspace:objects": scope})
    stack.up()

    write_config(stack, {"workspace:clientId": rotated["client_id"]})
    stack.set_config("workspace:clientSecret", rotated["client_secret"], secret=True)
    assert changed_steps(stack) == [("update", PROVIDER_TYPE)]
    renamed = {"SecretScope": {"args": {"name": f"after-{suffix}"}}}
    write_config(stack, {"workspace:objects": renamed})
    stack.up()
    # The scope's creator manages it: the rotated principal made it.
    managers = {
        acl["principal"] for acl in SecretsApi(admin).list_acls(f"after-{suffix}")
        if acl["permission"] == "MANAGE"
    }
    assert rotated["client_id"] in managers
    assert emulator.client_id not in managers
    stack.preview("--expect-no-changes")
    stack.destroy()


def workspace_resources(stack: PulumiCli) -> dict[str, dict[str, Any]]:
    return {
        r["urn"].split("::")[-1]: r
        for r in stack.export()["deployment"]["resources"]
        if r["type"].startswith("pulumi-python:dynamic/workspace:")
    }
