"""The flow controller mounted at /nifi-api, as the core mounts it, over real HTTP."""

from __future__ import annotations

import pytest
import requests
from starlette.applications import Starlette
from starlette.routing import Mount

from tests.emulator_apps.support import FakeClock, running_server
from workspace_emulator.flow import PREFIX, create_app

USERNAME, PASSWORD = "admin", "a-long-password"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=1_700_000_000.0)


@pytest.fixture
def api(clock):
    flow_app = create_app(
        verify_login=lambda user, password: (user, password) == (USERNAME, PASSWORD),
        clock=clock,
    )
    with running_server(Starlette(routes=[Mount(PREFIX, app=flow_app)])) as base_url:
        yield base_url + PREFIX


def login(api: str, **form: str) -> requests.Response:
    return requests.post(f"{api}/access/token", data=form, timeout=5)


def get_root(api: str, token: str | None = None) -> requests.Response:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return requests.get(f"{api}/process-groups/root", headers=headers, timeout=5)


def test_login_returns_a_jwt_shaped_token_as_plain_text(api):
    response = login(api, username=USERNAME, password=PASSWORD)

    assert response.status_code == 201
    assert response.headers["content-type"].startswith("text/plain")
    assert response.headers["location"] == f"{api}/access/token"
    assert len(response.text.split(".")) == 3


def test_login_with_bad_or_missing_credentials_is_refused(api):
    bad = login(api, username=USERNAME, password="wrong")
    missing = login(api, username=USERNAME)

    assert bad.status_code == 400
    assert bad.text == "The supplied username and password are not valid."
    assert missing.status_code == 400
    assert missing.text == "The username and password must be specified."


def test_root_group_with_a_login_token(api):
    token = login(api, username=USERNAME, password=PASSWORD).text

    response = get_root(api, token)

    assert response.status_code == 200
    group = response.json()
    assert group["component"]["name"] == "NiFi Flow"
    assert group["component"]["id"] == group["id"] == group["status"]["id"]
    assert group["uri"] == f"{api}/process-groups/{group['id']}"
    assert group["revision"] == {"version": 0}
    assert group["permissions"] == {"canRead": True, "canWrite": True}
    assert group["position"] == {"x": 0.0, "y": 0.0}
    assert group["runningCount"] == group["stoppedCount"] == group["invalidCount"] == 0
    assert "parentGroupId" not in group["component"]
    by_uri = requests.get(group["uri"], headers={"Authorization": f"Bearer {token}"}, timeout=5)
    assert by_uri.status_code == 200 and by_uri.json()["id"] == group["id"]


def test_root_group_with_a_token_of_another_issuer_is_401(api):
    # Shaped like a token and valid elsewhere (the platform's), but not issued by this login.
    response = get_root(api, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln")

    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith('Bearer error="invalid_token"')


def test_root_group_without_credentials_is_401(api):
    response = get_root(api)

    assert response.status_code == 401
    assert response.text == "Unauthorized"


def test_root_group_with_an_unknown_token_is_401_with_a_bearer_challenge(api):
    response = get_root(api, "not-a-token")

    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith('Bearer error="invalid_token"')


def test_root_group_with_an_expired_login_token_is_401(api, clock):
    token = login(api, username=USERNAME, password=PASSWORD).text
    clock.advance(12 * 3600)

    response = get_root(api, token)

    assert response.status_code == 401
    assert response.text == "Session Expired"


def test_unknown_process_group_is_404(api):
    token = login(api, username=USERNAME, password=PASSWORD).text
    headers = {"Authorization": f"Bearer {token}"}
    response = requests.get(f"{api}/process-groups/0000", headers=headers, timeout=5)

    assert response.status_code == 404


def test_login_body_must_be_form_encoded(api):
    response = requests.post(
        f"{api}/access/token", json={"username": USERNAME, "password": PASSWORD}, timeout=5
    )

    assert response.status_code == 415
