"""A pipeline's one normal form, which `diff` compares: pure functions over JSON-like
settings in the create body's shape (the pipeline's `spec` as `get` answers it, with the
`run_as` and `parameters` it answers beside the spec).

The structure is the official SDK's (`PipelineSpec` and everything it nests, by their
shapes: `providers/client/sdk_shapes.py`, so a refresh loads no SDK module). In the normal
form:

- clusters are keyed by their label (`default` where none is given) and sorted by it;
  libraries are a set (their order is no change);
- values that mean the same as leaving the field out are left out: `DEFAULTS` (the
  documented defaults: channel CURRENT, edition ADVANCED, a cluster's label `default`, the
  flags off), empty lists and maps;
- the provider's deployment tag and the service's own `id` are left out.

A read compares with a declaration after one more step, `canonical(read, declared=...)`:
what the service fills in itself where the declaration says nothing (`SERVER_FILLED`: the
run_as naming the creator, the Hive metastore storage path, a cluster's node types and
autoscale mode, ...) is left out of the read, and what the service takes but never answers
(`INPUT_ONLY`) is taken from the declaration.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from providers.client.sdk_shapes import ListOf, MapOf, SdkClass, fields, shapes
from providers.core.create_or_adopt import DEPLOYMENT_TAG_KEY

pipelines = shapes("pipelines")

TOP = SdkClass("pipelines", "CreatePipeline")  # the create body: the spec and what is beside it
# What `get` answers beside the spec, that the create body holds.
BESIDE_SPEC = {"run_as": pipelines.RunAs, "parameters": MapOf(str), "allow_duplicate_names": bool}

DEFAULTS: dict[tuple[SdkClass, str], Any] = {
    (TOP, "channel"): "CURRENT",
    (TOP, "edition"): "ADVANCED",
    (TOP, "development"): False,
    (TOP, "continuous"): False,
    (TOP, "photon"): False,
    (TOP, "serverless"): False,
    (TOP, "allow_duplicate_names"): False,
    (pipelines.PipelineCluster, "label"): "default",
}
SERVER_FILLED: dict[SdkClass, frozenset[str]] = {
    TOP: frozenset(
        {"run_as", "storage", "event_log", "root_path", "budget_policy_id", "deployment",
         "clusters"}
    ),
    pipelines.PipelineCluster: frozenset(
        {"node_type_id", "driver_node_type_id", "enable_local_disk_encryption",
         "aws_attributes", "azure_attributes", "gcp_attributes"}
    ),
    pipelines.PipelineClusterAutoscale: frozenset({"mode"}),
}
INPUT_ONLY: dict[SdkClass, frozenset[str]] = {
    TOP: frozenset({"allow_duplicate_names"}),
    pipelines.PipelineCluster: frozenset({"apply_policy_default_values"}),
}
READ_ONLY: dict[SdkClass, frozenset[str]] = {TOP: frozenset({"id"})}
KEYED_LISTS: dict[SdkClass, tuple[str, str]] = {pipelines.PipelineCluster: ("label", "default")}
SET_ITEMS = frozenset({pipelines.PipelineLibrary})
_NONE: frozenset[str] = frozenset()


def top_fields() -> dict[str, Any]:
    return {**fields(pipelines.PipelineSpec), **BESIDE_SPEC}


def _fields_of(owner: SdkClass) -> dict[str, Any]:
    return top_fields() if owner == TOP else fields(owner)


def settings_of(pipeline: Mapping[str, Any]) -> dict[str, Any]:
    """The settings of a pipeline as `get` answers it, in the create body's shape."""
    settings = dict(pipeline.get("spec") or {})
    for name in ("run_as", "parameters"):
        if pipeline.get(name) is not None:
            settings[name] = pipeline[name]
    return settings


def canonical(
    settings: Mapping[str, Any], *, declared: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The normal form (see the module's docstring). Idempotent."""
    return _object(settings, TOP, declared)


def key_form(name: str, value: Any, declared: Any) -> Any:
    """The normal form of the top-level setting `name`, compared with its declared value
    (None: not declared)."""
    return canonical({name: value}, declared={name: declared}).get(name)


def _object(
    value: Mapping[str, Any], owner: SdkClass, declared: Mapping[str, Any] | None
) -> dict[str, Any]:
    shapes_ = _fields_of(owner)
    result: dict[str, Any] = {}
    for name, raw in value.items():
        if raw is None or name in READ_ONLY.get(owner, _NONE):
            continue
        inner: Any = None
        if declared is not None:
            inner = declared.get(name)
            if inner is None and name in SERVER_FILLED.get(owner, _NONE):
                continue
        item = _value(raw, shapes_.get(name), inner, comparing=declared is not None)
        if owner == TOP and name == "tags" and isinstance(item, dict):
            item.pop(DEPLOYMENT_TAG_KEY, None)
        if item in ({}, []) or DEFAULTS.get((owner, name), _ABSENT) == item:
            continue
        result[name] = item
    if declared is not None:
        for name in INPUT_ONLY.get(owner, _NONE):
            if value.get(name) is None and declared.get(name) is not None:
                item = _value(declared[name], shapes_.get(name), None, comparing=False)
                if DEFAULTS.get((owner, name), _ABSENT) != item:
                    result[name] = item
    return result


_ABSENT = object()


def _value(raw: Any, shape: Any, declared: Any, *, comparing: bool) -> Any:
    if isinstance(shape, SdkClass) and isinstance(raw, Mapping):
        baseline = declared if isinstance(declared, Mapping) else ({} if comparing else None)
        return _object(raw, shape, baseline)
    if isinstance(shape, ListOf) and isinstance(raw, list):
        return _list(raw, shape.item, declared, comparing=comparing)
    if isinstance(shape, MapOf) and isinstance(raw, Mapping):
        return {k: _value(v, shape.value, None, comparing=False) for k, v in raw.items()
                if v is not None}
    if shape is int and isinstance(raw, float) and raw.is_integer():
        return int(raw)
    return raw


def _list(raw: list[Any], item: Any, declared: Any, *, comparing: bool) -> list[Any]:
    keyed = KEYED_LISTS.get(item) if isinstance(item, SdkClass) else None
    if keyed is not None:
        key, default = keyed
        by_key = {
            d.get(key) or default: d
            for d in (declared if isinstance(declared, list) else [])
            if isinstance(d, Mapping)
        }
        items = [
            _value(element, item, by_key.get(element.get(key) or default, {} if comparing
                                              else None), comparing=comparing)
            for element in raw
            if isinstance(element, Mapping)
        ]
        return sorted(items, key=lambda element: str(element.get(key, default)))
    items = [_value(element, item, None, comparing=False) for element in raw]
    if item in SET_ITEMS:
        unique = {json.dumps(element, sort_keys=True): element for element in items}
        return [unique[k] for k in sorted(unique)]
    return items
