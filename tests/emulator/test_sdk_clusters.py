"""The official SDK, unchanged, drives the emulator's clusters (create to permanent delete,
pins, events, libraries, node types and Spark versions) and cluster policies."""

from __future__ import annotations

import json
import time

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import InvalidParameterValue, NotFound, ResourceAlreadyExists
from databricks.sdk.service import compute

from tests.conftest import emulator_fixture
from tests.emulator.support import Api, expect_error, unique
from workspace_emulator.platform.models.clusters import settle
from workspace_emulator.testing import EmulatorInfo, fetch_token

SPARK = "15.4.x-scala2.12"
NODE = "Standard_DS3_v2"

slow_emulator = emulator_fixture("module", transition_seconds=0.4)


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture(scope="module")
def slow_api(slow_emulator: EmulatorInfo) -> Api:
    return Api(slow_emulator.base_url, fetch_token(slow_emulator))


def _create(sdk: WorkspaceClient, **extra) -> compute.ClusterDetails:
    return sdk.clusters.create_and_wait(
        cluster_name=unique("sdk-cluster"), spark_version=SPARK, node_type_id=NODE,
        num_workers=1, **extra)


def test_cluster_lifecycle(sdk):
    cluster = _create(sdk, custom_tags={"team": "data"}, autotermination_minutes=30)
    assert cluster.state == compute.State.RUNNING
    assert cluster.cluster_source == compute.ClusterSource.API
    assert cluster.custom_tags == {"team": "data"}
    assert (cluster.default_tags or {})["ClusterId"] == cluster.cluster_id
    assert cluster.cluster_id in {c.cluster_id for c in sdk.clusters.list()}

    edited = sdk.clusters.edit_and_wait(
        cluster.cluster_id, spark_version=SPARK, node_type_id="Standard_DS4_v2", num_workers=2,
        cluster_name=cluster.cluster_name)
    assert edited.state == compute.State.RUNNING and edited.node_type_id == "Standard_DS4_v2"
    assert edited.custom_tags is None  # an edit replaces the whole spec
    assert sdk.clusters.resize_and_wait(cluster.cluster_id, num_workers=3).num_workers == 3
    assert sdk.clusters.restart_and_wait(cluster.cluster_id).state == compute.State.RUNNING

    assert sdk.clusters.delete_and_wait(cluster.cluster_id).state == compute.State.TERMINATED
    sdk.clusters.edit(cluster.cluster_id, spark_version=SPARK, node_type_id=NODE, num_workers=1)
    assert sdk.clusters.get(cluster.cluster_id).state == compute.State.TERMINATED  # stays so
    assert sdk.clusters.start_and_wait(cluster.cluster_id).state == compute.State.RUNNING

    kinds = [e.type for e in sdk.clusters.events(cluster.cluster_id,
                                                 order=compute.GetEventsOrder.ASC)]
    assert kinds[0] == compute.EventType.CREATING
    for kind in ("EDITED", "RESTARTING", "RESIZING", "UPSIZE_COMPLETED", "TERMINATING",
                 "STARTING", "RUNNING"):
        assert compute.EventType(kind) in kinds
    paged = list(sdk.clusters.events(cluster.cluster_id, limit=2))
    assert len(paged) == len(kinds)  # the SDK follows next_page

    sdk.clusters.permanent_delete(cluster.cluster_id)
    with pytest.raises(NotFound):
        sdk.clusters.get(cluster.cluster_id)
    assert cluster.cluster_id not in {c.cluster_id for c in sdk.clusters.list()}


def test_pins(sdk):
    cluster = _create(sdk)
    try:
        sdk.clusters.pin(cluster.cluster_id)
        sdk.clusters.pin(cluster.cluster_id)  # again: no change
        pinned = sdk.clusters.list(filter_by=compute.ListClustersFilterBy(is_pinned=True))
        assert cluster.cluster_id in {c.cluster_id for c in pinned}
        sdk.clusters.unpin(cluster.cluster_id)
        pinned = sdk.clusters.list(filter_by=compute.ListClustersFilterBy(is_pinned=True))
        assert cluster.cluster_id not in {c.cluster_id for c in pinned}
        kinds = [e.type for e in sdk.clusters.events(cluster.cluster_id)]
        assert kinds.count(compute.EventType.PINNED) == 1
        assert compute.EventType.UNPINNED in kinds
    finally:
        sdk.clusters.permanent_delete(cluster.cluster_id)


