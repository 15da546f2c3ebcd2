"""Notification destinations through the official SDK: each type made, read and listed;
write-only fields never answered (only `<field>_set`); an update of the name and of a field;
the type never changing; delete; each refusal naming its field."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import InvalidParameterValue, NotFound
from databricks.sdk.service import settings

from tests.emulator.support import Api, expect_error
from workspace_emulator.testing import fetch_token

PATH = "/api/2.0/notification-destinations"
HOOK = "https://hooks.example.com/services/T000/B000/secret-part"


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


def test_an_email_destination_shows_its_addresses(sdk: WorkspaceClient):
    made = sdk.notification_destinations.create(
        display_name="on call", config=settings.Config(
            email=settings.EmailConfig(addresses=["oncall@example.com"])))
    assert made.destination_type == settings.DestinationType.EMAIL
    assert made.config is not None and made.config.email is not None
    assert made.config.email.addresses == ["oncall@example.com"]
    assert made.id in {d.id for d in sdk.notification_destinations.list()}
    sdk.notification_destinations.delete(made.id or "")
    with pytest.raises(NotFound):
        sdk.notification_destinations.get(made.id or "")


def test_write_only_fields_are_shown_as_set_only(sdk: WorkspaceClient, api: Api):
    made = sdk.notification_destinations.create(
        display_name="alerts channel",
        config=settings.Config(slack=settings.SlackConfig(url=HOOK)))
    assert made.destination_type == settings.DestinationType.SLACK
    read = api.get(f"{PATH}/{made.id}")
    assert "secret-part" not in read.text
    assert read.json()["config"] == {"slack": {"url_set": True, "channel_id_set": False,
                                               "oauth_token_set": False}}
    pager = sdk.notification_destinations.create(
        display_name="pager", config=settings.Config(
            pagerduty=settings.PagerdutyConfig(integration_key="abc123")))
    assert "abc123" not in api.get(f"{PATH}/{pager.id}").text
    assert pager.config is not None and pager.config.pagerduty is not None
    assert pager.config.pagerduty.integration_key_set is True


def test_an_update_changes_the_name_and_given_fields_never_the_type(sdk: WorkspaceClient,
                                                                    api: Api):
    made = sdk.notification_destinations.create(
        display_name="hook", config=settings.Config(generic_webhook=settings.GenericWebhookConfig(
            url=HOOK, username="bot", password="pw")))
    changed = sdk.notification_destinations.update(
        made.id or "", display_name="renamed",
        config=settings.Config(generic_webhook=settings.GenericWebhookConfig(
            url="https://hooks.example.com/other")))
    assert changed.display_name == "renamed"
    assert api.get(f"{PATH}/{made.id}").json()["config"] == {"generic_webhook": {
        "url_set": True, "username_set": True, "password_set": True}}
    with pytest.raises(InvalidParameterValue, match="cannot change"):
        sdk.notification_destinations.update(
            made.id or "", config=settings.Config(
                email=settings.EmailConfig(addresses=["a@example.com"])))


@pytest.mark.parametrize(("body", "named"), [
    ({"config": {"email": {"addresses": ["a@example.com"]}}}, "'display_name'"),
    ({"display_name": "x", "config": {}}, "'config'"),
    ({"display_name": "x", "config": {"email": {"addresses": ["nobody"]}}},
     "'config.email.addresses'"),
    ({"display_name": "x", "config": {"slack": {}}}, "'config.slack.url'"),
    ({"display_name": "x", "config": {"slack": {"url": "http://plain"}}}, "https://"),
    ({"display_name": "x", "config": {"pagerduty": {"key": "k"}}}, "'key'"),
])
def test_refusals_name_the_field(api: Api, body: dict, named: str):
    refused = expect_error(api.post(PATH, json=body), 400, "INVALID_PARAMETER_VALUE")
    assert named in refused["message"]
