"""`python -m stacks.adopt` under the real engine against the emulator, for the kinds whose
objects sit inside others or hold content (docs/adopt.md): a notebook, a workspace file and an
empty folder, grants on a schema and on a volume, a service principal's rule set, and the
access-control lists of an instance pool, a SQL warehouse, the notebook, the file and their
folder, all made through the official SDK as a team's scripts make them.

Adopt writes their items, the notebook's and the file's content exported into files of the
project (`--content-dir`, here a scratch folder of the checkout's ignored build/, since the
stack program reads `source` files from the checkout), and the rule set naming the adopted
principal's item, the access lists as Permissions items (the pool and the warehouse by id,
the workspace objects by path). One `pulumi up` imports them with no write to the
workspace, the preview after it shows no changes, the audit reports none of them, and
adopting again adds nothing.
"""

from __future__ import annotations

import dataclasses
import io
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from databricks.sdk import WorkspaceClient as SdkClient
from databricks.sdk.service.catalog import PermissionsChange, Privilege, VolumeType
from databricks.sdk.service.compute import (
    InstancePoolAccessControlRequest,
    InstancePoolPermissionLevel,
)
from databricks.sdk.service.iam import GrantRule, RuleSetUpdateRequest
from databricks.sdk.service.sql import WarehouseAccessControlRequest, WarehousePermissionLevel
from databricks.sdk.service.workspace import (
    ImportFormat,
    Language,
    WorkspaceObjectAccessControlRequest,
    WorkspaceObjectPermissionLevel,
)

from stacks.pulumi_cli import REPO_ROOT, PulumiCli
from tests.e2e.conftest import StackFactory, platform_writes, write_config
from tests.e2e.team_support import audit_report, config_items, run_adopt
from workspace_emulator.testing import (
    EmulatorInfo,
    clear_request_log,
    fetch_token,
    register_application,
)

pytestmark = pytest.mark.engine

ACCOUNT = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"  # the emulator's account (initial data)
NOTEBOOK = b"-- Databricks notebook source\nSELECT count(*) FROM sales.orders\n"
SETTINGS = b'{"retries": 2, "window": "1d"}\n'
USER_ROLE = "roles/servicePrincipal.user"


@dataclasses.dataclass
class Made:
    """The scratch stack and what the SDK made, by name."""

    stack: PulumiCli
    prefix: str
    content_dir: str  # relative to the checkout, where the program reads `source` files
    folder: str
    catalog: str
    principal_id: str
    rule_set: str
    pool_id: str
    warehouse_id: str

    @property
    def settings_path(self) -> Path:
        return self.stack.project_dir / f"Pulumi.{self.stack.stack}.yaml"

    def items(self, key: str) -> list[dict[str, Any]]:
        return config_items(self.stack, key)

    def adopt(self, *flags: str, expect: int, says: str = "") -> Any:
        return run_adopt(self.stack, "--match", f"*:*{self.prefix}*",
                         "--content-dir", self.content_dir, *flags, expect=expect, says=says)


