"""Repo against the emulator, in both wire forms."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from providers.client import AlreadyExists, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.workspace.repo import RepoProvider
from providers.workspace.repos_api import REPOS_PATH, ReposApi
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_check_names, failures

URL = "https://github.com/example-org/data-pipelines.git"
OTHER_URL = "https://github.com/example-org/ml-models.git"
HEADS = {
    "main": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
    "develop": "b2c3d4e5f60718293a4b5c6d7e8f901234567890",
    "v1.0.0": "d4e5f60718293a4b5c6d7e8f9012345678901234",
}


@pytest.fixture
def provider() -> RepoProvider:
    return RepoProvider()


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "url": URL,
        "provider": "github",
        "path": f"/Repos/iac-test/{uuid.uuid4().hex[:10]}",
        "branch": "develop",
        CONNECTION_KEY: connection,
    }


def at_path(client: WorkspaceClient, path: str) -> list[dict]:
    return [r for r in ReposApi(client).list(path) if r["path"] == path]


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"url": "git@github.com:org/x.git"}, "url", "HTTPS URL"),
        ({"provider": "svn"}, "provider", "gitHub"),
        ({"path": "/Repos/too/deep/path"}, "path", "/Repos/<folder>/<name>"),
        ({"path": "/Users/me/repo"}, "path", "workspace path"),
        ({"branch": "bad..name"}, "branch", "git branch name"),
        ({"tag": "v1"}, "tag", "branch or tag, not both"),
        ({"sparse_checkout": {"patterns": []}}, "sparse_checkout.patterns", "at least 1"),
        ({"sparse_checkout": {"patterns": ["a", "a"]}}, "sparse_checkout.patterns", "more than"),
        ({"colour": "blue"}, "colour", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_accepts_valid_input_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "branch": UNKNOWN}) == {}


def test_create_read_update_delete(provider, props, client) -> None:
    made = provider.create(props)
    [repo] = at_path(client, props["path"])
    assert str(repo["id"]) == made.id
    assert (repo["branch"], made.outs["head_commit_id"]) == ("develop", HEADS["develop"])
    assert made.outs["provider"] == "gitHub"
    assert not provider.diff(made.id, made.outs, props).changes  # "github" is "gitHub"
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    on_tag = {**{k: v for k, v in props.items() if k != "branch"}, "tag": "v1.0.0"}
    diff = provider.diff(made.id, made.outs, on_tag)
    assert set(diff.changed_keys) == {"branch", "tag"} and not diff.replaces
    tagged = provider.update(made.id, made.outs, on_tag)
    assert tagged.outs["head_commit_id"] == HEADS["v1.0.0"]
    assert "branch" not in ReposApi(client).get(made.id)
    assert not provider.diff(made.id, provider.read(made.id, tagged.outs).outs, on_tag).changes

    provider.delete(made.id, tagged.outs)
    assert at_path(client, props["path"]) == []
    assert provider.read(made.id, tagged.outs).id is None
    provider.delete(made.id, tagged.outs)


def test_sparse_patterns_change_in_place_and_turning_it_off_replaces(provider, props, client):
    sparse = {**props, "sparse_checkout": {"patterns": ["jobs"]}}
    made = provider.create(sparse)
    assert ReposApi(client).get(made.id)["sparse_checkout"] == {"patterns": ["jobs"]}
    more = {**sparse, "sparse_checkout": {"patterns": ["jobs", "lib"]}}
    diff = provider.diff(made.id, made.outs, more)
    assert diff.changed_keys == ["sparse_checkout"] and not diff.replaces
    updated = provider.update(made.id, made.outs, more)
    assert ReposApi(client).get(made.id)["sparse_checkout"] == {"patterns": ["jobs", "lib"]}
    off = provider.diff(made.id, updated.outs, props)
    assert off.replaces == ["sparse_checkout"] and off.delete_before_replace
    provider.delete(made.id, updated.outs)


def test_remote_and_path_changes_replace(provider, props) -> None:
    made = provider.create(props)
    moved = provider.diff(made.id, made.outs, {**props, "path": props["path"] + "-2"})
    assert moved.replaces == ["path"] and not moved.delete_before_replace
    other = provider.diff(made.id, made.outs, {**props, "url": OTHER_URL})
    assert other.replaces == ["url"] and other.delete_before_replace
    provider.delete(made.id, made.outs)


def test_drift_shows_in_refresh(provider, props, client) -> None:
    made = provider.create(props)
    ReposApi(client).update(made.id, branch="main")
    read = provider.read(made.id, made.outs)
    assert read.outs["branch"] == "main"
    assert provider.diff(made.id, read.outs, props).changed_keys == ["branch"]
    restored = provider.update(made.id, read.outs, props)
    assert restored.outs["branch"] == "develop"
    provider.delete(made.id, restored.outs)


def test_import_by_repo_id(provider, props) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["path"] == props["path"]
    assert imported.outs["url"] == URL and imported.outs["branch"] == "develop"
    provider.delete(made.id, made.outs)


def test_create_adopts_a_repo_left_at_the_path(provider, props, client) -> None:
    left = ReposApi(client).create(URL, "gitHub", props["path"])
    made = provider.create(props)
    assert made.id == str(left["id"])
    assert ReposApi(client).get(made.id)["branch"] == "develop"  # brought to the declared branch
    provider.delete(made.id, made.outs)


def test_create_adopts_after_a_lost_answer(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, REPOS_PATH)
    made = provider.create(props)
    assert lost == [REPOS_PATH]
    assert [str(r["id"]) for r in at_path(client, props["path"])] == [made.id]
    provider.delete(made.id, made.outs)


def test_create_refuses_another_remote_at_the_path(provider, props, client) -> None:
    theirs = ReposApi(client).create(OTHER_URL, "gitHub", props["path"])
    with pytest.raises(AlreadyExists, match="another remote"):
        provider.create(props)
    ReposApi(client).delete(theirs["id"])


def test_a_branch_the_remote_lacks_undoes_the_create(provider, props, client) -> None:
    with pytest.raises(Exception, match="does not exist on the remote"):
        provider.create({**props, "branch": "no-such-branch"})
    assert at_path(client, props["path"]) == []
