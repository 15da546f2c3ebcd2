"""`databricks repos create`/`delete`, `ip-access-lists create`/`update`/`replace`/`delete`
and `workspace-conf get-status`/`set-status` (`enableIpAccessLists`, enforced)."""

from __future__ import annotations

import json

from tests.cli.cli import Cli
from tests.emulator.support import unique

PIPELINES_URL = "https://github.com/example-org/data-pipelines.git"
MODELS_URL = "https://github.com/example-org/ml-models.git"
ENABLE = "enableIpAccessLists"


# --- repos -----------------------------------------------------------------------------------

def test_repos_create_get_delete_by_path_and_by_id(cli: Cli) -> None:
    path = f"/Repos/cli/{unique('pipelines')}"
    created = cli.ok("repos", "create", PIPELINES_URL, "gitHub", "--path", path)
    assert created["path"] == path and created["provider"] == "gitHub"
    assert created["branch"] == "main"
    assert cli.ok("repos", "get", path)["id"] == created["id"]
    assert cli.ok("workspace", "get-status", path)["object_type"] == "REPO"
    assert cli.ok("repos", "delete", path) is None
    gone = cli.fails("repos", "get", path)
    assert gone.message == f"failed to look up repo by path: Path ({path}) doesn't exist."

    elsewhere = f"/Users/someone@example.com/{unique('models')}"
    by_json = cli.ok("repos", "create", "--json", json.dumps(
        {"url": MODELS_URL, "provider": "github", "path": elsewhere,
         "sparse_checkout": {"patterns": ["jobs"]}}))
    assert by_json["provider"] == "gitHub"  # matched without regard to case
    assert by_json["sparse_checkout"] == {"patterns": ["jobs"]}
    assert cli.ok("repos", "delete", str(by_json["id"])) is None
    assert cli.fails("repos", "get", str(by_json["id"])).status == 404


def test_repos_create_without_a_path_or_a_provider(cli: Cli, emulator) -> None:
    # The CLI infers the provider from the URL; the service puts a repo without a path in
    # the caller's own folder.
    created, sent = cli.sent("repos", "create", MODELS_URL)
    [request] = [x for x in sent if x.method == "POST"]
    assert request.body == {"url": MODELS_URL, "provider": "gitHub"}
    assert created["path"] == f"/Repos/{emulator.client_id}/ml-models"
    cli.ok("repos", "delete", str(created["id"]))


def test_repos_create_refusals(cli: Cli) -> None:
    path = f"/Repos/cli/{unique('pipelines')}"
    cli.ok("repos", "create", PIPELINES_URL, "gitHub", "--path", path)
    taken = cli.fails("repos", "create", MODELS_URL, "gitHub", "--path", path)
    assert (taken.status, taken.message) == (400, f"Path ({path}) already exists.")
    unknown = cli.fails("repos", "create", "https://github.com/example-org/nothing.git",
                        "gitHub", "--path", f"/Repos/cli/{unique('x')}")
    assert unknown.status == 400 and "Unable to clone" in unknown.message
    too_deep = cli.fails("repos", "create", PIPELINES_URL, "gitHub", "--path",
                         "/Repos/cli/too/deep")
    assert too_deep.status == 400


# --- IP access lists -------------------------------------------------------------------------

def _get(cli: Cli, list_id: str) -> dict:
    return cli.ok("ip-access-lists", "get", list_id)["ip_access_list"]


