"""How the drift report (stacks/drift.py) tells drift from a change not deployed yet, from
the engine's answers alone: a resource whose refreshed state differs from the recorded one
drifted, one recorded but to be created was deleted outside, and a change of the program's
own (the refreshed state as recorded, or a resource not in the state yet) is pending, not
drift. Secrets compare equal whether the state's ciphertext or the preview's mask."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from stacks.drift import (
    SECRET_SIGNATURE,
    AccessLoss,
    FieldDrift,
    access_losses,
    drift_report,
    masked,
    render_markdown,
)

PREFIX = "urn:pulumi:dev::workspace::pulumi-python:dynamic/workspace:"


def urn(kind: str, name: str) -> str:
    return f"{PREFIX}{kind}::{name}"


class FakeCli:
    """The two engine calls the report makes, answered from canned JSON."""

    stack = "dev"

    def __init__(self, resources: list[dict[str, Any]], preview: dict[str, Any]) -> None:
        self.resources = resources
        self.preview = preview
        self.calls: list[tuple[str, ...]] = []

    def export(self) -> dict[str, Any]:
        return {"deployment": {"resources": self.resources}}

    def run(self, *args: str, **_: Any) -> subprocess.CompletedProcess[str]:
        self.calls.append(args)
        return subprocess.CompletedProcess(args, 0, json.dumps(self.preview), "")


def recorded(kind: str, name: str, outputs: dict[str, Any]) -> dict[str, Any]:
    return {"urn": urn(kind, name), "custom": True, "outputs": outputs}


def update(kind: str, name: str, refreshed: dict[str, Any],
           inputs: dict[str, Any]) -> dict[str, Any]:
    return {"op": "update", "urn": urn(kind, name), "oldState": {"outputs": refreshed},
            "newState": {"inputs": inputs}}


def test_drift_is_told_from_the_programs_own_changes() -> None:
    secret = {SECRET_SIGNATURE: "1b47061264138c4ac30d75fd1eb44270", "ciphertext": "x"}
    cli = FakeCli(
        [recorded("SecretScope", "edited-in-ui", {"name": "a", "backend_type": "DATABRICKS"}),
         recorded("Secret", "changed-in-program", {"key": "k", "string_value": secret}),
         recorded("SecretScope", "deleted-in-ui", {"name": "d"})],
        {"steps": [
            update("SecretScope", "edited-in-ui", {"name": "a", "backend_type": "AZURE"},
                   {"name": "a", "backend_type": "DATABRICKS"}),
            update("Secret", "changed-in-program", {"key": "k", "string_value": "[secret]"},
                   {"key": "k2", "string_value": "[secret]"}),
            {"op": "create", "urn": urn("SecretScope", "deleted-in-ui"),
             "newState": {"inputs": {"name": "d"}}},
            {"op": "create", "urn": urn("SecretScope", "new-in-program"),
             "newState": {"inputs": {"name": "n"}}},
            {"op": "same", "urn": urn("SecretScope", "untouched")},
        ]},
    )
    report = drift_report(cli)  # type: ignore[arg-type]
    assert cli.calls == [("preview", "--refresh", "--json", "--stack", "dev")]
    assert [(r.name, r.state) for r in report.resources] == [
        ("deleted-in-ui", "deleted"), ("edited-in-ui", "changed")]
    assert report.resources[1].fields == [FieldDrift("backend_type", "AZURE", "DATABRICKS")]
    assert report.pending == ["changed-in-program", "new-in-program"]
    assert report.checked == 3 and report.drifted


def test_secrets_compare_as_the_engine_shows_them() -> None:
    secret = {SECRET_SIGNATURE: "1b47061264138c4ac30d75fd1eb44270", "ciphertext": "abc"}
    assert masked({"a": [secret, 1], "b": secret}) == {"a": ["[secret]", 1], "b": "[secret]"}


def test_who_loses_what_is_what_the_workspace_grants_beyond_the_declaration() -> None:
    fields = [
        FieldDrift("privilege_assignments[analysts]", ["SELECT", "USE_CATALOG"], None),
        FieldDrift("privilege_assignments[engineers]", ["MODIFY", "SELECT"], ["SELECT"]),
        FieldDrift("privilege_assignments[readers]", None, ["SELECT"]),  # gains only
        FieldDrift("permission", "MANAGE", "READ"),
    ]
    assert access_losses(fields) == [
        AccessLoss("analysts", ["SELECT", "USE_CATALOG"]),
        AccessLoss("engineers", ["MODIFY"]),
        AccessLoss("permission", ["MANAGE"]),
    ]


def test_the_issue_text_keeps_its_shape_whatever_the_names() -> None:
    cli = FakeCli([recorded("SecretScope", "a|b`c", {"name": "x"})],
                  {"steps": [{"op": "create", "urn": urn("SecretScope", "a|b`c")}]})
    markdown = render_markdown(drift_report(cli))  # type: ignore[arg-type]
    assert "| `` a\\|b`c `` | SecretScope | deleted outside the stack" in markdown


def test_the_report_reads_the_same_whatever_order_the_engine_walked() -> None:
    """The engine's steps come in the order its parallel walk reached them; a drift issue
    rewritten every night must not change for that alone."""
    names = ["b-scope", "a-scope", "c-scope"]
    steps = [{"op": "create", "urn": urn("SecretScope", n)} for n in names]
    reports = [
        render_markdown(drift_report(FakeCli(  # type: ignore[arg-type]
            [recorded("SecretScope", n, {"name": n}) for n in names], {"steps": order})))
        for order in (steps, steps[::-1])
    ]
    assert reports[0] == reports[1]
    assert reports[0].index("`a-scope`") < reports[0].index("`b-scope`") < reports[0].index(
        "`c-scope`")
