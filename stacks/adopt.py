"""Adopt: take a workspace over as it is (docs/adopt.md).

    workspace-iac adopt --stack STACK [--kind KIND ...] [--match KIND:GLOB ...]
                        [--ignore KIND:PATTERN ...] [--content-dir DIR] [--dry-run]
                        [--python FILE] [--project-dir DIR] [--state-dir DIR]
    make adopt STACK=dev [ADOPT_FLAGS=...]

(`python -m stacks.adopt` takes the same options.) The project is the current directory, or
`--project-dir`: its Pulumi.yaml and Pulumi.<stack>.yaml.

Reads the workspace the stack's config names, signing in as the stack does (the audit's
way: stacks.audit), and writes every object no stack of the project manages into
Pulumi.<stack>.yaml, one item per object at the end of its kind's list:
`{name: <resource name>, import: <import id>, <the object's settings as it has them>}`, a
reference by resource name wherever the object points at one the list holds (`job:
nightly-etl`, not `job_id: 42`; inside a nested object too: a job cluster's
`instance_pool: etl-pool`, not `instance_pool_id: 0101-...`). A notebook's or workspace
file's content is exported into a file of the project that its item's `source` names
(stacks/adopt_content.py, under
`--content-dir`, `workspace` by default), never over a file with other content. The next
`pulumi up` imports them, writing nothing to the workspace, and the preview after it shows
no changes.

Left out: objects some stack of the project records (on the same workspace) or a stack it
uses (`workspace:uses`), kinds outside the stack's part (`workspace:owns`, docs/split.md),
items of the config that already carry an `import` id, objects the audit's patterns ignore
(`workspace:auditIgnore`, `--ignore`), and those stacks.adoption leaves out (what the
service makes for itself; the principal the stack signs in as and what belongs to it). An
object that cannot be declared as it is gets no item: it is reported with what to do.

Safe to repeat: a second run adds nothing. A config with problems is refused before the
workspace is read; the file is replaced atomically (stacks/config_file.py), its comments,
order and items kept.

`--python FILE` writes the same objects as a Python module for a team's own program instead
(stacks/adopt_python.py).

Exit status: 0 everything adopted, 1 some objects could not be adopted (listed), 2 adopt
could not run (the reason on stderr; nothing written).
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
import time
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from providers.client import WorkspaceClient, WorkspaceError
from providers.core.kind import Kind, Reference, nested_holders, reference_for
from providers.core.registry import by_config_key
from providers.workspace.workspace_objects import one_tree_walk, source_roots
from stacks import adopt_content, adopt_python, adoption, audit, config_file, split
from stacks.adopt_content import ContentPlace
from stacks.config import file_values
from stacks.config_rules import IMPORT_KEY, decoded_list, problems
from stacks.errors import NAMESPACE
from stacks.printable import printable
from stacks.pulumi_cli import EngineNotFound, PulumiError

EXIT_ADOPTED, EXIT_REFUSED_OBJECTS, EXIT_ERROR = 0, 1, 2
# A resource name made from a display name is at most this long.
NAME_LENGTH = 60
# A progress line every so many objects read of one kind.
PROGRESS_EVERY = 100



@dataclass(frozen=True)
class Source:
    """Where a run's objects come from: each kind's listing (cheap: ids and names, the
    service's own marked) and the read of one object into its candidate item (a read and
    the kind's verification), made only for the objects a run takes."""

    listed: Callable[[WorkspaceClient, Kind], Iterable[adoption.Listed]] = adoption.listed
    candidate_of: Callable[
        [WorkspaceClient, Kind, str, str], adoption.Candidate | None
    ] = adoption.candidate_of


class AdoptError(Exception):
    """Adopt could not run: names what is missing or wrong; nothing was written."""


@dataclass(frozen=True)
class Refusal:
    """An object adopt could not declare as it is, and what the user must do."""

    kind: str  # the audit key: `job`, `secret`, ...
    id: str
    name: str
    problem: str


@dataclass
class Plan:
    """What one run adds (config key without namespace -> new items, in order), what it
    could not take, and what it read."""

    additions: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    refused: list[Refusal] = field(default_factory=list)
    # The project files the items name (`source`), by path relative to the project: the
    # content of the notebooks and workspace files adopted.
    files: dict[str, bytes] = field(default_factory=dict)
    read: dict[str, int] = field(default_factory=dict)
    managed: int = 0
    left_out: int = 0

    @property
    def added(self) -> int:
        return sum(len(items) for items in self.additions.values())


@dataclass
class Known:
    """What the stack already declares or records, for one run."""

    # (audit key, import id) of every object some stack manages or the config imports.
    managed: set[tuple[str, str]] = field(default_factory=set)
    # config key -> the resource names its list holds.
    names: dict[str, set[str]] = field(default_factory=dict)
    # config key -> import id -> resource name, for references by name.
    by_id: dict[str, dict[str, str]] = field(default_factory=dict)

    def name_of(self, reference: Reference, target_id: str) -> str | None:
        """The resource name of the item the reference's target list holds for that id; one
        whose id differs in case only where the target's ids fold case."""
        ids = self.by_id.get(reference.target_key, {})
        if target_id in ids or not reference.folds_case:
            return ids.get(target_id)
        folded = target_id.lower()
        return next((name for id_, name in ids.items() if id_.lower() == folded), None)


# --- names -------------------------------------------------------------------------------


def slug(text: str) -> str:
    """`Nightly ETL (prod)` -> `nightly-etl-prod`: lower-case ASCII letters, digits, dashes."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    made = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return made[:NAME_LENGTH].rstrip("-")


def unique(name: str, taken: set[str]) -> str:
    """`name`, or `name-2`, `name-3`, ... whichever `taken` does not hold yet."""
    if name not in taken:
        return name
    number = 2
    while f"{name}-{number}" in taken:
        number += 1
    return f"{name}-{number}"


def named_by_setting(kind: Kind) -> bool:
    """Whether the kind's resource name is one of its settings (a job's, a scope's, a
    policy's `name`), so adopt cannot choose it."""
    return "name" in kind.model.model_fields


# --- what the stack knows ----------------------------------------------------------------


def known_of(
    lists: Mapping[str, list[dict[str, Any]]],
    deployments: Mapping[str, dict[str, Any]],
    stack: str,
    of: Sequence[Kind],
) -> Known:
    """The managed objects (every stack's state on the workspace, the config's imports),
    the names each list holds, and which name stands for which id in the stack itself."""
    known = Known()
    for deployment in deployments.values():
        known.managed |= audit.managed_ids(deployment, of)
    by_type = {kind.type_token: kind for kind in of if kind.config_key}
    for kind in of:
        key = kind.config_key or ""
        items = lists.get(key, [])
        known.names[key] = {str(i["name"]) for i in items if isinstance(i.get("name"), str)}
        ids = known.by_id.setdefault(key, {})
        for item in items:
            if isinstance(item.get(IMPORT_KEY), str) and isinstance(item.get("name"), str):
                known.managed.add((kind.audit_key, item[IMPORT_KEY]))
                ids[item[IMPORT_KEY]] = item["name"]
    for resource in audit.recorded_resources(deployments.get(stack, {})):
        recorded_kind = by_type.get(resource.get("type", ""))
        if recorded_kind is None:
            continue
        key = recorded_kind.config_key or ""
        name = str(resource.get("urn", "")).rsplit("::", 1)[-1]
        if name in known.names[key]:  # recorded and still declared: a reference may name it
            for recorded in (resource["id"], resource.get("importID")):
                if recorded:
                    known.by_id[key].setdefault(str(recorded), name)
    return known


# --- the plan ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """Which objects a run takes: kinds whole (`--kind`), objects by pattern (`--match`),
    minus the ignored ones; with neither `--kind` nor `--match`, every adoptable kind."""

    kinds: list[Kind]
    whole: frozenset[str]  # audit keys adopted whole
    matches: tuple[tuple[str, str], ...] = ()
    ignores: tuple[tuple[str, str], ...] = ()

    def takes(self, kind: Kind, id_: str, name: str) -> bool:
        obj = audit.WorkspaceObject(kind.audit_key, id_, name)
        if audit.is_ignored(obj, self.ignores):
            return False
        return kind.audit_key in self.whole or audit.is_ignored(obj, self.matches)


def select(
    adoptable: Sequence[Kind],
    kinds: Sequence[str] = (),
    matches: Sequence[str] = (),
    ignores: Sequence[str] = (),
) -> Selection:
    by_word = {}
    for kind in adoptable:
        for word in (kind.audit_key, kind.name, kind.config_key):
            if word:
                by_word[word] = kind
    whole: set[str] = set()
    for word in kinds:
        if word not in by_word:
            raise AdoptError(
                f"--kind {word!r}: not a kind adopt takes; one of "
                f"{', '.join(k.audit_key for k in adoptable)}"
            )
        whole.add(by_word[word].audit_key)
    parsed_matches = tuple(pattern_of(p, by_word, "--match") for p in matches)
    parsed_ignores = tuple(audit.parse_pattern(p) for p in ignores)
    if not kinds and not matches:
        whole = {k.audit_key for k in adoptable}
    wanted = whole | {kind for kind, _ in parsed_matches}
    chosen = [k for k in adoptable if k.audit_key in wanted or "*" in wanted]
    return Selection(chosen, frozenset(whole), parsed_matches, parsed_ignores)


def pattern_of(pattern: str, by_word: Mapping[str, Kind], option: str) -> tuple[str, str]:
    word, sep, glob = pattern.partition(":")
    if not sep or not glob or (word not in by_word and word != "*"):
        raise AdoptError(
            f"{option} {pattern!r} must be KIND:GLOB with KIND one of "
            f"{', '.join(sorted({k.audit_key for k in by_word.values()}))} or *"
        )
    return (by_word[word].audit_key if word in by_word else "*", glob)


def plan(
    client: WorkspaceClient,
    selection: Selection,
    known: Known,
    source: Source | None = None,
    progress: TextIO | None = None,
    place: ContentPlace | None = None,
) -> Plan:
    """Lists the selected kinds' objects, and reads the ones to adopt into config items (a
    notebook's or file's content into a file of the project, at `place`: by default the
    current directory's)."""
    source = source or Source()
    place = place or ContentPlace(Path.cwd())
    result = Plan()
    pending: list[tuple[Kind, adoption.Candidate, dict[str, Any]]] = []
    for number, kind in enumerate(selection.kinds, start=1):
        key = kind.config_key or ""
        taken = known.names.setdefault(key, set())
        ids = known.by_id.setdefault(key, {})
        read = adopted = 0
        for found in source.listed(client, kind):
            read += 1
            if progress is not None and read % PROGRESS_EVERY == 0:
                print(f"adopt: {key}: {read} read ...", file=progress, flush=True)
            if found.left_out is not None:  # the service's own, the stack's own principal's
                result.left_out += 1
                continue
            if (kind.audit_key, found.import_id) in known.managed:
                result.managed += 1
                continue
            if not selection.takes(kind, found.import_id, found.display_name):
                result.left_out += 1
                continue
            candidate = source.candidate_of(client, kind, found.import_id, found.display_name)
            if candidate is None:  # gone since it was listed
                continue
            if candidate.item is None:
                result.refused.append(refusal(kind, candidate, candidate.problem))
                continue
            if candidate.files:
                candidate, problem = adopt_content.placed(candidate, place, result.files)
                if problem is not None:
                    result.refused.append(refusal(kind, candidate, problem))
                    continue
            name, problem = name_for(kind, candidate, taken)
            if name is None:
                for relative in candidate.files:
                    result.files.pop(relative, None)
                result.refused.append(refusal(kind, candidate, problem))
                continue
            taken.add(name)
            ids[candidate.import_id] = name
            known.managed.add((kind.audit_key, candidate.import_id))
            pending.append((kind, candidate, {"name": name, IMPORT_KEY: candidate.import_id}))
            adopted += 1
        result.read[key] = read
        if progress is not None:
            left = len(selection.kinds) - number
            print(
                f"adopt: {key}: {read} listed, {adopted} to adopt "
                f"({left} kind(s) left)",
                file=progress,
                flush=True,
            )
    for kind, candidate, head in pending:
        item = {**head, **with_references(kind, candidate, known)}
        item["name"], item[IMPORT_KEY] = head["name"], head[IMPORT_KEY]
        result.additions.setdefault(kind.config_key or "", []).append(item)
    return result


def refusal(kind: Kind, candidate: adoption.Candidate, problem: str | None) -> Refusal:
    return Refusal(
        kind.audit_key,
        candidate.import_id,
        candidate.display_name,
        problem or "cannot be declared as it is",
    )


def name_for(
    kind: Kind, candidate: adoption.Candidate, taken: set[str]
) -> tuple[str | None, str | None]:
    """The item's resource name, or why there is none."""
    key = f"{NAMESPACE}:{kind.config_key}"
    item = candidate.item or {}
    if named_by_setting(kind):
        name = item.get("name") or candidate.display_name
        if not isinstance(name, str) or not name.strip():
            return None, (
                f"has no name, and a {kind.name}'s name is its resource name in {key}: "
                "name it in the workspace and run adopt again"
            )
        if name in taken:
            return None, (
                f"another item of {key} is named {name!r} (a {kind.name}'s name is its "
                "resource name, one per list): rename one of them in the workspace and run "
                "adopt again"
            )
        return name, None
    base = slug(candidate.display_name) or f"{kind.audit_key.replace('_', '-')}-" + (
        slug(candidate.import_id) or "object"
    )
    return unique(base, taken), None


def with_references(
    kind: Kind, candidate: adoption.Candidate, known: Known
) -> dict[str, Any]:
    """The candidate's item, each id field that points at an object its target list holds
    written as that item's name (`job: nightly-etl` in place of `job_id: 42`), in place; so
    too the ids in its nested objects (`with_nested_names`: a job cluster's pool). A field
    several references fill (an Entitlements' `group_id`: a Group's or an AccountGroup's)
    names the item of whichever list holds the id; a field that stands for a reference's
    (`Adoption.stands_for`: an assignment's `group_name`) names that item too."""
    item = dict(candidate.item or {})
    by_field: dict[str, list[tuple[str, Reference]]] = {}
    for key, declared in kind.item_references.items():
        if isinstance(reference := reference_for(declared, item), Reference):
            by_field.setdefault(reference.field, []).append((key, reference))
    stands_for = {name: field for name, (field, _) in kind.adoption.stands_for.items()}
    if named_by_setting(kind) and "name" not in item:
        item = {"name": candidate.display_name, **item}
    made: dict[str, Any] = {}
    for name, value in item.items():
        field_ = stands_for.get(name, name)
        target_id = candidate.references.get(field_)
        if target_id is not None:
            found = next(((key, target) for key, reference in by_field.get(field_, ())
                          if (target := known.name_of(reference, str(target_id)))), None)
            if found is not None:
                made[found[0]] = found[1]
                continue
        made[name] = value
    return with_nested_names(kind, candidate.references, known, made)


def with_nested_names(
    kind: Kind, references: Mapping[str, str], known: Known, item: Mapping[str, Any]
) -> dict[str, Any]:
    """A copy of the item in which each id of a nested object that points at an object its
    target list holds is written as that item's name, in the id's place in the nested object
    (`new_cluster: {instance_pool: etl-pool}` in place of `instance_pool_id: 0101-...`).
    `references` holds the nested ids by path (stacks.adoption.references_of)."""
    made = copy.deepcopy(dict(item))
    for key, declared in kind.nested_references.items():
        name = key.rsplit(".", 1)[-1]
        for path, holder in nested_holders(made, key):
            reference = reference_for(declared, holder)
            if not isinstance(reference, Reference):
                continue
            target_id = references.get(f"{path}.{reference.field}")
            target = None if target_id is None else known.name_of(reference, target_id)
            named_already = name in holder and not reference.in_place
            if target is None or reference.field not in holder or named_already:
                continue
            renamed = {
                (name if k == reference.field else k): (target if k == reference.field else v)
                for k, v in holder.items()
            }
            holder.clear()
            holder.update(renamed)
    return made


# --- judging the result before writing it ------------------------------------------------


def screened(
    values: Mapping[str, Any], secret_keys: set[str], result: Plan, kinds: Mapping[str, Kind]
) -> Plan:
    """The plan without the items the config's rules would refuse (each reported with the
    rule's words): nothing is written half-declared. An item dropped can leave another
    pointing at nothing, so the rules run until no new item is refused."""
    for _ in range(5):
        lists = {key: decoded_list(values, key)[0] for key in result.additions}
        trial = dict(values)
        for key, items in result.additions.items():
            trial[key] = [*lists[key], *items]
        dropped: dict[str, dict[int, str]] = {}
        for line in problems(trial, secret_keys):
            where = re.match(rf"{NAMESPACE}:(\w+)\[(\d+)\]", line)
            if where is None or where[1] not in result.additions:
                continue
            index = int(where[2]) - len(lists[where[1]])
            if index >= 0:
                dropped.setdefault(where[1], {}).setdefault(index, line)
        if not dropped:
            return result
        for key, at in dropped.items():
            kind = kinds[key]
            kept = []
            for index, item in enumerate(result.additions[key]):
                if index in at:
                    result.refused.append(
                        Refusal(kind.audit_key, str(item[IMPORT_KEY]), str(item["name"]),
                                f"its declaration is refused by the config's rules: {at[index]}")
                    )
                else:
                    kept.append(item)
            result.additions[key] = kept
        result.additions = {k: v for k, v in result.additions.items() if v}
    return result


def with_indexes(result: Plan, lists: Mapping[str, list[dict[str, Any]]]) -> Plan:
    """Each refusal that asks for an item added by hand at `[<i>]` of a list (a secret, whose
    value is set with `pulumi config set --secret --path '...[<i>]...'`) gets the index that
    item takes when the items are added at the end of the list in the order reported: its
    command is then exact."""
    next_index: dict[str, int] = {}
    numbered = []
    for refused in result.refused:
        found = re.search(rf"{NAMESPACE}:(\w+)\[<i>\]", refused.problem)
        if found is not None:
            key = found[1]
            index = next_index.setdefault(
                key, len(lists.get(key, [])) + len(result.additions.get(key, []))
            )
            next_index[key] = index + 1
            refused = Refusal(refused.kind, refused.id, refused.name,
                              refused.problem.replace("<i>", str(index)))
        numbered.append(refused)
    result.refused = numbered
    return result


# --- running -------------------------------------------------------------------------------


def adopt(args: argparse.Namespace, out: TextIO, err: TextIO) -> Plan:
    cli = audit.cli_for(args)
    path = cli.project_dir / f"Pulumi.{cli.stack}.yaml"
    if not path.exists():
        raise AdoptError(f"{path} does not exist: no stack config to add to")
    values, secret_keys = file_values(path)
    sources = adopt_content.sources_directory(cli.project_dir)
    place = ContentPlace(sources, adopt_content.checked_folder(args.content_dir))
    with source_roots(sources):  # the files the items name, as the program reads them
        found = problems(values, secret_keys)
    if found:
        raise AdoptError(
            f"{path.name} has {len(found)} problem(s); fix them first, nothing was written:\n"
            + "\n".join(found)
        )
    engine_values = audit.config_values(cli, show_secrets=True)
    connection = audit.connection_of(engine_values)
    ignores = [*audit.ignore_patterns(engine_values), *args.ignore]
    client = audit.account_client(connection, engine_values, err)
    # A stack owning a part of the workspace adopts that part only (docs/split.md).
    adoptable = split.owned_kinds(values, adoption.adoptable_kinds())
    selection = select(adoptable, args.kind, args.match, ignores)
    deployments = audit.stacks_managing(cli, connection.base_url.rstrip("/"), engine_values)
    lists = {
        kind.config_key: decoded_list(values, kind.config_key)[0]
        for kind in adoptable
        if kind.config_key
    }
    if args.python is not None:
        # A module of its own: its names and references are its own objects'; what any
        # stack records or the config imports is still managed, and left out.
        known = known_of(lists, deployments, cli.stack, adoptable)
        known.names, known.by_id = {}, {}
        lists = {}
        values = {k: v for k, v in values.items() if k not in by_config_key()}
    else:
        known = known_of(lists, deployments, cli.stack, adoptable)
    print(
        f"adopt: workspace {connection.base_url}; stacks read: {', '.join(deployments) or 'none'}",
        file=err,
    )
    started = time.monotonic()
    with one_tree_walk():  # notebooks, files and folders listed from one walk
        result = plan(client, selection, known, progress=err, place=place)
    by_key = {kind.config_key: kind for kind in adoptable if kind.config_key}
    with adopt_content.staged(place, result.files):
        result = with_indexes(screened(values, set(secret_keys), result, by_key), lists)
    result.files = named_files(result)
    seconds = time.monotonic() - started
    additions = {f"{NAMESPACE}:{key}": items for key, items in result.additions.items()}
    if not args.dry_run:
        adopt_content.write(place.project_dir, result.files)
    if args.python is not None:
        text = adopt_python.module_text(result.additions, by_key, connection.base_url)
        if args.dry_run:
            print(text, end="", file=out)
        else:
            config_file.replace_atomically(args.python, text)
    elif args.dry_run:
        if additions:
            print(config_file.render_additions(additions), end="", file=out)
    elif additions:
        document = config_file.load(path)
        for key, items in additions.items():
            config_file.append_items(document, key, items)
        config_file.replace_atomically(path, config_file.dump(document))
    report = err if args.dry_run else out
    written = path.name if args.python is None else str(args.python)
    print(summary(result, written, args.dry_run, seconds, cli.stack), file=report)
    if result.refused:
        print(render_refusals(result.refused), file=report)
    return result


def named_files(result: Plan) -> dict[str, bytes]:
    """The planned project files that an item still names (an item the config's rules
    refused takes its file with it)."""
    named = {
        item.get("source") for items in result.additions.values() for item in items
    }
    return {relative: content for relative, content in result.files.items() if relative in named}


def summary(result: Plan, file_name: str, dry_run: bool, seconds: float, stack: str) -> str:
    read = sum(result.read.values())
    counts = ", ".join(f"{len(v)} {k}" for k, v in result.additions.items())
    verb = "would add" if dry_run else "added"
    lines = [
        f"read {read} object(s) in {seconds:.1f} s: {result.managed} already managed, "
        f"{result.left_out} left out, {len(result.refused)} cannot be adopted",
        f"{verb} {result.added} item(s) to {file_name}" + (f": {counts}" if counts else ""),
    ]
    if result.files:
        lines.append(
            f"{'would write' if dry_run else 'wrote'} {len(result.files)} project file(s), "
            "the content of the notebooks and workspace files their items name (`source`): "
            "review them and commit them with the config"
        )
        lines += [f"  {printable(relative)}" for relative in sorted(result.files)]
    if result.added:
        lines.append(
            "review before committing: the items (and files) hold the settings as the "
            "workspace has them; objects with what looks like a credential outside a secret "
            "field were left out, but a credential belongs in a secret scope, referenced as "
            "`{{secrets/<scope>/<key>}}`"
        )
    if result.added and not dry_run and file_name.endswith(".py"):
        lines.append("next: `pulumi up` of a program that calls its declare() imports them "
                     "and writes nothing")
    elif result.added and not dry_run:
        lines.append(f"next: `pulumi up --stack {stack}` imports them and writes nothing")
    return "\n".join(lines)


def render_refusals(refused: Sequence[Refusal]) -> str:
    rows = [("KIND", "ID", "NAME", "PROBLEM")]
    rows += [(r.kind, printable(r.id), printable(r.name), printable(r.problem)) for r in refused]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [
        f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}" for r in rows
    ]
    lines.append(f"{len(refused)} object(s) cannot be adopted")
    return "\n".join(lines)


