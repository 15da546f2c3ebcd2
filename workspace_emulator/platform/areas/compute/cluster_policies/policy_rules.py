"""A cluster checked against its policy's definition, as the service checks one on create,
edit and resize.

A definition maps an attribute path to one rule. The path is the API's field name, nested
fields joined by dots (`autoscale.max_workers`); under a map field (`spark_conf`,
`spark_env_vars`, `custom_tags`) the rest of the path is the key, dots included
(`spark_conf.spark.databricks.cluster.profile`). Rule types: `fixed` (`value`),
`forbidden`, `allowlist` and `blocklist` (`values`), `regex` (`pattern`, the whole value),
`range` (`minValue`, `maxValue`) and `unlimited`. An attribute a rule names must be given
unless the rule is `fixed` or `forbidden`, has a `defaultValue`, or says `isOptional`.

Not modelled: the service writes fixed and default values into the cluster; the emulator
only checks (a cluster that leaves them out keeps them out). Virtual attributes
(`dbus_per_hour`, `cluster_type`) and paths into lists (`init_scripts.*...`) are not
checked.
"""

from __future__ import annotations

import re
from typing import Any

MAP_FIELDS = frozenset({"spark_conf", "spark_env_vars", "custom_tags"})
NOT_CHECKED = frozenset({"dbus_per_hour", "cluster_type"})
ABSENT = object()


def value_at(spec: dict[str, Any], path: str) -> Any:
    """The value at `path` in the cluster spec, or ABSENT."""
    head, _, rest = path.partition(".")
    if head in MAP_FIELDS and rest:
        return (spec.get(head) or {}).get(rest, ABSENT)
    value: Any = spec
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return ABSENT
        value = value[part]
    return value


def violation(path: str, rule: dict[str, Any], value: Any) -> str | None:
    """Why `value` breaks `rule`, or None."""
    kind = rule.get("type")
    if value is ABSENT:
        optional = (kind in ("fixed", "forbidden") or "defaultValue" in rule
                    or rule.get("isOptional") is True)
        return None if optional else "the value must be present"
    if kind == "fixed" and value != rule.get("value"):
        return f"the value must be {rule.get('value')!r} (is {value!r})"
    if kind == "forbidden":
        return "the value must not be present"
    if kind == "allowlist" and value not in (rule.get("values") or []):
        return f"the value must be one of {rule.get('values')!r} (is {value!r})"
    if kind == "blocklist" and value in (rule.get("values") or []):
        return f"the value must not be one of {rule.get('values')!r} (is {value!r})"
    if kind == "regex" and not re.fullmatch(str(rule.get("pattern", "")), str(value)):
        return f"the value must match {rule.get('pattern')!r} (is {value!r})"
    if kind == "range":
        if not isinstance(value, int | float) or isinstance(value, bool):
            return f"the value must be a number (is {value!r})"
        low, high = rule.get("minValue"), rule.get("maxValue")
        if low is not None and value < low:
            return f"the value must be at least {low} (is {value})"
        if high is not None and value > high:
            return f"the value must be at most {high} (is {value})"
    return None


def violations(definition: dict[str, Any], spec: dict[str, Any]) -> list[str]:
    """Every rule of `definition` the cluster `spec` breaks, as `<path>: <why>`."""
    found = []
    for path, rule in definition.items():
        if path in NOT_CHECKED or ".*" in path or not isinstance(rule, dict):
            continue
        why = violation(path, rule, value_at(spec, path))
        if why:
            found.append(f"{path}: {why}")
    return found
