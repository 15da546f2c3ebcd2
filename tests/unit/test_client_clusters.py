"""The clusters and cluster-policies areas of the client: each operation's path, method and
body in each wire form, and what it answers (the service mocked)."""

from __future__ import annotations

import pytest
from responses import matchers

from providers.client.errors import TemporarilyUnavailable
from providers.compute.cluster_policies_api import ClusterPoliciesApi
from providers.compute.clusters_api import ClustersApi
from tests.unit.client_support import BASE_URL, body_is

CLUSTERS = f"{BASE_URL}/api/2.0/clusters"
LIBRARIES = f"{BASE_URL}/api/2.0/libraries"
POLICIES = f"{BASE_URL}/api/2.0/policies/clusters"
PYPI = {"pypi": {"package": "requests==2.32.3"}}

pytestmark = pytest.mark.usefixtures("fresh_client_caches", "no_retry_sleep")


def test_create_edit_resize_answer_and_send_the_spec(service, client) -> None:
    spec = {"spark_version": "15.4.x-scala2.12", "num_workers": 1}
    service.add("POST", f"{CLUSTERS}/create", json={"cluster_id": "c-1"}, match=body_is(spec))
    service.add("POST", f"{CLUSTERS}/edit", json={}, match=body_is({**spec, "cluster_id": "c-1"}))
    resize = {"cluster_id": "c-1", "num_workers": 3}
    service.add("POST", f"{CLUSTERS}/resize", json={}, match=body_is(resize))
    assert ClustersApi(client).create(spec) == "c-1"
    ClustersApi(client).edit("c-1", spec)
    ClustersApi(client).resize("c-1", {"num_workers": 3})


def test_stop_path_depends_on_the_wire_form_permanent_delete_does_not(
    service, client, wire_form
) -> None:
    stop = "stop" if wire_form == "legacy" else "delete"
    service.add("POST", f"{CLUSTERS}/{stop}", json={}, match=body_is({"cluster_id": "c-1"}))
    service.add(
        "POST", f"{CLUSTERS}/permanent-delete", json={}, match=body_is({"cluster_id": "c-1"})
    )
    ClustersApi(client).stop("c-1")
    ClustersApi(client).permanent_delete("c-1")


def test_pins_and_the_pinned_listing(service, client) -> None:
    service.add("POST", f"{CLUSTERS}/pin", json={}, match=body_is({"cluster_id": "c-1"}))
    service.add("POST", f"{CLUSTERS}/unpin", json={}, match=body_is({"cluster_id": "c-2"}))
    service.add(
        "GET",
        f"{CLUSTERS}/list",
        json={"clusters": [{"cluster_id": "c-1"}]},
        match=[matchers.query_param_matcher({"filter_by.is_pinned": "true"})],
    )
    ClustersApi(client).set_pinned("c-1", True)
    ClustersApi(client).set_pinned("c-2", False)
    assert ClustersApi(client).is_pinned("c-1") and not ClustersApi(client).is_pinned("c-2")


def test_libraries(service, client) -> None:
    body = {"cluster_id": "c-1", "libraries": [PYPI]}
    service.add("POST", f"{LIBRARIES}/install", json={}, match=body_is(body))
    service.add("POST", f"{LIBRARIES}/uninstall", json={}, match=body_is(body))
    statuses = [{"library": PYPI, "status": "INSTALLED"}]
    service.add(
        "GET",
        f"{LIBRARIES}/cluster-status",
        json={"cluster_id": "c-1", "library_statuses": statuses},
        match=[matchers.query_param_matcher({"cluster_id": "c-1"})],
    )
    ClustersApi(client).install_libraries("c-1", [PYPI])
    ClustersApi(client).uninstall_libraries("c-1", [PYPI])
    assert ClustersApi(client).library_statuses("c-1") == statuses


def test_node_types_and_spark_versions(service, client) -> None:
    service.add("GET", f"{CLUSTERS}/list-node-types", json={"node_types": [{"node_type_id": "n"}]})
    service.add("GET", f"{CLUSTERS}/spark-versions", json={})
    assert ClustersApi(client).node_types() == [{"node_type_id": "n"}]
    assert ClustersApi(client).spark_versions() == []


def test_cluster_policies(service, client) -> None:
    fields = {"name": "small", "definition": "{}"}
    service.add("POST", f"{POLICIES}/create", json={"policy_id": "P1"}, match=body_is(fields))
    service.add("POST", f"{POLICIES}/edit", json={}, match=body_is({**fields, "policy_id": "P1"}))
    service.add(
        "GET",
        f"{POLICIES}/get",
        json={**fields, "policy_id": "P1"},
        match=[matchers.query_param_matcher({"policy_id": "P1"})],
    )
    service.add("GET", f"{POLICIES}/list", json={"policies": [{**fields, "policy_id": "P1"}]})
    service.add("POST", f"{POLICIES}/delete", json={}, match=body_is({"policy_id": "P1"}))
    service.add(
        "GET", f"{BASE_URL}/api/2.0/policy-families", json={"policy_families": [{"name": "f"}]}
    )
    assert ClusterPoliciesApi(client).create(fields) == "P1"
    ClusterPoliciesApi(client).edit("P1", fields)
    assert ClusterPoliciesApi(client).get("P1")["name"] == "small"
    assert [p["policy_id"] for p in ClusterPoliciesApi(client).list()] == ["P1"]
    ClusterPoliciesApi(client).delete("P1")
    assert ClusterPoliciesApi(client).families() == [{"name": "f"}]


def test_a_lost_create_answer_is_not_repeated(service, client) -> None:
    busy = {"error_code": "TEMPORARILY_UNAVAILABLE", "message": "busy"}
    service.add("POST", f"{CLUSTERS}/create", status=503, json=busy)
    with pytest.raises(TemporarilyUnavailable, match="busy"):
        ClustersApi(client).create({"spark_version": "x"})
    assert len([c for c in service.calls if c.request.url == f"{CLUSTERS}/create"]) == 1
