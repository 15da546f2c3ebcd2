"""A pipeline's settings (the SDK's PipelineSpec) as create and edit take them: which body
fields are settings, what the service refuses, and what it fills in.

Refused, each naming the field: no name; `schema` with `target`; `catalog` without a schema
(`schema` or `target`); `catalog` with `storage`; a schema or target with a dot (the catalog
goes in `catalog`); `serverless` without Unity Catalog or with clusters that choose their
compute (node types, pools, worker counts); an unknown `channel` or `edition`; clusters of an
unknown or repeated label, with both `num_workers` and `autoscale`, or an autoscale range
that is not one; a library of no known form or of more than one; `run_as` naming no
principal or more than one; settings of the wrong JSON type.

Filled in: `id` (the pipeline's), and for a pipeline outside Unity Catalog without
`storage` the storage the service makes for it, `dbfs:/pipelines/<id>`.
"""

from __future__ import annotations

from typing import Any

from workspace_emulator.errors import InvalidParameter

# Every field of the SDK's PipelineSpec: what get shows as `spec` and edit replaces.
SPEC_FIELDS = (
    "budget_policy_id", "catalog", "channel", "clusters", "configuration", "continuous",
    "deployment", "development", "edition", "environment", "event_log", "filters",
    "gateway_definition", "id", "ingestion_definition", "libraries", "name",
    "notifications", "parent_path", "photon", "restart_window", "root_path", "schema",
    "serverless", "serverless_compute_id", "storage", "tags", "target", "trigger",
    "usage_policy_id",
)
STRINGS = ("budget_policy_id", "catalog", "channel", "edition", "name", "parent_path",
           "root_path", "schema", "serverless_compute_id", "storage", "target",
           "usage_policy_id")
BOOLEANS = ("continuous", "development", "photon", "serverless")
STRING_MAPS = ("configuration", "tags")
OBJECTS = ("deployment", "environment", "event_log", "filters", "gateway_definition",
           "ingestion_definition", "restart_window", "trigger")
CHANNELS = ("CURRENT", "PREVIEW")
EDITIONS = ("CORE", "PRO", "ADVANCED")
CLUSTER_LABELS = ("default", "updates", "maintenance")
AUTOSCALE_MODES = ("ENHANCED", "LEGACY")
LIBRARY_FORMS = ("notebook", "file", "glob", "jar", "maven", "whl")
# What a serverless pipeline's cluster may not set: the service chooses the compute.
SERVERLESS_CHOSEN = ("node_type_id", "driver_node_type_id", "instance_pool_id",
                     "driver_instance_pool_id", "num_workers", "autoscale")
RUN_AS_FIELDS = ("user_name", "service_principal_name")
MAX_TAGS = 25
STORAGE_ROOT = "dbfs:/pipelines/"


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidParameter(message)


def is_string_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _check_types(spec: dict[str, Any]) -> None:
    for name in STRINGS:
        _require(name not in spec or isinstance(spec[name], str),
                 f"{name} must be a string, got {spec.get(name)!r}.")
    for name in BOOLEANS:
        _require(name not in spec or isinstance(spec[name], bool),
                 f"{name} must be true or false, got {spec.get(name)!r}.")
    for name in STRING_MAPS:
        _require(name not in spec or is_string_map(spec[name]),
                 f"{name} must be an object of string values.")
    for name in OBJECTS:
        _require(name not in spec or isinstance(spec[name], dict),
                 f"{name} must be an object.")
    for name in ("clusters", "libraries", "notifications"):
        _require(name not in spec or (isinstance(spec[name], list)
                                      and all(isinstance(v, dict) for v in spec[name])),
                 f"{name} must be a list of objects.")


def _check_name(spec: dict[str, Any]) -> None:
    _require(bool(spec.get("name", "").strip()),
             "name is required: give the pipeline a name (a pipeline without one cannot "
             "be told apart in the pipelines list).")


def _check_publishing(spec: dict[str, Any]) -> None:
    """Where the tables go: Unity Catalog (`catalog` + `schema` or `target`) or the Hive
    metastore (`target`, `storage`)."""
    _require(not ("schema" in spec and "target" in spec),
             "schema and target cannot both be set: give the schema tables are published "
             "to in schema (target is its deprecated spelling).")
    for name in ("schema", "target"):
        value = spec.get(name)
        _require(value is None or ("." not in value and "/" not in value and value.strip()),
                 f"{name} '{value}' is not a valid schema name: it must be one name of "
                 "letters, digits and underscores, without periods or slashes (the "
                 "catalog goes in catalog).")
    if "catalog" in spec:
        _require("schema" in spec or "target" in spec,
                 f"catalog '{spec['catalog']}' is set without a schema: set schema to the "
                 "schema of that catalog the pipeline publishes to.")
        _require("storage" not in spec,
                 "storage cannot be set on a Unity Catalog pipeline (catalog is set): "
                 "Unity Catalog keeps its tables in the catalog's managed storage; remove "
                 "storage.")


def _check_choices(spec: dict[str, Any]) -> None:
    channel = spec.get("channel")
    _require(channel is None or channel.upper() in CHANNELS,
             f"channel '{channel}' is not a release channel: use one of "
             f"{', '.join(CHANNELS)}.")
    edition = spec.get("edition")
    _require(edition is None or edition.upper() in EDITIONS,
             f"edition '{edition}' is not a product edition: use one of "
             f"{', '.join(EDITIONS)}.")
    tags = spec.get("tags") or {}
    _require(len(tags) <= MAX_TAGS,
             f"tags has {len(tags)} entries; a pipeline takes at most {MAX_TAGS}.")


