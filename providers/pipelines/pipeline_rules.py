"""The rules across a pipeline's settings, checked offline, each problem named by its path
(`clusters.1.label`, `libraries.0.notebook.path`). What the service documents of the create
body (the SDK's `pipelines` module) and refuses:

- where the tables go: `schema` and `target` (its legacy name) are one setting, give one,
  a schema's own name (the catalog goes in `catalog`);
  a Unity Catalog `catalog` needs one of them; `storage` is the Hive metastore's place, not
  Unity Catalog's; an ingestion pipeline (`ingestion_definition`) names its own destination,
  so none of libraries, catalog, schema or target;
- libraries: each exactly one of notebook, file, glob, jar, maven, whl, with an absolute
  workspace path (a glob's include too), a jar or wheel path or URI, Maven coordinates;
- clusters: labels `default`, `updates` or `maintenance`, each at most once; a size given
  once (`num_workers` or `autoscale`); an autoscale range from 1 worker up; ENHANCED
  autoscaling for the update clusters only; none of node types, sizes, pools or cloud
  attributes in a `serverless` pipeline, which runs on the service's compute (and publishes
  to Unity Catalog);
- notifications: the alerts the service knows;
- run_as: one principal;
- restart_window: an hour of the day.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

Loc = tuple[int | str, ...]
Found = Iterator[tuple[Loc, str]]

LIBRARY_KINDS = ("notebook", "file", "glob", "jar", "maven", "whl")
CLUSTER_LABELS = ("default", "updates", "maintenance")
ALERTS = ("on-update-success", "on-update-failure", "on-update-fatal-failure", "on-flow-failure")
# What a serverless pipeline's clusters may not set: the service chooses its compute.
COMPUTE_FIELDS = (
    "node_type_id",
    "driver_node_type_id",
    "num_workers",
    "autoscale",
    "instance_pool_id",
    "driver_instance_pool_id",
    "aws_attributes",
    "azure_attributes",
    "gcp_attributes",
)
RUN_AS_KINDS = ("user_name", "service_principal_name", "group_name")
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/")


def problems(pipeline: Any) -> list[tuple[str, str]]:
    """(path, reason) per broken rule of a validated `PipelineModel`."""
    found = [
        *_destination(pipeline),
        *_libraries(pipeline),
        *_clusters(pipeline),
        *_notifications(pipeline),
        *_run_as(pipeline),
        *_restart_window(pipeline),
    ]
    return [(".".join(str(part) for part in loc), reason) for loc, reason in found]


def _destination(p: Any) -> Found:
    if p.schema is not None and p.target is not None:
        yield ("target",), (
            "give schema or target, not both: target is the legacy name of schema "
            f"(schema {p.schema!r}, target {p.target!r})"
        )
    for name in ("schema", "target"):
        value = getattr(p, name)
        if value is not None and ("." in value or "/" in value or not value.strip()):
            yield (name,), (
                f"one schema name, without periods or slashes (the catalog goes in catalog), "
                f"got {value!r}"
            )
    if p.catalog is not None and p.schema is None and p.target is None \
            and p.ingestion_definition is None:
        yield ("catalog",), (
            f"a Unity Catalog pipeline publishes to a schema of catalog {p.catalog!r}: "
            "give schema too (e.g. schema: default)"
        )
    if p.catalog is not None and p.storage is not None:
        yield ("storage",), (
            "storage is the Hive metastore's location; a Unity Catalog pipeline (catalog "
            f"{p.catalog!r}) keeps its data in the catalog: leave storage out"
        )
    if p.serverless and p.catalog is None and p.ingestion_definition is None:
        yield ("serverless",), (
            "a serverless pipeline publishes to Unity Catalog: give catalog and schema"
        )
    if p.ingestion_definition is not None:
        for name in ("libraries", "catalog", "schema", "target"):
            if getattr(p, name) is not None:
                yield (name,), (
                    "an ingestion pipeline (ingestion_definition) names its destination there: "
                    f"leave {name} out"
                )


def _libraries(p: Any) -> Found:
    for index, library in enumerate(p.libraries or []):
        loc: Loc = ("libraries", index)
        given = [kind for kind in LIBRARY_KINDS if getattr(library, kind) is not None]
        if len(given) != 1:
            yield loc, (
                f"give exactly one library form of {', '.join(LIBRARY_KINDS)}"
                + (f"; got {', '.join(given)}" if given else "; got none")
            )
            continue
        kind = given[0]
        value = getattr(library, kind)
        if kind in ("notebook", "file"):
            yield from _workspace_path(value.path, (*loc, kind, "path"), kind)
        elif kind == "glob":
            yield from _workspace_path(value.include, (*loc, kind, "include"), "glob")
        elif kind in ("jar", "whl") and not (value.startswith("/") or URI.match(value)):
            yield (*loc, kind), (
                f"give an absolute workspace or volume path (e.g. '/Volumes/main/libs/x.{kind}') "
                f"or a URI, got {value!r}"
            )
        elif kind == "maven" and len([part for part in value.coordinates.split(":") if part]) < 3:
            yield (*loc, "maven", "coordinates"), (
                f"give group:artifact:version (e.g. 'org.jsoup:jsoup:1.7.2'), "
                f"got {value.coordinates!r}"
            )


def _workspace_path(path: str | None, loc: Loc, what: str) -> Found:
    if not path:
        yield loc, f"required: the {what}'s absolute workspace path (e.g. '/Shared/etl/ingest')"
    elif not path.startswith("/"):
        yield loc, f"give an absolute workspace path (starting with '/'), got {path!r}"


def _clusters(p: Any) -> Found:
    seen: dict[str, int] = {}
    for index, cluster in enumerate(p.clusters or []):
        loc: Loc = ("clusters", index)
        label = cluster.label if cluster.label is not None else "default"
        if label not in CLUSTER_LABELS:
            yield (*loc, "label"), (
                f"unknown cluster label {label!r}: give one of {', '.join(CLUSTER_LABELS)}"
            )
        elif label in seen:
            yield (*loc, "label"), (
                f"the label {label!r} is given to clusters {seen[label]} and {index}: "
                "give each label once"
            )
        seen.setdefault(label, index)
        autoscale = cluster.autoscale
        if autoscale is not None and cluster.num_workers is not None:
            yield (*loc, "num_workers"), "give num_workers or autoscale, not both"
        if autoscale is not None:
            if autoscale.min_workers < 1:
                yield (*loc, "autoscale", "min_workers"), (
                    f"must be 1 or more, got {autoscale.min_workers}"
                )
            if autoscale.max_workers <= autoscale.min_workers:
                yield (*loc, "autoscale"), (
                    f"max_workers ({autoscale.max_workers}) must be greater than min_workers "
                    f"({autoscale.min_workers})"
                )
            if autoscale.mode == "ENHANCED" and label == "maintenance":
                yield (*loc, "autoscale", "mode"), (
                    "ENHANCED autoscaling is for the update clusters (labels default, "
                    "updates); the maintenance cluster autoscales the LEGACY way"
                )
        if p.serverless:
            for name in COMPUTE_FIELDS:
                if getattr(cluster, name) is not None:
                    yield (*loc, name), (
                        "a serverless pipeline runs on the service's compute: leave out node "
                        "types, sizes, pools and cloud attributes (or set serverless: false)"
                    )


def _notifications(p: Any) -> Found:
    for index, notification in enumerate(p.notifications or []):
        for position, alert in enumerate(notification.alerts or []):
            if alert not in ALERTS:
                yield ("notifications", index, "alerts", position), (
                    f"unknown alert {alert!r}: give one of {', '.join(ALERTS)}"
                )


def _run_as(p: Any) -> Found:
    if p.run_as is None:
        return
    given = [kind for kind in RUN_AS_KINDS if getattr(p.run_as, kind) is not None]
    if len(given) != 1:
        yield ("run_as",), (
            f"give exactly one of {', '.join(RUN_AS_KINDS)}"
            + (f"; got {', '.join(given)}" if given else "")
        )


def _restart_window(p: Any) -> Found:
    window = p.restart_window
    if window is not None and not 0 <= window.start_hour <= 23:
        yield ("restart_window", "start_hour"), (
            f"an hour of the day, 0 to 23, got {window.start_hour}"
        )
