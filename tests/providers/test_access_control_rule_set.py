"""AccessControlRuleSet against the emulator, in both wire forms: the rule set of a service
principal, authoritative, written with the etag handshake (a stale etag read again and
retried once), named whole or by account and principal id, drift, import, destroy."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from providers.client import WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.identity.access_control_api import AccessControlApi
from providers.identity.access_control_rule_set import AccessControlRuleSetProvider
from providers.identity.service_principals_api import ServicePrincipalsApi
from tests.providers.support import assert_check_names, failures
from workspace_emulator.testing import clear_request_log, request_log

ACCOUNT = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"  # the emulator's account (initial data)
APPLICATION = "da574234-e5b2-4774-83f7-ea6a8b63f956"  # "reporting", registered
USER = "roles/servicePrincipal.user"
MANAGER = "roles/servicePrincipal.manager"
NAME = f"accounts/{ACCOUNT}/servicePrincipals/{APPLICATION}/ruleSets/default"


@pytest.fixture
def provider() -> AccessControlRuleSetProvider:
    return AccessControlRuleSetProvider()


@pytest.fixture
def principal(client: WorkspaceClient):
    made = ServicePrincipalsApi(client).create({"applicationId": APPLICATION})
    yield made
    ServicePrincipalsApi(client).delete(made["id"], APPLICATION)


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "rule_set_name": NAME,
        "grant_rules": [
            {"role": USER, "principals": ["users/bob@example.com", "groups/data-engineers"]},
            {"role": MANAGER, "principals": ["groups/admins"]},
        ],
        CONNECTION_KEY: connection,
    }


def rules_of(client: WorkspaceClient, name: str = NAME) -> list[dict]:
    return AccessControlApi(client).get_rule_set(name).get("grant_rules") or []


@pytest.fixture
def warned(monkeypatch) -> list[str]:
    said: list[str] = []
    monkeypatch.setattr(pulumi.log, "warn", lambda message, *a, **k: said.append(message))
    return said


def creator(client: WorkspaceClient) -> str:
    """The creator rule's principal: the bootstrap principal the tests sign in as."""
    return f"servicePrincipals/{client.me()['applicationId']}"


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"rule_set_name": "accounts/x/groups/1/ruleSets/default"}, "rule_set_name",
         "servicePrincipals"),
        ({"grant_rules": [{"role": "roles/admin", "principals": ["groups/a"]}]},
         "grant_rules.0.role", "roles/servicePrincipal.user"),
        ({"grant_rules": [{"role": USER, "principals": []}]}, "grant_rules.0.principals",
         "at least 1"),
        ({"grant_rules": [{"role": USER, "principals": ["bob@example.com"]}]},
         "grant_rules.0.principals.0", "users/<user name>"),
        ({"grant_rules": [{"role": USER, "principals": ["groups/a", "groups/a"]}]},
         "grant_rules.0", "more than once"),
        ({"grant_rules": [{"role": USER, "principals": ["groups/a"]},
                          {"role": USER, "principals": ["groups/b"]}]},
         "(inputs)", "one rule"),
        ({"account_id": ACCOUNT}, "(inputs)", "not both"),
        ({"rule_set_name": None, "account_id": ACCOUNT}, "(inputs)", "service_principal_id"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_accepts_both_namings_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    by_parts = {**props, "account_id": ACCOUNT, "service_principal_id": "4000000000000001"}
    del by_parts["rule_set_name"]
    assert failures(provider, by_parts) == {}
    assert failures(provider, {**props, "rule_set_name": UNKNOWN}) == {}


def test_create_read_update_delete(provider, props, client, principal) -> None:
    made = provider.create(props)
    assert made.id == NAME and made.outs["rule_set_name"] == NAME and made.outs["etag"]
    assert made.outs["grant_rules"] == [
        {"role": MANAGER, "principals": ["groups/admins"]},
        {"role": USER, "principals": ["groups/data-engineers", "users/bob@example.com"]},
    ]
    read = provider.read(made.id, made.outs)
    assert read.outs == made.outs
    reordered = {**props, "grant_rules": list(reversed(props["grant_rules"]))}
    assert not provider.diff(made.id, read.outs, reordered).changes

    fewer = {**props, "grant_rules": [{"role": USER, "principals": ["groups/analysts"]}]}
    diff = provider.diff(made.id, made.outs, fewer)
    assert diff.changed_keys == ["grant_rules"] and not diff.replaces
    updated = provider.update(made.id, made.outs, fewer)
    assert rules_of(client) == [{"role": USER, "principals": ["groups/analysts"]}]
    assert updated.outs["etag"] != made.outs["etag"]

    provider.delete(made.id, updated.outs)
    assert rules_of(client) == []


def test_a_stale_etag_is_read_again_and_the_write_retried(provider, props, client,
                                                          principal) -> None:
    made = provider.create(props)
    # Someone else changes the rule set: the recorded etag is stale now.
    current = AccessControlApi(client).get_rule_set(NAME)
    AccessControlApi(client).update_rule_set(
        NAME, [{"role": USER, "principals": ["users/alice@example.com"]}], current["etag"])
    fewer = {**props, "grant_rules": [{"role": USER, "principals": ["groups/analysts"]}]}
    provider.update(made.id, made.outs, fewer)  # refused once, read again, written
    assert rules_of(client) == [{"role": USER, "principals": ["groups/analysts"]}]
    provider.delete(made.id, made.outs)  # stale again: retried, emptied
    assert rules_of(client) == []


def test_drift_shows_in_refresh(provider, props, client, principal) -> None:
    made = provider.create(props)
    current = AccessControlApi(client).get_rule_set(NAME)
    AccessControlApi(client).update_rule_set(NAME, [], current["etag"])
    read = provider.read(made.id, made.outs)
    assert read.outs["grant_rules"] == []
    assert provider.diff(made.id, read.outs, props).changed_keys == ["grant_rules"]
    provider.update(made.id, read.outs, props)
    assert len(rules_of(client)) == 2
    provider.delete(made.id, made.outs)


def test_named_by_account_and_principal_then_imported_by_name(provider, props, client,
                                                              principal) -> None:
    by_parts = {**props, "account_id": ACCOUNT, "service_principal_id": principal["id"]}
    del by_parts["rule_set_name"]
    made = provider.create(by_parts)
    assert made.id == NAME
    imported = provider.read(NAME, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["service_principal_id"] == principal["id"]
    assert not provider.diff(NAME, imported.outs, by_parts, old_inputs={}).changes
    assert not provider.diff(NAME, imported.outs, props, old_inputs={}).changes
    other = {**by_parts, "service_principal_id": "4000000000000999"}
    assert provider.diff(NAME, made.outs, other).replaces == ["service_principal_id"]
    provider.delete(made.id, made.outs)


def test_a_rule_set_of_a_gone_principal_reads_as_gone(provider, props, client) -> None:
    made = ServicePrincipalsApi(client).create({"applicationId": APPLICATION})
    created = provider.create(props)
    ServicePrincipalsApi(client).delete(made["id"], APPLICATION)
    assert provider.read(created.id, created.outs).id is None
    provider.delete(created.id, created.outs)  # gone: done


def test_a_new_principal_holds_its_creators_rule_which_a_create_replaces_warning_first(
    provider, props, client, principal, warned
) -> None:
    # The service (and the emulator) give the principal's creator its manager role.
    held = [{"role": MANAGER, "principals": [creator(client)]}]
    assert rules_of(client) == held
    # The preview of the create (its check: a create has no diff) names the role it takes.
    assert provider.check({}, props).failures == []
    [warning] = warned
    assert NAME in warning and f"{creator(client)} ({MANAGER}) lose(s) the role" in warning
    made = provider.create(props)
    assert creator(client) not in str(rules_of(client))
    # Declaring the creator's rule keeps it: nothing is taken, nothing said.
    warned.clear()
    keeping = {**props, "grant_rules": [*props["grant_rules"][:1], *held]}
    provider.update(made.id, made.outs, keeping)
    assert provider.check({}, keeping).failures == [] and warned == []
    provider.delete(made.id, made.outs)


def test_a_create_for_a_principal_the_same_up_makes_warns_of_the_creators_rule(
    provider, props, client, warned
) -> None:
    by_parts = {**props, "account_id": ACCOUNT, "service_principal_id": UNKNOWN}
    del by_parts["rule_set_name"]
    assert provider.check({}, by_parts).failures == []
    [warning] = warned
    assert "the principal this update creates" in warning
    assert f"{creator(client)} ({MANAGER})" in warning


def test_the_creators_rule_warning_reads_nothing_of_the_workspace(
    provider, props, connection, emulator, warned
) -> None:
    """A preview of new objects makes no call: the deployer is named from its sign-in (a
    service principal's client id), or, where only the workspace could say who it is (a
    personal token), the warning says what happens without naming it."""
    by_parts = {**props, "account_id": ACCOUNT, "service_principal_id": UNKNOWN}
    del by_parts["rule_set_name"]
    personal_token = {"base_url": connection["base_url"], "auth_type": "pat",
                      "token": "dapi-not-a-real-token", "allow_insecure_http": True}
    clear_request_log(emulator)
    assert provider.check({}, by_parts).failures == []
    assert provider.check({}, {**by_parts, CONNECTION_KEY: personal_token}).failures == []
    assert [e for e in request_log(emulator) if e["service"] == "platform"] == []
    named, unnamed = warned
    assert f"servicePrincipals/{connection['client_id']} ({MANAGER})" in named
    assert "the service gives the principal's creator (the deployer) its " \
           f"{MANAGER} role" in unnamed


def test_an_update_names_the_roles_it_takes_away(provider, props, client, principal,
                                                 warned) -> None:
    made = provider.create(props)
    fewer = {**props, "grant_rules": [{"role": USER, "principals": ["groups/data-engineers"]}]}
    diff = provider.diff(made.id, made.outs, fewer)
    assert diff.field_changes == [
        f"grant_rules: groups/admins ({MANAGER}) removed (not declared)",
        f"grant_rules: users/bob@example.com ({USER}) removed (not declared)",
    ]
    [warning] = warned
    assert NAME in warning and "groups/admins" in warning and "bob@example.com" in warning
    provider.delete(made.id, made.outs)
