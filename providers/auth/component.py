"""``WorkspaceAuth``: checks a service principal's credentials and hands out the connection.

The component fetches one token at program time (during ``pulumi preview`` too, whenever
its inputs are known) so that a wrong client id or secret fails the run up front, with a
message that names the tenant and client id, never the secret. Resources take the secret
``connection`` output and fetch their own tokens, so a token rotation never changes any
resource. ``token_expires_on`` is informational only; do not feed it to resources. It is
None where the token does not say when it expires (a personal access token: the ``pat``
method, or a ``databricks-cli`` profile holding one).

The component also registers the explicit Pulumi provider of the workspace (``provider``),
configured with the connection settings (the client secret as a secret). Every resource
given this component's ``connection`` is bound to it, which is what lets the provider host
serve ``ResourceOptions(import_=id)``: an import reaches the host with no properties, so the
connection must come from the provider's configuration.
"""

from __future__ import annotations

import asyncio
import math
import operator
from dataclasses import dataclass, fields
from typing import Any

import pulumi
from pydantic import ValidationError

from providers.auth.single_write import guard_declarations
from providers.client import sign_in
from providers.client.auth_type import (
    METHODS,
    SECRET_FIELDS,
    UNPROVEN_BY_A_TOKEN,
    config_key,
    with_config_keys,
)
from providers.client.blocking import in_thread
from providers.client.connection import Connection, deprecated_wire_form_warning
from providers.client.errors import InvalidClientCredentials, Unauthenticated, WorkspaceError
from providers.client.token import tokens

TYPE = "workspace:auth:WorkspaceAuth"
# The package of the dynamic provider plugin that serves every workspace kind.
PROVIDER_PACKAGE = "pulumi-python"

# The attribute of a component's `connection` output that names the component's provider:
# the binding travels with the value a resource is given.
BOUND_PROVIDER = "_workspace_provider"


class WorkspaceAuthError(pulumi.RunError):
    """The credentials or settings were refused; Pulumi prints the message without a trace."""


@dataclass
class WorkspaceAuthArgs:
    """The workspace and how to sign in to it. `auth_type` chooses the method; each method
    takes its own fields (docs/workspace-auth.md has one section per method). None, the
    default, is `azure-client-secret`, the one method before there was a choice."""

    base_url: pulumi.Input[str]
    auth_url: pulumi.Input[str] | None = None
    tenant_id: pulumi.Input[str] | None = None
    client_id: pulumi.Input[str] | None = None
    client_secret: pulumi.Input[str] | None = None
    resource: pulumi.Input[str] | None = None
    auth_type: pulumi.Input[str] | None = None
    token: pulumi.Input[str] | None = None
    profile: pulumi.Input[str] | None = None
    azure_workspace_resource_id: pulumi.Input[str] | None = None
    # Set: `base_url` is the account host and the connection is the account's (the
    # account-level kinds take it: docs/account.md).
    account_id: pulumi.Input[str] | None = None
    # The read-only principal previews sign in as where WORKSPACE_SIGN_IN_AS=preview.
    preview_client_id: pulumi.Input[str] | None = None
    # "public" (the public service's spelling of the API) or "legacy" (the original
    # specification's; "seed" is its deprecated name). None, the default, is "public", and
    # the provider's configuration then records no form: the provider host can tell a stack
    # that chose none from one that chose public (providers/core/host.py, CheckConfig).
    wire_form: pulumi.Input[str] | None = None
    timeout_seconds: pulumi.Input[float] = 30.0
    max_attempts: pulumi.Input[int] = 6
    max_retry_seconds: pulumi.Input[float] = 300.0
    rate_limit_per_second: pulumi.Input[float] = 0.0
    allow_insecure_http: pulumi.Input[bool] = False