def test_ip_access_lists_create_update_replace_delete(cli: Cli) -> None:
    label = unique("cli-list")
    created = cli.ok("ip-access-lists", "create", "--json", json.dumps(
        {"label": label, "list_type": "BLOCK", "ip_addresses": ["192.0.2.0/28"]}))
    item = created["ip_access_list"]
    list_id = item["list_id"]
    assert (item["label"], item["list_type"], item["address_count"], item["enabled"]) == (
        label, "BLOCK", 1, True)

    cli.ok("ip-access-lists", "update", list_id, "--label", f"{label}-renamed")
    renamed = _get(cli, list_id)
    assert renamed["label"] == f"{label}-renamed"
    assert renamed["ip_addresses"] == ["192.0.2.0/28"]  # an update keeps what it leaves out
    cli.ok("ip-access-lists", "update", list_id, "--json", json.dumps(
        {"ip_addresses": ["192.0.2.64/28", "198.51.100.9"], "enabled": False}))
    updated = _get(cli, list_id)
    assert updated["ip_addresses"] == ["192.0.2.64/28", "198.51.100.9"]
    assert updated["enabled"] is False and updated["address_count"] == 2

    cli.ok("ip-access-lists", "replace", list_id, "--json", json.dumps(
        {"label": "replaced", "list_type": "ALLOW", "enabled": True,
         "ip_addresses": ["203.0.113.7"]}))
    replaced = _get(cli, list_id)
    assert (replaced["label"], replaced["list_type"], replaced["ip_addresses"]) == (
        "replaced", "ALLOW", ["203.0.113.7"])

    assert cli.ok("ip-access-lists", "delete", list_id) is None
    gone = cli.fails("ip-access-lists", "get", list_id)
    assert (gone.status, gone.message) == (404, f"IP access list {list_id} does not exist.")
    assert list_id not in {i["list_id"] for i in cli.ok("ip-access-lists", "list")}


def test_ip_access_lists_create_by_arguments(cli: Cli) -> None:
    created, sent = cli.sent("ip-access-lists", "create", unique("cli-args"), "ALLOW")
    [request] = [x for x in sent if x.method == "POST"]
    assert set(request.body) == {"label", "list_type"}
    item = created["ip_access_list"]
    assert item["address_count"] == 0 and item["list_type"] == "ALLOW"
    cli.ok("ip-access-lists", "delete", item["list_id"])


def test_ip_access_list_refusals(cli: Cli) -> None:
    bad = cli.fails("ip-access-lists", "create", "--json", json.dumps(
        {"label": "bad", "list_type": "ALLOW", "ip_addresses": ["300.1.1.1"]}))
    assert bad.status == 400 and "300.1.1.1" in bad.message
    missing = cli.fails("ip-access-lists", "update", "00000000-0000-4000-8000-000000000000",
                        "--label", "x")
    assert missing.status == 404


def test_enabling_ip_access_lists_is_enforced(cli: Cli) -> None:
    assert cli.ok("workspace-conf", "get-status", ENABLE) == {ENABLE: "false"}
    # No allow list holds the caller's address (loopback): turning enforcement on would
    # lock it out, so the service refuses.
    refused = cli.fails("workspace-conf", "set-status", "--json", json.dumps({ENABLE: "true"}))
    assert refused.status == 400 and "127.0.0.1" in refused.message
    own = cli.ok("ip-access-lists", "create", "--json", json.dumps(
        {"label": unique("loopback"), "list_type": "ALLOW", "ip_addresses": ["127.0.0.0/8"]}))
    try:
        assert cli.ok("workspace-conf", "set-status", "--json",
                      json.dumps({ENABLE: "true"})) is None
        assert cli.ok("workspace-conf", "get-status", ENABLE) == {ENABLE: "true"}
        blocking = cli.fails("ip-access-lists", "create", "--json", json.dumps(
            {"label": "self", "list_type": "BLOCK", "ip_addresses": ["127.0.0.1"]}))
        assert blocking.status == 400
        # Nor may an update take the caller's address out of the allow lists.
        locked_out = cli.fails("ip-access-lists", "update", own["ip_access_list"]["list_id"],
                               "--json", json.dumps({"ip_addresses": ["192.0.2.1"]}))
        assert locked_out.status == 400
    finally:
        cli.ok("workspace-conf", "set-status", "--json", json.dumps({ENABLE: "false"}))
    assert cli.ok("workspace-conf", "get-status", ENABLE) == {ENABLE: "false"}
    cli.ok("ip-access-lists", "delete", own["ip_access_list"]["list_id"])
