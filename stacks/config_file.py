"""Round-trip editing of a stack's settings file (Pulumi.<stack>.yaml), for `stacks.adopt`.

The file is what a team reads and reviews: its comments, its order, its quoting and its
items stay as they are; new items go at the end of their list (a list the file does not
have yet goes at the end of `config`), in block style, indented as the file indents its
lists. The new file replaces the old one atomically: it is written to a temporary file in
the same directory, flushed to disk, and renamed over the old one (`os.replace`), with the
old file's mode; a crash leaves the old file or the new one, never half of one.

    document = load(path)
    append_items(document, "workspace:jobs", [{"name": "nightly", "import": "42", ...}])
    replace_atomically(path, dump(document))
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.tokens import CommentToken

CONFIG = "config"
# Lines longer than this are never folded: the file's own lines come back as they were.
WIDTH = 4096
# The project's style where the file has no block list to take it from: mappings by two
# spaces, a list's dashes two spaces in from its key.
DEFAULT_INDENT = (2, 4, 2)  # mapping, sequence, offset of the dash


@dataclass
class ConfigDocument:
    """A settings file as loaded: its data (comments attached) and how to write it back."""

    data: CommentedMap
    indent: tuple[int, int, int] = DEFAULT_INDENT

    @property
    def config(self) -> CommentedMap:
        if self.data.get(CONFIG) is None:
            self.data[CONFIG] = CommentedMap()
        section = self.data[CONFIG]
        if not isinstance(section, CommentedMap):
            raise ValueError(f"`{CONFIG}` of the stack's settings file must be a mapping")
        return section


def _yaml(indent: tuple[int, int, int] = DEFAULT_INDENT) -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = WIDTH
    # `[{task_key: a}]` stays so (ruamel would write the single pair as `[task_key: a]`).
    yaml.brace_single_entry_mapping_in_flow_sequence = True
    mapping, sequence, offset = indent
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    return yaml


def guess_indent(text: str) -> tuple[int, int, int]:
    """(mapping, sequence, offset) as the file writes them: the first nested key's indent
    for mappings, the first block list's dash (relative to its key) and its content."""
    mapping = None
    for previous, line in zip(text.splitlines(), text.splitlines()[1:], strict=False):
        body = line.lstrip(" ")
        if not body or body.startswith("#"):
            continue
        if previous.rstrip().endswith(":") and not previous.lstrip().startswith("#"):
            parent = len(previous) - len(previous.lstrip(" "))
            depth = len(line) - len(body)
            if body.startswith("- "):
                offset = depth - parent
                content = len(line) - len(body[1:].lstrip(" ")) - parent
                return (mapping or DEFAULT_INDENT[0], content, offset)
            if mapping is None and depth > parent:
                mapping = depth - parent
    return (mapping or DEFAULT_INDENT[0], DEFAULT_INDENT[1], DEFAULT_INDENT[2])


def load(path: Path) -> ConfigDocument:
    """The settings file at `path` (an empty document where there is none)."""
    text = path.read_text() if path.exists() else ""
    return loads(text)


def loads(text: str) -> ConfigDocument:
    indent = guess_indent(text)
    data = _yaml(indent).load(text) if text.strip() else None
    if data is None:
        data = CommentedMap()
    if not isinstance(data, CommentedMap):
        raise ValueError("the stack's settings file must be a mapping")
    return ConfigDocument(data, indent)


def dump(document: ConfigDocument) -> str:
    stream = io.StringIO()
    _yaml(document.indent).dump(document.data, stream)
    return stream.getvalue()


