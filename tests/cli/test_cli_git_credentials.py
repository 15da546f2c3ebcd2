"""`databricks git-credentials create`/`list`/`get`/`update`/`delete` (one credential per
provider, the token never printed back), and `workspace-conf` of the other settings (an
unknown key refused by name, values checked)."""

from __future__ import annotations

import json

from tests.cli.cli import Cli

TOKEN = "glpat-" + "c" * 20  # noqa: S105 - made up


def test_git_credentials_lifecycle(cli: Cli) -> None:
    for credential in cli.ok("git-credentials", "list") or []:
        cli.ok("git-credentials", "delete", str(credential["credential_id"]))
    made = cli.ok("git-credentials", "create", "gitlab", "--git-username", "deploy-bot",
                  "--personal-access-token", TOKEN, "--name", "ci")
    credential_id = str(made["credential_id"])
    assert (made["git_provider"], made["git_username"], made["name"]) == (
        "gitLab", "deploy-bot", "ci")
    assert TOKEN not in json.dumps(made)
    listed = cli.ok("git-credentials", "list")
    assert [str(c["credential_id"]) for c in listed] == [credential_id]
    assert TOKEN not in json.dumps(listed)

    second = cli.fails("git-credentials", "create", "gitLab", "--personal-access-token", TOKEN)
    assert second.status == 400 and f"credential {credential_id}" in second.message

    assert cli.ok("git-credentials", "update", credential_id, "gitLab",
                  "--git-username", "bot-2", "--personal-access-token", TOKEN + "x") is None
    got = cli.ok("git-credentials", "get", credential_id)
    assert (got["git_username"], got["name"]) == ("bot-2", "ci")
    assert cli.ok("git-credentials", "delete", credential_id) is None
    assert cli.fails("git-credentials", "get", credential_id).status == 404


def test_workspace_settings_by_key(cli: Cli) -> None:
    keys = "enableResultsDownloading,maxTokenLifetimeDays"
    # The CLI reads the values as strings: a key holding none prints as "".
    assert cli.ok("workspace-conf", "get-status", keys) == {
        "enableResultsDownloading": "true", "maxTokenLifetimeDays": ""}
    assert cli.ok("workspace-conf", "set-status", "--json", json.dumps(
        {"enableResultsDownloading": "false", "maxTokenLifetimeDays": "30"})) is None
    try:
        assert cli.ok("workspace-conf", "get-status", keys) == {
            "enableResultsDownloading": "false", "maxTokenLifetimeDays": "30"}
        unknown = cli.fails("workspace-conf", "set-status", "--json",
                            json.dumps({"enableFrobnication": "true"}))
        assert unknown.status == 400 and "enableFrobnication" in unknown.message
        bad = cli.fails("workspace-conf", "set-status", "--json",
                        json.dumps({"maxTokenLifetimeDays": "9999"}))
        assert bad.status == 400 and "1 to 730" in bad.message
    finally:
        cli.ok("workspace-conf", "set-status", "--json", json.dumps(
            {"enableResultsDownloading": "true", "maxTokenLifetimeDays": ""}))
