"""ServicePrincipalSecret without a service: its inputs and the failures that name them, its
id, its diff (every change replaces, the new secret made first), the create that leaves no
secret behind when it fails, and the reads that keep the value as recorded. A fake client
stands in for the workspace (the emulator-backed tests: tests/providers)."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi.output import Unknown

from providers.client import InvalidParameter, ServerError, WorkspaceError
from providers.core import create_or_adopt
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.identity.service_principal_secret import (
    ServicePrincipalSecretProvider,
    create_secret,
    lifetime_of,
    split_id,
)

# The fake client stands for the areas (tests/fake_areas.py).
pytestmark = pytest.mark.usefixtures("fake_areas")

PRINCIPAL = "100000000000042"
APPLICATION = "9f0c5e3a-1b2c-4d5e-8f90-0123456789ab"
VALUE = "dose-the-value-nobody-may-see"


def failures(inputs: dict[str, Any]) -> dict[str, str]:
    found = ServicePrincipalSecretProvider.input_failures(inputs)
    return {f.property: f.reason for f in found}


# --- inputs --------------------------------------------------------------------------------


@pytest.mark.parametrize("given", [PRINCIPAL, int(PRINCIPAL)])
def test_the_principal_is_its_workspace_id_as_digits(given):
    model = ServicePrincipalSecretProvider.args_model.model_validate(
        {"service_principal_id": given}
    )
    assert model.service_principal_id == PRINCIPAL and model.lifetime is None


@pytest.mark.parametrize("given", [APPLICATION, "", "-3", True, 1.5])
def test_a_principal_id_that_is_no_workspace_id_is_named(given):
    found = failures({"service_principal_id": given})
    assert list(found) == ["service_principal_id"]
    assert "workspace's id of the service principal" in found["service_principal_id"]
    assert "not its application id" in found["service_principal_id"]


@pytest.mark.parametrize(("given", "kept"), [(3600, "3600s"), ("3600", "3600s"),
                                             ("3600s", "3600s")])
def test_a_lifetime_is_seconds_in_the_services_form(given, kept):
    model = ServicePrincipalSecretProvider.args_model.model_validate(
        {"service_principal_id": PRINCIPAL, "lifetime": given}
    )
    assert model.lifetime == kept


@pytest.mark.parametrize("given", [0, -5, "90d", "1.5s", True, "s", 3.5])
def test_a_bad_lifetime_is_named_with_the_form_it_takes(given):
    found = failures({"service_principal_id": PRINCIPAL, "lifetime": given})
    assert list(found) == ["lifetime"]
    assert '"7776000s"' in found["lifetime"]


def test_a_lifetime_is_at_most_730_days():
    assert failures({"service_principal_id": PRINCIPAL, "lifetime": 730 * 86400}) == {}
    found = failures({"service_principal_id": PRINCIPAL, "lifetime": 730 * 86400 + 1})
    assert "at most 63072000 seconds (730 days)" in found["lifetime"]


def test_unknown_fields_and_values():
    assert list(failures({"service_principal_id": PRINCIPAL, "secret": "x"})) == ["secret"]
    assert failures({"service_principal_id": UNKNOWN}) == {}
    assert failures({"service_principal_id": Unknown()}) == {}
    assert list(failures({})) == ["service_principal_id"]


def test_ids_are_the_principal_and_the_secret():
    assert split_id(f"{PRINCIPAL}/7d0c") == (PRINCIPAL, "7d0c")
    for bad in ("7d0c", f"{PRINCIPAL}/", "/7d0c", f"{PRINCIPAL}/a/b", "app/7d0c"):
        with pytest.raises(ValueError, match=r"<principal id>/<secret id>"):
            split_id(bad)


def test_the_lifetime_of_a_listed_secret_is_its_expiry_less_its_creation():
    listed = {"create_time": "2026-01-01T00:00:00Z", "expire_time": "2026-04-01T00:00:00Z"}
    assert lifetime_of(listed) == "7776000s"
    assert lifetime_of({"create_time": "2026-01-01T00:00:00Z"}) is None
    assert lifetime_of({"create_time": "yesterday", "expire_time": "2026-01-01T00:00:00Z"}) is None


# --- diff ------------------------------------------------------------------------------------


def recorded(**inputs: Any) -> dict[str, Any]:
    return {
        "service_principal_id": PRINCIPAL,
        **inputs,
        "secret_id": "7d0c",
        "secret": VALUE,
        "application_id": APPLICATION,
        "status": "ACTIVE",
        CONNECTION_KEY: {"base_url": "https://x"},
    }


def news(**inputs: Any) -> dict[str, Any]:
    return {"service_principal_id": PRINCIPAL, **inputs, CONNECTION_KEY: {"base_url": "https://x"}}


def test_the_same_inputs_are_no_change():
    provider = ServicePrincipalSecretProvider()
    assert not provider.diff("id", recorded(lifetime="3600s"), news(lifetime=3600)).changes
    assert not provider.diff("id", recorded(), news(), old_inputs=news()).changes


@pytest.mark.parametrize(
    ("before", "after", "key"),
    [
        ({"lifetime": "3600s"}, {"lifetime": "7200s"}, "lifetime"),
        ({}, {"lifetime": "3600s"}, "lifetime"),
        ({"lifetime": "3600s"}, {}, "lifetime"),
        ({}, {"service_principal_id": "100000000000043"}, "service_principal_id"),
        ({}, {"service_principal_id": UNKNOWN}, "service_principal_id"),
    ],
)
def test_every_change_replaces_and_the_new_secret_comes_first(before, after, key):
    provider = ServicePrincipalSecretProvider()
    diff = provider.diff("id", recorded(**before), news(**after))
    assert diff.changes and diff.replaces == [key]
    assert not diff.delete_before_replace


# --- create and read against a fake workspace ---------------------------------------------------


class FakeWorkspace:
    """The two areas a secret's provider calls, holding one principal's secrets. `fail`
    scripts the creates: an exception to raise after (`made=True`) or instead of making one."""

    def __init__(self) -> None:
        self.secrets: dict[str, dict[str, Any]] = {}
        self.script: list[tuple[Exception, bool]] = []
        self.calls: list[str] = []
        self.service_principals = self
        self.service_principal_secrets = self

    # the principals area
    def get(self, principal_id: str) -> dict[str, Any]:
        self.calls.append("get principal")
        return {"id": principal_id, "applicationId": APPLICATION}

    # the secrets area
    def create(self, principal_id: str, lifetime: str | None = None) -> dict[str, Any]:
        self.calls.append("create")
        number = len(self.secrets) + 1
        made = {"id": f"s{number}", "secret": f"{VALUE}-{number}", "status": "ACTIVE",
                "create_time": "2026-01-01T00:00:00Z", "expire_time": "2026-04-01T00:00:00Z"}
        if self.script:
            error, made_anyway = self.script.pop(0)
            if made_anyway:
                self.secrets[made["id"]] = made
            raise error
        self.secrets[made["id"]] = made
        return made

    def list(self, principal_id: str) -> list[dict[str, Any]]:
        self.calls.append("list")
        return [{k: v for k, v in s.items() if k != "secret"} for s in self.secrets.values()]

    def delete(self, principal_id: str, secret_id: str) -> None:
        self.calls.append(f"delete {secret_id}")
        del self.secrets[secret_id]


def server_error(status: int = 500) -> ServerError:
    return ServerError(status=status, code="INTERNAL_ERROR", message="lost", method="POST",
                       path="/p")


@pytest.fixture(autouse=True)
def no_pauses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(create_or_adopt, "FIRST_PAUSE_SECONDS", 0)


def test_create_records_the_value_and_the_principals_application_id():
    workspace = FakeWorkspace()
    provider = ServicePrincipalSecretProvider()
    args = provider.args_model.model_validate({"service_principal_id": PRINCIPAL})
    id_, spec, computed = provider.create_object(workspace, args, provider.spec(args))  # type: ignore[arg-type]
    assert id_ == f"{PRINCIPAL}/s1"
    assert spec == {"service_principal_id": PRINCIPAL}
    assert computed == {
        "secret_id": "s1",
        "secret": f"{VALUE}-1",
        "application_id": APPLICATION,
        "status": "ACTIVE",
        "create_time": "2026-01-01T00:00:00Z",
        "expire_time": "2026-04-01T00:00:00Z",
    }
    assert workspace.calls == ["get principal", "list", "create"]


def test_a_create_whose_answer_was_lost_deletes_what_it_made_and_creates_again():
    workspace = FakeWorkspace()
    workspace.secrets["old"] = {"id": "old", "secret": "someone's", "status": "ACTIVE"}
    workspace.script = [(server_error(), True)]
    made = create_secret(workspace, PRINCIPAL, None)  # type: ignore[arg-type]
    assert set(workspace.secrets) == {"old", made["id"]}
    assert workspace.calls == ["list", "create", "list", "delete s2", "create"]


def test_a_refused_create_deletes_nothing():
    workspace = FakeWorkspace()
    workspace.secrets["old"] = {"id": "old", "secret": "someone's", "status": "ACTIVE"}
    refused = InvalidParameter(status=400, code="INVALID_PARAMETER_VALUE", message="lifetime",
                               method="POST", path="/p")
    workspace.script = [(refused, False)]
    with pytest.raises(InvalidParameter):
        create_secret(workspace, PRINCIPAL, "1s")  # type: ignore[arg-type]
    assert workspace.calls == ["list", "create"]
    assert set(workspace.secrets) == {"old"}


def test_an_answer_without_the_value_deletes_the_secret_it_made():
    workspace = FakeWorkspace()
    invalid = WorkspaceError(status=200, code="INVALID_RESPONSE", message="no secret",
                             method="POST", path="/p")
    workspace.script = [(invalid, True)]
    with pytest.raises(WorkspaceError, match="no secret"):
        create_secret(workspace, PRINCIPAL, None)  # type: ignore[arg-type]
    assert workspace.secrets == {}


def test_creates_that_keep_failing_leave_no_secret_and_raise_the_last_error():
    workspace = FakeWorkspace()
    workspace.script = [(server_error(), True) for _ in range(create_or_adopt.CREATE_ATTEMPTS)]
    with pytest.raises(ServerError):
        create_secret(workspace, PRINCIPAL, None)  # type: ignore[arg-type]
    assert workspace.secrets == {}
    assert workspace.calls.count("create") == create_or_adopt.CREATE_ATTEMPTS


def read(workspace: FakeWorkspace, id_: str, props: dict[str, Any]) -> Any:
    return ServicePrincipalSecretProvider().read_object(workspace, id_, props)  # type: ignore[arg-type]


def test_a_read_keeps_the_recorded_value_and_lifetime_and_lists_the_status():
    workspace = FakeWorkspace()
    made = workspace.create(PRINCIPAL)
    workspace.secrets[made["id"]]["status"] = "EXPIRED"
    workspace.calls.clear()
    observed, computed = read(workspace, f"{PRINCIPAL}/s1", recorded(lifetime="60s"))
    assert observed == {"service_principal_id": PRINCIPAL, "lifetime": "60s"}
    assert computed["secret"] == VALUE and computed["status"] == "EXPIRED"
    assert computed["application_id"] == APPLICATION
    assert workspace.calls == ["list"]


def test_a_secret_no_longer_listed_is_gone():
    assert read(FakeWorkspace(), f"{PRINCIPAL}/s1", recorded()) is None


def test_an_import_cannot_know_the_value_and_records_the_lifetime_it_was_made_with():
    workspace = FakeWorkspace()
    workspace.create(PRINCIPAL)
    observed, computed = read(workspace, f"{PRINCIPAL}/s1", {CONNECTION_KEY: {}})
    assert observed == {"service_principal_id": PRINCIPAL, "lifetime": "7776000s"}
    assert computed["secret"] is None and computed["application_id"] == APPLICATION
    assert VALUE not in repr(computed)