class WorkspaceAuth(pulumi.ComponentResource):
    connection: pulumi.Output[dict[str, Any]]
    token_expires_on: pulumi.Output[float | None]

    def __init__(
        self,
        resource_name: str,
        args: WorkspaceAuthArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        take_over_default_provider: bool = False,
    ) -> None:
        """`take_over_default_provider=True` moves workspace resources a stack deployed on
        the default `pulumi-python` provider (a program without a WorkspaceAuth) onto this
        component's provider without replacing them (docs/workspace-auth.md). Only while no
        other dynamic resource of the program uses the default provider: the engine would
        refuse the alias as a duplicate."""
        guard_declarations()  # under the single-write mode, workspace kinds only
        super().__init__(TYPE, resource_name, None, opts)
        # Not dataclasses.asdict: it would deep-copy the Outputs.
        inputs = {f.name: getattr(args, f.name) for f in fields(args)}
        checked: pulumi.Output[tuple[dict[str, Any], float | None, Any]] = pulumi.Output.all(
            **inputs
        ).apply(lambda values: in_thread(_checked, values))
        self.connection = pulumi.Output.secret(checked.apply(lambda result: result[0]))
        self.token_expires_on = pulumi.Output.unsecret(checked.apply(lambda result: result[1]))
        _report_failure_once(self.token_expires_on)
        # Its own provider, an alias of the default one only when asked: the default
        # `pulumi-python` provider also serves the program's other dynamic resources
        # (docs/architecture.md).
        aliases = [_default_provider_urn()] if take_over_default_provider else None
        self.provider = pulumi.ProviderResource(
            PROVIDER_PACKAGE,
            resource_name,
            _provider_settings(
                self.connection,
                _chosen_wire_form(self, checked),
                {name for name in SECRET_FIELDS if getattr(args, name) is not None},
            ),
            pulumi.ResourceOptions(parent=self, aliases=aliases),
        )
        setattr(self.connection, BOUND_PROVIDER, self.provider)
        self.register_outputs(
            {"connection": self.connection, "token_expires_on": self.token_expires_on}
        )


def provider_for(connection: Any) -> pulumi.ProviderResource | None:
    """The provider of the WorkspaceAuth whose `connection` output this is; None for any
    other connection (the resource then uses the default provider and keeps its connection,
    a secret, in its own state)."""
    if isinstance(connection, pulumi.Output):
        bound: pulumi.ProviderResource | None = vars(connection).get(BOUND_PROVIDER)
        return bound
    return None


def _chosen_wire_form(
    component: WorkspaceAuth, checked: pulumi.Output[tuple[dict[str, Any], float | None, Any]]
) -> pulumi.Output[str | None]:
    """The connection's wire form where the program gave one (by its current name), else
    None; warns once where it gave the deprecated name."""

    def chosen(result: tuple[dict[str, Any], float | None, Any]) -> str | None:
        props, _, given = result
        if given is None:
            return None
        if (warning := deprecated_wire_form_warning(given)) is not None:
            pulumi.log.warn(
                f"{warning} (workspace:wireForm in a stack's config, wire_form of "
                "WorkspaceAuthArgs)",
                resource=component,
            )
        form: str = props["wire_form"]
        return form

    return pulumi.Output.unsecret(checked.apply(chosen))


def _provider_settings(
    connection: pulumi.Output[dict[str, Any]],
    wire_form: pulumi.Output[str | None],
    secrets_given: set[str],
) -> dict[str, Any]:
    # One setting per connection field, so the state shows where a stack points; only the
    # credentials' secrets stay secret. The wire form only where the program chose one (None drops
    # the setting).
    settings: dict[str, Any] = {}
    for key in Connection.model_fields:
        if key == "wire_form":
            settings[key] = wire_form
            continue
        if key in SECRET_FIELDS and key not in secrets_given:
            continue  # a secret of None would still be recorded, as a secret
        # Unset settings are None, which records no setting.
        value: pulumi.Output[Any] = connection.apply(operator.methodcaller("get", key))
        if key in SECRET_FIELDS:
            settings[key] = pulumi.Output.secret(value)
        else:
            settings[key] = pulumi.Output.unsecret(value)
    return settings


def _default_provider_urn() -> str:
    return (
        f"urn:pulumi:{pulumi.get_stack()}::{pulumi.get_project()}::"
        f"pulumi:providers:{PROVIDER_PACKAGE}::default"
    )


def _report_failure_once(output: pulumi.Output[Any]) -> None:
    # A failed check fails both outputs; Pulumi reports it through `connection` and stops,
    # and asyncio would print the unawaited twin again at exit, traceback and all.
    def consume(task: asyncio.Future[Any]) -> None:
        if not task.cancelled():
            task.exception()

    asyncio.ensure_future(output.future()).add_done_callback(consume)


