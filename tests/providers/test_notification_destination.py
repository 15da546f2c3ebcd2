"""NotificationDestination against the emulator, in both wire forms: create, read, an
update in place (the name, a write-only field told by its digest), drift, import with no
diff, delete; another type replaces it; the write-only fields never in the outputs; a
create whose answer is lost adopts what it made; each rule names its field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.workspace.notification_destination import NotificationDestinationProvider
from providers.workspace.notification_destinations_api import (
    DESTINATIONS_PATH,
    NotificationDestinationsApi,
)
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_check_names

HOOK = "https://hooks.example.com/services/T000/B000/first-secret"
OTHER_HOOK = "https://hooks.example.com/services/T000/B000/second-secret"


@pytest.fixture
def provider() -> NotificationDestinationProvider:
    return NotificationDestinationProvider()


def slack(connection: dict[str, Any], url: str = HOOK, name: str = "alerts") -> dict[str, Any]:
    return {"display_name": name, "config": {"slack": {"url": url}}, CONNECTION_KEY: connection}


def test_create_read_update_drift_import_delete(provider, connection, client) -> None:
    props = slack(connection)
    made = provider.create(props)
    assert "secret" not in json.dumps({k: v for k, v in made.outs.items()
                                       if k != CONNECTION_KEY})
    assert made.outs["destination_type"] == "SLACK"
    assert made.outs["config"] == {"slack": {"url_set": True, "channel_id_set": False,
                                             "oauth_token_set": False}}
    assert not provider.diff(made.id, made.outs, props).changes

    # A new URL: only its digest tells, and it changes in place.
    rotated = slack(connection, OTHER_HOOK)
    diff = provider.diff(made.id, made.outs, rotated, old_inputs=props)
    assert diff.changed_keys == ["config"] and not diff.replaces
    updated = provider.update(made.id, made.outs, rotated)
    assert not provider.diff(made.id, updated.outs, rotated).changes

    # Drift: renamed outside the stack.
    NotificationDestinationsApi(client).update(made.id, "renamed", {"slack": {}})
    drifted = provider.read(made.id, updated.outs).outs
    assert drifted["display_name"] == "renamed"
    assert provider.diff(made.id, drifted, rotated).changed_keys == ["display_name"]
    again = provider.update(made.id, drifted, rotated)
    assert NotificationDestinationsApi(client).get(made.id)["display_name"] == "alerts"

    # Import by id: no diff against the same declaration.
    imported = provider.read(made.id, {CONNECTION_KEY: connection})
    assert not provider.diff(made.id, imported.outs, rotated,
                             old_inputs={CONNECTION_KEY: connection}).changes

    # Another type replaces it.
    email = {**rotated, "config": {"email": {"addresses": ["oncall@example.com"]}}}
    assert provider.diff(made.id, again.outs, email).replaces == ["destination_type"]

    provider.delete(made.id, again.outs)
    assert provider.read(made.id, again.outs).id is None


def test_an_email_destination_shows_its_addresses(provider, connection) -> None:
    props = {"display_name": "on call",
             "config": {"email": {"addresses": ["oncall@example.com"]}},
             CONNECTION_KEY: connection}
    made = provider.create(props)
    assert made.outs["config"] == {"email": {"addresses": ["oncall@example.com"]}}
    more = {**props, "config": {"email": {"addresses": ["oncall@example.com",
                                                       "lead@example.com"]}}}
    assert provider.diff(made.id, made.outs, more).changed_keys == ["config"]
    updated = provider.update(made.id, made.outs, more)
    assert updated.outs["config"]["email"]["addresses"] == ["oncall@example.com",
                                                           "lead@example.com"]
    provider.delete(made.id, updated.outs)


def test_a_lost_create_answer_adopts_what_it_made(provider, connection,
                                                  client: WorkspaceClient, monkeypatch) -> None:
    before = {d["id"] for d in NotificationDestinationsApi(client).list()}
    lost = lose_the_answer_to(monkeypatch, DESTINATIONS_PATH)
    made = provider.create(slack(connection, name="lost once"))
    assert lost == [DESTINATIONS_PATH]
    assert {d["id"] for d in NotificationDestinationsApi(client).list()} - before == {made.id}
    provider.delete(made.id, made.outs)


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"config": {}}, "config", "exactly one of email, slack"),
        ({"config": {"email": {"addresses": []}}}, "config.email.addresses", "at least one"),
        ({"config": {"email": {"addresses": ["nobody"]}}}, "config.email.addresses",
         "not an e-mail address"),
        ({"config": {"slack": {"url": "http://plain"}}}, "config.slack.url", "https://"),
        ({"config": {"pagerduty": {}}}, "config.pagerduty.integration_key", "required"),
        ({"display_name": " "}, "display_name", "must not be empty"),
    ],
)
def test_each_rule_names_its_field(provider, connection, change, field, reason) -> None:
    assert_check_names(provider, slack(connection), change, field, reason)
