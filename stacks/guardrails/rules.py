"""The guardrails' rules: what each asks of a workspace object as its stack declares it.

A rule is a function of one resource's inputs (its props as the policy pack sees them: the
kind's arguments, plus the `__provider` and `connection` every workspace resource carries)
and of the rule's settings, returning what is wrong, one message per problem, empty when
nothing is. It is registered with `@rule`, naming the kinds it reads (their type names:
`Job`, `Cluster`, `Grants`, ...), what it asks (its description) and the fix; the policy
pack (stacks/guardrails/pack.py) turns every registered rule into a policy of Pulumi's
policy SDK. The rules run without the engine too: `check(kind, props)` is what a test calls.

A team's own rule is a function of the same form in a file of its project, named by the
stack's `workspace:guardrailRules` (docs/guardrails.md).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stacks.credential_scan import in_settings

# The type token of a workspace kind: `pulumi-python:dynamic/workspace:<Kind>`.
TYPE_PREFIX = "pulumi-python:dynamic/workspace:"
ADVISORY, MANDATORY, DISABLED = "advisory", "mandatory", "disabled"
LEVELS = (ADVISORY, MANDATORY, DISABLED)

Check = Callable[[Mapping[str, Any], Mapping[str, Any]], list[str]]


@dataclass(frozen=True)
class Rule:
    name: str
    kinds: tuple[str, ...]
    description: str
    fix: str
    check: Check
    # The rule's own settings (`workspace:guardrails: {rule: {level: ..., <setting>: ...}}`)
    # and their defaults.
    settings: Mapping[str, Any] = field(default_factory=dict)
    level: str = ADVISORY

    def violations(
        self, kind: str, props: Mapping[str, Any], settings: Mapping[str, Any] | None = None
    ) -> list[str]:
        """What is wrong with one resource of `kind`, each message ending with the fix."""
        if kind not in self.kinds:
            return []
        chosen = {**self.settings, **(settings or {})}
        return [f"{problem}: {self.fix}" for problem in self.check(props, chosen)]


RULES: dict[str, Rule] = {}


def rule(
    name: str,
    *,
    kinds: Sequence[str],
    description: str,
    fix: str,
    settings: Mapping[str, Any] | None = None,
    level: str = ADVISORY,
) -> Callable[[Check], Check]:
    """Registers a rule: `@rule("job-owner-tag", kinds=["Job"], description=..., fix=...)`
    over `def check(props, settings) -> list[str]`."""
    if level not in LEVELS:
        raise ValueError(f"rule {name}: level must be one of {', '.join(LEVELS)}, got {level!r}")

    def register(check: Check) -> Check:
        if name in RULES and RULES[name].check is not check:
            raise ValueError(f"two guardrail rules are named {name!r}: rename one")
        RULES[name] = Rule(name, tuple(kinds), description, fix, check, dict(settings or {}),
                           level)
        return check

    return register


def kind_of(type_token: str) -> str | None:
    """`pulumi-python:dynamic/workspace:Job` -> `Job`; None for anything else."""
    return type_token.removeprefix(TYPE_PREFIX) if type_token.startswith(TYPE_PREFIX) else None


def check(kind: str, props: Mapping[str, Any],
          settings: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, list[str]]:
    """Every registered rule's violations by one resource, by rule name (rules with none
    left out): the pack's work, without the engine."""
    found = {
        name: r.violations(kind, props, (settings or {}).get(name))
        for name, r in RULES.items()
    }
    return {name: messages for name, messages in found.items() if messages}


# --- the starter rules ---------------------------------------------------------------


@rule(
    "job-owner-tag",
    kinds=["Job"],
    description="Every job names its owner in a tag.",
    fix="add the tag to the job's `tags` (e.g. `tags: {owner: data-platform}`)",
    settings={"tag": "owner"},
)
def job_owner_tag(props: Mapping[str, Any], settings: Mapping[str, Any]) -> list[str]:
    tag = str(settings["tag"])
    value = (props.get("tags") or {}).get(tag)
    if isinstance(value, str) and value.strip():
        return []
    return [f"the job has no `{tag}` tag"]


@rule(
    "cluster-auto-termination",
    kinds=["Cluster"],
    description="No all-purpose cluster runs without auto-termination.",
    fix="set `autotermination_minutes` (10 to 10000) so an idle cluster stops",
)
def cluster_auto_termination(props: Mapping[str, Any], _: Mapping[str, Any]) -> list[str]:
    minutes = props.get("autotermination_minutes")
    if isinstance(minutes, int | float) and minutes > 0:
        return []
    return ["the all-purpose cluster never terminates when idle "
            f"(`autotermination_minutes` is {'not set' if minutes is None else minutes})"]


@rule(
    "no-all-privileges-to-account-users",
    kinds=["Grants", "Grant"],
    description="Nobody grants ALL_PRIVILEGES on a production catalog to `account users`.",
    fix="grant `account users` only what it needs (e.g. USE_CATALOG, USE_SCHEMA, SELECT), "
        "or grant to a group of the people who need more",
    # Globs of the production catalogs' names; every catalog by default.
    settings={"catalogs": ["*"], "principal": "account users"},
)
def no_all_privileges_to_account_users(
    props: Mapping[str, Any], settings: Mapping[str, Any]
) -> list[str]:
    full_name = str(props.get("full_name") or "")
    securable = str(props.get("securable_type") or "").lower()
    if securable not in ("catalog", "schema", "volume", "function", "table"):
        return []
    catalog = full_name.split(".", 1)[0]
    if not any(fnmatch.fnmatchcase(catalog, glob) for glob in settings["catalogs"]):
        return []
    principal = str(settings["principal"])
    found = []
    for assigned, privileges in _assignments(props):
        if assigned == principal and "ALL_PRIVILEGES" in {str(p).upper() for p in privileges}:
            inside = "" if securable == "catalog" else f" in the catalog {catalog}"
            found.append(f"`{principal}` is granted ALL_PRIVILEGES on the {securable} "
                         f"{full_name}{inside} (a production catalog: settings `catalogs`)")
    return found


def _assignments(props: Mapping[str, Any]) -> Iterator[tuple[str, list[Any]]]:
    """(principal, privileges) of a Grants' privilege_assignments or of one Grant."""
    if "principal" in props:
        yield str(props["principal"]), list(props.get("privileges") or [])
    for assignment in props.get("privilege_assignments") or []:
        if isinstance(assignment, Mapping):
            yield str(assignment.get("principal")), list(assignment.get("privileges") or [])


@rule(
    "no-credential-in-spark-conf",
    kinds=["Cluster", "Job", "Pipeline"],
    description="No credential is written inline in a Spark conf or a cluster's environment.",
    fix="put the value in a secret scope and reference it as `{{secrets/<scope>/<key>}}`",
)
def no_credential_in_spark_conf(props: Mapping[str, Any], _: Mapping[str, Any]) -> list[str]:
    user = {k: v for k, v in props.items() if k not in ("__provider", "connection")}
    return [
        f"`{finding.where}` holds what looks like a credential ({finding.what})"
        for finding in in_settings(user)
        if _in_spark_settings(finding.where)
    ]


def _in_spark_settings(where: str) -> bool:
    return any(part in where for part in ("spark_conf", "spark_env_vars", "configuration"))