def _check_cluster(index: int, cluster: dict[str, Any], serverless: bool,
                   labels: set[str]) -> None:
    where = f"clusters[{index}]"
    label = cluster.get("label", "default")
    _require(label in CLUSTER_LABELS,
             f"{where}.label '{label}' is not a cluster label: use one of "
             f"{', '.join(CLUSTER_LABELS)}.")
    _require(label not in labels,
             f"{where}.label '{label}' is given twice: one cluster setting per label.")
    labels.add(label)
    if serverless:
        chosen = [name for name in SERVERLESS_CHOSEN if name in cluster]
        _require(not chosen,
                 f"{where} sets {', '.join(chosen)}, which a serverless pipeline cannot "
                 "choose (the service picks its compute): remove them, or set serverless "
                 "to false.")
    _require(not ("num_workers" in cluster and "autoscale" in cluster),
             f"{where} sets both num_workers and autoscale: keep one.")
    workers = cluster.get("num_workers")
    _require(workers is None or (isinstance(workers, int) and not isinstance(workers, bool)
                                 and workers >= 0),
             f"{where}.num_workers must be a whole number of 0 or more.")
    autoscale = cluster.get("autoscale")
    if autoscale is not None:
        _check_autoscale(where, autoscale)
    for name in ("spark_conf", "spark_env_vars", "custom_tags"):
        _require(name not in cluster or is_string_map(cluster[name]),
                 f"{where}.{name} must be an object of string values.")


def _check_autoscale(where: str, autoscale: Any) -> None:
    _require(isinstance(autoscale, dict), f"{where}.autoscale must be an object.")
    low, high = autoscale.get("min_workers"), autoscale.get("max_workers")
    for name, value in (("min_workers", low), ("max_workers", high)):
        _require(isinstance(value, int) and not isinstance(value, bool) and value >= 1,
                 f"{where}.autoscale.{name} is required and must be 1 or more.")
    _require(high > low,
             f"{where}.autoscale.max_workers ({high}) must be greater than min_workers "
             f"({low}).")
    mode = autoscale.get("mode")
    _require(mode is None or mode in AUTOSCALE_MODES,
             f"{where}.autoscale.mode '{mode}' is not an autoscaling mode: use one of "
             f"{', '.join(AUTOSCALE_MODES)}.")


def _check_clusters(spec: dict[str, Any]) -> None:
    serverless = spec.get("serverless") is True
    if serverless:
        _require("catalog" in spec,
                 "serverless pipelines publish to Unity Catalog: set catalog and schema, "
                 "or set serverless to false.")
    labels: set[str] = set()
    for index, cluster in enumerate(spec.get("clusters") or []):
        _check_cluster(index, cluster, serverless, labels)


def _check_library(index: int, library: dict[str, Any]) -> None:
    where = f"libraries[{index}]"
    forms = [name for name in LIBRARY_FORMS if library.get(name) is not None]
    _require(len(forms) == 1,
             f"{where} must be exactly one of {', '.join(LIBRARY_FORMS)}"
             + (f" (it sets {', '.join(forms)})." if forms else " (it sets none)."))
    form = forms[0]
    value = library[form]
    if form in ("notebook", "file"):
        path = value.get("path") if isinstance(value, dict) else None
        _require(isinstance(path, str) and path.startswith("/"),
                 f"{where}.{form}.path must be an absolute workspace path.")
    elif form == "glob":
        include = value.get("include") if isinstance(value, dict) else None
        _require(isinstance(include, str) and include.startswith("/"),
                 f"{where}.glob.include must be an absolute path or a pattern ending /**.")
    elif form == "maven":
        _require(isinstance(value, dict) and isinstance(value.get("coordinates"), str),
                 f"{where}.maven.coordinates is required.")
    else:
        _require(isinstance(value, str) and bool(value),
                 f"{where}.{form} must be the library's path.")


def check_run_as(run_as: Any) -> None:
    if run_as is None:
        return
    _require(isinstance(run_as, dict), "run_as must be an object.")
    named = [name for name in RUN_AS_FIELDS if run_as.get(name) is not None]
    _require(len(named) == 1,
             "run_as must name exactly one of user_name and service_principal_name.")
    _require(isinstance(run_as[named[0]], str) and bool(run_as[named[0]]),
             f"run_as.{named[0]} must be a non-empty string.")


def settings(body: dict[str, Any]) -> dict[str, Any]:
    """The settings of a create or edit body, checked (InvalidParameter naming the field)."""
    spec = {name: body[name] for name in SPEC_FIELDS if body.get(name) is not None}
    _check_types(spec)
    _check_name(spec)
    _check_publishing(spec)
    _check_choices(spec)
    _check_clusters(spec)
    for index, library in enumerate(spec.get("libraries") or []):
        _check_library(index, library)
    return spec


def effective(spec: dict[str, Any], pipeline_id: str) -> dict[str, Any]:
    """The settings as the service keeps them: with the pipeline's id, and the storage it
    makes for a pipeline outside Unity Catalog that names none."""
    shown = {**spec, "id": pipeline_id}
    if "catalog" not in shown and "storage" not in shown:
        shown["storage"] = f"{STORAGE_ROOT}{pipeline_id}"
    return shown


def workspace_sources(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """(kind, path) of each notebook and file library: what an update loads from the
    workspace's tree."""
    found = []
    for library in spec.get("libraries") or []:
        for kind in ("notebook", "file"):
            source = library.get(kind)
            if isinstance(source, dict) and isinstance(source.get("path"), str):
                found.append((kind, source["path"]))
    return found
