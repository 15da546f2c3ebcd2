"""What a fresh create costs the service, and that its outputs are what a read shows.

Creates record their outputs from the request and the service's answer instead of reading
the object back; a read right afterwards must show exactly the same outputs (otherwise the
first refresh would report a change nobody made), and the inputs must diff clean against
them. Both wire forms (the `connection` fixture), on a workspace of this module's own (a
job create's listing is one page while the workspace holds at most a page of jobs)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from providers.client import WireForm
from providers.client.wire import SCIM_SERVICE_PRINCIPALS
from providers.core.lifecycle import CONNECTION_KEY, WorkspaceProvider
from providers.identity.service_principal import ServicePrincipalProvider
from providers.jobs.job import JobProvider
from providers.jobs.job_permissions import JobPermissionsProvider
from providers.jobs.jobs_api import JOBS_PATHS, JobsApi
from providers.secrets.secret_scope import SecretScopeProvider
from tests.conftest import emulator_fixture
from tests.providers.support import client_of
from tests.providers.test_job import legacy_form_inputs, public_inputs, unique_name
from tests.providers.test_secret_scope import VAULT
from workspace_emulator.testing import (
    EmulatorInfo,
    clear_request_log,
    register_application,
    request_log,
)

emulator = emulator_fixture("module")


def platform_calls(emulator: EmulatorInfo) -> list[tuple[str, str]]:
    return [
        (entry["method"], entry["path"])
        for entry in request_log(emulator)
        if entry["path"].startswith("/api/")
    ]


def create_counted(
    emulator: EmulatorInfo, provider: WorkspaceProvider, props: dict[str, Any]
) -> tuple[Any, list[tuple[str, str]]]:
    clear_request_log(emulator)
    result = provider.create(props)
    return result, platform_calls(emulator)


def assert_read_shows_the_outputs(provider: WorkspaceProvider, result, props) -> None:
    read = provider.read(result.id, result.outs)
    assert read.id == result.id
    assert read.outs == result.outs
    diff = provider.diff(result.id, result.outs, props, old_inputs=props)
    assert not diff.changes, diff.changed_keys


@pytest.mark.parametrize("nesting", [public_inputs, legacy_form_inputs], ids=["public", "legacy"])
def test_job_create_lists_its_tag_and_creates(emulator, connection, nesting) -> None:
    provider = JobProvider()
    props = {**nesting(unique_name()), CONNECTION_KEY: connection}
    result, calls = create_counted(emulator, provider, props)
    try:
        jobs = JOBS_PATHS[WireForm(connection["wire_form"])]
        assert calls == [("GET", f"{jobs}/list"), ("POST", f"{jobs}/create")]
        assert result.outs["creator_user_name"] == connection["client_id"]
        assert_read_shows_the_outputs(provider, result, props)
    finally:
        provider.delete(result.id, result.outs)


@pytest.mark.parametrize("vault", [None, VAULT], ids=["plain", "keyvault"])
def test_scope_create_is_one_call(emulator, connection, vault) -> None:
    provider = SecretScopeProvider()
    props: dict[str, Any] = {"name": f"scope-{uuid.uuid4().hex[:10]}", CONNECTION_KEY: connection}
    if vault:
        props["keyvault"] = dict(vault)
    result, calls = create_counted(emulator, provider, props)
    try:
        assert calls == [("POST", "/api/2.0/secrets/scopes/create")]
        assert_read_shows_the_outputs(provider, result, props)
    finally:
        provider.delete(result.id, result.outs)


def test_principal_create_is_one_call(emulator, connection) -> None:
    provider = ServicePrincipalProvider()
    application = register_application(emulator, "create-calls-app")
    props = {
        "application_id": application["client_id"],
        "display_name": "etl pipeline",
        "entitlements": ["workspace-access"],
        CONNECTION_KEY: connection,
    }
    result, calls = create_counted(emulator, provider, props)
    try:
        assert calls == [("POST", SCIM_SERVICE_PRINCIPALS)]
        assert_read_shows_the_outputs(provider, result, props)
    finally:
        provider.delete(result.id, result.outs)


@pytest.fixture
def job_id(emulator, connection) -> Any:
    client = client_of(connection)
    task = {"task_key": "main", "notebook_task": {"notebook_path": "/Shared/x"}}
    job_id = JobsApi(client).create({"name": unique_name(), "tasks": [task]})
    yield job_id
    JobsApi(client).delete(job_id)


GROUPS_ONLY = [
    {"group_name": "data-engineers", "permission_level": "CAN_MANAGE_RUN"},
    {"group_name": "analysts", "permission_level": "CAN_VIEW"},
]


def test_permissions_of_groups_only_are_one_patch(emulator, connection, job_id) -> None:
    """A group never owns a job, so no read guards the owner: the PATCH alone."""
    provider = JobPermissionsProvider()
    props = {"job_id": job_id, "access_controls": GROUPS_ONLY, CONNECTION_KEY: connection}
    result, calls = create_counted(emulator, provider, props)
    assert calls == [("PATCH", f"/api/2.0/permissions/jobs/{job_id}")]
    assert_read_shows_the_outputs(provider, result, props)


def test_permissions_naming_a_user_read_the_owner_first(emulator, connection, job_id) -> None:
    """A user or service principal may be the owner: read, refuse the owner, then PATCH."""
    provider = JobPermissionsProvider()
    alice = {"user_name": "alice@example.com", "permission_level": "CAN_MANAGE"}
    props = {"job_id": job_id, "access_controls": [alice], CONNECTION_KEY: connection}
    result, calls = create_counted(emulator, provider, props)
    path = f"/api/2.0/permissions/jobs/{job_id}"
    assert calls == [("GET", path), ("PATCH", path)]
    assert_read_shows_the_outputs(provider, result, props)