def test_list_filters(sdk):
    """`filter_by` of the list narrows it (the CLI's `clusters list --cluster-states ...`)."""
    def listed(**filters) -> set[str]:
        found = sdk.clusters.list(filter_by=compute.ListClustersFilterBy(**filters))
        return {c.cluster_id for c in found}

    policy = sdk.cluster_policies.create(name=unique("sdk-filter"), definition="{}")
    cluster = _create(sdk, policy_id=policy.policy_id)
    try:
        running = listed(cluster_states=[compute.State.RUNNING])
        terminated = listed(cluster_states=[compute.State.TERMINATED])
        assert cluster.cluster_id in running and cluster.cluster_id not in terminated
        assert running | terminated == listed(
            cluster_states=[compute.State.RUNNING, compute.State.TERMINATED])
        assert cluster.cluster_id in listed(cluster_sources=[compute.ClusterSource.API])
        assert cluster.cluster_id not in listed(cluster_sources=[compute.ClusterSource.UI])
        assert listed(policy_id=policy.policy_id) == {cluster.cluster_id}
    finally:
        sdk.clusters.permanent_delete(cluster.cluster_id)
        sdk.cluster_policies.delete(policy.policy_id)


def test_libraries(sdk):
    cluster = _create(sdk)
    pypi = compute.Library(pypi=compute.PythonPyPiLibrary(package="requests==2.32.3"))
    maven = compute.Library(maven=compute.MavenLibrary(coordinates="org.jsoup:jsoup:1.7.2"))
    try:
        sdk.libraries.install(cluster.cluster_id, [pypi, maven])
        statuses = {json.dumps(s.library.as_dict(), sort_keys=True): s.status
                    for s in sdk.libraries.cluster_status(cluster.cluster_id)}
        assert set(statuses.values()) == {compute.LibraryInstallStatus.INSTALLED}
        sdk.libraries.uninstall(cluster.cluster_id, [maven])
        by_status = {s.status: s.library for s in sdk.libraries.cluster_status(cluster.cluster_id)}
        assert by_status[compute.LibraryInstallStatus.UNINSTALL_ON_RESTART] == maven
        sdk.clusters.restart_and_wait(cluster.cluster_id)
        left = [s.library for s in sdk.libraries.cluster_status(cluster.cluster_id)]
        assert left == [pypi]
        every = {s.cluster_id: s for s in sdk.libraries.all_cluster_statuses()}
        assert [s.library for s in every[cluster.cluster_id].library_statuses] == [pypi]
    finally:
        sdk.clusters.permanent_delete(cluster.cluster_id)


def test_node_types_and_spark_versions(sdk):
    node_types = sdk.clusters.list_node_types().node_types
    assert NODE in {n.node_type_id for n in node_types}
    assert sdk.clusters.select_node_type(local_disk=True, min_memory_gb=64) in {
        "Standard_E8ds_v4", "Standard_L8s_v2"}
    assert sdk.clusters.select_node_type(min_gpus=1) == "Standard_NC6s_v3"
    keys = {v.key for v in sdk.clusters.spark_versions().versions}
    assert SPARK in keys
    assert sdk.clusters.select_spark_version(long_term_support=True) == "15.4.x-scala2.12"
    assert sdk.clusters.select_spark_version(latest=True) == "16.1.x-scala2.12"


def test_create_refuses_what_the_service_refuses(sdk):
    with pytest.raises(InvalidParameterValue, match="spark version"):
        sdk.clusters.create(spark_version="0.0.x", node_type_id=NODE, num_workers=1)
    with pytest.raises(InvalidParameterValue, match="Node type"):
        sdk.clusters.create(spark_version=SPARK, node_type_id="Huge_VM", num_workers=1)
    with pytest.raises(InvalidParameterValue, match="autotermination_minutes"):
        sdk.clusters.create(spark_version=SPARK, node_type_id=NODE, num_workers=1,
                            autotermination_minutes=5)
    with pytest.raises(InvalidParameterValue, match="policy"):
        sdk.clusters.create(spark_version=SPARK, node_type_id=NODE, num_workers=1,
                            policy_id="0000")


def test_edit_and_resize_need_a_settled_cluster(slow_api):
    created = slow_api.post("/api/2.1/clusters/create", json={
        "spark_version": SPARK, "node_type_id": NODE, "num_workers": 1}).json()
    cluster_id = created["cluster_id"]
    body = {"cluster_id": cluster_id, "spark_version": SPARK, "node_type_id": NODE,
            "num_workers": 2}
    expect_error(slow_api.post("/api/2.1/clusters/edit", json=body), 400, "INVALID_STATE")
    expect_error(slow_api.post("/api/2.1/clusters/resize",
                               json={"cluster_id": cluster_id, "num_workers": 2}),
                 400, "INVALID_STATE")
    time.sleep(0.5)
    assert slow_api.post("/api/2.1/clusters/edit", json=body).status_code == 200
    got = slow_api.get("/api/2.1/clusters/get", params={"cluster_id": cluster_id}).json()
    assert got["state"] == "RESTARTING" and got["num_workers"] == 2
    slow_api.post("/api/2.1/clusters/permanent-delete", json={"cluster_id": cluster_id})


