"""Audit: what exists in a workspace but is managed by no stack (docs/audit.md).

    workspace-iac audit [--stack local] [--json] [--ignore KIND:PATTERN ...]
                        [--project-dir DIR] [--state-dir DIR]
    make audit [STACK=local] [AUDIT_FLAGS=...]

(`python -m stacks.audit` takes the same options.) The project is the current directory, or
`--project-dir`: its Pulumi.yaml and Pulumi.<stack>.yaml.

The workspace is the one the `--stack` stack's config names (`workspace:baseUrl` and the
credentials, as the stack program reads them). Managed objects are the objects of the
audited kinds (every kind with an inventory: every kind `stacks.adopt` adopts) recorded in
the state of every stack of the project in the backend (`pulumi stack export`) that targets
the same workspace, and of the stacks it uses (`workspace:uses`: the other parts of a
workspace split across stacks, docs/split.md). The workspace side comes from the list
endpoints, through adoption's listing where adopt adopts the kind (stacks.adoption.listed:
the service's own objects and the stack's own principal are left out of both). Everything
else is unmanaged, the workspace's initial objects included, unless an `--ignore` pattern or
the stack's `workspace:auditIgnore` list matches it.

Exit status: 0 nothing unmanaged, 1 unmanaged objects found, 2 the audit could not run.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from providers.client import Connection, WorkspaceClient, WorkspaceError
from providers.client.auth_type import METHODS
from providers.client.connection import ACCOUNT_ID_PATTERN
from providers.core.kind import Kind
from providers.core.registry import kinds
from providers.workspace.workspace_objects import one_tree_walk
from stacks import adoption, split
from stacks.config_rules import (
    ACCOUNT_HOST_KEY,
    ACCOUNT_ID_KEY,
    SECRET_KEYS,
    account_overrides,
    account_problems,
    connection_problems,
    connection_settings,
    method_of,
    missing_problem,
)
from stacks.errors import NAMESPACE
from stacks.printable import printable
from stacks.pulumi_cli import EngineNotFound, PulumiCli, PulumiError

STACK_TYPE = "pulumi:pulumi:Stack"
IGNORE_KEY = "auditIgnore"

EXIT_CLEAN, EXIT_UNMANAGED, EXIT_ERROR = 0, 1, 2


class AuditError(Exception):
    """The audit could not run: names what is missing or what failed."""


@dataclass(frozen=True)
class WorkspaceObject:
    kind: str
    id: str
    name: str


@dataclass(frozen=True)
class AuditReport:
    workspace_url: str
    stacks: list[str]
    managed_counts: dict[str, int]
    unmanaged: list[WorkspaceObject]
    ignored: list[WorkspaceObject]


# the workspace side


def audited_kinds() -> dict[str, Kind]:
    """The kinds the audit covers, by their audit key (`job`, `service_principal`, ...):
    every kind with an inventory, and every kind `python -m stacks.adopt` adopts."""
    adopted = {kind.name for kind in adoption.adoptable_kinds()}
    return {
        kind.audit_key: kind
        for kind in kinds()
        if kind.inventory is not None or kind.inventory_near is not None
        or kind.name in adopted
    }


def workspace_objects(client: WorkspaceClient) -> Iterator[WorkspaceObject]:
    """Every object of the audited kinds that the list endpoints return; of a kind adopt
    adopts, the objects it lists as adoption does (stacks.adoption.listed), so the service's
    own objects, and the principal the stack signs in as with what belongs to it, are no
    more reported than adopted."""
    adopted = {kind.name for kind in adoption.adoptable_kinds()}
    with one_tree_walk():
        for key, kind in audited_kinds().items():
            if kind.name in adopted:
                for found in adoption.listed(client, kind):
                    if found.left_out is None:
                        yield WorkspaceObject(key, found.import_id, found.display_name)
            elif kind.inventory is not None:
                for id_, name in kind.inventory(client):
                    yield WorkspaceObject(key, str(id_), str(name))


def objects_near(
    client: WorkspaceClient, managed: set[tuple[str, str]]
) -> Iterator[WorkspaceObject]:
    """The objects of the kinds listed only beside what the stacks manage (`inventory_near`:
    the files in the folders of a volume the stacks upload files to, not the volume's data
    elsewhere)."""
    for key, kind in audited_kinds().items():
        if kind.inventory_near is not None:
            ids = sorted(id_ for k, id_ in managed if k == key)
            for id_, name in kind.inventory_near(client, ids):
                yield WorkspaceObject(key, str(id_), str(name))


# the stacks side


def managed_ids(
    deployment: dict[str, Any], of: Iterable[Kind] | None = None
) -> set[tuple[str, str]]:
    """(kind, id) of every object of the audited kinds (or those `of`) recorded in one
    `stack export`; an imported resource also counts by the id it was imported with."""
    by_type = {
        kind.type_token: kind.audit_key
        for kind in (audited_kinds().values() if of is None else of)
    }
    recorded = recorded_resources(deployment)
    managed = {
        (by_type[r["type"]], str(id_))
        for r in recorded
        if r.get("type") in by_type
        for id_ in (r["id"], r.get("importID"))
        if id_
    }
    makers = {kind.type_token: kind.adoption.makes for kind in kinds() if kind.adoption.makes}
    audited = set(by_type.values())
    return managed | {
        (key, id_)
        for r in recorded
        if r.get("type") in makers
        for key, id_ in makers[r["type"]](str(r["id"]), r.get("outputs") or {})
        if key in audited
    }


def recorded_resources(deployment: dict[str, Any]) -> list[dict[str, Any]]:
    """The resources of one `stack export` that have an id and are not pending deletion."""
    resources = (deployment.get("deployment") or {}).get("resources") or []
    return [r for r in resources if r.get("id") and not r.get("delete")]


def stacks_on(cli: PulumiCli, workspace_url: str) -> dict[str, dict[str, Any]]:
    """Every stack of the project in the backend that targets `workspace_url` (or whose
    target cannot be told), by name, with its `stack export`."""
    found: dict[str, dict[str, Any]] = {}
    for name in project_stacks(cli):
        other = PulumiCli(cli.project_dir, name, cli.state_dir, cli.extra_env, cli.backend_url)
        deployment = other.export()
        target = stack_workspace_url(other, deployment)
        # A stack whose workspace cannot be told counts, so nothing it holds is reported.
        if target is None or target == workspace_url:
            found[name] = deployment
    return found


def stacks_managing(
    cli: PulumiCli, workspace_url: str, values: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """The stacks whose objects are managed on the workspace: every stack of the project
    that targets it (`stacks_on`), and the stacks the audited one uses (`workspace:uses`, a
    split workspace's other parts, docs/split.md), also of another project of the backend."""
    found = stacks_on(cli, workspace_url)
    unprefixed = {k.removeprefix(f"{NAMESPACE}:"): v for k, v in values.items()}
    for name in split.used_stacks(unprefixed):
        if name not in found:
            other = PulumiCli(cli.project_dir, name, cli.state_dir, cli.extra_env,
                              cli.backend_url)
            found[name] = other.export()
    return found


def stack_workspace_url(cli: PulumiCli, deployment: dict[str, Any]) -> str | None:
    """The workspace a stack targets: its config's baseUrl, else its `workspace_url` output."""
    if (cli.project_dir / f"Pulumi.{cli.stack}.yaml").exists():
        value = config_values(cli).get(f"{NAMESPACE}:baseUrl")
        if value:
            return str(value).rstrip("/")
    for resource in (deployment.get("deployment") or {}).get("resources") or []:
        if resource.get("type") == STACK_TYPE:
            url = (resource.get("outputs") or {}).get("workspace_url")
            if isinstance(url, str):
                return url.rstrip("/")
    return None


def config_values(cli: PulumiCli, show_secrets: bool = False) -> dict[str, Any]:
    args = ["config", "--json", "--stack", cli.stack]
    result = cli.run(*args, *(["--show-secrets"] if show_secrets else []))
    entries = json.loads(result.stdout or "{}")
    return {
        key: entry.get("objectValue", entry.get("value"))
        for key, entry in entries.items()
        if isinstance(entry, dict)
    }


def project_stacks(cli: PulumiCli) -> list[str]:
    listed = json.loads(cli.run("stack", "ls", "--json").stdout or "[]")
    return sorted(entry["name"] for entry in listed)


def _unprefixed(values: dict[str, Any]) -> dict[str, Any]:
    prefix = f"{NAMESPACE}:"
    return {k.removeprefix(prefix): v for k, v in values.items() if k.startswith(prefix)}


def connection_of(values: dict[str, Any]) -> Connection:
    """The audited workspace's connection from the stack's config values."""
    unprefixed = _unprefixed(values)
    found = connection_problems(unprefixed)
    method = method_of(unprefixed.get("authType"))
    if method is not None:
        found += [
            missing_problem(key, method, chosen="authType" in unprefixed)
            for key, fieldname in SECRET_KEYS.items()
            if fieldname in METHODS[method].required and not unprefixed.get(key)
        ]
    if found:
        raise AuditError("; ".join(found))
    try:
        return Connection.model_validate(connection_settings(unprefixed))
    except ValueError as exc:
        raise AuditError(f"invalid workspace connection in the stack's config: {exc}") from None


def account_connection_of(values: dict[str, Any]) -> Connection | None:
    """The account's connection as the stack program makes it (the workspace's sign-in at
    `workspace:accountHost`, with `workspace:accountId`: config_rules.account_overrides),
    where the stack's config has both; None where it lacks either."""
    unprefixed = _unprefixed(values)
    if any(unprefixed.get(key) in (None, "") for key in (ACCOUNT_HOST_KEY, ACCOUNT_ID_KEY)):
        return None
    found = account_problems(unprefixed, {})
    if found:
        raise AuditError("; ".join(found))
    settings = {**connection_settings(unprefixed), **account_overrides(unprefixed)}
    try:
        return Connection.model_validate(
            {k: v for k, v in settings.items() if v is not None})
    except ValueError as exc:
        raise AuditError(f"invalid account connection in the stack's config: {exc}") from None


def account_client(
    connection: Connection, values: dict[str, Any], notes: TextIO | None = None
) -> WorkspaceClient:
    """The audited workspace's client, knowing its account from `workspace:accountId` (the
    service principals' rule sets are named by it; no workspace call tells it), and with
    the account's own connection (`client.account`) where the config also names the account
    host: the account-level kinds are listed and read through it. Without either setting
    `notes` says what is not listed and the commands that list it."""
    client = WorkspaceClient(connection)
    value = values.get(f"{NAMESPACE}:{ACCOUNT_ID_KEY}")
    if value is None:
        if notes is not None:
            print(
                f"note: the service principals' rule sets (access_control_rule_set) are not "
                f"listed: set {NAMESPACE}:{ACCOUNT_ID_KEY} to the workspace's account id "
                "(docs/audit.md)",
                file=notes,
            )
    elif not isinstance(value, str) or not ACCOUNT_ID_PATTERN.fullmatch(value):
        raise AuditError(
            f"{NAMESPACE}:{ACCOUNT_ID_KEY} must be the account's id (letters, digits and "
            f"dashes, e.g. 8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c), got {value!r}"
        )
    else:
        client.account_id = value
    account = account_connection_of(values)
    if account is not None:
        client.account = WorkspaceClient(account)
    elif notes is not None:
        # The kinds the audit and adopt cannot list without the account's connection.
        listed = ", ".join(kind.config_key or kind.name for kind in kinds()
                           if kind.account_level)
        print(
            f"note: the account's objects ({listed}) are not listed: "
            f"`pulumi config set {NAMESPACE}:{ACCOUNT_HOST_KEY} <the account host, e.g. "
            f"https://accounts.cloud.databricks.com>` and `pulumi config set "
            f"{NAMESPACE}:{ACCOUNT_ID_KEY} <the account's id>` list them (docs/audit.md)",
            file=notes,
        )
    return client


def ignore_patterns(values: dict[str, Any]) -> list[str]:
    patterns = values.get(f"{NAMESPACE}:{IGNORE_KEY}") or []
    if isinstance(patterns, str):
        patterns = json.loads(patterns)
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise AuditError(f"{NAMESPACE}:{IGNORE_KEY} must be a list of KIND:PATTERN strings")
    return patterns


def parse_pattern(pattern: str) -> tuple[str, str]:
    kind, sep, glob = pattern.partition(":")
    if not sep or not glob or (kind not in audited_kinds() and kind != "*"):
        raise AuditError(
            f"ignore pattern {pattern!r} must be KIND:PATTERN with KIND one of "
            f"{', '.join(audited_kinds())} or *"
        )
    return kind, glob


def is_ignored(obj: WorkspaceObject, patterns: Sequence[tuple[str, str]]) -> bool:
    return any(
        kind in ("*", obj.kind)
        and (fnmatch.fnmatchcase(obj.id, glob) or fnmatch.fnmatchcase(obj.name, glob))
        for kind, glob in patterns
    )


def audit(
    cli: PulumiCli, extra_ignores: Sequence[str] = (), notes: TextIO | None = None
) -> AuditReport:
    values = config_values(cli, show_secrets=True)
    connection = connection_of(values)
    client = account_client(connection, values, notes)
    patterns = [parse_pattern(p) for p in [*ignore_patterns(values), *extra_ignores]]
    workspace_url = connection.base_url.rstrip("/")

    on_workspace = stacks_managing(cli, workspace_url, values)
    stacks = list(on_workspace)
    managed: set[tuple[str, str]] = set()
    for deployment in on_workspace.values():
        managed |= managed_ids(deployment)

    unmanaged: list[WorkspaceObject] = []
    ignored: list[WorkspaceObject] = []
    for obj in [*workspace_objects(client), *objects_near(client, managed)]:
        if (obj.kind, obj.id) in managed:
            continue
        (ignored if is_ignored(obj, patterns) else unmanaged).append(obj)
    counts = {kind: sum(1 for k, _ in managed if k == kind) for kind in audited_kinds()}
    return AuditReport(workspace_url, stacks, counts, unmanaged, ignored)


# output


def render_table(report: AuditReport) -> str:
    lines = [
        f"workspace {report.workspace_url}; stacks read: {', '.join(report.stacks) or 'none'}; "
        f"managed: " + ", ".join(f"{n} {k}" for k, n in report.managed_counts.items()),
    ]
    if report.unmanaged:
        rows = [("KIND", "ID", "NAME")] + [
            (o.kind, printable(o.id), printable(o.name)) for o in report.unmanaged
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(2)]
        lines += [f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]}".rstrip() for r in rows]
        lines.append(f"{len(report.unmanaged)} unmanaged object(s)")
    else:
        lines.append("nothing unmanaged")
    if report.ignored:
        lines.append(f"{len(report.ignored)} ignored by pattern")
    return "\n".join(lines)


