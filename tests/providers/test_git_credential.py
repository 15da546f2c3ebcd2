"""GitCredential against the emulator, in both wire forms: the lifecycle, a token rotation
in place, the token never in the outputs, drift, import by id, adoption after a lost answer
and after an interrupted run, and the refusal of another credential for the provider."""

from __future__ import annotations

import json
from typing import Any

import pytest

from providers.client import AlreadyExists, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.workspace.git_credential import DIGEST_KEY, GitCredentialProvider
from providers.workspace.git_credentials_api import GIT_CREDENTIALS_PATH, GitCredentialsApi
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_check_names, failures

TOKEN = "ghp_" + "a" * 36  # noqa: S105 - made up
ROTATED = "ghp_" + "b" * 36


@pytest.fixture
def provider() -> GitCredentialProvider:
    return GitCredentialProvider()


@pytest.fixture(autouse=True)
def no_credentials(client: WorkspaceClient) -> None:
    """The principal holds one credential per provider: each test starts with none."""
    for credential in GitCredentialsApi(client).list():
        GitCredentialsApi(client).delete(str(credential["credential_id"]))


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "git_provider": "gitHub",
        "git_username": "deploy-bot",
        "personal_access_token": TOKEN,
        CONNECTION_KEY: connection,
    }


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"git_provider": "svn"}, "git_provider", "one of gitHub"),
        ({"personal_access_token": " "}, "personal_access_token", "must not be empty"),
        ({"personal_access_token": TOKEN + "\n"}, "personal_access_token", "the token alone"),
        ({"personal_access_token": None}, "personal_access_token", "required"),
        ({"git_username": ""}, "git_username", "must not be empty"),
        ({"is_default_for_provider": "yes"}, "is_default_for_provider", "valid boolean"),
        ({"git_provider": "awsCodeCommit", "git_username": None}, "git_username",
         "required for awsCodeCommit"),
        ({"comment": "x"}, "comment", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_never_quotes_the_token(provider, props) -> None:
    found = failures(provider, {**props, "personal_access_token": TOKEN + " "})
    assert TOKEN not in json.dumps(found)


def test_check_accepts_any_case_and_unknowns(provider, props) -> None:
    assert failures(provider, {**props, "git_provider": "GITHUB"}) == {}
    assert failures(provider, {**props, "personal_access_token": UNKNOWN}) == {}


def test_lifecycle_with_a_rotation_in_place(provider, props, client) -> None:
    made = provider.create({**props, "git_provider": "github"})
    found = GitCredentialsApi(client).get(made.id)
    assert (found["git_provider"], found["git_username"]) == ("gitHub", "deploy-bot")
    assert made.outs["git_provider"] == "gitHub"
    assert TOKEN not in json.dumps(made.outs)
    assert made.outs[DIGEST_KEY] and TOKEN not in made.outs[DIGEST_KEY]
    assert not provider.diff(made.id, made.outs, props).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    rotated = {**props, "personal_access_token": ROTATED}
    diff = provider.diff(made.id, read.outs, rotated)
    assert diff.changed_keys == ["personal_access_token"] and not diff.replaces
    updated = provider.update(made.id, read.outs, rotated)
    assert updated.outs[DIGEST_KEY] != made.outs[DIGEST_KEY]
    assert ROTATED not in json.dumps(updated.outs)
    assert not provider.diff(made.id, updated.outs, rotated).changes
    assert [str(c["credential_id"]) for c in GitCredentialsApi(client).list()] == [made.id]

    renamed = {**rotated, "git_username": "bot-2", "name": "ci"}
    assert provider.diff(made.id, updated.outs, renamed).changed_keys == [
        "git_username", "name"]
    updated = provider.update(made.id, updated.outs, renamed)
    assert GitCredentialsApi(client).get(made.id)["git_username"] == "bot-2"

    provider.delete(made.id, updated.outs)
    assert GitCredentialsApi(client).list() == []
    assert provider.read(made.id, updated.outs).id is None
    provider.delete(made.id, updated.outs)


def test_drift_shows_in_refresh(provider, props, client) -> None:
    made = provider.create(props)
    GitCredentialsApi(client).update(made.id, {"git_provider": "gitHub", "git_username": "other"})
    read = provider.read(made.id, made.outs)
    assert provider.diff(made.id, read.outs, props).changed_keys == ["git_username"]
    provider.delete(made.id, made.outs)


def test_import_by_credential_id(provider, props) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["git_username"] == "deploy-bot"
    assert imported.outs[DIGEST_KEY] == ""
    # The token cannot be read back: the declared one is taken as held ...
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    # ... and a later one is compared with it.
    rotated = {**props, "personal_access_token": ROTATED}
    assert provider.diff(made.id, imported.outs, rotated, old_inputs=props).changed_keys == [
        "personal_access_token"]
    assert not provider.diff(made.id, imported.outs, props, old_inputs=props).changes
    provider.delete(made.id, made.outs)


def test_create_adopts_after_a_lost_answer(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, GIT_CREDENTIALS_PATH)
    made = provider.create(props)
    assert lost == [GIT_CREDENTIALS_PATH]
    assert [str(c["credential_id"]) for c in GitCredentialsApi(client).list()] == [made.id]
    provider.delete(made.id, made.outs)


def test_create_adopts_what_an_interrupted_run_made(provider, props, client) -> None:
    # The run made the credential and stopped before recording it (with an older token).
    before = GitCredentialsApi(client).create(
        {
            "git_provider": "gitHub",
            "git_username": "deploy-bot",
            "name": "ci",
            "personal_access_token": "old",
        }
    )
    made = provider.create({**props, "name": "ci", "is_default_for_provider": True})
    assert made.id == str(before["credential_id"])
    assert GitCredentialsApi(client).get(made.id)["is_default_for_provider"] is True
    provider.delete(made.id, made.outs)


def test_another_credential_for_the_provider_is_named(provider, props, client) -> None:
    other = GitCredentialsApi(client).create(
        {"git_provider": "gitHub", "git_username": "someone-else", "personal_access_token": "x"}
    )
    with pytest.raises(AlreadyExists, match=rf"credential {other['credential_id']}.*import it"):
        provider.create(props)
    assert GitCredentialsApi(client).get(str(other["credential_id"]))["git_username"] == (
        "someone-else"
    )


def test_adoption_asks_for_the_token(client) -> None:
    from providers.core.registry import kind_named
    from stacks.adoption import candidate_of, listed

    kind = kind_named("GitCredential")
    made = GitCredentialsApi(client).create(
        {"git_provider": "gitLab", "git_username": "bot", "personal_access_token": TOKEN}
    )
    credential_id = str(made["credential_id"])
    assert credential_id in {found.import_id for found in listed(client, kind)}
    candidate = candidate_of(client, kind, credential_id, credential_id)
    assert candidate is not None and candidate.item is None
    assert "personal_access_token" in (candidate.problem or "")
    assert TOKEN not in (candidate.problem or "")
    GitCredentialsApi(client).delete(credential_id)
