"""The client's areas as lookups and actions use them: paths, queries, bodies, paging, and
which calls may be repeated after a lost answer. (The kinds' writes: test_client_areas.py.)"""

from __future__ import annotations

import pytest
import responses
from responses import matchers

from providers.client.errors import TemporarilyUnavailable
from providers.client.workspace import client_for
from providers.compute.clusters_api import ClustersApi
from providers.identity.service_principals_api import ServicePrincipalsApi
from providers.jobs.jobs_api import JobsApi
from providers.secrets.secret_scopes_api import SecretScopesApi
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.workspace.ip_access_lists_api import IpAccessListsApi
from providers.workspace.repos_api import ReposApi
from tests.unit.client_support import (
    BASE_URL,
    TOKEN_URL,
    connection,
    token_body,
)

SCIM = f"{BASE_URL}/api/2.0/preview/scim/v2/ServicePrincipals"


pytestmark = pytest.mark.usefixtures("fresh_client_caches", "no_retry_sleep")


def test_clusters_list_and_get(mocked):
    mocked.get(f"{BASE_URL}/api/2.0/clusters/list", json={"clusters": [{"cluster_id": "c1"}]})
    mocked.get(
        f"{BASE_URL}/api/2.0/clusters/get",
        json={"cluster_id": "c1", "state": "RUNNING"},
        match=[matchers.query_param_matcher({"cluster_id": "c1"})],
    )
    client = client_for(connection())
    assert ClustersApi(client).list() == [{"cluster_id": "c1"}]
    assert ClustersApi(client).get("c1")["state"] == "RUNNING"


def test_an_empty_cluster_list_is_an_empty_list(mocked):
    mocked.get(f"{BASE_URL}/api/2.0/clusters/list", json={})
    assert ClustersApi(client_for(connection())).list() == []


@pytest.mark.parametrize(
    ("wire_form", "token_method", "stop_path"),
    [("legacy", "GET", "/api/2.0/clusters/stop"), ("public", "POST", "/api/2.0/clusters/delete")],
)
def test_start_and_stop_in_each_wire_form(wire_form, token_method, stop_path):
    with responses.RequestsMock() as mocked:
        mocked.add(token_method, TOKEN_URL, json=token_body())
        body = [matchers.json_params_matcher({"cluster_id": "c1"})]
        mocked.post(f"{BASE_URL}/api/2.0/clusters/start", json={}, match=body)
        mocked.post(f"{BASE_URL}{stop_path}", json={}, match=body)
        client = client_for(connection(wire_form=wire_form))
        ClustersApi(client).start("c1")
        ClustersApi(client).stop("c1")


def test_stop_is_repeated_after_a_503(mocked):
    path = f"{BASE_URL}/api/2.0/clusters/stop"
    mocked.post(path, status=503, json={"error_code": "TEMPORARILY_UNAVAILABLE", "message": "x"})
    mocked.post(path, json={})
    ClustersApi(client_for(connection())).stop("c1")
    assert len([c for c in mocked.calls if c.request.url == path]) == 2


def test_run_now_with_a_token_sends_it_and_may_be_repeated(mocked):
    path = f"{BASE_URL}/api/2.0/jobs/run-now"
    body = {"job_id": 7, "python_params": ["--x"], "idempotency_token": "tok"}
    busy = {"error_code": "TEMPORARILY_UNAVAILABLE", "message": "busy"}
    mocked.post(path, status=503, json=busy, match=[matchers.json_params_matcher(body)])
    mocked.post(
        path, json={"run_id": 9, "number_in_job": 1}, match=[matchers.json_params_matcher(body)]
    )
    assert JobsApi(client_for(connection())).run_now(
        7, python_params=["--x"], idempotency_token="tok"
    ) == {"run_id": 9, "number_in_job": 1}


def test_run_now_without_a_token_is_not_repeated_after_a_503(mocked):
    path = f"{BASE_URL}/api/2.0/jobs/run-now"
    mocked.post(
        path,
        status=503,
        json={"error_code": "TEMPORARILY_UNAVAILABLE", "message": "busy"},
        match=[matchers.json_params_matcher({"job_id": 7, "python_params": []})],
    )
    with pytest.raises(TemporarilyUnavailable):
        JobsApi(client_for(connection())).run_now(7, python_params=[])
    assert len([c for c in mocked.calls if c.request.url == path]) == 1


def test_get_run_and_get_job(mocked):
    mocked.get(
        f"{BASE_URL}/api/2.0/jobs/runs/get",
        json={"run_id": 9},
        match=[matchers.query_param_matcher({"run_id": "9"})],
    )
    mocked.get(
        f"{BASE_URL}/api/2.0/jobs/get",
        json={"job_id": 7},
        match=[matchers.query_param_matcher({"job_id": "7"})],
    )
    client = client_for(connection())
    assert JobsApi(client).get_run(9) == {"run_id": 9}
    assert JobsApi(client).get(7)["job_id"] == 7


