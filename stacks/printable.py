"""Text of the workspace's (object names, ids, the service's words) as adopt and the audit
print it to a terminal: a name holding an escape sequence could otherwise move the cursor,
rewrite lines already printed, retitle the window or hide itself.

Every control character (C0, DEL, C1), format character (bidirectional overrides, zero
width) and line or paragraph separator is shown as its escape (`\\x1b`, `\\u202e`), as
Python's `repr` shows it; everything else is printed as it is.
"""

from __future__ import annotations

import unicodedata

# The Unicode categories printed as escapes: control, format, line and paragraph separators.
_ESCAPED = frozenset({"Cc", "Cf", "Zl", "Zp"})


def printable(text: str) -> str:
    """`text` with each control or format character written as its escape."""
    if text.isprintable():
        return text
    return "".join(_escaped(char) for char in text)


def _escaped(char: str) -> str:
    if unicodedata.category(char) not in _ESCAPED:
        return char
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
