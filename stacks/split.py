"""A workspace split across stacks (docs/split.md): each stack owns a part of it.

    workspace:owns: [identity, catalogs, grants]     # the platform team's stack
    workspace:owns: [jobs, pipelines]                # the data team's stack
    workspace:uses: [platform]                       # stacks whose items this one names

`owns` selects the stack's part: domains (a kind's package: identity, access, secrets,
workspace, compute, sql, jobs, unity_catalog, pipelines, dashboards, serving, applications,
ml) or kinds by their config key (`catalogs`) or name (`Catalog`). The stack declares only
lists of what it owns; a list of another part is refused, so no object is declared twice.
Without `owns` a stack owns every kind. Two stacks of a project on the same workspace that
own a kind both are refused by `workspace-iac check` (each names the other).

`uses` names the stacks (of the same backend: `stack` of this project, or
`organization/project/stack`) that own the objects this one names. A split stack exports
the id of each of its items (`items`), and a reference to an item of another part (a job's
`existing_cluster: shared`, `policy: etl-policy`, a pipeline's `schema: demo.landing`) is
resolved from the used stacks' exports; objects named by their names (a group in a
permission, a catalog) need no reference. The audit and adopt read the used stacks' states too: what
they manage is not unmanaged, and adopt takes only the kinds the stack owns.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from providers.core.kind import Kind
from providers.core.registry import KINDS, config_keys
from stacks.errors import NAMESPACE

OWNS_KEY = "owns"
USES_KEY = "uses"


def domains() -> dict[str, list[str]]:
    """Every domain, with its kinds' config keys (loads no kind)."""
    modules = dict(KINDS)
    found: dict[str, list[str]] = {}
    for key, name in config_keys().items():
        if name in modules:
            found.setdefault(modules[name].split(".")[1], []).append(key)
    return found


def _listed(values: Mapping[str, Any], key: str) -> Any:
    value = values.get(key)
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def selection_problems(values: Mapping[str, Any]) -> list[str]:
    """What is wrong with `workspace:owns` and `workspace:uses` themselves."""
    found = []
    owns, uses = _listed(values, OWNS_KEY), _listed(values, USES_KEY)
    if owns is not None:
        if not isinstance(owns, list) or not all(isinstance(w, str) for w in owns):
            found.append(f"{NAMESPACE}:{OWNS_KEY}: must be a list of domains or kinds "
                         "(e.g. [identity, catalogs, grants])")
        else:
            words = selection_words()
            found += [f"{NAMESPACE}:{OWNS_KEY}: {word!r} is no domain or kind; one of "
                      f"{', '.join(sorted(domains()))}, or a kind's list "
                      f"({', '.join(sorted(config_keys()))})"
                      for word in owns if word not in words]
    if uses is not None and (not isinstance(uses, list)
                             or not all(isinstance(s, str) and s for s in uses)):
        found.append(f"{NAMESPACE}:{USES_KEY}: must be a list of stack names (`platform`, or "
                     "`organization/project/stack`)")
    return found


def selection_words() -> dict[str, list[str]]:
    """Each word `owns` takes (a domain, a kind's config key or name) -> its config keys; a
    domain named as one of its kinds (`jobs`, `pipelines`) is the domain."""
    words: dict[str, list[str]] = dict(domains())
    for key, name in config_keys().items():
        words.setdefault(key, [key])
        words.setdefault(name, [key])
    return words


def owned_keys(values: Mapping[str, Any]) -> set[str] | None:
    """The config keys of the kinds the stack owns; None: every kind (no `owns`)."""
    owns = _listed(values, OWNS_KEY)
    if not isinstance(owns, list):
        return None
    words = selection_words()
    return {key for word in owns if isinstance(word, str) for key in words.get(word, [])}


def used_stacks(values: Mapping[str, Any]) -> list[str]:
    uses = _listed(values, USES_KEY)
    return [s for s in uses if isinstance(s, str)] if isinstance(uses, list) else []


def problems(values: Mapping[str, Any]) -> list[str]:
    """The selection's problems, then each list the stack declares outside its part."""
    found = selection_problems(values)
    owned = owned_keys(values)
    if found or owned is None:
        return found
    owns = ", ".join(str(w) for w in _listed(values, OWNS_KEY))
    return found + [
        f"{NAMESPACE}:{key}: the stack owns {owns or 'nothing'} ({NAMESPACE}:{OWNS_KEY}), not "
        f"{key}: declare them in the stack that owns them, and name them here by name, by "
        f"lookup, or by reference through {NAMESPACE}:{USES_KEY} (docs/split.md)"
        for key in sorted(config_keys())
        if key not in owned and _listed(values, key)
    ]


def overlaps(stacks: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, str]]:
    """Kinds owned by two stacks of the same workspace (`stacks`: name -> config values,
    keys without namespace): (stack, problem), one per stack and kind."""
    every = set(config_keys())
    owners: dict[tuple[str, str], list[str]] = {}
    for name, values in sorted(stacks.items()):
        if _listed(values, OWNS_KEY) is None:
            continue  # a stack without `owns` is not split: its neighbours are its own business
        target = str(values.get("baseUrl") or "").rstrip("/")
        for key in sorted(owned_keys(values) or every):
            owners.setdefault((target, key), []).append(name)
    return [
        (name, f"{NAMESPACE}:{OWNS_KEY}: takes {key}, which the stack(s) "
               f"{', '.join(o for o in names if o != name)} also own on "
               f"{target or 'the workspace'}: one stack owns each kind of a workspace")
        for (target, key), names in sorted(owners.items()) if len(names) > 1
        for name in names
    ]


def owned_kinds(values: Mapping[str, Any], of: Iterable[Kind]) -> list[Kind]:
    """The kinds of `of` the stack owns."""
    owned = owned_keys(values)
    return [k for k in of if owned is None or (k.config_key or "") in owned]
