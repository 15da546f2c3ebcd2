"""GitCredential and WorkspaceConf: every rule of their inputs, each failure naming its path,
before any call, the token never quoted; the normal forms (the provider's spelling, switches
in lower case); and the stack config's refusal of a token in plain text."""

from __future__ import annotations

import json
from typing import Any

import pytest

from providers.core.digest import digest
from providers.core.lifecycle import UNKNOWN, WorkspaceProvider
from providers.workspace.git_credential import GitCredentialProvider, token_changed
from providers.workspace.workspace_conf import WorkspaceConfModel, WorkspaceConfProvider
from stacks.config_rules import problems

TOKEN = "ghp_" + "z" * 36  # noqa: S105 - made up
CREDENTIAL = {"git_provider": "gitHub", "git_username": "bot", "personal_access_token": TOKEN}


def failures(provider: type[WorkspaceProvider], inputs: dict[str, Any]) -> dict[str, str]:
    return {f.property: f.reason for f in provider.input_failures(inputs)}


@pytest.mark.parametrize(
    ("change", "path", "reason"),
    [
        ({"git_provider": "github.com"}, "git_provider", "one of gitHub, bitbucketCloud"),
        ({"personal_access_token": ""}, "personal_access_token", "must not be empty"),
        ({"personal_access_token": f" {TOKEN}"}, "personal_access_token", "the token alone"),
        ({"git_email": " "}, "git_email", "must not be empty"),
        ({"git_provider": "AWSCodeCommit", "git_username": None}, "git_username",
         "required for awsCodeCommit"),
        ({"token": TOKEN}, "token", "Extra inputs"),
    ],
)
def test_git_credential_rules(change, path, reason) -> None:
    inputs = {k: v for k, v in {**CREDENTIAL, **change}.items() if v is not None}
    found = failures(GitCredentialProvider, inputs)
    assert reason in found[path], found
    assert TOKEN not in json.dumps(found)


def test_git_credential_normal_form_leaves_the_token_out() -> None:
    provider = GitCredentialProvider()
    args = provider.args_model.model_validate({**CREDENTIAL, "git_provider": "GITLAB"})
    assert provider.spec(args) == {"git_provider": "gitLab", "git_username": "bot"}
    assert failures(GitCredentialProvider, {**CREDENTIAL, "personal_access_token": UNKNOWN}) == {}


def test_token_changes_by_digest_or_by_the_last_input() -> None:
    recorded = {"token_digest": digest(TOKEN.encode())}
    assert not token_changed(recorded, None, TOKEN)
    assert token_changed(recorded, None, TOKEN + "x")
    assert not token_changed({"token_digest": ""}, None, TOKEN)  # an import: taken as held
    assert token_changed({}, {"personal_access_token": TOKEN}, TOKEN + "x")


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"enableIpAccessList": "true"}, "enableIpAccessList: not a setting this kind manages"),
        ({"enableIpAccessLists": "on"}, 'takes "true" or "false"'),
        ({"enableIpAccessLists": True}, 'enableIpAccessLists: values are strings: write "true"'),
        ({"maxTokenLifetimeDays": "731"}, "from 1 to 730"),
        ({"maxTokenLifetimeDays": "-1"}, "from 1 to 730"),
        ({}, "at least one"),
    ],
)
def test_workspace_conf_rules(settings, reason) -> None:
    found = failures(WorkspaceConfProvider, {"settings": settings})
    assert reason in found["settings"], found


def test_workspace_conf_normal_form() -> None:
    args = WorkspaceConfModel.model_validate(
        {"settings": {"maxTokenLifetimeDays": "090", "enableIpAccessLists": "TRUE"}})
    assert WorkspaceConfProvider().spec(args) == {
        "settings": {"enableIpAccessLists": "true", "maxTokenLifetimeDays": "90"}}


def test_the_stack_config_refuses_a_token_in_plain_text() -> None:
    values = {"gitCredentials": [{"name": "github", **CREDENTIAL}],
              "workspaceConf": [{"name": "settings", "settings": {"enableIpAccessLists": "true"}}]}
    found = [p for p in problems(values) if "gitCredentials" in p or "workspaceConf" in p]
    assert any("gitCredentials[0].personal_access_token" in p for p in found), found
    assert not any("workspaceConf" in p for p in found), found
    assert TOKEN not in "\n".join(problems(values))
