"""What the workspace offers to build clusters from: node types, runtime (Spark) versions and
policy families. Fixed data, in the shapes of `clusters/list-node-types`,
`clusters/spark-versions` and `policy-families`.

The node types are the cloud's of the initial data's clusters (Azure VM sizes); the runtime
versions follow the service's key scheme (`<major>.<minor>.x[-<variant>]-scala<version>`)
and name the long-term-support ones `LTS`.
"""

from __future__ import annotations

import json
from typing import Any


def _node(
    node_type_id: str, memory_gb: int, cores: int, *, local_disk_gb: int = 0, gpus: int = 0,
    category: str = "General Purpose", photon: bool = True, deprecated: bool = False,
) -> dict[str, Any]:
    node: dict[str, Any] = {
        "node_type_id": node_type_id,
        "instance_type_id": node_type_id,
        "memory_mb": memory_gb * 1024,
        "num_cores": float(cores),
        "description": node_type_id,
        "category": category,
        "num_gpus": gpus,
        "is_deprecated": deprecated,
        "is_hidden": False,
        "photon_worker_capable": photon,
        "photon_driver_capable": photon,
        "is_io_cache_enabled": local_disk_gb > 0,
        "support_port_forwarding": True,
        "support_cluster_tags": True,
        "node_instance_type": {
            "instance_type_id": node_type_id,
            "local_disks": 1 if local_disk_gb else 0,
            "local_disk_size_gb": local_disk_gb,
        },
    }
    return node


NODE_TYPES: list[dict[str, Any]] = [
    _node("Standard_DS3_v2", 14, 4),
    _node("Standard_DS4_v2", 28, 8),
    _node("Standard_DS5_v2", 56, 16),
    _node("Standard_F4s", 8, 4, category="Compute Optimized", photon=False),
    _node("Standard_E8ds_v4", 64, 8, local_disk_gb=300, category="Memory Optimized"),
    _node("Standard_L8s_v2", 64, 8, local_disk_gb=1788, category="Storage Optimized"),
    _node("Standard_NC6s_v3", 112, 6, gpus=1, category="GPU Accelerated", photon=False),
    _node("Standard_D3_v2", 14, 4, deprecated=True, photon=False),
]


def _version(key: str, name: str) -> dict[str, str]:
    return {"key": key, "name": name}


SPARK_VERSIONS: list[dict[str, str]] = [
    _version("12.2.x-scala2.12", "12.2 LTS (includes Apache Spark 3.3.2, Scala 2.12)"),
    _version("13.3.x-scala2.12", "13.3 LTS (includes Apache Spark 3.4.1, Scala 2.12)"),
    _version("14.3.x-scala2.12", "14.3 LTS (includes Apache Spark 3.5.0, Scala 2.12)"),
    _version("14.3.x-gpu-ml-scala2.12",
             "14.3 LTS ML (includes Apache Spark 3.5.0, GPU, Scala 2.12)"),
    _version("15.4.x-scala2.12", "15.4 LTS (includes Apache Spark 3.5.0, Scala 2.12)"),
    _version("15.4.x-cpu-ml-scala2.12", "15.4 LTS ML (includes Apache Spark 3.5.0, Scala 2.12)"),
    _version("16.0.x-scala2.12", "16.0 (includes Apache Spark 3.5.0, Scala 2.12)"),
    _version("16.1.x-scala2.12", "16.1 (includes Apache Spark 3.5.0, Scala 2.12)"),
    _version("16.2.x-scala2.12", "16.2 Beta (includes Apache Spark 3.5.2, Scala 2.12)"),
]

NODE_TYPE_IDS = frozenset(node["node_type_id"] for node in NODE_TYPES)
SPARK_VERSION_KEYS = frozenset(version["key"] for version in SPARK_VERSIONS)


def _family(family_id: str, name: str, description: str, definition: dict) -> dict[str, str]:
    return {"policy_family_id": family_id, "name": name, "description": description,
            "definition": json.dumps(definition)}


POLICY_FAMILIES: list[dict[str, str]] = [
    _family("personal-vm", "Personal Compute", "One node, one user.", {
        "spark_conf.spark.databricks.cluster.profile": {"type": "fixed", "value": "singleNode",
                                                        "hidden": True},
        "num_workers": {"type": "fixed", "value": 0, "hidden": True},
        "autotermination_minutes": {"type": "fixed", "value": 60, "hidden": True},
    }),
    _family("shared-compute", "Shared Compute", "Many users, access mode shared.", {
        "data_security_mode": {"type": "fixed", "value": "USER_ISOLATION", "hidden": True},
    }),
    _family("power-user", "Power User Compute", "Bigger clusters for one user.", {
        "autoscale.max_workers": {"type": "range", "maxValue": 10, "defaultValue": 4},
    }),
    _family("job-cluster", "Job Compute", "Clusters of jobs.", {
        "cluster_type": {"type": "fixed", "value": "job"},
    }),
]
POLICY_FAMILIES_BY_ID = {family["policy_family_id"]: family for family in POLICY_FAMILIES}
