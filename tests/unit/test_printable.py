"""stacks.printable: the workspace's names as adopt and the audit print them, every control
and format character escaped, so a name cannot drive the terminal (issue 41, I2)."""

from __future__ import annotations

import pytest

from providers.core.registry import kind_named
from stacks import adopt
from stacks.audit import AuditReport, WorkspaceObject, render_table
from stacks.printable import printable

# Clears the screen, moves the cursor home, retitles the window, then a bell.
HOSTILE = "etl\x1b[2J\x1b[H\x1b]0;owned\x07\r\nfake line\x9b31m\u202eevil\u200b"


@pytest.mark.parametrize(("text", "shown"), [
    ("Nightly ETL (prod) – façade 数据", "Nightly ETL (prod) – façade 数据"),
    ("a\x1b[31mred", "a\\x1b[31mred"),
    ("line\nbreak\rreturn\ttab", "line\\x0abreak\\x0dreturn\\x09tab"),
    ("c1\x9bcsi del\x7f nul\x00", "c1\\x9bcsi del\\x7f nul\\x00"),
    ("rtl\u202eoverride zero\u200bwidth sep\u2028",
     "rtl\\u202eoverride zero\\u200bwidth sep\\u2028"),
])
def test_control_and_format_characters_are_escaped(text: str, shown: str) -> None:
    assert printable(text) == shown


def test_nothing_printable_is_left_unescaped() -> None:
    assert printable(HOSTILE).isprintable()
    assert printable(HOSTILE) == (
        "etl\\x1b[2J\\x1b[H\\x1b]0;owned\\x07\\x0d\\x0afake line\\x9b31m\\u202eevil\\u200b"
    )


def test_the_audit_table_prints_names_and_ids_escaped() -> None:
    report = AuditReport("https://ws", ["dev"], {"job": 0},
                         [WorkspaceObject("job", "42\x1b[1A", HOSTILE)], [])
    text = render_table(report)
    assert "\x1b" not in text and "\r" not in text and "\x9b" not in text
    assert "\u202e" not in text
    assert "42\\x1b[1A" in text and printable(HOSTILE) in text
    assert len(text.splitlines()) == 4  # the heading, the columns, one row, the count


def test_adopts_refusals_print_names_ids_and_problems_escaped() -> None:
    refused = [adopt.Refusal(kind_named("Job").audit_key, "7\x07", HOSTILE,
                             f"another item of workspace:jobs is named {HOSTILE}")]
    text = adopt.render_refusals(refused)
    assert all(char == "\n" or char.isprintable() for char in text), repr(text)
    assert "7\\x07" in text and printable(HOSTILE) in text
    assert len(text.splitlines()) == 3  # the columns, one row, the count
