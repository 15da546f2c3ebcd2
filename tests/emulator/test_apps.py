"""The official SDK, unchanged, drives the emulator's apps: create and the compute's
STARTING -> ACTIVE move, deployments (SUCCEEDED, and FAILED where the source folder is
missing), stop and start, update, permissions by name, delete."""

from __future__ import annotations

import uuid

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import (
    InvalidParameterValue,
    InvalidState,
    NotFound,
    ResourceAlreadyExists,
)
from databricks.sdk.service import apps, workspace

from tests.emulator.conftest import MANUAL_TRANSITION_SECONDS
from workspace_emulator.testing import EmulatorInfo, advance_clock, fetch_token


@pytest.fixture
def sdk(manual: EmulatorInfo) -> WorkspaceClient:
    return WorkspaceClient(host=manual.base_url, token=fetch_token(manual))


def _name() -> str:
    return f"app-{uuid.uuid4().hex[:8]}"


def _source(sdk: WorkspaceClient, name: str) -> str:
    folder = f"/Shared/apps/{name}"
    sdk.workspace.mkdirs(folder)
    sdk.workspace.upload(f"{folder}/app.py", b"print('hello')\n",
                         format=workspace.ImportFormat.AUTO)
    return folder


def _compute(app: apps.App) -> str | None:
    return app.compute_status.state.value if app.compute_status and \
        app.compute_status.state else None


def _deployed(sdk: WorkspaceClient, name: str, folder: str) -> str:
    """The id of a deployment of the folder (the SDK types `Wait.response` as nothing in
    particular)."""
    made: object = sdk.apps.deploy(name, apps.AppDeployment(source_code_path=folder)).response
    assert isinstance(made, apps.AppDeployment) and made.deployment_id is not None
    return made.deployment_id


def _status(app: apps.App) -> str | None:
    return app.app_status.state.value if app.app_status and app.app_status.state else None


def test_an_app_runs_once_deployed_from_its_folder(
        sdk: WorkspaceClient, manual: EmulatorInfo) -> None:
    name = _name()
    made = sdk.apps.create(apps.App(name=name, description="orders", resources=[
        apps.AppResource(name="warehouse", sql_warehouse=apps.AppResourceSqlWarehouse(
            id="abc123",
            permission=apps.AppResourceSqlWarehouseSqlWarehousePermission.CAN_USE))])).response
    assert isinstance(made, apps.App) and _compute(made) == "STARTING"
    advance_clock(manual, MANUAL_TRANSITION_SECONDS)
    active = sdk.apps.get(name)
    assert (_compute(active), _status(active)) == ("ACTIVE", "UNAVAILABLE")
    assert active.compute_size == apps.ComputeSize.MEDIUM and active.url

    folder = _source(sdk, name)
    deployment_id = _deployed(sdk, name, folder)
    assert _status(sdk.apps.get(name)) == "DEPLOYING"
    advance_clock(manual, MANUAL_TRANSITION_SECONDS)
    done = sdk.apps.get_deployment(name, deployment_id)
    assert done.status is not None and done.status.state == apps.AppDeploymentState.SUCCEEDED
    running = sdk.apps.get(name)
    assert _status(running) == "RUNNING"
    assert running.active_deployment is not None
    assert running.active_deployment.deployment_id == deployment_id
    assert running.default_source_code_path == folder
    assert [d.deployment_id for d in sdk.apps.list_deployments(name)] == [deployment_id]


def test_a_deployment_of_a_missing_folder_fails_with_its_message(
        sdk: WorkspaceClient, manual: EmulatorInfo) -> None:
    name = _name()
    sdk.apps.create(apps.App(name=name))
    advance_clock(manual, MANUAL_TRANSITION_SECONDS)
    deployment_id = _deployed(sdk, name, "/Shared/apps/nowhere")
    advance_clock(manual, MANUAL_TRANSITION_SECONDS)
    failed = sdk.apps.get_deployment(name, deployment_id)
    assert failed.status is not None and failed.status.state == apps.AppDeploymentState.FAILED
    assert "/Shared/apps/nowhere does not exist" in (failed.status.message or "")
    assert _status(sdk.apps.get(name)) == "UNAVAILABLE"


def test_stop_start_update_permissions_delete(
        sdk: WorkspaceClient, manual: EmulatorInfo) -> None:
    name = _name()
    sdk.apps.create(apps.App(name=name))
    advance_clock(manual, MANUAL_TRANSITION_SECONDS)
    sdk.apps.stop(name)
    advance_clock(manual, MANUAL_TRANSITION_SECONDS)
    assert _compute(sdk.apps.get(name)) == "STOPPED"
    with pytest.raises(InvalidState, match="start the app first"):
        sdk.apps.deploy(name, apps.AppDeployment(source_code_path=_source(sdk, name)))
    sdk.apps.start(name)
    assert _compute(sdk.apps.get(name)) == "STARTING"
    advance_clock(manual, MANUAL_TRANSITION_SECONDS)
    assert _compute(sdk.apps.get(name)) == "ACTIVE"

    updated = sdk.apps.update(name, apps.App(name=name, description="v2",
                                             compute_size=apps.ComputeSize.LARGE,
                                             user_api_scopes=["sql"]))
    assert (updated.description, updated.compute_size, updated.user_api_scopes) == \
        ("v2", apps.ComputeSize.LARGE, ["sql"])

    sdk.apps.set_permissions(name, access_control_list=[apps.AppAccessControlRequest(
        group_name="users", permission_level=apps.AppPermissionLevel.CAN_USE)])
    acl = sdk.apps.get_permissions(name).access_control_list or []
    assert ("users", "CAN_USE") in [
        (e.group_name, p.permission_level.value) for e in acl for p in e.all_permissions or []
        if p.permission_level]

    assert name in [a.name for a in sdk.apps.list()]
    sdk.apps.delete(name)
    with pytest.raises(NotFound):
        sdk.apps.get(name)


def test_refusals_name_what_is_wrong(sdk: WorkspaceClient) -> None:
    with pytest.raises(InvalidParameterValue, match="App name 'Bad_Name' is invalid"):
        sdk.apps.create(apps.App(name="Bad_Name"))
    with pytest.raises(InvalidParameterValue, match=r"resources\[0\].secret.permission"):
        sdk.apps.create(apps.App(name=_name(), resources=[apps.AppResource.from_dict(
            {"name": "key", "secret": {"scope": "s", "key": "k", "permission": "OWN"}})]))
    name = _name()
    sdk.apps.create(apps.App(name=name))
    with pytest.raises(ResourceAlreadyExists):
        sdk.apps.create(apps.App(name=name))
