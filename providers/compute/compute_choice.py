"""Choosing a node type and a runtime (Spark) version by what a cluster needs, from the
service's lists (`clusters/list-node-types`, `clusters/spark-versions`).

The criteria are those the official SDK's `select_node_type` and `select_spark_version`
helpers offer; the choice is ours: the smallest node type that meets every criterion (fewest
cores, then least memory, then fewest GPUs, then the smallest local disk), and among the
runtime versions that match, the newest (`latest=True`) or the only one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

_VERSION = re.compile(r"^(\d+)\.(\d+)\.")


@dataclass(frozen=True)
class NodeTypeCriteria:
    min_memory_gb: float | None = None
    min_cores: float | None = None
    min_gpus: int | None = None
    local_disk: bool | None = None
    local_disk_min_size_gb: int | None = None
    category: str | None = None
    photon: bool | None = None

    def describe(self) -> str:
        given = {k: v for k, v in vars(self).items() if v is not None}
        return ", ".join(f"{k}={v!r}" for k, v in given.items()) or "any"


def _local_disk(node: Mapping[str, Any]) -> tuple[int, int]:
    instance = node.get("node_instance_type") or {}
    return int(instance.get("local_disks") or 0), int(instance.get("local_disk_size_gb") or 0)


def _meets(node: Mapping[str, Any], wanted: NodeTypeCriteria) -> bool:
    if node.get("is_deprecated") or node.get("is_hidden"):
        return False
    gpus = int(node.get("num_gpus") or 0)
    disks, disk_gb = _local_disk(node)
    checks = (
        wanted.min_memory_gb is None or node.get("memory_mb", 0) / 1024 >= wanted.min_memory_gb,
        wanted.min_cores is None or node.get("num_cores", 0) >= wanted.min_cores,
        # No GPU asked for: a GPU node is not the smallest choice.
        gpus >= wanted.min_gpus if wanted.min_gpus else gpus == 0,
        not wanted.local_disk or disks > 0,
        wanted.local_disk_min_size_gb is None or disks * disk_gb >= wanted.local_disk_min_size_gb,
        wanted.category is None or str(node.get("category", "")).lower() == wanted.category.lower(),
        wanted.photon is None
        or bool(node.get("photon_worker_capable") and node.get("photon_driver_capable"))
        == wanted.photon,
    )
    return all(checks)


def choose_node_type(
    nodes: Iterable[Mapping[str, Any]], wanted: NodeTypeCriteria
) -> Mapping[str, Any] | None:
    """The smallest node type meeting `wanted`, or None."""
    fitting = [node for node in nodes if _meets(node, wanted)]
    return min(
        fitting,
        key=lambda n: (
            n.get("num_cores", 0),
            n.get("memory_mb", 0),
            n.get("num_gpus") or 0,
            _local_disk(n)[0] * _local_disk(n)[1],
            n.get("node_type_id", ""),
        ),
        default=None,
    )


@dataclass(frozen=True)
class SparkVersionCriteria:
    long_term_support: bool = False
    ml: bool = False
    gpu: bool = False
    photon: bool = False
    beta: bool = False
    scala: str = "2.12"
    spark_version: str | None = None  # the Apache Spark version it includes, e.g. "3.5.0"

    def describe(self) -> str:
        return ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if v not in (None, False))


def _version_matches(version: Mapping[str, Any], wanted: SparkVersionCriteria) -> bool:
    key, name = str(version.get("key", "")), str(version.get("name", ""))
    variants = set(key.split("-")[1:-1])  # "14.3.x-gpu-ml-scala2.12" -> {"gpu", "ml"}
    checks = (
        key.endswith(f"scala{wanted.scala}"),
        ("ml" in variants or "cpu" in variants) == wanted.ml,
        ("gpu" in variants) == wanted.gpu,
        ("photon" in variants) == wanted.photon,
        not variants - {"ml", "cpu", "gpu", "photon"},  # no other variant (aarch64, genomics)
        not wanted.long_term_support or "LTS" in name,
        wanted.beta or "Beta" not in name,
        wanted.spark_version is None or f"Apache Spark {wanted.spark_version}" in name,
    )
    return all(checks)


def _number(key: str) -> tuple[int, int]:
    found = _VERSION.match(key)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def matching_spark_versions(
    versions: Iterable[Mapping[str, Any]], wanted: SparkVersionCriteria
) -> list[Mapping[str, Any]]:
    """The versions matching `wanted`, newest first."""
    found = [v for v in versions if _version_matches(v, wanted)]
    return sorted(found, key=lambda v: _number(str(v.get("key", ""))), reverse=True)
