"""JobPermissionsProvider against the emulator, in both wire forms."""

from __future__ import annotations

import contextlib
import copy
import uuid
from typing import Any

import pulumi
import pytest

from providers import AccessControlArgs, JobPermissions, JobPermissionsArgs
from providers.client import InvalidParameter, NotFound
from providers.client.permissions import PermissionsApi
from providers.core.lifecycle import UNKNOWN
from providers.jobs.job_permissions import JobPermissionsProvider, direct_entries
from providers.jobs.job_permissions_api import job_permissions_api
from providers.jobs.jobs_api import JobsApi
from tests.providers.resource_mocks import RecordingMocks
from tests.providers.support import client_of

provider = JobPermissionsProvider()

ENGINEERS = {"group_name": "data-engineers", "permission_level": "CAN_MANAGE_RUN"}
ANALYSTS = {"group_name": "analysts", "permission_level": "CAN_VIEW"}
ALICE = {"user_name": "alice@example.com", "permission_level": "CAN_MANAGE"}
# Someone else's entry, added out of band.
BOB = {"user_name": "bob@example.com", "permission_level": "CAN_VIEW"}


def props(connection: dict[str, Any], job_id: Any, *entries: dict[str, str]) -> dict[str, Any]:
    return {
        "job_id": job_id,
        "access_controls": copy.deepcopy(list(entries)),
        "connection": connection,
    }


def entries_on(connection: dict[str, Any], job_id: int) -> dict[tuple[str, str], str]:
    """principal -> direct level, as the service shows them."""
    answer = job_permissions_api(client_of(connection)).get(job_id)
    return {p: e["permission_level"] for p, e in direct_entries(answer).items()}


@pytest.fixture
def job_id(connection) -> Any:
    client = client_of(connection)
    body = {
        "name": f"perm-{uuid.uuid4().hex[:10]}",
        "new_cluster": {"spark_version": "13.3.x-scala2.12", "node_type_id": "n", "num_workers": 1},
    }
    job_id = int(client.post("/api/2.0/jobs/create", body)["job_id"])
    yield job_id
    with contextlib.suppress(NotFound):
        client.post("/api/2.0/jobs/delete", {"job_id": job_id}, idempotent=True)


@pytest.fixture
def owner(connection) -> tuple[str, str]:
    return ("service_principal_name", connection["client_id"])


@pytest.fixture
def created(connection, job_id):
    result = provider.create(props(connection, job_id, ENGINEERS, ANALYSTS))
    return result.id, result.outs


# --- check ---------------------------------------------------------------------------

BAD = [
    ({"job_id": "abc"}, "job_id"),
    ({"job_id": 12.5}, "job_id"),
    ({"job_id": True}, "job_id"),
    ({"job_id": 0}, "job_id"),
    ({"access_controls": []}, "access_controls"),
    ({"colour": "blue"}, "colour"),
    (
        {"access_controls": [{**ENGINEERS, "user_name": "bob@example.com"}]},
        "access_controls.0",
    ),
    ({"access_controls": [ANALYSTS, {"permission_level": "CAN_VIEW"}]}, "access_controls.1"),
    (
        {"access_controls": [{**ANALYSTS, "permission_level": "IS_OWNER"}]},
        "access_controls.0.permission_level",
    ),
    (
        {"access_controls": [{**ANALYSTS, "permission_level": "CAN_RUN"}]},
        "access_controls.0.permission_level",
    ),
    ({"access_controls": [{**ANALYSTS, "colour": "x"}]}, "access_controls.0.colour"),
    (
        {"access_controls": [ANALYSTS, {**ANALYSTS, "permission_level": "CAN_MANAGE"}]},
        "access_controls",
    ),
]


@pytest.mark.parametrize(("change", "reported"), BAD)
def test_check_names_the_bad_field(connection, change, reported):
    news = {**props(connection, 123, ENGINEERS), **copy.deepcopy(change)}
    failures = provider.check({}, news).failures
    assert [f.property for f in failures] == [reported]
    assert failures[0].reason


def test_check_refuses_ownership_with_a_reason(connection):
    news = props(connection, 123, {**ANALYSTS, "permission_level": "IS_OWNER"})
    (failure,) = provider.check({}, news).failures
    assert "ownership" in failure.reason


