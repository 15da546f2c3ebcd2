"""Helpers of the emulator tests: an HTTP client, ids of the initial data, common requests."""

from __future__ import annotations

import uuid
from typing import Any

import requests

from workspace_emulator.testing import EmulatorInfo, fetch_token, register_application

ADMINS_GROUP_ID = "100000000000001"
ANALYSTS_GROUP_ID = "100000000000004"
DATA_ENGINEERS_GROUP_ID = "100000000000003"
WORKSPACE_ID = 1234567890123456
OTHER_WORKSPACE_IDS = (2345678901234567, 3456789012345678, 4567890123456789)
SP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServicePrincipal"
ACCOUNT_ID = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"  # the initial data's account
USER_ROLE = "roles/servicePrincipal.user"
RULE_SETS = "/api/2.0/preview/accounts/access-control/rule-sets"
TIMEOUT = 10


class Api:
    """requests against one emulator service, with a bearer token."""

    def __init__(self, base_url: str, token: str | None) -> None:
        self.base_url = base_url
        self.session = requests.Session()
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", TIMEOUT)
        return self.session.request(method, self.base_url + path, **kwargs)

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> requests.Response:
        return self.request("POST", path, json=json, **kwargs)

    def patch(self, path: str, json: Any = None, **kwargs: Any) -> requests.Response:
        return self.request("PATCH", path, json=json, **kwargs)

    def put(self, path: str, json: Any = None, **kwargs: Any) -> requests.Response:
        return self.request("PUT", path, json=json, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("DELETE", path, **kwargs)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def expect_error(response: requests.Response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) >= {"error_code", "message"}, body
    if code:
        assert body["error_code"] == code, body
    return body


def expect_scim_error(response: requests.Response, status: int) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["schemas"] == ["urn:ietf:params:scim:api:messages:2.0:Error"]
    assert body["status"] == str(status)
    assert body["detail"]
    return body


def add_service_principal(api: Api, emulator: EmulatorInfo, groups: tuple[str, ...] = ()
                          ) -> tuple[dict, dict]:
    """A new identity application made a member of the workspace: (application, resource)."""
    application = register_application(emulator, unique("app"))
    response = api.post("/api/2.0/preview/scim/v2/ServicePrincipals", json={
        "schemas": [SP_SCHEMA], "applicationId": application["client_id"],
        "displayName": application["display_name"], "groups": [{"value": g} for g in groups],
    })
    assert response.status_code == 201, response.text
    return application, response.json()


def grant_rules(api: Api, application_id: str, rules: list[dict[str, Any]]) -> None:
    """Writes the service principal's rule set (its etag read first)."""
    name = f"accounts/{ACCOUNT_ID}/servicePrincipals/{application_id}/ruleSets/default"
    read = api.get(RULE_SETS, params={"name": name, "etag": ""})
    assert read.status_code == 200, read.text
    written = api.put(RULE_SETS, json={"name": name, "rule_set": {
        "name": name, "grant_rules": rules, "etag": read.json()["etag"]}})
    assert written.status_code == 200, written.text


def make_user_of(api: Api, application_id: str, user: str) -> None:
    """Grants the application `user` the principal's user role (a job may run as it)."""
    grant_rules(api, application_id, [{"role": USER_ROLE,
                                       "principals": [f"servicePrincipals/{user}"]}])


def api_as(emulator: EmulatorInfo, application: dict) -> Api:
    token = fetch_token(emulator, application["client_id"], application["client_secret"])
    return Api(emulator.base_url, token)


def legacy_form_job_body(name: str, **overrides: Any) -> dict:
    """A create-job body in the legacy form of docs/api.md#create-job-body."""
    body = {
        "name": name,
        "new_cluster": {
            "name": f"{name}-cluster",
            "spark_version": "13.3.x-scala2.12",
            "node_type_id": "Standard_DS3_v2",
            "autoscale": {"min_workers": 1, "max_workers": 3},
            "init_scripts": [{"dbfs": {"destination": "dbfs:/init/setup.sh"}}],
            "cluster_log_conf": {"dbfs": {"destination": "dbfs:/mnt/logs"},
                                 "spark_env_vars": {"ENV": "test"}},
            "libraries": [{"pypi": {"package": "requests==2.31.0"}}],
            "timeout_seconds": 3600,
            "max_retries": 2,
            "spark_python_task": {"python_file": "dbfs:/jobs/main.py", "parameters": ["--x"]},
        },
    }
    body.update(overrides)
    return body


def public_job_body(name: str) -> dict:
    """The same job in the public form (docs/api.md#wire-forms)."""
    return {
        "name": name,
        "new_cluster": {
            "name": f"{name}-cluster",
            "spark_version": "13.3.x-scala2.12",
            "node_type_id": "Standard_DS3_v2",
            "autoscale": {"min_workers": 1, "max_workers": 3},
            "init_scripts": [{"dbfs": {"destination": "dbfs:/init/setup.sh"}}],
            "cluster_log_conf": {"dbfs": {"destination": "dbfs:/mnt/logs"}},
            "spark_env_vars": {"ENV": "test"},
            "libraries": [{"pypi": {"package": "requests==2.31.0"}}],
        },
        "timeout_seconds": 3600,
        "max_retries": 2,
        "spark_python_task": {"python_file": "dbfs:/jobs/main.py", "parameters": ["--x"]},
    }


def create_job(api: Api, body: dict | None = None) -> int:
    response = api.post("/api/2.0/jobs/create", json=body or legacy_form_job_body(unique("job")))
    assert response.status_code == 200, response.text
    return response.json()["job_id"]
