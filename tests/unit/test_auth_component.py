"""WorkspaceAuth under Pulumi's mocks: the credential check at program time, secret outputs."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
import responses
from pulumi.runtime import rpc

from providers import SecretScope, SecretScopeArgs
from providers.auth.component import (
    WorkspaceAuth,
    WorkspaceAuthArgs,
    WorkspaceAuthError,
    provider_for,
)
from providers.client.connection import Connection
from providers.core.lifecycle import CONNECTION_KEY, PROVIDER_KEY
from tests.unit.client_support import (
    AUTH_URL,
    BASE_URL,
    CLIENT_ID,
    CLIENT_SECRET,
    ME,
    RESOURCE,
    SCIM_ME,
    TENANT,
    TOKEN_URL,
    token_body,
)

INVALID_CLIENT = {
    "error": "invalid_client",
    "error_description": "AADSTS7000215: Invalid client secret provided.",
    "error_codes": [7000215],
    "timestamp": "2026-11-22 01:05:22Z",
    "trace_id": "t",
    "correlation_id": "c",
}


class Mocks(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.registered: list[pulumi.runtime.MockResourceArgs] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        self.registered.append(args)
        return [f"{args.name}-id", args.inputs]

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


# Each test is a program of its own: no token another test's program fetched is known.
pytestmark = pytest.mark.usefixtures("fresh_client_caches")


def args(**overrides) -> WorkspaceAuthArgs:
    values: dict[str, Any] = {
        "base_url": BASE_URL,
        "auth_url": AUTH_URL,
        "tenant_id": TENANT,
        "client_id": CLIENT_ID,
        "client_secret": pulumi.Output.secret(CLIENT_SECRET),
        "resource": RESOURCE,
        "wire_form": "legacy",  # a GET for a token (the default: test_wire_form_default.py)
    }
    values.update(overrides)
    return WorkspaceAuthArgs(**values)


def run(scenario, *, preview: bool) -> Mocks:
    mocks = Mocks()
    pulumi.runtime.set_mocks(mocks, preview=preview)
    pulumi.runtime.test(scenario)()
    return mocks


@pytest.mark.parametrize("preview", [False, True])
def test_connection_is_a_secret_dict_of_the_connection_and_expiry_is_not_secret(preview):
    async def scenario():
        auth = WorkspaceAuth("auth", args())
        assert await auth.connection.is_secret()
        assert not await auth.token_expires_on.is_secret()
        props = await auth.connection.future()
        assert props is not None
        assert Connection.from_props(props).secret_values() == (CLIENT_SECRET,)
        assert props["base_url"] == BASE_URL and props["wire_form"] == "legacy"
        # receipt + expires_in on the local clock (test_client_security.py: clock skew)
        assert await auth.token_expires_on.future() == pytest.approx(1_900_000_000.0, abs=5)

    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body(expires_on=1_900_000_000))
        mocked.get(SCIM_ME, json=ME)  # the workspace takes the token
        mocks = run(scenario, preview=preview)
        assert len(mocked.calls) == 2  # checked during preview too: a token, SCIM Me
    assert [r.typ for r in mocks.registered] == [
        "workspace:auth:WorkspaceAuth",
        "pulumi:providers:pulumi-python",
    ]


def test_registers_the_workspace_provider_and_binds_resources_given_its_connection():
    async def scenario():
        auth = WorkspaceAuth("auth", args())
        assert provider_for(auth.connection) is auth.provider
        SecretScope("scope", SecretScopeArgs(name="etl"), connection=auth.connection)
        await auth.connection.future()

    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body())
        mocked.get(SCIM_ME, json=ME)  # the workspace takes the token
        mocks = run(scenario, preview=False)
    provider = next(r for r in mocks.registered if r.typ == "pulumi:providers:pulumi-python")
    assert provider.name == "auth"
    # One setting per connection field, only the client secret a secret.
    settings = dict(provider.inputs)
    assert rpc.is_rpc_secret(settings["client_secret"])
    settings["client_secret"] = rpc.unwrap_rpc_secret(settings["client_secret"])
    assert not any(rpc.is_rpc_secret(v) for v in settings.values())
    # Settings left unset are not recorded: the stacks of before gain none.
    unset = {"auth_type", "token", "profile", "azure_workspace_resource_id", "preview_client_id",
             "account_id"}
    assert set(settings) == set(Connection.model_fields) - unset
    assert Connection.from_props(settings).secret_values() == (CLIENT_SECRET,)
    assert settings["base_url"] == BASE_URL
    scope = next(r for r in mocks.registered if r.name == "scope")
    assert scope.provider is not None and scope.provider.startswith(
        "urn:pulumi:stack::project::workspace:auth:WorkspaceAuth$pulumi:providers:pulumi-python::auth::"
    )
    # The provider's host supplies the connection and the provider code: neither is sent.
    assert scope.typ == "pulumi-python:dynamic/workspace:SecretScope"
    assert dict(scope.inputs) == {"name": "etl"}


@pytest.mark.parametrize("preview", [False, True])
def test_wrong_secret_fails_with_a_clear_message_without_the_secret(preview):
    async def scenario():
        auth = WorkspaceAuth("auth", args())
        await auth.connection.future()

    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, status=401, json=INVALID_CLIENT)
        with pytest.raises(WorkspaceAuthError) as caught:
            run(scenario, preview=preview)

    message = str(caught.value)
    assert isinstance(caught.value, pulumi.RunError)
    assert f"the identity provider rejected client id {CLIENT_ID!r} in tenant {TENANT!r}" in message
    assert CLIENT_ID in message and TENANT in message
    assert "client secret or client id is wrong" in message
    assert CLIENT_SECRET not in message and CLIENT_SECRET not in repr(caught.value)
    for error in _chain(caught.value):
        assert CLIENT_SECRET not in str(error) and CLIENT_SECRET not in repr(error)


def test_a_connection_made_from_the_output_leaves_the_resource_on_the_default_provider():
    """Only the component's own output binds; a value made from it is any other connection:
    the resource keeps it (a secret) on the default provider, beside the component's."""

    async def scenario():
        auth = WorkspaceAuth("auth", args())
        derived = auth.connection.apply(lambda c: c)
        assert provider_for(derived) is None
        SecretScope("scope", SecretScopeArgs(name="etl"), connection=derived)
        await auth.connection.future()

    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body())
        mocked.get(SCIM_ME, json=ME)  # the workspace takes the token
        mocks = run(scenario, preview=False)
    scope = next(r for r in mocks.registered if r.name == "scope")
    assert scope.provider == ""
    assert rpc.unwrap_rpc_secret(scope.inputs[CONNECTION_KEY])["base_url"] == BASE_URL
    assert rpc.is_rpc_secret(scope.inputs[CONNECTION_KEY])