@pytest.fixture(scope="class")
def made(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Iterator[Made]:
    stack = workspace_stack(wire_form="public")
    write_config(stack, {"workspace:accountId": ACCOUNT})
    sdk = SdkClient(host=emulator.base_url, token=fetch_token(emulator), auth_type="pat")
    prefix = f"adk{uuid.uuid4().hex[:6]}"
    folder = f"/Shared/{prefix}"
    sdk.workspace.mkdirs(f"{folder}/inbox")  # stays empty: a Directory of its own
    sdk.workspace.upload(f"{folder}/daily", io.BytesIO(NOTEBOOK), format=ImportFormat.SOURCE,
                         language=Language.SQL)
    sdk.workspace.upload(f"{folder}/settings.json", io.BytesIO(SETTINGS),
                         format=ImportFormat.RAW)
    catalog = f"{prefix}_cat"
    sdk.catalogs.create(name=catalog)
    sdk.schemas.create(name="sales", catalog_name=catalog)
    sdk.volumes.create(catalog_name=catalog, schema_name="sales", name="landing",
                       volume_type=VolumeType.MANAGED)
    sdk.grants.update("schema", f"{catalog}.sales", changes=[PermissionsChange(
        principal="analysts", add=[Privilege.USE_SCHEMA, Privilege.SELECT])])
    sdk.grants.update("volume", f"{catalog}.sales.landing", changes=[PermissionsChange(
        principal="data-engineers", add=[Privilege.READ_VOLUME])])
    application = register_application(emulator, f"{prefix}-app")["client_id"]
    principal = sdk.service_principals.create(application_id=application,
                                              display_name=f"{prefix}-runner")
    rule_set = f"accounts/{ACCOUNT}/servicePrincipals/{application}/ruleSets/default"
    etag = sdk.account_access_control_proxy.get_rule_set(rule_set, etag="").etag
    sdk.account_access_control_proxy.update_rule_set(rule_set, RuleSetUpdateRequest(
        name=rule_set, etag=etag or "",
        grant_rules=[GrantRule(role=USER_ROLE, principals=["groups/data-engineers"])]))
    pool_id, warehouse_id = access_lists(sdk, prefix, folder)
    content_dir = f"build/e2e-adopt/{prefix}"
    yield Made(stack, prefix, content_dir, folder, catalog, str(principal.id), rule_set,
               pool_id, warehouse_id)
    shutil.rmtree(REPO_ROOT / content_dir, ignore_errors=True)


def access_lists(sdk: SdkClient, prefix: str, folder: str) -> tuple[str, str]:
    """A pool and a warehouse with a group's entry each, and a group's entry on the
    notebook, the file and their folder: (pool id, warehouse id)."""
    pool = sdk.instance_pools.create(instance_pool_name=f"{prefix}-pool",
                                     node_type_id="Standard_DS3_v2").instance_pool_id
    assert pool is not None
    sdk.instance_pools.update_permissions(pool, access_control_list=[
        InstancePoolAccessControlRequest(
            group_name="data-engineers",
            permission_level=InstancePoolPermissionLevel.CAN_ATTACH_TO)])
    warehouse = sdk.warehouses.create(name=f"{prefix}-bi", cluster_size="2X-Small").id
    sdk.warehouses.update_permissions(warehouse, access_control_list=[
        WarehouseAccessControlRequest(group_name="analysts",
                                      permission_level=WarehousePermissionLevel.CAN_USE)])
    for object_type, path, level in (
        ("notebooks", f"{folder}/daily", WorkspaceObjectPermissionLevel.CAN_RUN),
        ("files", f"{folder}/settings.json", WorkspaceObjectPermissionLevel.CAN_READ),
        ("directories", folder, WorkspaceObjectPermissionLevel.CAN_EDIT),
    ):
        object_id = str(sdk.workspace.get_status(path).object_id)
        sdk.workspace.update_permissions(object_type, object_id, access_control_list=[
            WorkspaceObjectAccessControlRequest(group_name="analysts",
                                                permission_level=level)])
    return str(pool), str(warehouse)


@pytest.mark.steps
class TestAdoptContentGrantsAndRuleSets:
    def test_1_adopt_writes_the_items_and_the_content(self, made: Made) -> None:
        result = made.adopt(expect=0)
        assert "wrote 2 project file(s)" in result.stdout, result.stdout
        notebook_file = f"{made.content_dir}{made.folder}/daily.sql"
        settings_file = f"{made.content_dir}{made.folder}/settings.json"
        [notebook] = made.items("notebooks")
        assert notebook == {"name": notebook["name"], "import": f"{made.folder}/daily",
                            "path": f"{made.folder}/daily", "source": notebook_file}
        [file] = made.items("workspaceFiles")
        assert (file["import"], file["source"]) == (f"{made.folder}/settings.json",
                                                    settings_file)
        assert (REPO_ROOT / notebook_file).read_bytes() == NOTEBOOK
        assert (REPO_ROOT / settings_file).read_bytes() == SETTINGS
        # The folder holding them is made by them; the empty one is a Directory.
        assert [(d["import"], d["path"]) for d in made.items("directories")] == [
            (f"{made.folder}/inbox", f"{made.folder}/inbox")]
        grants = {g["import"]: g for g in made.items("grants")}
        assert set(grants) == {f"schema/{made.catalog}.sales",
                               f"volume/{made.catalog}.sales.landing"}
        assert grants[f"schema/{made.catalog}.sales"]["privilege_assignments"] == [
            {"principal": "analysts", "privileges": ["SELECT", "USE_SCHEMA"]}]
        [principal] = made.items("servicePrincipals")
        [rule_set] = made.items("accessControlRuleSets")
        assert rule_set == {
            "name": rule_set["name"], "import": made.rule_set, "account_id": ACCOUNT,
            "service_principal": principal["name"],  # the adopted principal's item
            "grant_rules": [{"role": USER_ROLE, "principals": ["groups/data-engineers"]}],
        }
        # The access lists: the pool and the warehouse by their adopted items (the object_id
        # naming an item in place), the workspace objects by path.
        [pool] = made.items("instancePools")
        [warehouse] = made.items("sqlWarehouses")
        permissions = {p["import"]: p for p in made.items("permissions")}
        assert {key: {k: v for k, v in item.items() if k not in ("name", "import")}
                for key, item in permissions.items()} == {
            f"instance-pools/{made.pool_id}": {
                "object_type": "instance-pools", "object_id": pool["name"],
                "access_controls": [{"group_name": "data-engineers",
                                     "permission_level": "CAN_ATTACH_TO"}]},
            f"warehouses/{made.warehouse_id}": {
                "object_type": "warehouses", "object_id": warehouse["name"],
                "access_controls": [{"group_name": "analysts", "permission_level": "CAN_USE"}]},
            f"notebook_path:{made.folder}/daily": {
                "notebook_path": f"{made.folder}/daily",
                "access_controls": [{"group_name": "analysts", "permission_level": "CAN_RUN"}]},
            f"workspace_file_path:{made.folder}/settings.json": {
                "workspace_file_path": f"{made.folder}/settings.json",
                "access_controls": [{"group_name": "analysts", "permission_level": "CAN_READ"}]},
            f"directory_path:{made.folder}": {
                "directory_path": made.folder,
                "access_controls": [{"group_name": "analysts", "permission_level": "CAN_EDIT"}]},
        }

    def test_2_up_imports_them_with_no_write(
        self, made: Made, emulator: EmulatorInfo
    ) -> None:
        keys = ("notebooks", "workspaceFiles", "directories", "grants", "servicePrincipals",
                "accessControlRuleSets", "catalogs", "schemas", "volumes", "instancePools",
                "sqlWarehouses", "permissions")
        added = sum(len(made.items(key)) for key in keys)
        clear_request_log(emulator)
        up = made.stack.up()
        assert f"{added} imported" in up.stdout, up.stdout
        assert platform_writes(emulator) == []

    def test_3_the_next_preview_shows_no_changes(self, made: Made) -> None:
        made.stack.preview("--expect-no-changes")

    def test_4_the_audit_reports_none_of_them(self, made: Made) -> None:
        report = audit_report(made.stack)
        ours = [o for o in report["unmanaged"]
                if made.prefix in o["id"] or made.prefix in o["name"]
                or o["id"] == made.rule_set]
        assert ours == []

    def test_5_adopting_again_adds_and_writes_nothing(self, made: Made) -> None:
        before = made.settings_path.read_text()
        again = made.adopt(expect=0)
        assert "added 0 item(s)" in again.stdout and "project file" not in again.stdout
        assert made.settings_path.read_text() == before
