"""tools/fill_workspace.py's service credentials (`--all-kinds`): planned in the storage
credentials' namespace with every identity a service credential takes, and made through
the SDK's /credentials API as purpose SERVICE, each adoptable as read."""

from __future__ import annotations

from collections import Counter

from databricks.sdk import WorkspaceClient

from providers.client import client_for
from providers.core.registry import kind_named
from stacks.adoption import candidate_of
from tests.conftest import emulator_connection, fresh_emulator
from tools.fill_workspace import ALL_KINDS, KINDS, Filled, Plan, _Maker, make_plan
from workspace_emulator.testing import fetch_token

RANDOM_STATE = 33
IDENTITIES = ("aws_iam_role", "azure_managed_identity", "databricks_gcp_service_account")


def identity_of(credential: dict) -> str:
    [identity] = [k for k in IDENTITIES if k in credential]
    return identity


def test_the_plan_names_them_apart_from_storage_credentials_with_every_identity() -> None:
    plan = make_plan(2000, RANDOM_STATE, (), ALL_KINDS)
    services = [c["name"] for c in plan.service_credentials]
    assert len(services) == plan.counts["ServiceCredential"] > 3
    storage = {c["name"] for c in plan.storage_credentials}
    assert len(set(services)) == len(services) and not storage & set(services)
    assert set(Counter(identity_of(c) for c in plan.service_credentials)) == set(IDENTITIES)
    assert make_plan(2000, RANDOM_STATE, (), ALL_KINDS).service_credentials == (
        plan.service_credentials)  # deterministic
    assert make_plan(400, RANDOM_STATE, (), KINDS).service_credentials == []  # asked for only


def test_they_are_made_as_service_credentials_and_adopted_as_read() -> None:
    planned = make_plan(2000, RANDOM_STATE, (), ALL_KINDS).service_credentials
    plan = Plan(counts={"ServiceCredential": len(planned)}, service_credentials=planned)
    with fresh_emulator() as info:
        sdk = WorkspaceClient(host=info.base_url, token=fetch_token(info), auth_type="pat")
        filled = Filled(base_url=info.base_url, random_state=RANDOM_STATE, size=len(planned),
                        made={"ServiceCredential": []})
        _Maker(sdk, plan, filled, None, None, "").run()
        made = filled.names("ServiceCredential")
        assert made == [c["name"] for c in planned]
        listed = {c.name: c for c in sdk.credentials.list_credentials()}
        assert {str(getattr(listed[name].purpose, "value", None)) for name in made} == {
            "SERVICE"}
        assert all(listed[name].comment for name in made)
        client = client_for(emulator_connection(info, "public"))
        kind = kind_named("ServiceCredential")
        for name in made:
            candidate = candidate_of(client, kind, name, name)
            assert candidate is not None and candidate.problem is None, candidate