def test_the_workspace_provider_aliases_no_other_provider():
    """The default `pulumi-python` provider serves the program's other dynamic resources
    too: an alias to it would clash with them (a duplicate alias from the second run on)."""

    made: list[WorkspaceAuth] = []

    async def scenario():
        made.extend([WorkspaceAuth("first", args()), WorkspaceAuth("second", args())])
        for auth in made:
            await auth.connection.future()

    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body())
        mocked.get(SCIM_ME, json=ME)  # the workspace takes the token
        mocks = run(scenario, preview=False)
    providers = [r for r in mocks.registered if r.typ == "pulumi:providers:pulumi-python"]
    assert sorted(r.name for r in providers) == ["first", "second"]
    assert [auth.provider._aliases for auth in made] == [[], []]


def test_taking_the_default_provider_over_is_asked_for():
    """A program that deployed its workspace resources without a WorkspaceAuth moves them
    onto the component's provider, without replacing them, only when it asks to."""
    aliases: list[Any] = []

    async def scenario():
        auth = WorkspaceAuth("auth", args(), take_over_default_provider=True)
        await auth.connection.future()
        aliases.extend([await pulumi.Output.from_input(a).future()
                        for a in auth.provider._aliases])

    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body())
        mocked.get(SCIM_ME, json=ME)  # the workspace takes the token
        run(scenario, preview=False)
    assert aliases == ["urn:pulumi:stack::project::pulumi:providers:pulumi-python::default"]