def render_json(report: AuditReport) -> str:
    return json.dumps(asdict(report), indent=2)


DESCRIPTION = "List the objects of a workspace that no stack manages."
EPILOG = "Exit status: 0 nothing unmanaged, 1 unmanaged objects found, 2 error."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The audit's options, for `python -m stacks.audit` and `workspace-iac audit`."""
    parser.add_argument("--stack", default="local", help="the stack whose workspace to audit")
    parser.add_argument(
        "--project-dir",
        type=Path,
        default=Path.cwd(),
        help="the Pulumi project, the directory holding Pulumi.yaml (default: the current "
        "directory)",
    )
    parser.add_argument(
        "--state-dir",
        type=Path,
        default=None,
        help="file backend directory (default: PULUMI_BACKEND_URL if set, "
        "else .pulumi-state of the project)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="KIND:PATTERN",
        help="leave out matching objects (glob on id or name); repeatable",
    )


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m stacks.audit", description=DESCRIPTION, epilog=EPILOG
    )
    add_arguments(parser)
    return parser.parse_args(argv)


def cli_for(args: argparse.Namespace) -> PulumiCli:
    extra_env: dict[str, str] = {}
    state_dir = args.state_dir
    if state_dir is None:
        state_dir = args.project_dir / ".pulumi-state"
        if os.environ.get("PULUMI_BACKEND_URL"):
            extra_env["PULUMI_BACKEND_URL"] = os.environ["PULUMI_BACKEND_URL"]
    return PulumiCli(args.project_dir, args.stack, state_dir, extra_env)


def project_problem(project_dir: Path) -> str | None:
    """Why `project_dir` is not a Pulumi project the commands can work on; None if it is."""
    if not (project_dir / "Pulumi.yaml").is_file():
        return (
            f"{project_dir} holds no Pulumi.yaml: run from the Pulumi project's directory "
            "or name it with --project-dir"
        )
    return None


def run(args: argparse.Namespace) -> int:
    """The audit of parsed options: prints the report; returns the exit status."""
    problem = project_problem(args.project_dir)
    if problem is not None:
        print(f"audit: {problem}", file=sys.stderr)
        return EXIT_ERROR
    try:
        report = audit(cli_for(args), args.ignore, sys.stderr)
    except (AuditError, WorkspaceError, EngineNotFound) as exc:
        print(f"audit: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except PulumiError as exc:
        stderr = (exc.result.stderr or exc.result.stdout).strip().splitlines()
        print(f"audit: pulumi failed: {stderr[-1] if stderr else exc}", file=sys.stderr)
        return EXIT_ERROR
    print(render_json(report) if args.json else render_table(report))
    return EXIT_UNMANAGED if report.unmanaged else EXIT_CLEAN


def main(argv: Sequence[str] | None = None) -> int:
    return run(parse_args(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
