"""`workspace-iac drift --stack STACK`: what changed in the workspace outside the stack,
read without writing anything (docs/delivery.md, "Drift report").

    workspace-iac drift --stack dev                 a table, exit 1 when drift is found
    workspace-iac drift --stack dev --json          the same as JSON
    workspace-iac drift --stack dev --issue-body drift-dev.md
                                                    also the issue's Markdown (drift.yml)

It runs `pulumi preview --refresh --json`: the engine reads every object of the stack from
the workspace and compares it with the program, and a preview writes neither the workspace
nor the state (the refresh it makes is not saved). Against the state as it was before
(`pulumi stack export`, read only), each resource is then one of:

- changed outside the stack: the workspace's object differs from what the state recorded;
  the report names each field with the workspace's value and the stack's (what the next up
  sets back), as the kind names its fields (a grant by principal, a job's task by key);
- deleted outside the stack: recorded in the state, gone from the workspace (the next up
  creates it again);
- for the access kinds (permissions, grants, ACLs, rule sets, group members): who loses what
  access when the next up sets it back, with the kinds' own warnings (Grants names them).

What the program would change though nothing drifted (a change not deployed yet) is not
drift: the JSON lists those resources as `pending` and they do not count. Values the engine
masks stay `[secret]`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from stacks.audit import project_problem
from stacks.preview_summary import (
    MISSING,
    REPLACEMENT_STEPS,
    cell_code,
    cell_text,
    describe,
    differences,
    is_plumbing,
    kind_field_changes,
    kind_of,
    type_of,
    user_inputs,
    value_at,
)
from stacks.pulumi_cli import EngineNotFound, PulumiCli, PulumiError
from stacks.stack_runs import first_json, last_lines, stack_cli

DESCRIPTION = "Report what changed in the stack's workspace outside the stack (read only)."
EPILOG = "Exit status: 0 no drift, 1 drift found, 2 error (the refreshed preview failed)."
EXIT_CLEAN, EXIT_DRIFT, EXIT_ERROR = 0, 1, 2
SECRET = "[secret]"
# The engine's mark of a secret value in `pulumi stack export`.
SECRET_SIGNATURE = "4dabf18193072939515e22adb298388d"
# Kinds whose fields say who may do what: their drift is access someone loses at the next up.
ACCESS_KINDS = ("Permissions", "Grant", "Acl", "RuleSet", "GroupMember")
# The marker of the drift issue of a stack, in its body (drift.yml finds the issue by title).
MARKER = "<!-- workspace-iac drift: {stack} -->"


class DriftError(RuntimeError):
    """The refreshed preview did not run: nothing can be said about drift."""


@dataclass
class FieldDrift:
    path: str
    workspace: Any  # None: the workspace has no such field
    stack: Any  # None: the stack declares none


@dataclass
class AccessLoss:
    who: str
    loses: list[str]


@dataclass
class ResourceDrift:
    name: str
    kind: str
    urn: str
    state: str  # "changed" or "deleted"
    fields: list[FieldDrift] = field(default_factory=list)
    access: list[AccessLoss] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class DriftReport:
    stack: str
    resources: list[ResourceDrift]
    pending: list[str]  # resources the program changes though nothing drifted
    checked: int  # resources of the workspace the refresh read

    @property
    def drifted(self) -> bool:
        return bool(self.resources)


def drift_report(cli: PulumiCli) -> DriftReport:
    """The drift of the stack of `cli`: the state before (read only), then the refreshed
    preview; neither writes anything."""
    state = cli.export()
    recorded = {r["urn"]: r for r in (state.get("deployment") or {}).get("resources") or []
                if r.get("custom") and not r.get("delete") and not is_plumbing(r)}
    result = cli.run("preview", "--refresh", "--json", "--stack", cli.stack, check=False,
                     timeout=3600)
    preview = first_json(result.stdout)
    if result.returncode != 0 or preview is None:
        errors = [str(d.get("message", "")).strip() for d in (preview or {}).get("diagnostics")
                  or [] if d.get("severity") == "error"]
        raise DriftError("the refreshed preview failed: "
                         + ("\n".join(errors) or last_lines(result.stderr or result.stdout)))
    warnings = warnings_by_urn(preview)
    resources: list[ResourceDrift] = []
    pending: list[str] = []
    seen: set[str] = set()
    for step in preview.get("steps") or []:
        urn, op = step.get("urn", ""), step.get("op")
        if is_plumbing(step) or urn in seen or op in ("same", "refresh", "read"):
            continue
        if urn not in recorded:
            pending.append(name_of(urn))  # declared anew: not in the state yet
            continue
        seen.add(urn)
        name, kind = name_of(urn), kind_of(type_of(urn))
        if op == "create":
            resources.append(ResourceDrift(name, kind, urn, "deleted",
                                           warnings=warnings.get(urn, [])))
        elif op == "update" or op in REPLACEMENT_STEPS:
            refreshed = (step.get("oldState") or {}).get("outputs") or {}
            if masked(recorded[urn].get("outputs") or {}) == masked(refreshed):
                pending.append(name)  # the program's change, not the workspace's
                continue
            fields = field_drift(step)
            resources.append(ResourceDrift(
                name, kind, urn, "changed", fields,
                access_losses(fields) if is_access_kind(kind) else [],
                warnings.get(urn, []),
            ))
        elif op == "delete":
            pending.append(name)  # no longer declared
    # The engine's steps come in the order its parallel walk reached them: the report is
    # sorted so that the same drift always reads (and diffs in the issue) the same way.
    resources.sort(key=lambda r: (r.name, r.kind, r.urn))
    return DriftReport(cli.stack, resources, sorted(pending), checked=len(recorded))


def name_of(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def masked(value: Any) -> Any:
    """`value` with every secret as `[secret]`, as the engine's JSON shows it: the state's
    ciphertext and the preview's mask compare equal."""
    if isinstance(value, Mapping):
        if SECRET_SIGNATURE in value:
            return SECRET
        return {k: masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(v) for v in value]
    return value


