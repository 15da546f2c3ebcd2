"""A job's run_as service principal needs the caller to hold that principal's user role
(roles/servicePrincipal.user, from its access-control rule set) on create, reset and an
update that sets run_as; the manager role does not include it, and a principal may always
run as itself."""

from __future__ import annotations

from tests.emulator.jobs_support import create, job_body, python_script, settings
from tests.emulator.support import (
    USER_ROLE,
    add_service_principal,
    expect_error,
    grant_rules,
    make_user_of,
    unique,
)

MANAGER_ROLE = "roles/servicePrincipal.manager"


def _refusal(response, caller: str, application_id: str) -> None:
    message = expect_error(response, 403, "PERMISSION_DENIED")["message"]
    assert f"{caller} cannot set run_as.service_principal_name to {application_id}" in message
    assert USER_ROLE in message


def test_create_without_the_user_role_is_refused_and_allowed_once_granted(api, emulator):
    application, _ = add_service_principal(api, emulator)
    app_id = application["client_id"]
    body = job_body(python_script("a"), run_as={"service_principal_name": app_id})
    _refusal(api.post("/api/2.2/jobs/create", json=body), emulator.client_id, app_id)
    assert not [j for j in api.get("/api/2.2/jobs/list", params={"name": body["name"]})
                .json().get("jobs", [])]

    make_user_of(api, app_id, emulator.client_id)
    job_id = create(api, body)
    assert settings(api, job_id)["run_as"] == {"service_principal_name": app_id}


def test_the_manager_role_alone_does_not_allow_running_as_the_principal(api, emulator):
    application, _ = add_service_principal(api, emulator)
    app_id = application["client_id"]
    grant_rules(api, app_id, [{"role": MANAGER_ROLE,
                               "principals": [f"servicePrincipals/{emulator.client_id}"]}])
    body = job_body(python_script("a"), run_as={"service_principal_name": app_id})
    _refusal(api.post("/api/2.2/jobs/create", json=body), emulator.client_id, app_id)


def test_a_group_holding_the_role_allows_its_members(api, emulator):
    application, _ = add_service_principal(api, emulator)
    app_id = application["client_id"]
    grant_rules(api, app_id, [{"role": USER_ROLE, "principals": ["groups/admins"]}])
    create(api, job_body(python_script("a"), run_as={"service_principal_name": app_id}))


def test_the_caller_may_always_run_as_itself(api, emulator):
    job_id = create(api, job_body(python_script("a"),
                                  run_as={"service_principal_name": emulator.client_id}))
    assert settings(api, job_id)["run_as"] == {"service_principal_name": emulator.client_id}


def test_reset_and_an_update_setting_run_as_need_the_role_other_updates_do_not(api, emulator):
    granted, _ = add_service_principal(api, emulator)
    other, _ = add_service_principal(api, emulator)
    make_user_of(api, granted["client_id"], emulator.client_id)
    run_as = {"service_principal_name": granted["client_id"]}
    job_id = create(api, job_body(python_script("a"), run_as=run_as))

    # The role taken away: changing something else is still allowed.
    grant_rules(api, granted["client_id"], [])
    renamed = unique("renamed")
    response = api.post("/api/2.2/jobs/update",
                        json={"job_id": job_id, "new_settings": {"name": renamed}})
    assert response.status_code == 200, response.text
    assert settings(api, job_id)["name"] == renamed

    whole = job_body(python_script("a"), run_as=run_as)
    _refusal(api.post("/api/2.2/jobs/reset", json={"job_id": job_id, "new_settings": whole}),
             emulator.client_id, granted["client_id"])
    moved = {"service_principal_name": other["client_id"]}
    _refusal(api.post("/api/2.2/jobs/update",
                      json={"job_id": job_id, "new_settings": {"run_as": moved}}),
             emulator.client_id, other["client_id"])
    assert settings(api, job_id)["run_as"] == run_as
