"""IP access lists and repos."""

from __future__ import annotations

import pytest

from tests.emulator.support import expect_error

PIPELINES = 3000000000000001
ML_MODELS = 3000000000000002


def test_ip_access_lists(api):
    lists = api.get("/api/2.0/ip-access-lists").json()["ip_access_lists"]
    assert {item["list_type"] for item in lists} == {"ALLOW", "BLOCK"}
    for item in lists:
        assert item["address_count"] == len(item["ip_addresses"])
        assert {"list_id", "label", "enabled", "created_at", "created_by", "updated_at",
                "updated_by"} <= set(item)
    one = api.get(f"/api/2.0/ip-access-lists/{lists[0]['list_id']}").json()
    assert one["ip_access_list"] == lists[0]
    expect_error(api.get("/api/2.0/ip-access-lists/nope"), 404)


def test_repos_list_pages_with_next_page_token(api):
    first = api.get("/api/2.0/repos").json()
    assert len(first["repos"]) == 2 and first["next_page_token"]
    second = api.get("/api/2.0/repos", params={"next_page_token": first["next_page_token"]})
    rest = second.json()
    assert "next_page_token" not in rest
    repos = first["repos"] + rest["repos"]
    assert len({r["id"] for r in repos}) == 3
    for repo in repos:
        assert set(repo) == {"id", "path", "url", "provider", "branch", "head_commit_id"}
    prefixed = api.get("/api/2.0/repos", params={"path_prefix": "/Repos/iac"}).json()["repos"]
    assert {r["id"] for r in prefixed} == {PIPELINES, ML_MODELS}
    expect_error(api.get("/api/2.0/repos", params={"next_page_token": "zzz"}), 400)


def test_get_repo(api):
    repo = api.get(f"/api/2.0/repos/{ML_MODELS}").json()
    assert repo["branch"] == "main"
    expect_error(api.get("/api/2.0/repos/1"), 404, "RESOURCE_DOES_NOT_EXIST")
    expect_error(api.get("/api/2.0/repos/abc"), 400)


@pytest.mark.parametrize("method", ["POST", "PATCH"])
def test_checkout_moves_the_head(api, method):
    before = api.get(f"/api/2.0/repos/{PIPELINES}").json()
    target = "develop" if before["branch"] != "develop" else "main"
    response = api.request(method, f"/api/2.0/repos/{PIPELINES}", json={"branch": target})
    assert response.status_code == 200, response.text
    after = api.get(f"/api/2.0/repos/{PIPELINES}").json()
    assert after["branch"] == target
    assert after["head_commit_id"] != before["head_commit_id"]
    assert response.json() == after


def test_checkout_of_a_missing_branch_is_invalid(api):
    before = api.get(f"/api/2.0/repos/{ML_MODELS}").json()
    error = expect_error(api.patch(f"/api/2.0/repos/{ML_MODELS}", json={"branch": "nope"}),
                         400, "INVALID_PARAMETER_VALUE")
    assert "nope" in error["message"]
    assert api.get(f"/api/2.0/repos/{ML_MODELS}").json() == before


def test_checkout_a_tag(api):
    repo = api.patch(f"/api/2.0/repos/{PIPELINES}", json={"tag": "v1.0.0"}).json()
    assert repo["head_commit_id"].startswith("d4e5")
    assert "branch" not in repo
    api.patch(f"/api/2.0/repos/{PIPELINES}", json={"branch": "main"})


@pytest.mark.parametrize("body", [{}, {"branch": "main", "tag": "v1.0.0"}, {"branch": 3}])
def test_bad_checkout_bodies(api, body):
    expect_error(api.patch(f"/api/2.0/repos/{PIPELINES}", json=body), 400)


def test_checkout_unknown_repo_is_not_found(api):
    expect_error(api.post("/api/2.0/repos/12345", json={"branch": "main"}), 404)
