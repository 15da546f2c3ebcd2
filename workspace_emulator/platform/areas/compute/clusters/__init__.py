"""Clusters under /api/2.0 and /api/2.1 (model.py: specs checked, against their policy too;
states played out over the transition time) and the libraries of a cluster
(library_routes.py)."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, InitialData, Mount
from workspace_emulator.platform.areas.compute.cluster_policies.model import ClusterPolicies
from workspace_emulator.platform.areas.compute.clusters import library_routes, routes
from workspace_emulator.platform.areas.compute.clusters.model import TABLES, Clusters
from workspace_emulator.platform.areas.compute.instance_pools.model import InstancePools
from workspace_emulator.platform.fidelity import simulated, stateful, validated

VERSIONS = ("2.0", "2.1")


def _open(context: AreaContext) -> Clusters:
    pools = context.state(InstancePools)
    clusters = Clusters(context.db, context.settings.transition_seconds,
                        context.state(ClusterPolicies), pools)
    pools.count_users = clusters.running_on_pool
    return clusters


def _add_initial(clusters: Clusters, initial: InitialData) -> None:
    for cluster in initial.section("clusters"):
        clusters.add_initial(initial.conn, cluster)


AREA = Area(
    name="clusters",
    open=_open,
    tables=TABLES,
    routers=(*(Mount(routes.router, f"/api/{version}") for version in VERSIONS),
             Mount(library_routes.router)),
    route_priority=50,
    support={
        "GET /clusters/list": simulated("states settled on read; pinned clusters kept "
                                        "listed; filter_by states, sources, policy_id, "
                                        "is_pinned"),
        "GET /clusters/get": simulated("state computed from stored timestamps; an unknown "
                                       "id: 400 INVALID_PARAMETER_VALUE"),
        "POST /clusters/create": simulated("spec validated; PENDING -> RUNNING over the "
                                           "transition time"),
        "POST /clusters/edit": simulated("replaces the spec; a running cluster RESTARTING -> "
                                         "RUNNING"),
        "POST /clusters/resize": simulated("a RUNNING cluster: RESIZING -> RUNNING"),
        "POST /clusters/start": simulated("TERMINATED -> PENDING -> RUNNING over the "
                                          "transition time; other states 400 INVALID_STATE"),
        "POST /clusters/restart": simulated("RUNNING -> RESTARTING -> RUNNING"),
        "POST /clusters/stop": simulated("-> TERMINATING -> TERMINATED; a terminated "
                                         "cluster unchanged"),
        "POST /clusters/delete": simulated("as stop (public form); the cluster stays listed"),
        "POST /clusters/permanent-delete": stateful("the cluster is gone from every read"),
        "POST /clusters/pin": stateful(""),
        "POST /clusters/unpin": stateful(""),
        "POST /clusters/events": simulated("the cluster's state changes, paged"),
        "GET /clusters/list-node-types": validated("a fixed catalogue of node types"),
        "GET /clusters/spark-versions": validated("a fixed catalogue of runtime versions"),
        "POST /libraries/install": simulated("INSTALLED while the cluster runs, PENDING "
                                             "otherwise"),
        "POST /libraries/uninstall": stateful("removed from the cluster's libraries"),
        "GET /libraries/cluster-status": simulated("INSTALLED or PENDING; no "
                                                   "INSTALLING/FAILED"),
        "GET /libraries/all-cluster-statuses": simulated("each cluster with libraries, as "
                                                         "cluster-status"),
    },
    initial_data=_add_initial,
    permission_objects={"clusters": Clusters.exists},
)