def test_without_a_workspace_auth_resources_use_the_default_provider():
    async def scenario():
        SecretScope("scope", SecretScopeArgs(name="etl"), connection={"base_url": BASE_URL})

    mocks = run(scenario, preview=False)
    assert [r.provider for r in mocks.registered if r.name == "scope"] == [""]
    # No host configuration supplies them: the connection and the provider code are sent,
    # as secrets.
    scope = next(r for r in mocks.registered if r.name == "scope")
    assert scope.typ == "pulumi-python:dynamic/workspace:SecretScope"
    assert rpc.unwrap_rpc_secret(scope.inputs[CONNECTION_KEY]) == {"base_url": BASE_URL}
    assert rpc.is_rpc_secret(scope.inputs[PROVIDER_KEY])


def test_public_form_and_tuning_knobs_reach_the_connection():
    async def scenario():
        auth = WorkspaceAuth(
            "auth", args(wire_form="public", max_attempts=3, rate_limit_per_second=12)
        )
        props = await auth.connection.future()
        assert props is not None
        assert (props["wire_form"], props["max_attempts"], props["rate_limit_per_second"]) == (
            "public",
            3,
            12,
        )

    with responses.RequestsMock() as mocked:
        mocked.post(TOKEN_URL, json=token_body())
        mocked.get(SCIM_ME, json=ME)  # the workspace takes the token
        run(scenario, preview=False)


def test_invalid_settings_name_the_field_and_never_echo_the_secret():
    async def scenario():
        auth = WorkspaceAuth("auth", args(base_url="http://ws.example.net", max_attempts=0))
        await auth.connection.future()

    with pytest.raises(WorkspaceAuthError) as caught:
        run(scenario, preview=False)
    message = str(caught.value)
    assert "max_attempts" in message and "base_url" in message
    assert CLIENT_SECRET not in message


def test_unknown_inputs_skip_the_check_during_preview():
    async def scenario():
        unknown = pulumi.Output(set(), _done(None), _done(False), _done(True))
        auth = WorkspaceAuth("auth", args(client_secret=unknown))
        assert not await auth.connection.is_known()

    with responses.RequestsMock():  # no token request may happen
        run(scenario, preview=True)


def _chain(error: BaseException | None):
    seen: list[BaseException] = []
    while error is not None and error not in seen:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen


def _done(value):
    import asyncio

    future = asyncio.get_event_loop().create_future()
    future.set_result(value)
    return future


def test_an_account_connection_proves_its_token_on_the_account_not_on_scim_me():
    """The account host has no SCIM Me: the check reads a page of the account's groups."""
    account_id = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"

    async def scenario():
        auth = WorkspaceAuth("account", args(account_id=account_id))
        props = await auth.connection.future()
        assert props is not None and props["account_id"] == account_id

    groups = f"{BASE_URL}/api/2.0/accounts/{account_id}/scim/v2/Groups"
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body())
        mocked.get(groups, json={"Resources": [], "totalResults": 0})
        run(scenario, preview=False)
        assert [str(c.request.url).split("?")[0] for c in mocked.calls][1:] == [groups]


def test_a_bad_account_id_is_refused_naming_the_field():
    async def scenario():
        auth = WorkspaceAuth("account", args(account_id="no such id"))
        await auth.connection.future()

    with pytest.raises(WorkspaceAuthError, match="account_id: account_id must be the "
                                                 "account's id"):
        run(scenario, preview=False)