def _checked(values: dict[str, Any]) -> tuple[dict[str, Any], float | None, Any]:
    """`check_credentials`, and the wire form as the program gave it (None: none)."""
    return (*check_credentials(values), values.get("wire_form"))


def check_credentials(values: dict[str, Any]) -> tuple[dict[str, Any], float | None]:
    """Validate the settings and sign in once: (connection props, token expiry). The expiry
    is None for a token that does not say (the cache holds it as never expiring, math.inf,
    which the engine cannot store: its state is JSON)."""
    # Left out (None): the connection's default, or the method does not use it.
    values = {key: value for key, value in values.items() if value is not None}
    try:
        connection = Connection.model_validate(values)
    except ValidationError as exc:
        raise WorkspaceAuthError(f"invalid workspace connection: {_describe(exc)}") from None
    except ValueError as exc:
        raise WorkspaceAuthError(
            f"invalid workspace connection: {with_config_keys(str(exc))}"
        ) from None
    try:
        signing_in = sign_in.acting(connection)
    except WorkspaceError as exc:
        raise WorkspaceAuthError(str(exc)) from None
    previewing = signing_in is not connection
    method = signing_in.method.value
    keys = (
        f"workspace:previewClientId, as {sign_in.SIGN_IN_AS_ENV}={sign_in.PREVIEW} asks"
        if previewing
        else _credential_keys(connection)
    )
    try:
        signed_in_before = tokens().holds(connection)
        token = tokens().get(connection)
        if _needs_proof(signing_in, signed_in_before):
            # Loaded here: the service areas are a third of a second a failed sign-in never
            # needs.
            from providers.client.workspace import client_for

            client_for(connection).prove()
    except InvalidClientCredentials as exc:
        raise WorkspaceAuthError(
            f"{exc.message}. Check the client id and the client secret (and that the secret "
            f"has not expired) for {connection.auth_url} ({exc.code}; auth type {method!r}, "
            f"{keys})"
        ) from None
    except Unauthenticated as exc:
        admission = ""
        azure = METHODS[signing_in.method].azure
        if azure and not previewing and connection.azure_workspace_resource_id is None:
            admission = (
                "; a principal that is not a member of the workspace yet is added as an admin "
                "where it is a Contributor or Owner of the workspace's Azure resource and the "
                "stack names that resource (workspace:azureWorkspaceResourceId)"
            )
        raise WorkspaceAuthError(
            f"the workspace {connection.base_url} refused the credentials of auth type "
            f"{method!r} ({keys}): {str(exc).rstrip('.')}. Check that they are right and "
            f"have not expired or been revoked{admission}"
        ) from None
    except WorkspaceError as exc:
        raise WorkspaceAuthError(
            f"could not sign in with auth type {method!r} ({keys}): {exc}"
        ) from None
    return connection.to_props(), token.expires_on if math.isfinite(token.expires_on) else None


def _needs_proof(signing_in: Connection, signed_in_before: bool) -> bool:
    """Whether the check also asks the workspace who the credentials stand for (SCIM Me):
    always for a token no identity provider had to issue (pat, a profile's), which only the
    workspace can judge; for an Azure AD token when it was just issued, since Azure AD
    issues one to any principal of the tenant and the workspace refuses (401 'User not
    authorized') a principal that is not a member, unless the management token admits it
    (on this very call). A token at hand has been through that check: a no-op preview or up
    keeps making no call to the workspace."""
    method = signing_in.method
    return method in UNPROVEN_BY_A_TOKEN or (METHODS[method].azure and not signed_in_before)


def _credential_keys(connection: Connection) -> str:
    method = METHODS[connection.method]
    names = [n for n in (*method.required, *method.optional) if getattr(connection, n) is not None]
    return ", ".join(f"workspace:{config_key(n)}" for n in ["auth_type", *names])


def _describe(exc: ValidationError) -> str:
    # Not str(exc): it would repeat the input values, the secret among them.
    problems = []
    for error in exc.errors(include_input=False, include_url=False):
        where = ".".join(str(part) for part in error["loc"])
        reason = with_config_keys(error["msg"].removeprefix("Value error, "))
        problems.append(f"{with_config_keys(where)}: {reason}" if where else reason)
    return "; ".join(problems)