def append_items(document: ConfigDocument, key: str, items: Iterable[Mapping[str, Any]]) -> int:
    """Appends `items` to the list at config `key` (`workspace:jobs`), made at the end of
    `config` where the file has none. Returns how many were added."""
    new = [_commented(item) for item in items]
    if not new:
        return 0
    config = document.config
    current = config.get(key)
    if current is None:
        trailing = _take_trailing_comment(config)
        config[key] = CommentedSeq(new)
        if trailing is not None:
            _put_trailing_comment(config, trailing)
        return len(new)
    if not isinstance(current, CommentedSeq):
        raise ValueError(f"{key} must be a list to add items to it")
    if not current:
        current.fa.set_block_style()  # `[]` grows into a block list
    trailing = _take_trailing_comment(current)
    current.extend(new)
    if trailing is not None:
        _put_trailing_comment(current, trailing)
    return len(new)


def render_additions(additions: Mapping[str, list[dict[str, Any]]]) -> str:
    """What `append_items` would add, as a `config:` fragment (for `--dry-run`)."""
    document = ConfigDocument(CommentedMap())
    for key, items in additions.items():
        append_items(document, key, items)
    return dump(document) if document.data else ""


def replace_atomically(path: Path, text: str | bytes) -> None:
    """Writes `text` (or bytes as they are) to `path` so that readers see the old file or the
    new one: a temporary file in the same directory, flushed to disk, renamed over `path`;
    the old file's mode is kept."""
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    content = text.encode("utf-8") if isinstance(text, str) else text
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
            stream.flush()
            os.fsync(stream.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    _sync_directory(path.parent)


def _sync_directory(directory: Path) -> None:
    """Makes the rename itself durable (where the system lets a directory be opened)."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


# --- comments ----------------------------------------------------------------------------
#
# ruamel keeps the comment lines that follow a list (often the comment above the next key)
# on the list's last item, at its deepest last key or element (and those after the last key
# of `config`, on that key's). Appending items after it would leave them above the new
# items: they move to the new last item instead, and a comment at the end of the old last
# line stays on that line.



def _commented(value: Any) -> Any:
    if isinstance(value, Mapping):
        made = CommentedMap()
        for key, item in value.items():
            made[key] = _commented(item)
        return made
    if isinstance(value, list | tuple):
        return CommentedSeq(_commented(item) for item in value)
    return value


def _last_slot(node: Any) -> tuple[Any, Any, int] | None:
    """(container, key or index, slot in its comment entry) of the deepest last entry."""
    while True:
        if isinstance(node, CommentedMap) and node:
            key = list(node.keys())[-1]
            if _block(node[key]):
                node = node[key]
                continue
            return node, key, 2
        if isinstance(node, CommentedSeq) and node:
            if _block(node[-1]):
                node = node[-1]
                continue
            return node, len(node) - 1, 0
        return None


def _block(value: Any) -> bool:
    """A non-empty mapping or list written in block style (its lines are its own)."""
    return (
        isinstance(value, CommentedMap | CommentedSeq) and bool(value)
        and not value.fa.flow_style()
    )


def _take_trailing_comment(node: CommentedMap | CommentedSeq) -> CommentToken | None:
    slot = _last_slot(node)
    if slot is None:
        return None
    container, key, index = slot
    entry = container.ca.items.get(key)
    if not entry or len(entry) <= index or entry[index] is None:
        return None
    token = entry[index]
    value = getattr(token, "value", None)
    if not isinstance(value, str) or "\n" not in value:
        return None
    line_end, rest = value.split("\n", 1)
    if not rest.strip():
        return None
    token.value = line_end + "\n"
    return CommentToken(rest, token.start_mark, None)


def _put_trailing_comment(node: CommentedMap | CommentedSeq, token: CommentToken) -> None:
    slot = _last_slot(node)
    if slot is None:
        return
    container, key, index = slot
    empty: list[Any] = [None, None, None, None] if index == 2 else [None, None]
    entry = container.ca.items.setdefault(key, empty)
    while len(entry) <= index:
        entry.append(None)
    existing = entry[index]
    if existing is not None and isinstance(getattr(existing, "value", None), str):
        existing.value = existing.value.rstrip("\n") + "\n" + token.value
    else:
        token.value = "\n" + token.value
        entry[index] = token
