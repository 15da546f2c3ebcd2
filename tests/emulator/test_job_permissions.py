"""Job permissions: one owner, admins inherit CAN_MANAGE, PATCH merges, PUT replaces."""

from __future__ import annotations

import pytest

from tests.emulator.support import (
    add_service_principal,
    api_as,
    create_job,
    expect_error,
)


def _path(job_id: int) -> str:
    return f"/api/2.0/permissions/jobs/{job_id}"


def _levels(acl: dict) -> dict[tuple[str, str], list[tuple[str, bool]]]:
    result = {}
    for entry in acl["access_control_list"]:
        key = next((k, entry[k]) for k in ("user_name", "group_name", "service_principal_name")
                   if k in entry)
        result[key] = [(p["permission_level"], p["inherited"]) for p in entry["all_permissions"]]
    return result


def test_creator_owns_and_admins_inherit(api, emulator):
    job_id = create_job(api)
    acl = api.get(_path(job_id)).json()
    assert acl["object_id"] == f"/jobs/{job_id}" and acl["object_type"] == "job"
    assert _levels(acl) == {
        ("service_principal_name", emulator.client_id): [("IS_OWNER", False)],
        ("group_name", "admins"): [("CAN_MANAGE", True)],
    }
    admins = next(e for e in acl["access_control_list"] if e.get("group_name") == "admins")
    assert admins["all_permissions"][0]["inherited_from_object"] == ["/jobs/"]


def test_patch_merges_legacy_form(api, emulator):
    job_id = create_job(api)
    first = api.patch(_path(job_id), json={"access_control_list": [
        {"group_name": "data-engineers", "permission_level": "CAN_MANAGE_RUN"}]})
    assert first.status_code == 200, first.text
    second = api.patch(_path(job_id), json={"access_control_list": [
        {"group_name": "analysts", "permission_level": "CAN_VIEW"},
        {"user_name": "bob@example.com", "permission_level": "CAN_MANAGE"}]})
    levels = _levels(second.json())
    assert levels[("group_name", "data-engineers")] == [("CAN_MANAGE_RUN", False)]
    assert levels[("group_name", "analysts")] == [("CAN_VIEW", False)]
    assert levels[("user_name", "bob@example.com")] == [("CAN_MANAGE", False)]
    assert levels[("service_principal_name", emulator.client_id)] == [("IS_OWNER", False)]
    assert _levels(api.get(_path(job_id)).json()) == levels


def test_put_replaces_direct_entries_and_keeps_the_owner(api, emulator):
    job_id = create_job(api)
    api.patch(_path(job_id), json={"access_control_list": [
        {"group_name": "analysts", "permission_level": "CAN_VIEW"}]})
    replaced = api.put(_path(job_id), json={"access_control_list": [
        {"group_name": "data-engineers", "permission_level": "CAN_MANAGE"}]}).json()
    assert _levels(replaced) == {
        ("service_principal_name", emulator.client_id): [("IS_OWNER", False)],
        ("group_name", "data-engineers"): [("CAN_MANAGE", False)],
        ("group_name", "admins"): [("CAN_MANAGE", True)],
    }
    emptied = api.put(_path(job_id), json={"access_control_list": []}).json()
    assert list(_levels(emptied)) == [("service_principal_name", emulator.client_id),
                                      ("group_name", "admins")]


def test_a_new_owner_replaces_the_old_one(api, emulator):
    job_id = create_job(api)
    acl = api.patch(_path(job_id), json={"access_control_list": [
        {"user_name": "alice@example.com", "permission_level": "IS_OWNER"}]}).json()
    owners = [k for k, v in _levels(acl).items() if ("IS_OWNER", False) in v]
    assert owners == [("user_name", "alice@example.com")]
    put = api.put(_path(job_id), json={"access_control_list": [
        {"service_principal_name": emulator.client_id, "permission_level": "IS_OWNER"}]}).json()
    owners = [k for k, v in _levels(put).items() if ("IS_OWNER", False) in v]
    assert owners == [("service_principal_name", emulator.client_id)]


@pytest.mark.parametrize("entry", [
    {"user_name": "nobody@example.com", "permission_level": "CAN_VIEW"},
    {"group_name": "no-such-group", "permission_level": "CAN_VIEW"},
    {"service_principal_name": "00000000-0000-0000-0000-000000000000",
     "permission_level": "CAN_VIEW"},
    {"group_name": "analysts", "permission_level": "IS_OWNER"},
    {"group_name": "analysts", "permission_level": "CAN_DANCE"},
    {"group_name": "analysts", "user_name": "bob@example.com", "permission_level": "CAN_VIEW"},
    {"permission_level": "CAN_VIEW"},
])
@pytest.mark.parametrize("method", ["PATCH", "PUT"])
def test_invalid_entries_are_refused(api, entry, method):
    job_id = create_job(api)
    before = api.get(_path(job_id)).json()
    response = api.request(method, _path(job_id), json={"access_control_list": [entry]})
    expect_error(response, 400, "INVALID_PARAMETER_VALUE")
    assert api.get(_path(job_id)).json() == before


def test_two_owners_in_one_request_are_refused(api, emulator):
    job_id = create_job(api)
    response = api.put(_path(job_id), json={"access_control_list": [
        {"user_name": "alice@example.com", "permission_level": "IS_OWNER"},
        {"user_name": "bob@example.com", "permission_level": "IS_OWNER"}]})
    expect_error(response, 400, "INVALID_PARAMETER_VALUE")


def test_unknown_job_is_not_found(api):
    expect_error(api.get(_path(77)), 404)
    expect_error(api.patch(_path(77), json={"access_control_list": []}), 404)


def test_permissions_decide_what_a_member_may_do(api, emulator):
    application, _ = add_service_principal(api, emulator)
    member = api_as(emulator, application)
    job_id = create_job(api)
    expect_error(member.get(_path(job_id)), 403, "PERMISSION_DENIED")
    api.patch(_path(job_id), json={"access_control_list": [
        {"service_principal_name": application["client_id"], "permission_level": "CAN_VIEW"}]})
    assert member.get(_path(job_id)).status_code == 200
    expect_error(member.post("/api/2.0/jobs/run-now", json={"job_id": job_id}), 403)
    expect_error(member.patch(_path(job_id), json={"access_control_list": []}), 403)
    api.patch(_path(job_id), json={"access_control_list": [
        {"group_name": "users", "permission_level": "CAN_MANAGE_RUN"}]})
    assert member.post("/api/2.0/jobs/run-now", json={"job_id": job_id}).status_code == 200


def test_permission_levels(api):
    job_id = create_job(api)
    levels = api.get(_path(job_id) + "/permissionLevels").json()["permission_levels"]
    assert [lv["permission_level"] for lv in levels] == ["CAN_VIEW", "CAN_MANAGE_RUN",
                                                         "CAN_MANAGE", "IS_OWNER"]