@pytest.mark.parametrize("job_id", [123, 123.0, "123", UNKNOWN])
def test_check_accepts_valid_input(connection, job_id):
    news = props(connection, job_id, ENGINEERS, ANALYSTS, ALICE)
    news["access_controls"].append(
        {
            "service_principal_name": "b946402c-4f47-469a-bead-ef6610b453f5",
            "permission_level": "CAN_VIEW",
        }
    )
    assert provider.check({}, news).failures == []


# --- diff ----------------------------------------------------------------------------


def test_diff_same_or_reordered_entries_or_id_as_string_is_no_change(connection, created):
    id_, outs = created
    for news in (
        props(connection, int(id_), ENGINEERS, ANALYSTS),
        props(connection, int(id_), ANALYSTS, ENGINEERS),
        props(connection, id_, ANALYSTS, ENGINEERS),
    ):
        assert provider.diff(id_, outs, news).changes is False


def test_diff_level_change_or_new_entry_is_in_place(connection, created):
    id_, outs = created
    for news in (
        props(connection, int(id_), ENGINEERS, {**ANALYSTS, "permission_level": "CAN_MANAGE"}),
        props(connection, int(id_), ENGINEERS, ANALYSTS, ALICE),
        props(connection, int(id_), ENGINEERS),
    ):
        diff = provider.diff(id_, outs, news)
        assert diff.changes is True
        assert diff.replaces == []


def test_diff_other_job_replaces(connection, created):
    id_, outs = created
    diff = provider.diff(id_, outs, props(connection, int(id_) + 1, ENGINEERS, ANALYSTS))
    assert diff.replaces == ["job_id"]


def test_diff_tolerates_unknown_values(connection, created):
    id_, outs = created
    diff = provider.diff(id_, outs, props(connection, UNKNOWN, ENGINEERS, ANALYSTS))
    assert diff.changes is True
    assert diff.replaces == ["job_id"]
    unknown_level = {**ANALYSTS, "permission_level": UNKNOWN}
    diff = provider.diff(id_, outs, props(connection, int(id_), ENGINEERS, unknown_level))
    assert diff.changes is True
    assert diff.replaces == []


# --- create, read --------------------------------------------------------------------


def test_create_adds_the_declared_entries_and_keeps_the_owner(connection, job_id, owner, created):
    id_, outs = created
    assert id_ == str(job_id)
    entries = entries_on(connection, job_id)
    assert entries[("group_name", "data-engineers")] == "CAN_MANAGE_RUN"
    assert entries[("group_name", "analysts")] == "CAN_VIEW"
    assert entries[owner] == "IS_OWNER"
    assert outs["job_id"] == job_id
    assert outs["access_controls"] == [ANALYSTS, ENGINEERS]


def test_create_with_an_unknown_group_fails_with_the_services_message(connection, job_id):
    before = entries_on(connection, job_id)
    ghost = {"group_name": "no-such-group", "permission_level": "CAN_VIEW"}
    with pytest.raises(InvalidParameter, match="no-such-group") as raised:
        provider.create(props(connection, job_id, ENGINEERS, ghost))
    assert raised.value.code == "INVALID_PARAMETER_VALUE"
    assert entries_on(connection, job_id) == before


def test_create_refuses_to_manage_the_owner(connection, job_id, owner):
    as_manager = {owner[0]: owner[1], "permission_level": "CAN_MANAGE"}
    with pytest.raises(ValueError, match="owns job"):
        provider.create(props(connection, job_id, as_manager))
    assert entries_on(connection, job_id)[owner] == "IS_OWNER"


def test_read_returns_the_recorded_spec(connection, created):
    id_, outs = created
    read = provider.read(id_, outs)
    assert read.id == id_
    assert read.outs == outs


def test_read_shows_out_of_band_removal_and_level_change_only_of_ours(connection, created):
    id_, outs = created
    client = client_of(connection)
    viewers = {**ENGINEERS, "permission_level": "CAN_VIEW"}
    job_permissions_api(client).update(int(id_), [viewers, BOB])
    current = job_permissions_api(client).get(int(id_))
    kept = [e for p, e in direct_entries(current).items() if p != ("group_name", "analysts")]
    job_permissions_api(client).set(int(id_), kept)

    read = provider.read(id_, outs)
    assert read.outs is not None
    assert read.outs["access_controls"] == [{**ENGINEERS, "permission_level": "CAN_VIEW"}]
    news = props(connection, int(id_), ENGINEERS, ANALYSTS)
    assert provider.diff(id_, read.outs, news).changes is True