def test_list_jobs_follows_page_tokens_and_offsets(mocked):
    path = f"{BASE_URL}/api/2.0/jobs/list"
    mocked.get(
        path,
        json={"jobs": [{"job_id": 1}], "has_more": True, "next_page_token": "p2"},
        match=[matchers.query_param_matcher({"limit": "100", "name": "etl"})],
    )
    mocked.get(
        path,
        json={"jobs": [{"job_id": 2}], "has_more": True},
        match=[matchers.query_param_matcher({"limit": "100", "name": "etl", "page_token": "p2"})],
    )
    mocked.get(
        path,
        json={"jobs": [{"job_id": 3}], "has_more": False},
        match=[matchers.query_param_matcher({"limit": "100", "name": "etl", "offset": "2"})],
    )
    assert [j["job_id"] for j in JobsApi(client_for(connection())).list("etl")] == [1, 2, 3]


def test_jobs_list_pages_stops_at_the_pages_asked_and_says_there_are_more(mocked):
    path = f"{BASE_URL}/api/2.0/jobs/list"
    first = [matchers.query_param_matcher({"limit": "100"})]
    mocked.get(path, json={"jobs": [{"job_id": 1}], "next_page_token": "p2"}, match=first)
    mocked.get(
        path,
        json={"jobs": [{"job_id": 2}], "next_page_token": "p3"},
        match=[matchers.query_param_matcher({"limit": "100", "page_token": "p2"})],
    )
    jobs = JobsApi(client_for(connection()))
    found, more = jobs.list_pages(2)
    assert ([j["job_id"] for j in found], more) == ([1, 2], True)
    assert len(mocked.calls) == 3  # the token, two pages: never the third
    found, more = jobs.list_pages(1)
    assert ([j["job_id"] for j in found], more) == ([1], True)


def test_jobs_list_pages_of_a_workspace_that_fits_them_has_no_more(mocked):
    mocked.get(
        f"{BASE_URL}/api/2.0/jobs/list",
        json={"jobs": [{"job_id": 1, "settings": {"tags": {"t": "v"}}}], "has_more": False},
    )
    found, more = JobsApi(client_for(connection())).list_pages(5)
    assert (found, more) == ([{"job_id": 1, "settings": {"tags": {"t": "v"}}}], False)


def test_service_principals_list_filters_and_pages(mocked):
    flt = 'displayName eq "etl"'
    mocked.get(
        SCIM,
        json={"totalResults": 2, "Resources": [{"id": "1"}]},
        match=[matchers.query_param_matcher({"filter": flt, "startIndex": "1", "count": "100"})],
    )
    mocked.get(
        SCIM,
        json={"totalResults": 2, "Resources": [{"id": "2"}]},
        match=[matchers.query_param_matcher({"filter": flt, "startIndex": "2", "count": "100"})],
    )
    found = ServicePrincipalsApi(client_for(connection())).list(flt)
    assert [p["id"] for p in found] == ["1", "2"]


def test_scopes_and_ip_access_lists(mocked):
    mocked.get(f"{BASE_URL}/api/2.0/secrets/scopes/list", json={"scopes": [{"name": "s"}]})
    mocked.get(f"{BASE_URL}/api/2.0/ip-access-lists", json={"ip_access_lists": [{"label": "a"}]})
    client = client_for(connection())
    assert SecretScopesApi(client).list() == [{"name": "s"}]
    assert IpAccessListsApi(client).list() == [{"label": "a"}]


def test_repos_list_follows_next_page_token_and_get(mocked):
    path = f"{BASE_URL}/api/2.0/repos"
    mocked.get(
        path,
        json={"repos": [{"id": 1}], "next_page_token": "2"},
        match=[matchers.query_param_matcher({"path_prefix": "/Repos/a"})],
    )
    mocked.get(
        path,
        json={"repos": [{"id": 2}]},
        match=[matchers.query_param_matcher({"path_prefix": "/Repos/a", "next_page_token": "2"})],
    )
    mocked.get(f"{path}/2", json={"id": 2, "branch": "main"})
    client = client_for(connection())
    assert [r["id"] for r in ReposApi(client).list("/Repos/a")] == [1, 2]
    assert ReposApi(client).get(2)["branch"] == "main"


@pytest.mark.parametrize(("wire_form", "token_method"), [("legacy", "GET"), ("public", "POST")])
def test_catalog_and_bindings_with_integer_workspace_ids(wire_form, token_method):
    listed = [{"workspace_id": "2345678901234567", "binding_type": "BINDING_TYPE_READ_ONLY"}]
    with responses.RequestsMock() as mocked:
        mocked.add(token_method, TOKEN_URL, json=token_body())
        mocked.get(
            f"{BASE_URL}/api/2.1/unity-catalog/catalogs/fin%20ance",
            json={"name": "fin ance", "isolation_mode": "ISOLATED"},
        )
        mocked.get(
            f"{BASE_URL}/api/2.1/unity-catalog/bindings/catalog/fin%20ance",
            json={"bindings": listed},
        )
        client = client_for(connection(wire_form=wire_form))
        assert CatalogsApi(client).get("fin ance")["isolation_mode"] == "ISOLATED"
        assert CatalogsApi(client).get_bindings("fin ance") == [
            {"workspace_id": 2345678901234567, "binding_type": "BINDING_TYPE_READ_ONLY"}
        ]
