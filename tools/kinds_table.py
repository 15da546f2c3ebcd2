"""The tables of kinds in docs/README.md, docs/configuration.md (the lists, and the API name
fields that name other kinds' objects) and docs/audit.md, generated from the registry; and
providers/core/registry_keys.py, each registered kind's config key and stack output name, so
that the stack program knows every list without loading every kind.

    python -m tools.kinds_table          # rewrites the tables in place
    python -m tools.kinds_table --check  # exit 1 when a table is out of date

Each table sits between `<!-- kinds:<name>:begin -->` and `<!-- kinds:<name>:end -->`.
tests/unit/test_registry.py fails when a table differs from what the registry gives.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from providers.core.kind import Kind, Lookup, NameByType, Reference, ReferenceByType
from providers.core.registry import KINDS, kind_named
from providers.core.registry import kinds as registered_kinds

REPO_ROOT = Path(__file__).resolve().parents[1]


def reference_table(kinds: Iterable[Kind]) -> str:
    """docs/README.md: one row per kind, its page, what it is, how to import it."""
    rows = ["| Kind | Page | What it manages | Import id |", "|---|---|---|---|"]
    for kind in kinds:
        page = Path(kind.doc).name
        importable = kind.import_id if kind.importable else "not importable (an action)"
        rows.append(f"| `{kind.name}` | [{page}]({page}) | {kind.summary} | {importable} |")
    return "\n".join(rows)


def config_table(kinds: Iterable[Kind]) -> str:
    """docs/configuration.md: one row per stack-config list."""
    rows = ["| Key | Kind | Arguments | Identity |", "|---|---|---|---|"]
    for kind in kinds:
        if not kind.config_key:
            continue
        page = Path(kind.doc).name
        notes = [f"[{page}]({page})"]
        for key, reference in kind.item_references.items():
            if isinstance(reference, ReferenceByType):
                lists = ", ".join(f"{t}: {k}" for t, k in reference.targets.items())
                notes.append(f"`{key}`: an id, or a name in the list of its type ({lists})")
            elif isinstance(reference, Reference) and reference.in_place:
                notes.append(f"`{key}`: an id, or a name in {reference.target_key}")
            elif isinstance(reference, Reference):
                notes.append(f"`{key}: <a name in {reference.target_key}>` or `{reference.field}`")
            elif isinstance(reference, Lookup):
                notes.append(f"`{key}: <its name>` or `{reference.field}`")
        notes += nested_notes(kind)
        identity = " / ".join(f"`{field}`" for field in kind.identity)
        rows.append(f"| `{kind.config_key}` | `{kind.name}` | {'; '.join(notes)} | {identity} |")
    return "\n".join(rows)


def nested_notes(kind: Kind) -> list[str]:
    """A kind's nested references, one note per key, naming the objects that hold it."""
    holders: dict[tuple[str, str, str], list[str]] = {}
    for key, reference in kind.nested_references.items():
        if isinstance(reference, Reference):
            path, name = key.rsplit(".", 1)
            holders.setdefault((name, reference.target_key, reference.field), []).append(path)
    return [
        (
            f"`{name}`: an id, or a name in {target}"
            if name == field
            else f"`{name}: <a name in {target}>` or `{field}`"
        )
        + " in "
        + ", ".join(f"`{path}`" for path in paths)
        for (name, target, field), paths in holders.items()
    ]


def names_table(kinds: Iterable[Kind]) -> str:
    """docs/configuration.md: each API name field naming another kind's object (`names`), the
    lists it may name an item of, and how that object's name is written."""
    kinds = list(kinds)
    named = {kind.config_key: kind for kind in kinds if kind.config_key and kind.named_as}
    rows = ["| List | Name field | Names an item of | Matched as |", "|---|---|---|---|"]
    for kind in kinds:
        for key, reference in kind.names.items():
            if isinstance(reference, NameByType):
                lists = ", ".join(f"{t}: {k}" for t, k in reference.targets.items())
                target = f"the list of its `{reference.type_field}` ({lists})"
                matched = "the full name"
            else:
                target = ", ".join(reference.targets)
                written = " or ".join(_written(named[t]) for t in reference.targets
                                      if t in named) or "its kind's name, once registered"
                given = ".".join(f"`{f}`" for f in (*reference.within, reference.field))
                matched = f"{given} as {written}" if reference.within else written
            rows.append(f"| `{kind.config_key}` | `{key}` | {target} | {matched} |")
    return "\n".join(rows)