def test_read_of_a_missing_job_is_gone(connection, created):
    id_, outs = created
    client_of(connection).post("/api/2.0/jobs/delete", {"job_id": int(id_)})
    assert provider.read(id_, outs).id is None


def test_read_for_import_takes_every_direct_entry_but_the_owners(connection, created):
    id_, _outs = created
    read = provider.read(id_, {"connection": connection})
    assert read.outs is not None
    assert read.outs["access_controls"] == [ANALYSTS, ENGINEERS]


# --- update, delete --------------------------------------------------------------------


def test_update_changes_adds_and_removes_only_declared_entries(connection, job_id, owner, created):
    id_, outs = created
    job_permissions_api(client_of(connection)).update(job_id, [BOB])
    promoted = {**ENGINEERS, "permission_level": "CAN_MANAGE"}

    result = provider.update(id_, outs, props(connection, job_id, promoted, ALICE))
    assert result.outs is not None

    entries = entries_on(connection, job_id)
    assert entries == {
        owner: "IS_OWNER",
        ("group_name", "data-engineers"): "CAN_MANAGE",
        ("user_name", "alice@example.com"): "CAN_MANAGE",
        ("user_name", "bob@example.com"): "CAN_VIEW",
    }
    assert result.outs["access_controls"] == [promoted, ALICE]


def test_update_with_only_additions_patches(connection, job_id, created):
    id_, outs = created
    result = provider.update(id_, outs, props(connection, job_id, ENGINEERS, ANALYSTS, ALICE))
    assert result.outs is not None
    assert entries_on(connection, job_id)[("user_name", "alice@example.com")] == "CAN_MANAGE"
    assert len(result.outs["access_controls"]) == 3


def test_delete_removes_only_declared_entries(connection, job_id, owner, created):
    id_, outs = created
    job_permissions_api(client_of(connection)).update(job_id, [BOB])
    provider.delete(id_, outs)
    assert entries_on(connection, job_id) == {
        owner: "IS_OWNER",
        ("user_name", "bob@example.com"): "CAN_VIEW",
    }
    provider.delete(id_, outs)  # nothing of ours left: no change


def test_delete_when_the_job_is_gone_succeeds(connection, created):
    id_, outs = created
    client_of(connection).post("/api/2.0/jobs/delete", {"job_id": int(id_)})
    provider.delete(id_, outs)


def test_delete_when_the_job_goes_between_read_and_write_succeeds(
    connection, job_id, created, monkeypatch
):
    """A destroy that deletes the job alongside, with nothing ordering the two."""
    id_, outs = created
    read = PermissionsApi.get

    def read_then_job_deleted(area: PermissionsApi, job: int) -> dict[str, Any]:
        current = read(area, job)
        JobsApi(client_of(connection)).delete(job)
        return current

    with monkeypatch.context() as patched:
        patched.setattr(PermissionsApi, "get", read_then_job_deleted)
        provider.delete(id_, outs)
    with pytest.raises((NotFound, InvalidParameter)):
        job_permissions_api(client_of(connection)).get(job_id)


def test_resource_sends_typed_args(connection):
    mocks = RecordingMocks()
    pulumi.runtime.set_mocks(mocks, project="proj", stack="dev", preview=False)
    args = JobPermissionsArgs(
        job_id="1000000000001",
        access_controls=[AccessControlArgs(permission_level="CAN_VIEW", group_name="analysts")],
    )

    @pulumi.runtime.test
    def scenario():
        JobPermissions("perms", args, connection=connection)

    scenario()
    (registered,) = mocks.registered
    assert registered.inputs["access_controls"] == [ANALYSTS]
    assert provider.check({}, {**registered.inputs, "connection": connection}).failures == []


def test_diff_with_unknown_entries_does_not_replace_for_a_job_id_in_digits(connection, created):
    id_, outs = created
    unknown_level = {**ANALYSTS, "permission_level": UNKNOWN}
    diff = provider.diff(id_, outs, props(connection, id_, ENGINEERS, unknown_level))
    assert diff.changes is True
    assert diff.replaces == []


def test_read_after_all_ours_were_removed_claims_nobody_elses(connection, job_id, owner, created):
    id_, outs = created
    job_permissions_api(client_of(connection)).set(job_id, [BOB])

    read = provider.read(id_, outs)
    assert read.outs is not None
    assert read.outs["access_controls"] == []
    provider.delete(id_, read.outs)
    assert entries_on(connection, job_id) == {
        owner: "IS_OWNER",
        ("user_name", "bob@example.com"): "CAN_VIEW",
    }