def test_autotermination_follows_the_clock():
    # The emulator's clusters are idle from the moment they run: one that runs for its
    # autotermination time terminates then, whenever it is read.
    doc = {"cluster_id": "c", "state": "RUNNING", "state_changed_at_ms": 0,
           "transition_ms": 0, "autotermination_minutes": 10}
    assert settle(doc, 10 * 60_000 - 1)["state"] == "RUNNING"
    terminated = settle(doc, 10 * 60_000)
    assert terminated["state"] == "TERMINATED"
    assert terminated["termination_reason"]["code"] == "INACTIVITY"
    assert [e["type"] for e in terminated["events"]] == ["TERMINATING"]


def test_unknown_cluster_operations(sdk):
    for call in (sdk.clusters.permanent_delete, sdk.clusters.pin, sdk.clusters.unpin,
                 sdk.libraries.cluster_status):
        with pytest.raises(NotFound):
            result = call("0000-000000-nothere0")
            list(result or [])


def test_cluster_policies(sdk):
    name = unique("sdk-policy")
    definition = {"node_type_id": {"type": "allowlist", "values": [NODE]}}
    created = sdk.cluster_policies.create(name=name, definition=json.dumps(definition),
                                          max_clusters_per_user=2, description="small")
    policy = sdk.cluster_policies.get(created.policy_id)
    assert json.loads(policy.definition) == definition and policy.max_clusters_per_user == 2
    assert created.policy_id in {p.policy_id for p in sdk.cluster_policies.list()}
    with pytest.raises(ResourceAlreadyExists):
        sdk.cluster_policies.create(name=name, definition="{}")

    cluster = sdk.clusters.create_and_wait(spark_version=SPARK, node_type_id=NODE,
                                           num_workers=0, policy_id=created.policy_id)
    sdk.cluster_policies.edit(created.policy_id, name=name + "-2", definition="{}")
    edited = sdk.cluster_policies.get(created.policy_id)
    assert edited.name == name + "-2" and edited.max_clusters_per_user is None
    sdk.cluster_policies.delete(created.policy_id)
    with pytest.raises(NotFound):
        sdk.cluster_policies.get(created.policy_id)
    assert sdk.clusters.get(cluster.cluster_id).state == compute.State.RUNNING  # untouched
    sdk.clusters.permanent_delete(cluster.cluster_id)


def test_a_cluster_is_checked_against_its_policy(sdk):
    definition = {
        "node_type_id": {"type": "allowlist", "values": [NODE]},
        "autotermination_minutes": {"type": "range", "maxValue": 60},
        "custom_tags.team": {"type": "fixed", "value": "data"},
        "spark_conf.spark.databricks.cluster.profile": {"type": "forbidden"},
    }
    policy = sdk.cluster_policies.create(name=unique("sdk-rules"),
                                         definition=json.dumps(definition))
    with pytest.raises(InvalidParameterValue) as refused:
        sdk.clusters.create(spark_version=SPARK, node_type_id="Standard_DS4_v2", num_workers=0,
                            policy_id=policy.policy_id, autotermination_minutes=120,
                            custom_tags={"team": "web"},
                            spark_conf={"spark.databricks.cluster.profile": "singleNode"})
    for path in definition:
        assert path in str(refused.value)
    with pytest.raises(InvalidParameterValue, match="autotermination_minutes"):
        sdk.clusters.create(spark_version=SPARK, node_type_id=NODE, num_workers=0,
                            policy_id=policy.policy_id)  # a range without a default: required
    cluster = sdk.clusters.create_and_wait(spark_version=SPARK, node_type_id=NODE,
                                           num_workers=0, policy_id=policy.policy_id,
                                           autotermination_minutes=30,
                                           custom_tags={"team": "data"})
    with pytest.raises(InvalidParameterValue, match="at most 60"):
        sdk.clusters.edit(cluster.cluster_id, spark_version=SPARK, node_type_id=NODE,
                          num_workers=0, policy_id=policy.policy_id,
                          autotermination_minutes=90)
    sdk.clusters.permanent_delete(cluster.cluster_id)
    sdk.cluster_policies.delete(policy.policy_id)


def test_policy_families(sdk):
    families = {f.policy_family_id: f for f in sdk.policy_families.list()}
    assert "personal-vm" in families
    assert sdk.policy_families.get("personal-vm").name == families["personal-vm"].name
    overrides = {"autotermination_minutes": {"type": "fixed", "value": 30}}
    created = sdk.cluster_policies.create(
        name=unique("sdk-family"), policy_family_id="personal-vm",
        policy_family_definition_overrides=json.dumps(overrides))
    definition = json.loads(sdk.cluster_policies.get(created.policy_id).definition)
    assert definition["autotermination_minutes"]["value"] == 30
    assert definition["num_workers"]["value"] == 0  # inherited from the family
    with pytest.raises(InvalidParameterValue):
        sdk.cluster_policies.create(name=unique("both"), policy_family_id="personal-vm",
                                    definition="{}")
    with pytest.raises(InvalidParameterValue):
        sdk.cluster_policies.create(name=unique("bad-json"), definition="{not json")
    sdk.cluster_policies.delete(created.policy_id)
