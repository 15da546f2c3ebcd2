"""SCIM users (create, replace, patch, delete; identity federation), the rule sets of service
principals with their etags, and the permission objects of token and password usage, SQL
queries, alerts and dashboards, and Lakeview dashboards, driven by the official SDK."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import (
    BadRequest,
    InvalidParameterValue,
    NotFound,
    ResourceAlreadyExists,
    ResourceConflict,
)
from databricks.sdk.service import iam

from tests.emulator.support import ADMINS_GROUP_ID, add_service_principal, unique
from workspace_emulator.testing import fetch_token, register_application

ACCOUNT = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"
CAROL = ("300000000000001", "carol@example.com")
ETL = "b946402c-4f47-469a-bead-ef6610b453f5"  # a registered application
MANAGER = "roles/servicePrincipal.manager"
PATCH_OP = [iam.PatchSchema.URN_IETF_PARAMS_SCIM_API_MESSAGES_2_0_PATCH_OP]


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


# --- users ------------------------------------------------------------------------------


def test_a_user_is_made_read_changed_and_removed(sdk):
    name = f"{unique('user')}@example.com"
    made = sdk.users.create(user_name=name, display_name="New One", entitlements=[
        iam.ComplexValue(value="databricks-sql-access")])
    assert made.id and made.user_name == name and made.active
    assert [e.value for e in made.entitlements or []] == ["databricks-sql-access"]

    sdk.users.patch(made.id, schemas=PATCH_OP, operations=[
        iam.Patch(op=iam.PatchOp.REPLACE, path="active", value="false"),  # the SDK drops False
        iam.Patch(op=iam.PatchOp.ADD, path="entitlements",
                  value=[{"value": "workspace-access"}]),
    ])
    patched = sdk.users.get(made.id)
    assert patched.active is False
    assert {e.value for e in patched.entitlements or []} == {
        "databricks-sql-access", "workspace-access"}

    sdk.users.update(made.id, user_name=name, display_name="Renamed", active=True,
                     external_id="ext-1")
    replaced = sdk.users.get(made.id)
    assert (replaced.display_name, replaced.active, replaced.external_id) == (
        "Renamed", True, "ext-1")
    assert not replaced.entitlements

    listed = list(sdk.users.list(filter=f'userName eq "{name.upper()}"'))
    assert [u.id for u in listed] == [made.id]

    sdk.users.delete(made.id)
    with pytest.raises(NotFound):
        sdk.users.get(made.id)


def test_user_names_are_unique_regardless_of_case(sdk):
    name = f"{unique('twice')}@example.com"
    made = sdk.users.create(user_name=name)
    try:
        with pytest.raises((ResourceAlreadyExists, ResourceConflict)):  # SCIM: 409
            sdk.users.create(user_name=name.upper())
    finally:
        sdk.users.delete(made.id)


def test_a_user_name_cannot_change(sdk):
    made = sdk.users.create(user_name=f"{unique('fixed')}@example.com")
    try:
        with pytest.raises((BadRequest, InvalidParameterValue)):
            sdk.users.update(made.id, user_name="someone-else@example.com")
    finally:
        sdk.users.delete(made.id)


def test_an_account_user_is_assigned_and_keeps_its_id(sdk):
    """The workspace is identity-federated (initial data): Carol is an account user; adding
    her assigns her with her account id, removing her leaves the account user, and adding
    her again brings the same id back."""
    made = sdk.users.create(user_name=CAROL[1].upper())
    assert (made.id, made.user_name, made.display_name) == (*CAROL, "Carol Data")
    sdk.users.delete(made.id)
    again = sdk.users.create(user_name=CAROL[1], display_name="Carol D.")
    try:
        assert (again.id, again.display_name) == (CAROL[0], "Carol D.")
    finally:
        sdk.users.delete(again.id)


# --- rule sets --------------------------------------------------------------------------


def rule_set_name(application_id: str = ETL, account: str = ACCOUNT) -> str:
    return f"accounts/{account}/servicePrincipals/{application_id}/ruleSets/default"


@pytest.fixture(scope="module")
def principal(sdk):
    made = sdk.service_principals.create(application_id=ETL, display_name="etl for rules")
    yield made
    sdk.service_principals.delete(made.id)


def test_a_rule_set_is_read_and_written_with_its_etag(sdk, principal, emulator):
    name = rule_set_name()
    first = sdk.account_access_control_proxy.get_rule_set(name=name, etag="")
    # As the service does, the principal's creator (the caller) holds its manager role.
    assert first.name == name and first.etag
    assert first.grant_rules == [iam.GrantRule(
        role=MANAGER, principals=[f"servicePrincipals/{emulator.client_id}"])]
    rules = [iam.GrantRule(role="roles/servicePrincipal.user",
                           principals=["groups/data-engineers", "users/alice@example.com"])]
    written = sdk.account_access_control_proxy.update_rule_set(
        name=name,
        rule_set=iam.RuleSetUpdateRequest(name=name, grant_rules=rules, etag=first.etag))
    assert written.etag and written.etag != first.etag
    assert written.grant_rules == rules
    read = sdk.account_access_control_proxy.get_rule_set(name=name, etag=written.etag)
    assert read.grant_rules == rules and read.etag == written.etag

    # A write at the old etag is refused: someone changed the rule set since.
    with pytest.raises(ResourceConflict):
        sdk.account_access_control_proxy.update_rule_set(
            name=name, rule_set=iam.RuleSetUpdateRequest(name=name, grant_rules=[],
                                                         etag=first.etag))
    cleared = sdk.account_access_control_proxy.update_rule_set(
        name=name, rule_set=iam.RuleSetUpdateRequest(name=name, grant_rules=[],
                                                     etag=written.etag))
    assert not cleared.grant_rules


def creator_rules(sdk: WorkspaceClient, application_id: str) -> iam.RuleSetResponse:
    return sdk.account_access_control_proxy.get_rule_set(name=rule_set_name(application_id),
                                                         etag="")


def test_each_creator_holds_the_manager_role_of_the_principal_it_made(sdk, api, emulator):
    # The bootstrap principal makes an admin principal; that one makes another: each rule
    # set names its own creator, the only rule it holds.
    admin_app, _ = add_service_principal(api, emulator, (ADMINS_GROUP_ID,))
    as_admin = WorkspaceClient(host=emulator.base_url, token=fetch_token(
        emulator, admin_app["client_id"], admin_app["client_secret"]))
    made_app = register_application(emulator, unique("made-by-admin"))["client_id"]
    made = as_admin.service_principals.create(application_id=made_app)
    try:
        assert creator_rules(sdk, admin_app["client_id"]).grant_rules == [iam.GrantRule(
            role=MANAGER, principals=[f"servicePrincipals/{emulator.client_id}"])]
        by_admin = creator_rules(as_admin, made_app)
        assert by_admin.grant_rules == [iam.GrantRule(
            role=MANAGER, principals=[f"servicePrincipals/{admin_app['client_id']}"])]
        # The manager may write the rule set at the etag it read.
        written = as_admin.account_access_control_proxy.update_rule_set(
            name=rule_set_name(made_app), rule_set=iam.RuleSetUpdateRequest(
                name=rule_set_name(made_app), etag=by_admin.etag, grant_rules=[
                    iam.GrantRule(role=MANAGER, principals=["groups/admins"])]))
        assert written.etag != by_admin.etag
    finally:
        sdk.service_principals.delete(made.id)


def test_the_creator_rule_is_a_write_with_a_fresh_etag(sdk, emulator):
    # A principal of an application made again: its rule set is new (the rules the former
    # one held are gone), at an etag no one read before.
    application = register_application(emulator, unique("again"))["client_id"]
    first = sdk.service_principals.create(application_id=application)
    made = creator_rules(sdk, application)
    sdk.account_access_control_proxy.update_rule_set(
        name=rule_set_name(application), rule_set=iam.RuleSetUpdateRequest(
            name=rule_set_name(application), etag=made.etag, grant_rules=[
                iam.GrantRule(role="roles/servicePrincipal.user", principals=["groups/users"])]))
    held = creator_rules(sdk, application)
    sdk.service_principals.delete(first.id)
    again = sdk.service_principals.create(application_id=application)
    try:
        remade = creator_rules(sdk, application)
        assert remade.grant_rules == [iam.GrantRule(
            role=MANAGER, principals=[f"servicePrincipals/{emulator.client_id}"])]
        assert remade.etag not in (made.etag, held.etag)
        with pytest.raises(ResourceConflict):  # the etag read before the new principal
            sdk.account_access_control_proxy.update_rule_set(
                name=rule_set_name(application), rule_set=iam.RuleSetUpdateRequest(
                    name=rule_set_name(application), etag=held.etag, grant_rules=[]))
    finally:
        sdk.service_principals.delete(again.id)


@pytest.mark.parametrize(("rules", "says"), [
    ([iam.GrantRule(role="roles/workspace.admin", principals=["groups/analysts"])],
     "roles/servicePrincipal.user"),
    ([iam.GrantRule(role="roles/servicePrincipal.user", principals=["groups/nobody"])],
     "does not exist"),
    ([iam.GrantRule(role="roles/servicePrincipal.user", principals=["analysts"])],
     "groups/<group name>"),
])
def test_a_rule_set_names_roles_and_principals_that_exist(sdk, principal, rules, says):
    name = rule_set_name()
    etag = sdk.account_access_control_proxy.get_rule_set(name=name, etag="").etag
    with pytest.raises(InvalidParameterValue, match=says):
        sdk.account_access_control_proxy.update_rule_set(
            name=name, rule_set=iam.RuleSetUpdateRequest(name=name, grant_rules=rules,
                                                         etag=etag))


def test_a_rule_set_of_another_account_or_principal_is_not_found(sdk, principal):
    with pytest.raises(NotFound):
        sdk.account_access_control_proxy.get_rule_set(
            name=rule_set_name(account="00000000-0000-0000-0000-000000000009"), etag="")
    with pytest.raises(NotFound):
        sdk.account_access_control_proxy.get_rule_set(
            name=rule_set_name("72f8e10f-6030-4c2b-831a-46331832e54e"), etag="")
    with pytest.raises(InvalidParameterValue):
        sdk.account_access_control_proxy.get_rule_set(name="accounts/x/ruleSets/default",
                                                      etag="")


# --- permission objects -----------------------------------------------------------------


@pytest.mark.parametrize(("object_type", "object_id", "level", "answer_type"), [
    ("authorization", "tokens", "CAN_USE", "tokens"),
    ("authorization", "passwords", "CAN_USE", "passwords"),
    ("sql/queries", "a1b2c3d4-0001-4e5f-8a9b-0c1d2e3f4a51", "CAN_RUN", "query"),
    ("sql/alerts", "a1b2c3d4-0002-4e5f-8a9b-0c1d2e3f4a52", "CAN_VIEW", "alert"),
    ("sql/dashboards", "a1b2c3d4-0003-4e5f-8a9b-0c1d2e3f4a53", "CAN_EDIT", "dashboard"),
    ("dashboards", "01ef0a1b2c3d4e5f60718293a4b5c6d7", "CAN_READ", "dashboard"),
])
def test_the_new_permission_objects(sdk, object_type, object_id, level, answer_type):
    entry = iam.AccessControlRequest(group_name="analysts",
                                     permission_level=iam.PermissionLevel(level))
    changed = sdk.permissions.update(object_type, object_id, access_control_list=[entry])
    assert changed.object_type == answer_type
    got = sdk.permissions.get(object_type, object_id)
    analysts = [e for e in got.access_control_list or [] if e.group_name == "analysts"]
    assert [p.permission_level.value for p in analysts[0].all_permissions or []] == [level]
    levels = sdk.permissions.get_permission_levels(object_type, object_id)
    assert level in {lv.permission_level.value for lv in levels.permission_levels or []}
    sdk.permissions.set(object_type, object_id, access_control_list=[])


@pytest.mark.parametrize(("object_type", "object_id", "level"), [
    ("authorization", "tokens", "CAN_MANAGE"),
    ("sql/queries", "a1b2c3d4-0001-4e5f-8a9b-0c1d2e3f4a51", "CAN_READ"),
    ("dashboards", "01ef0a1b2c3d4e5f60718293a4b5c6d7", "CAN_VIEW"),
])
def test_each_type_takes_its_own_levels(sdk, object_type, object_id, level):
    entry = iam.AccessControlRequest(group_name="analysts",
                                     permission_level=iam.PermissionLevel(level))
    with pytest.raises((BadRequest, InvalidParameterValue)):
        sdk.permissions.update(object_type, object_id, access_control_list=[entry])


def test_authorization_has_tokens_and_passwords_only(sdk):
    with pytest.raises(NotFound):
        sdk.permissions.get("authorization", "keys")
