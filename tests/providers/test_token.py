"""Token against an emulator on a manual clock, in both wire forms: the deployer's own token
and one made on behalf of a service principal (created, read, signing in as its owner,
deleted); its value only in the secret output; the threshold changed in place; rotation
planned once the remaining lifetime, by the service's clock, falls under the threshold;
a token deleted outside the stack read as gone; a create whose answer is lost leaves no
token behind; and each input rule naming its field and the fix."""

from __future__ import annotations

from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.identity.token import TokenProvider
from providers.identity.tokens_api import TokensApi
from tests.conftest import emulator_fixture
from tests.emulator.support import Api, add_service_principal
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_check_names
from workspace_emulator.testing import EmulatorInfo, advance_clock, fetch_token

emulator = emulator_fixture("module", clock="manual")
DAY = 86400
ME = "/api/2.0/preview/scim/v2/Me"


@pytest.fixture
def provider() -> TokenProvider:
    return TokenProvider()


def signed_in_as(info: EmulatorInfo, value: str) -> str:
    return Api(info.base_url, value).get(ME).json()["userName"]


def own_ids(client: WorkspaceClient) -> set[str]:
    return {str(t["token_id"]) for t in TokensApi(client).own()}


def test_the_deployers_own_token(provider, connection, client, emulator) -> None:
    props = {"comment": "reporting", "lifetime_seconds": 30 * DAY, CONNECTION_KEY: connection}
    made = provider.create(props)
    value = made.outs["token_value"]
    assert made.id == made.outs["token_id"] and made.id in own_ids(client)
    assert signed_in_as(emulator, value) == emulator.client_id
    assert made.outs["expiry_time"] - made.outs["creation_time"] == 30 * DAY * 1000
    assert not provider.diff(made.id, made.outs, props).changes

    read = provider.read(made.id, made.outs)
    assert read.outs["token_value"] == value and read.outs["comment"] == "reporting"
    # A changed comment replaces the token, new first.
    diff = provider.diff(made.id, made.outs, {**props, "comment": "other"})
    assert diff.replaces == ["comment"] and not diff.delete_before_replace

    # An import reads the comment and the lifetime it was made with: no replacement.
    imported = provider.read(made.id, {CONNECTION_KEY: connection})
    assert (imported.outs["comment"], imported.outs["lifetime_seconds"]) == ("reporting",
                                                                             30 * DAY)
    assert not provider.diff(made.id, imported.outs, props,
                             old_inputs={CONNECTION_KEY: connection}).replaces
    assert imported.outs["token_value"] is None  # never shown again

    provider.delete(made.id, made.outs)
    assert made.id not in own_ids(client)
    assert Api(emulator.base_url, value).get(ME).status_code == 401
    assert provider.read(made.id, made.outs).id is None  # gone: made again by the next up


def test_a_token_on_behalf_of_a_service_principal(provider, connection, emulator) -> None:
    admin = Api(emulator.base_url, fetch_token(emulator))
    application, principal = add_service_principal(admin, emulator)
    props = {"application_id": application["client_id"], "comment": "ci",
             CONNECTION_KEY: connection}
    made = provider.create(props)
    assert signed_in_as(emulator, made.outs["token_value"]) == application["client_id"]
    listed = admin.get(f"/api/2.0/token-management/tokens/{made.id}").json()["token_info"]
    assert listed["owner_id"] == int(principal["id"])
    assert provider.read(made.id, made.outs).outs["comment"] == "ci"
    provider.delete(made.id, made.outs)
    assert admin.get(f"/api/2.0/token-management/tokens/{made.id}").status_code == 404


def test_rotation_is_planned_by_the_services_clock(provider, connection, emulator) -> None:
    props = {"lifetime_seconds": 30 * DAY, "rotate_before_days": 7, CONNECTION_KEY: connection}
    made = provider.create(props)
    assert not provider.diff(made.id, made.outs, props).changes
    # A new threshold is the stack's own: in place, the same token and value.
    fewer = {**props, "rotate_before_days": 5}
    diff = provider.diff(made.id, made.outs, fewer)
    assert diff.changed_keys == ["rotate_before_days"] and not diff.replaces
    updated = provider.update(made.id, made.outs, fewer)
    assert updated.outs["token_value"] == made.outs["token_value"]

    advance_clock(emulator, 24 * DAY)  # 6 days left: more than 5
    assert not provider.diff(made.id, updated.outs, fewer).changes
    advance_clock(emulator, 2 * DAY)  # 4 days left
    due = provider.diff(made.id, updated.outs, fewer)
    assert due.replaces == ["rotate_before_days"] and not due.delete_before_replace
    # As the engine sends it: a number as a float.
    assert provider.diff(made.id, updated.outs, {**fewer, "rotate_before_days": 5.0}).replaces \
        == ["rotate_before_days"]
    provider.delete(made.id, updated.outs)


def test_a_lost_create_answer_leaves_no_token_behind(provider, connection, client,
                                                     monkeypatch) -> None:
    before = own_ids(client)
    lost = lose_the_answer_to(monkeypatch, "/api/2.0/token/create")
    made = provider.create({"comment": "lost once", CONNECTION_KEY: connection})
    assert lost == ["/api/2.0/token/create"]
    assert own_ids(client) - before == {made.id}  # the first one, whose value is lost, gone
    provider.delete(made.id, made.outs)


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"lifetime_seconds": 0}, "lifetime_seconds", "from 1 to 63072000"),
        ({"lifetime_seconds": "90d"}, "lifetime_seconds", "valid integer"),
        ({"rotate_before_days": 0}, "rotate_before_days", "at least 1"),
        ({"lifetime_seconds": 7 * DAY, "rotate_before_days": 7}, "rotate_before_days",
         "shorter than lifetime_seconds"),
        ({"application_id": " "}, "application_id", "application id"),
        ({"token_value": "x"}, "token_value", "Extra inputs"),
    ],
)
def test_each_rule_names_its_field(provider, connection, change: dict[str, Any], field: str,
                                   reason: str) -> None:
    assert_check_names(provider, {CONNECTION_KEY: connection}, change, field, reason)