DESCRIPTION = (
    "Write every object of the stack's workspace that no stack manages into the stack's "
    "config, to be imported by the next `pulumi up` (docs/adopt.md)."
)
EPILOG = "Exit status: 0 all adopted, 1 some objects cannot be adopted (listed), 2 error."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Adopt's options, for `python -m stacks.adopt` and `workspace-iac adopt`."""
    parser.add_argument("--stack", required=True, help="the stack whose config takes the objects")
    parser.add_argument("--project-dir", type=Path, default=Path.cwd(),
                        help="the Pulumi project, the directory holding Pulumi.yaml "
                        "(default: the current directory)")
    parser.add_argument("--state-dir", type=Path, default=None,
                        help="file backend directory (default: PULUMI_BACKEND_URL if set, "
                        "else .pulumi-state of the project)")
    parser.add_argument("--kind", action="append", default=[], metavar="KIND",
                        help="adopt the objects of this kind (repeatable; default: every kind)")
    parser.add_argument("--match", action="append", default=[], metavar="KIND:GLOB",
                        help="adopt the objects of KIND whose id or name matches (repeatable)")
    parser.add_argument("--ignore", action="append", default=[], metavar="KIND:PATTERN",
                        help="leave out matching objects, as the audit does (repeatable)")
    parser.add_argument("--content-dir", default=adopt_content.DEFAULT_FOLDER, metavar="DIR",
                        help="the project folder the content of adopted notebooks and "
                        "workspace files goes into (default: %(default)s)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the YAML it would add; change nothing")
    parser.add_argument("--python", type=Path, default=None, metavar="FILE",
                        help="write the objects as a Python module for a team's own program "
                        "(its `declare(connection)`), not into the stack's config")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m stacks.adopt", description=DESCRIPTION, epilog=EPILOG
    )
    add_arguments(parser)
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> int:
    """Adopt with parsed options: writes (or prints) the items; returns the exit status."""
    problem = audit.project_problem(args.project_dir)
    if problem is not None:
        print(f"adopt: {problem}", file=sys.stderr)
        return EXIT_ERROR
    try:
        result = adopt(args, sys.stdout, sys.stderr)
    except (AdoptError, audit.AuditError, WorkspaceError, ValueError, EngineNotFound) as exc:
        print(f"adopt: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except PulumiError as exc:
        stderr = (exc.result.stderr or exc.result.stdout).strip().splitlines()
        print(f"adopt: pulumi failed: {stderr[-1] if stderr else exc}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_REFUSED_OBJECTS if result.refused else EXIT_ADOPTED


def main(argv: Sequence[str] | None = None) -> int:
    return run(parse_args(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
