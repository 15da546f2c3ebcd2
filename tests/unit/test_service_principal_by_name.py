"""A ServicePrincipal declared without an application id, without a service: the failure that
asks for one of the two names, the diff that never sees an application id left out (nor the
one the service assigned), and the create by display name that adopts the one principal of
that name and refuses to guess between several. A fake principals area stands in for the
workspace (the emulator-backed tests: tests/providers/test_service_principal.py)."""

from __future__ import annotations

from typing import Any

import pytest

from providers.client import AlreadyExists, ServerError
from providers.core import create_or_adopt
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.identity.principal_by_name import AmbiguousDisplayName, create_by_display_name
from providers.identity.service_principal import ServicePrincipalProvider

# The fake client stands for the areas (tests/fake_areas.py).
pytestmark = pytest.mark.usefixtures("fake_areas")

ASSIGNED = "0e7f6a5b-4c3d-4e2f-8a1b-abcdefabcdef"
OTHER = "11111111-2222-4333-8444-555555555555"
CONNECTION = {CONNECTION_KEY: {"base_url": "https://x"}}


def failures(inputs: dict[str, Any]) -> dict[str, str]:
    return {f.property: f.reason for f in ServicePrincipalProvider.input_failures(inputs)}


def test_a_display_name_alone_is_enough():
    assert failures({"display_name": "ci-deployer"}) == {}
    assert failures({"application_id": ASSIGNED}) == {}


def test_neither_name_is_refused_naming_both_fields():
    found = failures({"entitlements": ["workspace-access"]})
    assert list(found) == ["application_id"]
    assert "give application_id" in found["application_id"]
    assert "display_name" in found["application_id"]


def test_an_unknown_display_name_is_not_judged():
    assert failures({"display_name": UNKNOWN}) == {}


# --- diff -------------------------------------------------------------------------------------


def recorded(**declared: Any) -> dict[str, Any]:
    """The outputs of a principal the service gave ASSIGNED, with `declared` as declared."""
    return {"active": True, **declared, "application_id": ASSIGNED, **CONNECTION}


def declared(**inputs: Any) -> dict[str, Any]:
    return {**inputs, **CONNECTION}


@pytest.mark.parametrize("old_inputs", [None, {"display_name": "ci"}], ids=["no", "known"])
def test_the_assigned_application_id_is_no_change(old_inputs):
    diff = ServicePrincipalProvider().diff(
        "1", recorded(display_name="ci"), declared(display_name="ci"), old_inputs=old_inputs
    )
    assert not diff.changes


@pytest.mark.parametrize("given", [ASSIGNED, ASSIGNED.upper()])
def test_declaring_the_assigned_application_id_later_is_no_change(given):
    diff = ServicePrincipalProvider().diff(
        "1", recorded(display_name="ci"), declared(display_name="ci", application_id=given),
        old_inputs={"display_name": "ci"},
    )
    assert not diff.changes


def test_leaving_a_declared_application_id_out_later_is_no_change():
    diff = ServicePrincipalProvider().diff(
        "1", recorded(display_name="ci"), declared(display_name="ci"),
        old_inputs={"display_name": "ci", "application_id": ASSIGNED},
    )
    assert not diff.changes


@pytest.mark.parametrize("given", [OTHER, UNKNOWN])
def test_another_application_id_replaces_and_the_new_principal_comes_first(given):
    diff = ServicePrincipalProvider().diff(
        "1", recorded(display_name="ci"), declared(display_name="ci", application_id=given)
    )
    assert diff.changes and diff.replaces == ["application_id"]
    assert diff.changed_keys == ["application_id"]
    assert not diff.delete_before_replace


def test_a_new_display_name_without_application_id_is_an_update():
    diff = ServicePrincipalProvider().diff(
        "1", recorded(display_name="ci"), declared(display_name="ci-deployer"),
        old_inputs={"display_name": "ci"},
    )
    assert diff.changes and not diff.replaces
    assert diff.changed_keys == ["display_name"]


