"""RepoBranch against the repos of the emulator's initial data, in both wire forms."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pulumi.output import Unknown

from providers import RepoBranch, RepoBranchArgs
from providers.client import InvalidParameter, NotFound, TemporarilyUnavailable, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.workspace.repo_branch import RepoBranchProvider
from providers.workspace.repos_api import REPOS_PATH, ReposApi
from tests.providers.resource_mocks import register
from tests.providers.support import failures
from workspace_emulator.testing import clear_request_log, request_log

PIPELINES_ID = "3000000000000001"  # /Repos/iac/data-pipelines, on main
PIPELINES_PATH = "/Repos/iac/data-pipelines"
DASHBOARDS_ID = "3000000000000003"  # /Repos/analytics/dashboards, on master
MISSING_ID = "3000000000000099"
DEVELOP_HEAD = "b2c3d4e5f60718293a4b5c6d7e8f901234567890"
INITIAL_BRANCHES = {PIPELINES_ID: "main", DASHBOARDS_ID: "master"}


@pytest.fixture
def provider() -> RepoBranchProvider:
    return RepoBranchProvider()


@pytest.fixture
def client(client: WorkspaceClient) -> Iterator[WorkspaceClient]:
    yield client
    for repo_id, branch in INITIAL_BRANCHES.items():  # put the shared initial data back
        ReposApi(client).update_branch(repo_id, branch)


@pytest.fixture
def props(connection: dict[str, Any], client: WorkspaceClient) -> dict[str, Any]:
    return {"repo_id": int(PIPELINES_ID), "branch": "develop", CONNECTION_KEY: connection}


def branch_of(client: WorkspaceClient, repo_id: str) -> str | None:
    return ReposApi(client).get(repo_id).get("branch")


# --- check ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "repo",
    [
        {"repo_id": 3000000000000001},
        {"repo_id": "3000000000000001"},
        {"repo_path": "/Repos/iac/data-pipelines/"},
        {"repo_path": "/Workspace/Users/someone/project"},
    ],
)
def test_valid_input_passes_check(provider, connection, repo):
    props = {**repo, "branch": "release/2024.06", "on_delete": "leave", CONNECTION_KEY: connection}
    assert failures(provider, props) == {}


@pytest.mark.parametrize(
    ("changes", "path"),
    [
        ({"repo_id": None}, "repo_id"),
        ({"repo_path": PIPELINES_PATH}, "repo_id"),
        ({"repo_id": "thirty"}, "repo_id"),
        ({"repo_id": -3}, "repo_id"),
        ({"repo_id": 1.5}, "repo_id"),
        ({"repo_id": True}, "repo_id"),
        ({"repo_id": float(2**60)}, "repo_id"),
        ({"repo_id": None, "repo_path": "/Users/someone/project"}, "repo_path"),
        ({"repo_id": None, "repo_path": "/Repos/"}, "repo_path"),
        ({"branch": ""}, "branch"),
        ({"branch": "feature x"}, "branch"),
        ({"branch": "feature..x"}, "branch"),
        ({"branch": "fix:bug"}, "branch"),
        ({"branch": "topic.lock"}, "branch"),
        ({"branch": "-rf"}, "branch"),
        ({"branch": "feature/"}, "branch"),
        ({"branch": "feature/.hidden"}, "branch"),
        ({"branch": "main@{1}"}, "branch"),
        ({"branch": "@"}, "branch"),
        ({"on_delete": "delete"}, "on_delete"),
        ({"repo": "x"}, "repo"),
    ],
)
def test_check_names_the_bad_field(provider, props, changes, path):
    bad = {**props, **changes}
    bad = {k: v for k, v in bad.items() if v is not None}
    assert list(failures(provider, bad)) == [path]


def test_check_tells_to_pass_large_ids_as_strings(provider, props):
    reason = failures(provider, {**props, "repo_id": float(2**60)})["repo_id"]
    assert "pass it as a string" in reason


@pytest.mark.parametrize("unknown", [UNKNOWN, Unknown()], ids=["sentinel", "engine"])
def test_check_does_not_judge_unknown_values(provider, props, unknown):
    assert failures(provider, {**props, "repo_id": unknown, "branch": unknown}) == {}


# --- diff ----------------------------------------------------------------------------


def test_diff_same_input_is_no_change(provider, props, created):
    id_, outs = created
    assert not provider.diff(id_, outs, props).changes
    assert not provider.diff(id_, outs, {**props, "repo_id": PIPELINES_ID}).changes
    assert not provider.diff(id_, outs, {**props, "on_delete": "restore"}).changes


def test_diff_branch_updates_in_place(provider, props, created):
    id_, outs = created
    diff = provider.diff(id_, outs, {**props, "branch": "release/2024.06"})
    assert diff.changes and not diff.replaces
    diff = provider.diff(id_, outs, {**props, "on_delete": "leave"})
    assert diff.changes and not diff.replaces


def test_diff_another_repo_replaces_deleting_first(provider, props, created):
    id_, outs = created
    diff = provider.diff(id_, outs, {**props, "repo_id": int(DASHBOARDS_ID)})
    assert diff.replaces == ["repo_id"]
    assert diff.delete_before_replace
    by_path = {k: v for k, v in props.items() if k != "repo_id"} | {"repo_path": PIPELINES_PATH}
    assert set(provider.diff(id_, outs, by_path).replaces) == {"repo_id", "repo_path"}


@pytest.mark.parametrize("unknown", [UNKNOWN, Unknown()], ids=["sentinel", "engine"])
def test_diff_tolerates_unknown_values(provider, props, created, unknown):
    id_, outs = created
    diff = provider.diff(id_, outs, {**props, "branch": unknown})
    assert diff.changes and not diff.replaces


# --- create, read, update, delete ------------------------------------------------------


def test_create_checks_out_the_branch_and_records_the_previous_one(
    provider, props, client, emulator, connection
):
    clear_request_log(emulator)
    result = provider.create(props)
    assert result.id == PIPELINES_ID
    assert branch_of(client, PIPELINES_ID) == "develop"
    assert {k: v for k, v in result.outs.items() if k != CONNECTION_KEY} == {
        "repo_id": PIPELINES_ID,
        "branch": "develop",
        "on_delete": "restore",
        "previous_branch": "main",
        "head_commit_id": DEVELOP_HEAD,
    }
    method = "POST" if connection["wire_form"] == "legacy" else "PATCH"
    checkouts = [e for e in request_log(emulator) if e["method"] in ("POST", "PATCH")]
    assert [(e["method"], e["path"]) for e in checkouts] == [
        (method, f"{REPOS_PATH}/{PIPELINES_ID}")
    ]


def test_create_by_path_resolves_the_repo(provider, connection, client):
    for path in ("/Repos/analytics/dashboards", "/Workspace/Repos/analytics/dashboards/"):
        props = {"repo_path": path, "branch": "feature/new-kpis", CONNECTION_KEY: connection}
        result = provider.create(props)
        assert result.id == DASHBOARDS_ID
        assert result.outs["repo_path"] == path.rstrip("/")
        assert branch_of(client, DASHBOARDS_ID) == "feature/new-kpis"
        assert not provider.diff(
            result.id, provider.read(result.id, result.outs).outs, props
        ).changes
        provider.delete(result.id, result.outs)
        assert branch_of(client, DASHBOARDS_ID) == "master"


def test_repo_listing_follows_next_page_token(client):
    listed = list(ReposApi(client).list("/Repos/"))
    assert len(listed) == 3  # the emulator pages by two


def test_create_with_an_unknown_path_fails(provider, connection):
    props = {"repo_path": "/Repos/iac/nothing-here", "branch": "main", CONNECTION_KEY: connection}
    with pytest.raises(NotFound, match="no repo at path '/Repos/iac/nothing-here'"):
        provider.create(props)


def test_create_with_a_branch_the_remote_lacks_fails_and_changes_nothing(provider, props, client):
    with pytest.raises(InvalidParameter, match="'no-such-branch' does not exist on the remote"):
        provider.create({**props, "branch": "no-such-branch"})
    assert branch_of(client, PIPELINES_ID) == "main"


def test_create_again_after_an_interrupted_create_converges(provider, props, client):
    ReposApi(client).update_branch(PIPELINES_ID, "develop")  # the first try got here
    result = provider.create(props)
    assert branch_of(client, PIPELINES_ID) == "develop"
    assert not provider.diff(result.id, result.outs, props).changes


def test_read_equals_what_create_recorded(provider, created):
    id_, outs = created
    read = provider.read(id_, outs)
    assert (read.id, read.outs) == (id_, outs)


def test_read_shows_an_out_of_band_checkout(provider, props, created, client):
    id_, outs = created
    ReposApi(client).update_branch(id_, "release/2024.06")
    read = provider.read(id_, outs)
    assert read.outs["branch"] == "release/2024.06"
    assert read.outs["previous_branch"] == "main"
    assert provider.diff(id_, read.outs, props).changes


def test_read_of_a_missing_repo_is_gone(provider, created):
    _, outs = created
    assert provider.read(MISSING_ID, {**outs, "repo_id": MISSING_ID}).id is None


def test_update_checks_out_the_new_branch(provider, props, created, client):
    id_, outs = created
    news = {**props, "branch": "release/2024.06"}
    result = provider.update(id_, outs, news)
    assert branch_of(client, id_) == "release/2024.06"
    assert result.outs["previous_branch"] == "main"
    assert not provider.diff(id_, result.outs, news).changes


def test_update_to_a_branch_the_remote_lacks_fails_and_changes_nothing(
    provider, props, created, client
):
    id_, outs = created
    with pytest.raises(InvalidParameter, match="does not exist on the remote"):
        provider.update(id_, outs, {**props, "branch": "gone"})
    assert branch_of(client, id_) == "develop"


def test_delete_restores_the_previous_branch(provider, created, client):
    id_, outs = created
    provider.delete(id_, outs)
    assert branch_of(client, id_) == "main"


def test_delete_leaves_the_branch_when_asked(provider, props, client):
    result = provider.create({**props, "on_delete": "leave"})
    provider.delete(result.id, result.outs)
    assert branch_of(client, result.id) == "develop"


def test_delete_of_a_missing_repo_succeeds(provider, created):
    _, outs = created
    provider.delete(MISSING_ID, {**outs, "repo_id": MISSING_ID})


# --- the resource (program side) ---------------------------------------------------------


def test_resource_registers_typed_args(provider, connection):
    args = RepoBranchArgs(repo_id=int(PIPELINES_ID), branch="develop", on_delete="leave")
    inputs, outputs = register(
        lambda: RepoBranch("pipelines", args, connection=connection),
        read=("previous_branch", "head_commit_id"),
        computed={"previous_branch": "main", "head_commit_id": DEVELOP_HEAD},
    )
    assert provider.check({}, inputs).failures == []
    assert outputs["previous_branch"] == "main"
    assert outputs["head_commit_id"] == DEVELOP_HEAD


def test_a_failed_create_puts_the_branch_back_so_the_next_records_the_old_one(
    provider, props, client, monkeypatch
):
    """The checkout happens but its answer is lost: the create checks the old branch out
    again before failing, so the retried create records `main` as the branch to restore,
    not `develop`, and its delete leaves the repo as it was in the initial data."""
    checkout = RepoBranchProvider._checkout

    def checkout_then_answer_lost(client, repo_id, branch):
        checkout(client, repo_id, branch)
        if branch == props["branch"]:
            raise TemporarilyUnavailable(
                status=None, code="CONNECTION_DROPPED", message="lost", method="POST", path=""
            )
        return ReposApi(client).get(repo_id)

    with monkeypatch.context() as patched:
        patched.setattr(RepoBranchProvider, "_checkout", staticmethod(checkout_then_answer_lost))
        with pytest.raises(TemporarilyUnavailable):
            provider.create(props)
    assert branch_of(client, PIPELINES_ID) == "main"

    result = provider.create(props)
    assert result.outs["previous_branch"] == "main"
    provider.delete(result.id, result.outs)
    assert branch_of(client, PIPELINES_ID) == "main"
