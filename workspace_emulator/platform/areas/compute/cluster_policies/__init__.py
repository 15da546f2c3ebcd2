"""Cluster policies (model.py: CRUD, definitions checked as JSON) and the fixed policy
families; policy_rules.py judges a cluster against a policy, compute_catalog.py holds the
node types, runtime versions and families that clusters and policies name."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, Mount
from workspace_emulator.platform.areas.compute.cluster_policies import routes
from workspace_emulator.platform.areas.compute.cluster_policies.model import TABLES, ClusterPolicies
from workspace_emulator.platform.fidelity import stateful, validated

AREA = Area(
    name="cluster_policies",
    open=lambda context: ClusterPolicies(context.db),
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=80,
    support={
        "POST /policies/clusters/create": stateful("definition JSON validated; names unique"),
        "POST /policies/clusters/edit": stateful("replaces the policy"),
        "POST /policies/clusters/delete": stateful(""),
        "GET /policies/clusters/get": stateful(""),
        "GET /policies/clusters/list": stateful(""),
        "GET /policy-families": validated("a fixed set of policy families"),
        "GET /policy-families/{policy_family_id}": validated(""),
    },
    permission_objects={"cluster-policies": ClusterPolicies.exists},
)