def test_the_create_body_sends_no_application_id_where_none_is_declared():
    body = ServicePrincipalProvider._create_body(None, {"active": True, "display_name": "ci"})
    assert "applicationId" not in body and body["displayName"] == "ci"
    assert ServicePrincipalProvider._create_body(OTHER, {"active": True})["applicationId"] == OTHER


# --- create by display name ----------------------------------------------------------------------


class FakePrincipals:
    """The principals area: `held` principals, creates that assign an application id, and
    scripted failures (an exception, and whether the principal was made anyway)."""

    def __init__(self, *held: dict[str, Any]) -> None:
        self.held = list(held)
        self.script: list[tuple[Exception, bool]] = []
        self.calls: list[str] = []
        self.service_principals = self

    def named(self, display_name: str) -> list[dict[str, Any]]:
        self.calls.append("named")
        return [p for p in self.held if p.get("displayName") == display_name]

    def create(self, resource: dict[str, Any]) -> dict[str, Any]:
        self.calls.append("create")
        made = {**resource, "id": str(100 + len(self.held)), "applicationId": ASSIGNED}
        if self.script:
            error, made_anyway = self.script.pop(0)
            if made_anyway:
                self.held.append(made)
            raise error
        self.held.append(made)
        return made


BODY = {"displayName": "ci", "active": True}


@pytest.fixture(autouse=True)
def no_pauses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(create_or_adopt, "FIRST_PAUSE_SECONDS", 0)


def test_no_principal_of_the_name_is_created_after_one_look_up():
    principals = FakePrincipals({"id": "7", "displayName": "other"})
    made, adopted = create_by_display_name(principals, "ci", BODY)  # type: ignore[arg-type]
    assert not adopted and made["applicationId"] == ASSIGNED
    assert principals.calls == ["named", "create"]


def test_the_one_principal_of_the_name_is_adopted_without_a_create():
    left = {"id": "7", "displayName": "ci", "applicationId": ASSIGNED}
    principals = FakePrincipals(left)
    assert create_by_display_name(principals, "ci", BODY) == (left, True)  # type: ignore[arg-type]
    assert principals.calls == ["named"]


def test_several_principals_of_the_name_are_refused_naming_them_and_the_ways_out():
    principals = FakePrincipals({"id": "7", "displayName": "ci"}, {"id": "8", "displayName": "ci"})
    with pytest.raises(AmbiguousDisplayName) as caught:
        create_by_display_name(principals, "ci", BODY)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "display_name 'ci'" in message and "ids 7, 8" in message
    assert "declare application_id" in message and "import" in message
    assert "create" not in principals.calls


def test_a_create_whose_answer_was_lost_adopts_what_it_made():
    principals = FakePrincipals()
    principals.script = [(ServerError(status=502, code="HTTP_502", message="lost",
                                      method="POST", path="/p"), True)]
    made, adopted = create_by_display_name(principals, "ci", BODY)  # type: ignore[arg-type]
    assert adopted and len(principals.held) == 1 and made is principals.held[0]
    assert principals.calls == ["named", "create", "named"]


def test_a_create_that_made_nothing_is_sent_again():
    principals = FakePrincipals()
    principals.script = [(ServerError(status=503, code="HTTP_503", message="lost",
                                      method="POST", path="/p"), False)]
    _, adopted = create_by_display_name(principals, "ci", BODY)  # type: ignore[arg-type]
    assert not adopted and len(principals.held) == 1
    assert principals.calls == ["named", "create", "named", "create"]


def test_a_conflict_adopts_the_one_principal_of_the_name_or_stands():
    conflict = AlreadyExists(status=409, code="uniqueness", message="exists", method="POST",
                             path="/p")
    principals = FakePrincipals()
    principals.script = [(conflict, True)]
    _, adopted = create_by_display_name(principals, "ci", BODY)  # type: ignore[arg-type]
    assert adopted
    principals = FakePrincipals()
    principals.script = [(conflict, False)]
    with pytest.raises(AlreadyExists):
        create_by_display_name(principals, "ci", BODY)  # type: ignore[arg-type]