def _written(kind: Kind) -> str:
    name = ".".join(f"`{f}`" for f in kind.named_as)
    return f"{name} (any case)" if kind.names_fold_case else name


def audit_table(kinds: Iterable[Kind]) -> str:
    """docs/audit.md: the kinds the audit lists, by the KIND of an ignore pattern."""
    rows = ["| KIND in patterns and reports | Kind | Page |", "|---|---|---|"]
    for kind in kinds:
        if kind.inventory is not None or kind.inventory_near is not None:
            page = Path(kind.doc).name
            near = " (only the files beside a stack's own)" if kind.inventory_near else ""
            rows.append(f"| `{kind.audit_key}` | `{kind.name}`{near} | [{page}]({page}) |")
    return "\n".join(rows)


TABLES: dict[str, tuple[Path, Callable[[Iterable[Kind]], str]]] = {
    "reference": (REPO_ROOT / "docs" / "README.md", reference_table),
    "config": (REPO_ROOT / "docs" / "configuration.md", config_table),
    "names": (REPO_ROOT / "docs" / "configuration.md", names_table),
    "audit": (REPO_ROOT / "docs" / "audit.md", audit_table),
}


def rendered(name: str, text: str, kinds: Iterable[Kind]) -> str:
    """`text` with the table `name` replaced by the one `kinds` give."""
    _, make = TABLES[name]
    pattern = re.compile(
        rf"(<!-- kinds:{name}:begin -->\n)(?:.*?\n)?(<!-- kinds:{name}:end -->)", re.S
    )
    if not pattern.search(text):
        raise ValueError(f"no <!-- kinds:{name}:begin/end --> markers")
    return pattern.sub(lambda m: m.group(1) + make(kinds) + "\n" + m.group(2), text)


KEYS_MODULE = REPO_ROOT / "providers" / "core" / "registry_keys.py"


def keys_module() -> str:
    """providers/core/registry_keys.py: of each kind of the registry's lines (not a plug-in,
    which is registered loaded), its config key and stack output name."""
    lines = [
        '"""Generated by `python -m tools.kinds_table` from each kind\'s declaration (do not',
        "edit; tests/unit/test_registry.py holds it current): of every kind of the registry, its",
        "stack-config key and its stack output's name, so that the stack program knows every list",
        'without loading every kind (providers/core/registry.py)."""',
        "",
        "KEYS: dict[str, tuple[str | None, str | None]] = {",
    ]
    for name, _ in KINDS:
        kind = kind_named(name)
        output = kind.stack_output[0] if kind.stack_output else None
        lines.append(f"    {name!r}: ({kind.config_key!r}, {output!r}),")
    return "\n".join([*lines, "}", ""])


def stale(kinds: Iterable[Kind] | None = None) -> list[str]:
    """The files whose table differs from what `kinds` (the registered ones) give."""
    kinds = registered_kinds() if kinds is None else list(kinds)
    found = [
        str(path.relative_to(REPO_ROOT))
        for name, (path, _) in TABLES.items()
        if rendered(name, path.read_text(), kinds) != path.read_text()
    ]
    if keys_module() != KEYS_MODULE.read_text():
        found.append(str(KEYS_MODULE.relative_to(REPO_ROOT)))
    return found


def main(argv: list[str]) -> int:
    if "--check" in argv:
        found = stale()
        for outdated in found:
            print(f"{outdated}: the table of kinds is out of date: run python -m tools.kinds_table")
        return 1 if found else 0
    for name, (path, _) in TABLES.items():
        path.write_text(rendered(name, path.read_text(), registered_kinds()))
    KEYS_MODULE.write_text(keys_module())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
