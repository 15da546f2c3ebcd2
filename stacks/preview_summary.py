"""A Markdown summary of `pulumi preview --json`, for a pull-request comment.

    pulumi preview --json --stack dev > preview.json
    workspace-iac summary --stack dev < preview.json

(`python -m stacks.preview_summary` takes the same options.)

It counts creates, updates, replaces and deletes, and lists each changed resource with the
fields that change: as the resource's kind names them where it has a view of its own (a
job's tasks by key, drift read by a refresh included), else the engine's `detailedDiff`
where it gives one (newer engines pass on what a provider's Diff returns; each path with its
kind: added, removed, forces replacement), else a comparison of each step's old and new
inputs (Pulumi 3.79 leaves `detailedDiff` empty for dynamic providers and gives
`replaceReasons` only for replacements). Values Pulumi masks stay `[secret]`, values not
known until the update runs show as "known after apply". The stack itself and provider
instances are left out: the summary is about objects of the workspace. A failed preview
lists its errors. The kinds' warnings (Grants naming who loses privileges, a rule set the
roles it takes away, a warehouse's restart) follow the table, each once, under the name of
the resource it is about: what an up would take away is never left to the job's log. Under
a table of changes a line says to review them before committing, and where a credential
belongs (a secret scope, a config secret): the values are the config's as written.

What the service and the stack's config put into the Markdown cannot change its shape: an
error is shown in a fence longer than any run of backticks in it, at most MAX_DIAGNOSTIC
characters of each (saying how much was cut); names and kinds in table cells have their
`|` escaped and line breaks shown as `⏎`, names in a code span no backtick inside closes.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from providers.core.registry import kind_named, names

# The placeholder the engine writes for a value only known once the update runs.
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
# Inputs every workspace resource carries that are not the user's (never diffed).
BOOKKEEPING_INPUTS = frozenset({"__provider", "connection"})
ROOT_TYPE = "pulumi:pulumi:Stack"
PROVIDER_TYPE_PREFIX = "pulumi:providers:"
# The engine's operation names, in the order the summary shows them.
OPERATIONS = {"create": "create", "update": "update", "replace": "replace", "delete": "delete"}
# Steps of a replacement the engine may list besides the `replace` step itself.
REPLACEMENT_STEPS = frozenset({"create-replacement", "delete-replaced", "replace"})
SYMBOLS = {"create": "+", "update": "~", "replace": "+-", "delete": "-"}
MAX_VALUE = 60
# How much of one diagnostic (mostly the service's error text) the summary shows.
MAX_DIAGNOSTIC = 2000
LINE_BREAK = re.compile(r"\r\n|\r|\n")
# Under every summary with changes: what it shows is the config's and the workspace's as
# written (adopted items too), and a credential among them is to be moved, not merged.
REVIEW = (
    "_Review before committing: the values above are the stack's config as written (adopted "
    "items as the workspace held them); a credential belongs in a secret scope, referenced "
    "as `{{secrets/<scope>/<key>}}`, or in a config secret (`pulumi config set --secret`)._"
)
# One step of an engine property path: `name`, `["quoted key"]` or `[index]`.
PATH_PART = re.compile(r'([^.\[\]"]+)|\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\]')


def summarise(
    preview: Mapping[str, Any], stack: str | None = None,
    policy_events: Sequence[Mapping[str, Any]] = (),
    heading: str = "Pulumi preview",
) -> str:
    """The Markdown for one stack's preview (or, `heading` "Pulumi up", of an update: the
    JSON of `pulumi up --json` has the same steps), with the guardrails it broke (the
    engine's policy events, from its event log: `pulumi preview --json` leaves them out)."""
    title = f"### {heading}: `{stack}`" if stack else f"### {heading}"
    guardrails = guardrail_lines(policy_events)
    errors = [
        d["message"].strip()
        for d in preview.get("diagnostics") or []
        if d.get("severity") == "error"
    ]
    if errors:
        shown = [capped(message.removeprefix("error: ")) for message in errors]
        fence = fence_for("\n".join(shown))
        what = heading.removeprefix("Pulumi ")
        lines = [title, "", f"**The {what} failed.**", "", fence, *shown, fence]
        return "\n".join([*lines, *guardrails, ""])

    order = list(OPERATIONS)
    changes = sorted(
        changed_resources(preview.get("steps") or []), key=lambda c: order.index(c["op"])
    )
    counts = {op: sum(1 for c in changes if c["op"] == op) for op in OPERATIONS}
    # The engine's own count, as `pulumi preview` prints it (unchanged resources are
    # counted there but mostly not listed as steps).
    unchanged = (preview.get("changeSummary") or {}).get("same", 0)
    lines = [title, ""]
    if not changes:
        lines.append(f"No changes ({unchanged} unchanged).")
        return "\n".join([*lines, *guardrails, *warnings_of(preview), ""])
    tally = ", ".join(f"{counts[op]} to {op}" for op in OPERATIONS if counts[op])
    lines += [f"**{tally}** ({unchanged} unchanged)", ""]
    lines += ["| | Resource | Kind | Changes |", "|---|---|---|---|"]
    for change in changes:
        fields = "<br>".join(change["fields"]) or ""
        lines.append(
            f"| `{SYMBOLS[change['op']]}` {change['op']} | {cell_code(change['name'])} "
            f"| {cell_text(change['kind'])} | {fields} |"
        )
    return "\n".join([*lines, "", REVIEW, *guardrails, *warnings_of(preview), ""])


def guardrail_lines(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """The Markdown lines of the guardrails broken (docs/guardrails.md), each under the name
    of its resource: the rule, its level, what is wrong and the fix; a mandatory one says
    the preview failed for it, before anything was written."""
    by_resource: dict[str, dict[tuple[str, str, str], None]] = {}
    for event in events:
        urn = str(event.get("resourceUrn") or "")
        name = f"{urn.rsplit('::', 1)[-1]} ({kind_of(type_of(urn))})" if urn else "the stack"
        # The engine's message: the rule's description, then the violation (and its fix).
        lines = str(event.get("message") or "").strip().splitlines()
        violation = " ".join(lines[1:] or lines)
        level = "mandatory" if event.get("enforcementLevel") == "mandatory" else "advisory"
        by_resource.setdefault(name, {})[
            (str(event.get("policyName") or ""), level, capped(violation))] = None
    if not by_resource:
        return []
    lines = ["", "**Guardrails**", ""]
    if any(level == "mandatory" for broken in by_resource.values() for _, level, _ in broken):
        lines += ["A mandatory guardrail is broken: the preview fails, and an update would "
                  "write nothing, until it is fixed.", ""]
    for name, broken in by_resource.items():
        lines.append(f"- {cell_code(name)}")
        lines += [f"  - **{level}** {cell_code(rule)}: {cell_text(message)}"
                  for rule, level, message in broken]
    return lines


def policy_events(event_log: str) -> list[dict[str, Any]]:
    """The policy events of an engine event log (`--event-log`, one JSON event a line)."""
    found = []
    for line in event_log.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line the engine was still writing
        if isinstance(event, dict) and isinstance(event.get("policyEvent"), dict):
            found.append(event["policyEvent"])
    return found


def warnings_of(preview: Mapping[str, Any]) -> list[str]:
    """The Markdown lines of the preview's warnings, each once (newer engines diff a refresh
    too, so a kind may warn twice), after a blank line; none where there are none."""
    seen: dict[tuple[str, str], None] = {}
    for diagnostic in preview.get("diagnostics") or []:
        if diagnostic.get("severity") != "warning":
            continue
        message = str(diagnostic.get("message", "")).strip().removeprefix("warning: ")
        name = str(diagnostic.get("urn") or "").rsplit("::", 1)[-1]
        seen.setdefault((name, capped(message)), None)
    if not seen:
        return []
    lines = ["", "**Warnings**", ""]
    for name, message in seen:
        about = f"{cell_code(name)}: " if name else ""
        lines.append(f"- {about}{cell_text(message)}")
    return lines


def capped(message: str) -> str:
    """At most MAX_DIAGNOSTIC characters of a diagnostic, saying how much was cut."""
    if len(message) <= MAX_DIAGNOSTIC:
        return message
    return f"{message[:MAX_DIAGNOSTIC]}\n… (cut: {len(message) - MAX_DIAGNOSTIC} more characters)"


def fence_for(text: str) -> str:
    """A code fence no line of `text` can close: longer than any run of backticks in it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def one_line(text: str) -> str:
    """`text` on one table row: `|` escaped, line breaks shown as ⏎."""
    return LINE_BREAK.sub("⏎", text).replace("|", "\\|")


def cell_code(text: str) -> str:
    """`text` as a code span in a table cell, delimited by more backticks than any run in it."""
    text = one_line(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    padded = f" {text} " if "`" in text else text
    return f"{ticks}{padded}{ticks}"


def cell_text(text: str) -> str:
    """`text` as plain text in a table cell: no markup of its own."""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = re.sub(r"([\\`*_\[\]])", r"\\\1", escaped)
    return one_line(escaped)


def changed_resources(steps: list[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    seen_replacements: set[str] = set()
    for step in steps:
        op, urn = step.get("op"), step.get("urn", "")
        state = step.get("newState") or step.get("oldState") or {}
        if is_plumbing(step):
            continue
        if op in REPLACEMENT_STEPS:
            if urn in seen_replacements:
                continue
            seen_replacements.add(urn)
            op = "replace"
        if op not in OPERATIONS:
            continue
        yield {
            "op": op,
            "name": urn.rsplit("::", 1)[-1],
            "kind": kind_of(state.get("type") or type_of(urn)),
            "fields": step_fields(op, step),
        }


def is_plumbing(step: Mapping[str, Any]) -> bool:
    """The stack itself and provider instances: not objects of the workspace."""
    resource_type = type_of(step.get("urn", ""))
    return resource_type == ROOT_TYPE or resource_type.startswith(PROVIDER_TYPE_PREFIX)


def type_of(urn: str) -> str:
    """`urn:pulumi:<stack>::<project>::<parent types$>type::<name>` -> the type."""
    parts = urn.split("::")
    return parts[2].split("$")[-1] if len(parts) == 4 else ""


def kind_of(type_token: str) -> str:
    """`pulumi-python:dynamic/workspace:Job` -> `Job`."""
    return type_token.rsplit(":", 1)[-1]


def step_fields(op: str, step: Mapping[str, Any]) -> list[str]:
    """The rows of one changed resource: the kind's own where it names its changes (a job's
    by task key), else the engine's detailed diff where it gives one, else the comparison of
    the old and new inputs."""
    if op not in ("update", "replace"):
        return []
    new = user_inputs(step.get("newState"))
    changes = kind_field_changes(step, new)
    engine_paths = step.get("detailedDiff") or {}
    if changes is None and engine_paths:
        return engine_fields(step, new, engine_paths)
    if changes is None:
        changes = list(differences(user_inputs(step.get("oldState")), new))
    replace_reasons = set(step.get("replaceReasons") or [])
    fields = []
    for path, before, after in changes:
        note = " (forces replacement)" if top_level(path) in replace_reasons else ""
        fields.append(f"{cell_code(path)}: {describe(before, after)}{note}")
    return fields


def engine_fields(
    step: Mapping[str, Any], new: dict[str, Any], engine_paths: Mapping[str, Any]
) -> list[str]:
    """One row per path of the engine's detailed diff, its values from the recorded state
    and the new inputs at that path."""
    old_state = step.get("oldState") or {}
    recorded = old_state.get("outputs") or old_state.get("inputs") or {}
    fields = []
    for path, diff in engine_paths.items():
        kind = str((diff or {}).get("kind", "update"))
        before = MISSING if kind.startswith("add") else value_at(recorded, path)
        after = MISSING if kind.startswith("delete") else value_at(new, path)
        note = " (forces replacement)" if kind.endswith("-replace") else ""
        shown = describe(before, after) if (before, after) != (MISSING, MISSING) else "changed"
        fields.append(f"{cell_code(path)}: {shown}{note}")
    return fields


def top_level(path: str) -> str:
    return path.split(".")[0].split("[")[0]


def value_at(value: Any, path: str) -> Any:
    """The value at an engine property path (`a.b[0].c`, `a["x.y"]`); MISSING where the
    path does not lead anywhere (a kind's own path such as `tasks[ingest]` names a list
    item by key, which only the kind can resolve)."""
    for part in PATH_PART.findall(path):
        name, quoted, index = part
        key: Any = quoted or name
        if index:
            key = int(index)
        if isinstance(key, int) and isinstance(value, list) and key < len(value):
            value = value[key]
        elif isinstance(key, str) and isinstance(value, Mapping) and key in value:
            value = value[key]
        else:
            return MISSING
    return value


def kind_field_changes(
    step: Mapping[str, Any], new: dict[str, Any]
) -> list[tuple[str, Any, Any]] | None:
    """The changed fields as the resource's kind names them, between its recorded state and
    the new inputs (a job's by task key, in its normal form, drift read by a refresh
    included); None where the kind has no such view."""
    name = kind_of(type_of(step.get("urn", "")))
    kind = kind_named(name) if name in names() else None
    recorded = (step.get("oldState") or {}).get("outputs")
    if kind is None or not recorded or UNKNOWN in json.dumps(new):
        return None
    found = kind.provider.field_changes(recorded, new)
    if found is None:
        return None
    return [
        (path, MISSING if before is None else before, MISSING if after is None else after)
        for path, before, after in found
    ]


def user_inputs(state: Mapping[str, Any] | None) -> dict[str, Any]:
    inputs = (state or {}).get("inputs") or {}
    return {k: v for k, v in inputs.items() if k not in BOOKKEEPING_INPUTS}


# A field absent on one side of a comparison (None, or null, may be a value of its own).
MISSING = object()


def differences(old: Any, new: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """(path, before, after) for each leaf that differs; lists of equal length element-wise."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            sub = f"{path}.{key}" if path else key
            yield from differences(old.get(key, MISSING), new.get(key, MISSING), sub)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (before, after) in enumerate(zip(old, new, strict=True)):
            yield from differences(before, after, f"{path}[{index}]")
    elif old != new:
        yield path, old, new


def describe(before: Any, after: Any) -> str:
    if before is MISSING:
        return f"added {show(after)}"
    if after is MISSING:
        return f"removed (was {show(before)})"
    return f"{show(before)} → {show(after)}"


def show(value: Any) -> str:
    if value == UNKNOWN:
        return "_known after apply_"
    if isinstance(value, list):
        return f"{len(value)} item{'s' if len(value) != 1 else ''}"
    text = json.dumps(value, sort_keys=True)
    text = text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`"


DESCRIPTION = __doc__.splitlines()[0]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The summary's options, for `python -m stacks.preview_summary` and `workspace-iac
    summary`."""
    parser.add_argument("--stack", help="the stack's name, for the heading")
    parser.add_argument(
        "--events", type=Path, default=None, metavar="FILE",
        help="the preview's event log (`pulumi preview --event-log FILE`): the guardrails it "
        "broke, which the preview's JSON leaves out",
    )


def run(args: argparse.Namespace) -> int:
    """The summary of the preview JSON on stdin, to stdout; 2 when stdin is not that JSON."""
    text = sys.stdin.read()
    try:
        preview = json.loads(text)
    except json.JSONDecodeError:
        print(
            f"summary: stdin is not the JSON of `pulumi preview --json`: {text[:200]!r}",
            file=sys.stderr,
        )
        return 2
    events = getattr(args, "events", None)
    found = policy_events(events.read_text()) if events is not None and events.is_file() else []
    sys.stdout.write(summarise(preview, args.stack, found))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stacks.preview_summary",
                                     description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
