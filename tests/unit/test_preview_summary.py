"""stacks/preview_summary (`workspace-iac summary`) on output of the real engine.

The two fixtures in tests/fixtures/preview/ were written by `pulumi preview --json` (Pulumi
v3.79.0, this project's engine) running stacks/ against the emulator, not by hand:
- update-replace-delete.json: the objects of Pulumi.local.yaml after `pulumi up`, then the
  job's max_retries 2 -> 5, the repo branch develop -> main, the catalog binding's
  catalog_name finance -> sandbox, and the vault-secrets scope removed;
- config-error.json: a config with the typo `workspace:jobz` and a bad scope name;
- create.json: the objects of Pulumi.local.yaml on a new stack, after WorkspaceAuth gained
  its explicit provider (providers/core/host.py);
- modern-update-replace-delete.json: the scenario of update-replace-delete.json written by
  the modern engine (Pulumi v3.259.0, SDK 3.272.0, the program inline), whose steps carry
  the `detailedDiff` the provider host's Diff returns (the job's, by input path); its
  source positions name the checkout `/checkout`.
tests/e2e/test_preview_summary.py produces the same kind of output afresh on every run.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest

from stacks import preview_summary
from stacks.preview_summary import differences, summarise

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "preview"


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def rows(markdown: str) -> dict[str, str]:
    """Resource name -> its table row."""
    found = {}
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 and cells[1].startswith("`"):
            found[cells[1].strip("`")] = line
    return found


def test_counts_and_changed_fields_of_a_real_preview() -> None:
    preview = fixture("update-replace-delete.json")
    markdown = summarise(preview, "local")
    engine = preview["changeSummary"]
    assert markdown.startswith("### Pulumi preview: `local`\n")
    assert (
        f"**{engine['update']} to update, {engine['replace']} to replace, "
        f"{engine['delete']} to delete** ({engine['same']} unchanged)" in markdown
    )
    table = rows(markdown)
    # A job's fields are named in its normal form: the single task of a job declared in
    # the specification's nesting is `tasks[main]`.
    assert table["nightly-etl"] == (
        "| `~` update | `nightly-etl` | Job | `tasks[main].max_retries`: `2` → `5` |"
    )
    assert '`branch`: `"develop"` → `"main"`' in table["data-pipelines"]
    assert '`catalog_name`: `"finance"` → `"sandbox"` (forces replacement)' in table["finance"]
    assert "_known after apply_" in table["nightly-etl-access"]
    assert table["vault-secrets"].startswith("| `-` delete | `vault-secrets` | SecretScope |")
    assert "workspace-e2e" not in markdown  # the stack itself is not a resource row
    assert "[secret]" not in markdown and "connection" not in markdown


def test_creates_leave_out_the_stack_and_the_provider() -> None:
    preview = fixture("create.json")
    types = [step["urn"].split("::")[2] for step in preview["steps"]]
    assert "pulumi:pulumi:Stack" in types
    assert any(t.endswith("$pulumi:providers:pulumi-python") for t in types)
    markdown = summarise(preview)
    assert f"**{preview['changeSummary']['create'] - 2} to create** (0 unchanged)" in markdown
    table = rows(markdown)
    assert table["workspace"] == "| `+` create | `workspace` | WorkspaceAuth |  |"
    assert table["nightly-etl-access"].startswith("| `+` create | `nightly-etl-access` |")
    assert "pulumi-python |" not in markdown and "workspace-e2e" not in markdown


def test_rows_are_grouped_by_operation() -> None:
    markdown = summarise(fixture("update-replace-delete.json"))
    operations = [line.split("|")[1].split()[-1] for line in markdown.splitlines()[6:]
                  if line.startswith("| `")]
    order = ["create", "update", "replace", "delete"]
    assert operations == sorted(operations, key=order.index)


def test_a_failed_preview_shows_its_errors() -> None:
    markdown = summarise(fixture("config-error.json"), "dev")
    assert "**The preview failed.**" in markdown
    assert "workspace:jobz: unknown key (did you mean 'jobs'?)" in markdown
    assert "to create" not in markdown


def test_no_changes() -> None:
    preview = fixture("update-replace-delete.json")
    preview["steps"] = [s for s in preview["steps"] if s["op"] == "same"]
    preview["changeSummary"] = {"same": len(preview["steps"])}
    assert summarise(preview).endswith(f"No changes ({len(preview['steps'])} unchanged).\n")


def test_differences_walk_objects_and_equal_length_lists() -> None:
    old = {"a": {"b": 1, "gone": 2}, "items": [{"x": 1}, {"x": 2}], "tags": [1]}
    new = {"a": {"b": 3, "new": 4}, "items": [{"x": 1}, {"x": 5}], "tags": [1, 2]}
    found = {path: (before, after) for path, before, after in differences(old, new)}
    assert set(found) == {"a.b", "a.gone", "a.new", "items[1].x", "tags"}
    assert found["a.b"] == (1, 3) and found["items[1].x"] == (2, 5)


def test_command_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    text = (FIXTURES / "update-replace-delete.json").read_text()
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert preview_summary.main(["--stack", "local"]) == 0
    assert capsys.readouterr().out == summarise(json.loads(text), "local")
    monkeypatch.setattr("sys.stdin", io.StringIO("error: no stack selected"))
    assert preview_summary.main([]) == 2
    assert "not the JSON of `pulumi preview --json`" in capsys.readouterr().err


def test_a_modern_engine_preview_shows_the_kinds_rows_and_the_engines_where_no_kind_has() -> None:
    preview = fixture("modern-update-replace-delete.json")
    [job_step] = [step for step in preview["steps"] if step.get("detailedDiff")]
    assert job_step["detailedDiff"] == {
        "tasks[0].max_retries": {"kind": "update", "inputDiff": False}
    }
    table = rows(summarise(preview, "local"))
    # The job's kind names its task by key where the engine names an index.
    assert table["nightly-etl"] == (
        "| `~` update | `nightly-etl` | Job | `tasks[ingest].max_retries`: `2` → `5` |"
    )
    assert '`branch`: `"develop"` → `"main"`' in table["data-pipelines"]
    assert '`catalog_name`: `"finance"` → `"sandbox"` (forces replacement)' in table["finance"]
    assert table["vault-secrets"].startswith("| `-` delete | `vault-secrets` | SecretScope |")

    # The same step of a type no kind of this project knows: the engine's rows, with values
    # from the recorded state and the new inputs at each path.
    other = copy.deepcopy(job_step)
    other["urn"] = other["urn"].replace("pulumi-python:dynamic/workspace:Job", "acme:index:Flow")
    for state in (other["oldState"], other["newState"]):
        state["type"] = "acme:index:Flow"
    other["detailedDiff"]["retry_policy"] = {"kind": "update-replace", "inputDiff": True}
    table = rows(summarise({"steps": [other]}))
    assert table["nightly-etl"] == (
        "| `~` update | `nightly-etl` | Flow | `tasks[0].max_retries`: `2` → `5`"
        "<br>`retry_policy`: changed (forces replacement) |"
    )


# --- what the service and the stack's names put into the Markdown ------------------------


def parsed(markdown: str) -> list[Any]:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").parse(markdown)


def failed_preview(*messages: str) -> dict[str, Any]:
    return {"diagnostics": [{"severity": "error", "message": m} for m in messages]}


def test_a_diagnostic_cannot_close_the_fence_it_is_shown_in() -> None:
    service = (
        "error: POST /api/2.1/jobs/create: 400 INVALID_PARAMETER_VALUE: bad task\n"
        "```\n\n**Approved** by the platform team ````` [click](https://evil.example)\n"
        "| a | b |"
    )
    tokens = parsed(summarise(failed_preview(service, "error: second ``` one"), "dev"))
    [fence] = [t for t in tokens if t.type == "fence"]
    assert fence.content == service.removeprefix("error: ") + "\nsecond ``` one\n"
    assert tokens[-1] is fence  # nothing of the message rendered outside it
    assert not any(t.type in ("table_open", "link_open", "strong_open") for t in tokens)


def test_a_diagnostic_adds_at_most_2000_characters_of_the_services_text() -> None:
    markdown = summarise(failed_preview("error: " + "x" * 10_000, "error: short"), "dev")
    [fence] = [t for t in parsed(markdown) if t.type == "fence"]
    first, rest = fence.content.split("\n", 1)
    assert first == "x" * preview_summary.MAX_DIAGNOSTIC
    assert rest == "… (cut: 8000 more characters)\nshort\n"


def table_rows(markdown: str) -> list[list[str]]:
    """The body rows of the summary's table as a Markdown parser reads them: each cell's
    source text."""
    tokens = parsed(markdown)
    rows_: list[list[str]] = []
    for index, token in enumerate(tokens):
        if token.type == "tr_open":
            rows_.append([])
        elif token.type == "td_open":
            rows_[-1].append(tokens[index + 1].content)
    return [row for row in rows_ if row]


def test_names_cannot_break_the_table() -> None:
    preview = fixture("update-replace-delete.json")
    name, kind = "data|pipe\nline`tick", "Repo|Branch\n<b>x</b>"
    for step in preview["steps"]:
        if step["urn"].endswith("::data-pipelines"):
            step["urn"] = step["urn"].replace("::data-pipelines", f"::{name}")
            step["urn"] = step["urn"].replace("workspace:RepoBranch", f"workspace:{kind}")
            for state in (step.get("oldState"), step.get("newState")):
                if state:
                    state["type"] = f"pulumi-python:dynamic/workspace:{kind}"
    markdown = summarise(preview, "local")
    body = table_rows(markdown)
    assert len(body) == len(list(preview_summary.changed_resources(preview["steps"])))
    assert all(len(row) == 4 for row in body)
    [row] = [r for r in body if "pipe" in r[1]]
    # (a parser reads `\\|` in a cell as `|`, code spans included, as GitHub does)
    assert row[1] == "`` data|pipe⏎line`tick ``"
    assert row[2] == "Repo|Branch⏎&lt;b&gt;x&lt;/b&gt;"
    [code] = [t for t in parsed(markdown) if t.content == row[1]][0].children or []
    assert code.type == "code_inline" and code.content == "data|pipe⏎line`tick"


def test_field_paths_cannot_break_the_table() -> None:
    step = {"op": "update", "urn": "urn:pulumi:s::p::pulumi-python:dynamic/x:Other::n",
            "oldState": {"inputs": {"tags": {"a|b\nc`": "1"}}},
            "newState": {"inputs": {"tags": {"a|b\nc`": "2"}}}}
    [row] = table_rows(summarise({"steps": [step]}))
    assert len(row) == 4 and row[3] == "`` tags.a|b⏎c` ``: `\"1\"` → `\"2\"`"


def with_warnings(preview: dict[str, Any], *diagnostics: tuple[str, str]) -> dict[str, Any]:
    """`preview` with warning diagnostics, each (the resource's URN, the message)."""
    listed = [{"severity": "warning", "urn": urn, "message": message}
              for urn, message in diagnostics]
    return {**preview, "diagnostics": [*(preview.get("diagnostics") or []), *listed]}


GRANTS_URN = ("urn:pulumi:local::workspace::pulumi-python:dynamic:Resource$"
              "pulumi-python:dynamic/workspace:Grants::catalog-grants")
LOSS = ("grants on catalog demo: bob@example.com (USE_CATALOG) lose(s) every direct privilege: "
        "not declared")


def test_warnings_follow_the_table_each_once_under_their_resource() -> None:
    # Newer engines diff a refresh too: the same warning comes twice.
    preview = with_warnings(fixture("update-replace-delete.json"),
                            (GRANTS_URN, LOSS), (GRANTS_URN, LOSS), ("", "warning: no urn"))
    markdown = summarise(preview, "dev")
    table_end = markdown.index("\n\n**Warnings**\n\n")
    assert rows(markdown[:table_end])  # the table comes first
    listed = markdown[table_end:].strip().splitlines()[1:]
    # The message as plain text: its markup characters escaped (`USE\\_CATALOG`).
    assert listed == ["", f"- `catalog-grants`: {preview_summary.cell_text(LOSS)}", "- no urn"]


def test_a_preview_without_changes_still_shows_its_warnings() -> None:
    preview = fixture("update-replace-delete.json")
    preview["steps"] = [s for s in preview["steps"] if s["op"] == "same"]
    preview["changeSummary"] = {"same": len(preview["steps"])}
    markdown = summarise(with_warnings(preview, (GRANTS_URN, LOSS)))
    assert f"No changes ({len(preview['steps'])} unchanged)." in markdown
    shown = preview_summary.cell_text(LOSS)
    assert markdown.endswith(f"**Warnings**\n\n- `catalog-grants`: {shown}\n")


def test_a_warning_cannot_add_markup() -> None:
    message = "x | y\n**Approved** [click](https://evil.example) `code` <b>bold</b>"
    markdown = summarise(with_warnings(fixture("update-replace-delete.json"),
                                       (GRANTS_URN, message)))
    tokens = parsed(markdown)
    assert not any(t.type in ("link_open", "html_inline", "code_inline") and
                   "evil" in (t.content + str(t.attrs)) for t in tokens)
    [item] = [t for t in tokens if t.type == "inline" and "Approved" in t.content]
    # One list item on one line; the message's markup is escaped, shown as text.
    assert [c.type for c in item.children or []].count("strong_open") == 0
    assert not any(c.type == "link_open" for c in item.children or [])


def test_a_summary_with_changes_says_review_before_committing() -> None:
    """What the table shows is the config's as written, adopted items as the workspace held
    them: the summary says to review it, and where a credential belongs (issue 41, M10)."""
    markdown = summarise(fixture("update-replace-delete.json"), "dev")
    assert markdown.endswith(f"|\n\n{preview_summary.REVIEW}\n")  # under the table
    assert "Review before committing" in preview_summary.REVIEW
    assert "`{{secrets/<scope>/<key>}}`" in preview_summary.REVIEW
    preview = fixture("update-replace-delete.json")
    preview["steps"] = [s for s in preview["steps"] if s["op"] == "same"]
    assert "Review before committing" not in summarise(preview)