def warnings_by_urn(preview: Mapping[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for diagnostic in preview.get("diagnostics") or []:
        if diagnostic.get("severity") == "warning" and diagnostic.get("urn"):
            message = str(diagnostic.get("message", "")).strip().removeprefix("warning: ")
            said = found.setdefault(diagnostic["urn"], [])
            if message not in said:
                said.append(message)
    return found


def field_drift(step: Mapping[str, Any]) -> list[FieldDrift]:
    """Each field where the workspace (the refreshed state) and the stack's declaration
    differ: as the kind names them where it has a view, else by the engine's detailed diff,
    else by comparing the declared inputs with the refreshed outputs."""
    new = user_inputs(step.get("newState"))
    refreshed = (step.get("oldState") or {}).get("outputs") or {}
    changes = kind_field_changes(step, new)
    if changes is None and step.get("detailedDiff"):
        changes = [(path, value_at(refreshed, path), value_at(new, path))
                   for path in step["detailedDiff"]]
    if changes is None:
        changes = list(differences({k: refreshed.get(k, MISSING) for k in new}, new))
    return [FieldDrift(path, None if before is MISSING else before,
                       None if after is MISSING else after)
            for path, before, after in changes]


def is_access_kind(kind: str) -> bool:
    return any(part in kind for part in ACCESS_KINDS)


def access_losses(fields: Sequence[FieldDrift]) -> list[AccessLoss]:
    """Who loses what when the next up sets each field back: what the workspace grants
    beyond the stack's declaration (a list of privileges, or a permission level)."""
    losses = []
    for drift in fields:
        held, declared = as_set(drift.workspace), as_set(drift.stack)
        lost = sorted(held - declared)
        if lost:
            who = drift.path.split("[", 1)[1].rstrip("]") if "[" in drift.path else drift.path
            losses.append(AccessLoss(who, lost))
    return losses


def as_set(value: Any) -> set[str]:
    if value is None:
        return set()
    if isinstance(value, list):
        return {json.dumps(v, sort_keys=True) if not isinstance(v, str) else v for v in value}
    return {value if isinstance(value, str) else json.dumps(value, sort_keys=True)}


# --- the report's forms --------------------------------------------------------------


def render_json(report: DriftReport) -> str:
    return json.dumps({"drift": report.drifted, **asdict(report)}, indent=2, default=str)


def render_markdown(report: DriftReport) -> str:
    """The report as Markdown: the drift issue's body, and the command's table."""
    lines = [f"### Drift: `{report.stack}`", ""]
    if not report.drifted:
        lines.append(f"No drift: the workspace holds what the stack recorded "
                     f"({report.checked} resources checked).")
        return "\n".join([*lines, "", MARKER.format(stack=report.stack), ""])
    count = len(report.resources)
    lines += [
        f"**{count} resource{'s' if count != 1 else ''} changed outside the stack.** The "
        "next `pulumi up` of the stack sets each back to what it declares: make the change "
        "in the stack's config instead, or undo it in the workspace.",
        "",
        "| Resource | Kind | Outside the stack (workspace → stack) |",
        "|---|---|---|",
    ]
    for resource in report.resources:
        if resource.state == "deleted":
            what = "deleted outside the stack: the next up creates it again"
        else:
            what = "<br>".join(
                f"{cell_code(f.path)}: {describe(shown(f.workspace), shown(f.stack))}"
                for f in resource.fields) or "changed"
        lines.append(f"| {cell_code(resource.name)} | {cell_text(resource.kind)} | {what} |")
    losses = [(r.name, loss) for r in report.resources for loss in r.access]
    warned = [(r.name, w) for r in report.resources for w in r.warnings]
    if losses or warned:
        lines += ["", "**Who loses what access at the next up**", ""]
        lines += [f"- {cell_code(name)}: {cell_text(loss.who)} loses "
                  f"{cell_text(', '.join(loss.loses))}" for name, loss in losses]
        lines += [f"- {cell_code(name)}: {cell_text(message)}" for name, message in warned]
    return "\n".join([*lines, "", MARKER.format(stack=report.stack), ""])


def shown(value: Any) -> Any:
    return MISSING if value is None else value


# --- the command ----------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The drift report's options, for `python -m stacks.drift` and `workspace-iac drift`."""
    parser.add_argument("--stack", required=True, help="the stack whose workspace to check")
    parser.add_argument("--project-dir", type=Path, default=Path.cwd(),
                        help="the Pulumi project, the directory holding Pulumi.yaml "
                        "(default: the current directory)")
    parser.add_argument("--state-dir", type=Path, default=None,
                        help="file backend directory (default: PULUMI_BACKEND_URL if set, "
                        "else .pulumi-state of the project)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--issue-body", type=Path, default=None, metavar="FILE",
                        help="also write the report's Markdown to FILE (the drift issue)")


def run(args: argparse.Namespace) -> int:
    """The drift report of parsed options: prints it; returns the exit status."""
    problem = project_problem(args.project_dir)
    if problem is not None:
        print(f"drift: {problem}", file=sys.stderr)
        return EXIT_ERROR
    try:
        report = drift_report(stack_cli(args.project_dir, args.stack, args.state_dir))
    except (DriftError, EngineNotFound) as exc:
        print(f"drift: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except PulumiError as exc:
        stderr = last_lines(exc.result.stderr or exc.result.stdout, 1)
        print(f"drift: pulumi failed: {stderr or exc}", file=sys.stderr)
        return EXIT_ERROR
    markdown = render_markdown(report)
    if args.issue_body is not None:
        args.issue_body.write_text(markdown)
    print(render_json(report) if args.json else markdown)
    return EXIT_DRIFT if report.drifted else EXIT_CLEAN


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stacks.drift", description=DESCRIPTION,
                                     epilog=EPILOG)
    add_arguments(parser)
    return run(parser.parse_args(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
