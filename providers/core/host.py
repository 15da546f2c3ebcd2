"""The resource-plugin host for every workspace kind: Pulumi's dynamic-provider host, plus
what `ResourceOptions(import_=id)` and an explicit workspace provider need.

It runs under the name of Pulumi's own plugin for dynamic providers, so the engine hands it
every dynamic resource of the program. A resource whose type token is not one of the
workspace kinds (a team's own `pulumi.dynamic.ResourceProvider`) is answered by Pulumi's own
host as the installed SDK implements it (providers/core/pulumi_host.py), configuration included:
such resources behave exactly as they would without this package.

Pulumi's own host (`python -m pulumi.dynamic`) finds the provider code in the `__provider`
property the program sends. An import gives it nothing: the engine's import step reads the
object by id with no properties at all (pulumi/pulumi#16175). This host answers that read
itself: the kind comes from the type token, the connection from the configuration of the
explicit provider a `WorkspaceAuth` component registers. The read returns outputs that
carry `__provider` and the connection, so update, refresh and delete work as for any created
resource, and inputs with no settings: nothing is declared yet, so the engine's diff compares
the settings the program declares with what the service shows (`WorkspaceProvider.diff`,
given the old inputs), and a mismatch names just the settings that differ.

The provider configuration is the connection's settings. `CheckConfig` validates them, and
refuses a configuration that names no wire form to a provider whose state recorded the
legacy one, the default before (`left_default_wire_form`); `DiffConfig` reports another
connection (rotated credentials, another wire form, a provider taking over the default one,
which has none) as an update of the provider alone, never a replacement: no resource
changes, and the engine configures the running provider with the new connection before any
resource uses it (see `DiffConfig` for why "no change" would not).

A resource bound to a configured provider keeps neither the connection nor `__provider` in
its state (together ~1.9 KiB of each resource's ~3 KiB), and the program sends neither
(providers/core/resource.py): `Check` and every answer drop them, and every request gets them
back, the connection from the configuration, the
provider code from the type token. A state recorded before keeps working (the diff ignores
both) and loses them at its next up (inputs) and refresh or update (outputs). Resources on
the default provider (no `WorkspaceAuth`; its configuration has no connection settings: 3.79
configures it with nothing, newer engines with the stack's config) keep them.

A resource whose declaration is the recorded one, and whose recorded outputs show it as
declared, is answered from the requests alone: `Check` accepts what an earlier `Check`
accepted, `Diff` says no change (`_nothing_to_change` says when that holds). A no-op preview
or up thus loads no kind's implementation (for a job, the SDK's dataclass modules and the
settings schema derived from them: most of a host's start) and validates nothing again.

What the provider code logs with `pulumi.log` while the host serves a resource reaches the
engine as a diagnostic of that resource, at its severity (providers/core/engine_log.py), so a
kind's warning shows as a warning of its resource in `pulumi preview`.

Where engines differ (docs/engines.md, "What differs between engines"): newer engines diff a
refresh against the recorded inputs, which an import leaves empty (no change: nothing was
declared), and follow an import whose settings differ with an update, which this host
refuses (3.79 refuses the import itself), so an import writes nothing to the workspace.
"""

from __future__ import annotations

import base64
import functools
import gc
import sys
import time
from collections.abc import Callable, Mapping
from concurrent import futures
from typing import TYPE_CHECKING, Any

import dill
import grpc
import pulumi
import pydantic
from google.protobuf import empty_pb2, struct_pb2
from pulumi.dynamic import DiffResult, ResourceProvider
from pulumi.output import Unknown
from pulumi.runtime import proto, rpc
from pulumi.runtime.proto import ResourceProviderServicer, provider_pb2_grpc

from providers.client import Connection, WireForm, WorkspaceError, process
from providers.client.connection import DEFAULT_WIRE_FORM
from providers.core import engine_log
from providers.core.lifecycle import (
    CONNECTION_KEY,
    PROVIDER_KEY,
    WorkspaceProvider,
    contains_unknown,
    user_inputs,
)
from providers.core.properties import from_struct, to_struct, value_of
from providers.core.pulumi_host import sdk_servicer
from providers.core.validation_errors import InvalidInput

if TYPE_CHECKING:
    from providers.core.kind import Kind
# Nothing of the kinds' machinery (the registry and its declarations, providers.core.kind,
# providers.core.resource: the component, its tokens and transport) nor the client's service
# areas is imported here: a host that only answers configuration (the engine starts one for
# a WorkspaceAuth's provider) never needs them. `kind_of` and the provider code of a
# request load them.

WORKERS = 4
MAX_MESSAGE_BYTES = 400 * 1024 * 1024


# (a change's kind, whether it replaces) -> the engine's kind of property diff.
_PROPERTY_DIFF_KINDS = {
    ("add", False): proto.PropertyDiff.ADD,
    ("add", True): proto.PropertyDiff.ADD_REPLACE,
    ("update", False): proto.PropertyDiff.UPDATE,
    ("update", True): proto.PropertyDiff.UPDATE_REPLACE,
    ("delete", False): proto.PropertyDiff.DELETE,
    ("delete", True): proto.PropertyDiff.DELETE_REPLACE,
}


def _top_level(path: str) -> str:
    return path.split("[")[0].split(".")[0]


class ImportRefused(Exception):
    """An import that cannot proceed; the message says why and names the id."""


def _type_token(urn: str) -> str:
    """`urn:pulumi:stack::project::[parent$]pulumi-python:dynamic/workspace:Job::name` ->
    `pulumi-python:dynamic/workspace:Job`."""
    return urn.split("::")[2].rsplit("$", 1)[-1]


def is_workspace_resource(urn: str) -> bool:
    """Whether `urn` is of the package's type tokens; any other dynamic resource of the
    program (a team's own provider) is Pulumi's host's to serve."""
    from providers.core.kind import TYPE_PREFIX

    return _type_token(urn).startswith(TYPE_PREFIX)


def kind_of(urn: str) -> Kind:
    """`urn:pulumi:stack::project::[parent$]pulumi-python:dynamic/workspace:Job::name` -> Job."""
    from providers.core.kind import TYPE_PREFIX
    from providers.core.registry import UnknownKind, kind_named

    type_token = _type_token(urn)
    if not type_token.startswith(TYPE_PREFIX):
        raise ImportRefused(f"{type_token} is not a workspace resource kind")
    try:
        # A declaration: its provider loads this kind's implementation and no other.
        return kind_named(type_token.removeprefix(TYPE_PREFIX))
    except UnknownKind:
        raise ImportRefused(f"{type_token} is not a workspace resource kind") from None


def plain(value: Any) -> Any:
    """A deserialised value with the secret markers taken off (this host keeps no secrets)."""
    value = rpc.unwrap_rpc_secret(value)
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def connection_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """The connection settings of a provider's configuration; empty where it is no connection.

    A WorkspaceAuth's provider is configured with one setting per connection field. Newer
    engines (3.1xx on) configure the default provider of a dynamic package with the whole
    stack config instead (`<namespace>:<key>` keys, such as `workspace:baseUrl`): that is
    no connection, and the resources on it carry their own."""
    return {k: v for k, v in config.items() if k in Connection.model_fields}


def wire_form_of(settings: Mapping[str, Any]) -> Any:
    """The wire form connection settings talk: the one they name (the deprecated `seed` is
    `legacy`), the default where they name none; a value that is no form as it is
    (CheckConfig refuses it)."""
    value = settings.get("wire_form")
    if value is None:
        return DEFAULT_WIRE_FORM.value
    try:
        return WireForm(value).value
    except ValueError:
        return value


def left_default_wire_form(olds: Mapping[str, Any], news: Mapping[str, Any]) -> str | None:
    """Why a provider configured without a wire form cannot take the default, if it cannot.

    A program that gives no wire form talks the public form; before, it talked the legacy
    one, which the provider's configuration recorded (by its deprecated name `seed`). Such a
    stack is not moved to the other form silently: it has to say which one it talks."""
    if "wire_form" in news or wire_form_of(olds) != WireForm.LEGACY.value:
        return None
    return (
        "workspace:wireForm is not set, and this stack was deployed talking the legacy wire "
        f"form (the default until {DEFAULT_WIRE_FORM.value!r} became it). Set "
        f"workspace:wireForm to {WireForm.LEGACY.value!r} to keep talking the form this stack "
        f"was deployed with, or to {WireForm.PUBLIC.value!r} to switch to the public service's "
        "spelling (`pulumi config set workspace:wireForm legacy`; a program of its own: "
        "wire_form of WorkspaceAuthArgs)"
    )


def connection_failures(config: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, reason) per bad connection setting; none while a setting is still unknown."""
    config = connection_settings(config)
    if not config or contains_unknown(dict(config)):
        return []
    try:
        Connection.from_props(dict(config))
    except pydantic.ValidationError as error:
        return [
            (".".join(str(p) for p in issue["loc"]) or "connection", issue["msg"])
            for issue in error.errors(include_url=False, include_input=False)
        ]
    return []


def _provider_in(props: Mapping[str, Any]) -> ResourceProvider:
    return dill.loads(base64.b64decode(props[PROVIDER_KEY]))


def _provider_of(olds: Mapping[str, Any], news: Mapping[str, Any]) -> ResourceProvider:
    # During a preview the program's `__provider` may still be unknown.
    if isinstance(news.get(PROVIDER_KEY), Unknown) or PROVIDER_KEY not in news:
        return _provider_in(olds)
    return _provider_in(news)


def _serving(
    kind: Kind | None, olds: Mapping[str, Any], news: Mapping[str, Any] | None = None
) -> ResourceProvider:
    """The provider of a request: a bound resource's from its kind, any other's from the
    code its properties carry (the new ones', where the request has them)."""
    if kind is not None:
        return kind.provider()
    return _provider_in(olds) if news is None else _provider_of(olds, news)


def _with_code(
    kind: Kind | None, outs: dict[str, Any] | None, props: Mapping[str, Any]
) -> dict[str, Any]:
    """What a create, update or read answers: an unbound resource's outputs carry its
    provider code, as Pulumi's own host does; a bound one's never do."""
    if kind is not None:
        return outs or {}
    return {**(outs or {}), PROVIDER_KEY: props[PROVIDER_KEY]}


def _import_refusal(
    kind: Kind,
    provider: WorkspaceProvider,
    id_: str,
    olds: dict[str, Any],
    news: dict[str, Any],
    old_inputs: Mapping[str, Any],
) -> str:
    """Why an update of an object this deployment imported is refused. Newer engines import
    an object whose settings differ from the declared ones and then update it; 3.79 refuses
    the import. Refused here too, so an import writes nothing to the workspace on either
    engine."""
    diff = provider.diff(id_, olds, news, old_inputs=old_inputs)
    return (
        f"cannot import {kind.name} {id_!r}: its settings differ from the declared ones "
        f"({', '.join(diff.changed_keys)}); declare them as the object has them "
        "(`pulumi preview --diff` shows both), and change them in a later update"
    )


def _carries_plumbing(props: struct_pb2.Struct) -> bool:
    """Whether `props` hold the connection or the provider code, which a bound resource's
    state must lose (a state and a program from before both carry them)."""
    return CONNECTION_KEY in props.fields or PROVIDER_KEY in props.fields


def _accepted_before(request: Any) -> bool:
    """Whether a Check's new inputs are the recorded ones, which an earlier Check accepted,
    and carry nothing a bound resource's state must lose."""
    if _carries_plumbing(request.news):
        return False
    return bool(request.olds.fields) and request.news == request.olds


def _nothing_to_change(kind: Kind, request: Any) -> bool:
    """Whether a Diff is "no change" without the kind's implementation: the declared inputs
    are the recorded ones, the recorded outputs hold each of them as declared, and they hold
    nothing else but what the kind computes and the inputs left out at the value the kind
    holds them to (`Kind.defaults`). The kind's diff compares normal forms, and
    outputs are recorded in that form (a read projects what the service shows onto it), so it
    would find no change either. Anything else gets the kind's diff: drift a refresh read, a
    setting kept as its digest or not shown by the service, an import, a state recorded
    before. Compared as the engine sent them, so a no-op preview or up loads no kind's code
    and validates nothing again. A kind whose diff reads the service
    (`WorkspaceProvider.diff_reads_the_service`) always gets its diff."""
    news, olds = request.news.fields, request.olds.fields
    if not news or request.news != request.old_inputs:
        return False
    if kind.provider.diff_reads_the_service:  # a token's remaining lifetime
        return False
    if any(key not in olds or olds[key] != value for key, value in news.items()):
        return False
    return all(
        key in news
        or key in kind.computed_keys
        or (key in kind.defaults and olds[key] == value_of(kind.defaults[key]))
        for key in olds
    )


def _inputs_kept(inputs: struct_pb2.Struct) -> struct_pb2.Struct:
    """The recorded inputs of a bound resource as its state keeps them: as they are, or,
    where a state recorded before holds the connection or the provider code, without them."""
    if not _carries_plumbing(inputs):
        return inputs
    return to_struct(user_inputs(from_struct(inputs)))


def _unimplemented(context: grpc.ServicerContext, what: str) -> None:
    context.abort(grpc.StatusCode.UNIMPLEMENTED, f"{what} is not implemented by this provider")


def _others_to_pulumi(method: Callable[..., Any]) -> Callable[..., Any]:
    """A resource call of this host that answers workspace resources itself and any other
    dynamic resource of the program as Pulumi's own host would."""

    @functools.wraps(method)
    def routed(self: WorkspaceProviderHost, request: Any, context: Any) -> Any:
        if is_workspace_resource(request.urn):
            try:
                return method(self, request, context)
            except pydantic.ValidationError as error:
                # Its text would print the values given, a secret among them.
                raise InvalidInput.of(error) from None
        return getattr(self.pulumi_host(), method.__name__)(request, context)

    return routed


class WorkspaceProviderHost(ResourceProviderServicer):
    """Serves the workspace kinds (the dynamic-provider protocol, configuration: the
    connection, and import), and every other dynamic resource through Pulumi's own host."""

    def __init__(self) -> None:
        self.connection: dict[str, Any] | None = None
        # Pulumi's own host for the program's other dynamic resources, made on first use and
        # configured as this host was (`configure` of a team's provider, on SDKs that have it).
        self._pulumi_host: Any = None
        self._configuration: Any = None
        # The URNs this host read for an import. The engine starts a host per deployment, so
        # these are the resources imported by the running deployment.
        self.imported: set[str] = set()
        # The id each create of this deployment returned, by URN (see Delete).
        self.created: dict[str, str] = {}

    def pulumi_host(self) -> Any:
        if self._pulumi_host is None:
            host = sdk_servicer()
            if self._configuration is not None:
                host.Configure(self._configuration, None)
            self._pulumi_host = host
        return self._pulumi_host

    def _bound_kind(self, urn: str) -> Kind | None:
        """The kind of a workspace resource whose connection and provider code this host
        supplies (it is configured with a connection); None where the state keeps them."""
        if not self.connection:
            return None
        try:
            return kind_of(urn)
        except ImportRefused:
            return None

    def _completed(self, kind: Kind | None, props: dict[str, Any]) -> dict[str, Any]:
        """`props` with the connection a bound resource's state leaves out put back (its
        provider comes from its kind: `_serving`). The configured connection wins over a
        recorded one: it holds the current credentials."""
        if kind is None:
            return props
        return {**props, CONNECTION_KEY: self.connection}

    @staticmethod
    def _recorded(kind: Kind | None, props: dict[str, Any]) -> dict[str, Any]:
        """What the state keeps of `props`."""
        return props if kind is None else user_inputs(props)

    def GetPluginInfo(self, request, context):
        return proto.PluginInfo(version="0.1.0")

    def GetSchema(self, request, context):
        _unimplemented(context, "GetSchema")

    def Invoke(self, request, context):
        _unimplemented(context, f"function {request.tok}")

    def Cancel(self, request, context):
        return empty_pb2.Empty()

    @_others_to_pulumi
    def Check(self, request, context):
        kind = self._bound_kind(request.urn)
        if kind is not None and _accepted_before(request):
            return proto.CheckResponse(inputs=request.news)
        olds = self._completed(kind, from_struct(request.olds, True))
        news = self._completed(kind, from_struct(request.news, True))
        result = _serving(kind, olds, news).check(olds, news)
        inputs = dict(result.inputs)
        if kind is None:
            inputs[PROVIDER_KEY] = news.get(PROVIDER_KEY, olds.get(PROVIDER_KEY))
        failures = [
            proto.CheckFailure(property=f.property, reason=f.reason) for f in result.failures or []
        ]
        return proto.CheckResponse(
            inputs=to_struct(self._recorded(kind, inputs)), failures=failures
        )

    @_others_to_pulumi
    def Diff(self, request, context):
        kind = self._bound_kind(request.urn)
        if kind is not None and _nothing_to_change(kind, request):
            return proto.DiffResponse(changes=proto.DiffResponse.DIFF_NONE, hasDetailedDiff=True)
        olds = self._completed(kind, from_struct(request.olds, True))
        news = self._completed(kind, from_struct(request.news, True))
        if kind is not None and not user_inputs(news):
            # Nothing declared to compare with: newer engines' refresh diffs what it read
            # with the recorded inputs, which an import leaves empty.
            return proto.DiffResponse(changes=proto.DiffResponse.DIFF_NONE, hasDetailedDiff=True)
        old_inputs = from_struct(request.old_inputs, True)
        provider = _serving(kind, olds, news)
        result: DiffResult
        if isinstance(provider, WorkspaceProvider):
            result = provider.diff(request.id, olds, news, old_inputs=old_inputs)
        else:
            result = provider.diff(request.id, olds, news)
        stables = result.stables or []
        if result.changes is None:
            return proto.DiffResponse(changes=proto.DiffResponse.DIFF_UNKNOWN, stables=stables)
        if not result.changes:
            # An empty detailed diff: nothing to show, not even where the engine's own
            # comparison of the inputs differs (credentials, `__provider`).
            return proto.DiffResponse(
                changes=proto.DiffResponse.DIFF_NONE, stables=stables, hasDetailedDiff=True
            )
        fields: dict[str, Any] = {}
        changed = getattr(result, "changed_keys", None)
        detailed = getattr(result, "detailed_paths", None)
        replaced = set(result.replaces or [])
        if detailed:
            # Field by field, as the kind sees it (a job's task by key), so `preview --diff`
            # names the field also where the inputs did not change (drift read by refresh).
            fields.update(
                diffs=changed,
                hasDetailedDiff=True,
                detailedDiff={
                    path: proto.PropertyDiff(
                        kind=_PROPERTY_DIFF_KINDS[kind, _top_level(path) in replaced]
                    )
                    for path, kind in detailed.items()
                },
            )
        elif changed and not user_inputs(old_inputs):
            # An import: the engine would compare the read's inputs (none) with the program's
            # and name every declared key; name the ones that differ instead.
            fields.update(
                diffs=changed,
                hasDetailedDiff=True,
                detailedDiff={
                    key: proto.PropertyDiff(kind=_PROPERTY_DIFF_KINDS["update", key in replaced])
                    for key in changed
                },
            )
        return proto.DiffResponse(
            changes=proto.DiffResponse.DIFF_SOME,
            replaces=result.replaces or [],
            stables=stables,
            deleteBeforeReplace=bool(result.delete_before_replace),
            **fields,
        )

    @_others_to_pulumi
    def Create(self, request, context):
        kind = self._bound_kind(request.urn)
        props = self._completed(kind, from_struct(request.properties))
        result = _serving(kind, props).create(props)
        self.created[request.urn] = str(result.id)
        outs = _with_code(kind, result.outs, props)
        return proto.CreateResponse(id=result.id, properties=to_struct(self._recorded(kind, outs)))

    @_others_to_pulumi
    def Update(self, request, context):
        kind = self._bound_kind(request.urn)
        olds = self._completed(kind, from_struct(request.olds))
        news = self._completed(kind, from_struct(request.news))
        provider = _serving(kind, news)
        if isinstance(provider, WorkspaceProvider):
            old_inputs = from_struct(request.old_inputs)
            if kind is not None and request.urn in self.imported:
                refusal = _import_refusal(kind, provider, request.id, olds, news, old_inputs)
                context.abort(grpc.StatusCode.FAILED_PRECONDITION, refusal)
            result = provider.update(request.id, olds, news, old_inputs=old_inputs)
        else:
            result = provider.update(request.id, olds, news)
        outs = _with_code(kind, result.outs, news)
        return proto.UpdateResponse(properties=to_struct(self._recorded(kind, outs)))

    @_others_to_pulumi
    def Delete(self, request, context):
        if self.created.get(request.urn) == request.id:
            # A replacement created before the delete (`pulumi up --replace`, or any
            # replacement the engine does create-first) whose create adopted the very object
            # it replaces, found by its deployment tag or natural key: deleting the old
            # resource's object would delete the new one's.
            pulumi.log.warn(
                f"{request.urn}: kept {request.id}, which its replacement adopted "
                "(set deleteBeforeReplace on the resource for a new object)"
            )
            return empty_pb2.Empty()
        kind = self._bound_kind(request.urn)
        props = self._completed(kind, from_struct(request.properties))
        _serving(kind, props).delete(request.id, props)
        return empty_pb2.Empty()

    def Configure(self, request, context):
        config = plain(from_struct(request.args))
        self.connection = connection_settings(config) or None
        self._configuration = request
        if self._pulumi_host is not None:
            self._pulumi_host.Configure(request, context)
        # Resource calls keep the SDK's behaviour: plain values in, the engine re-marks
        # the secrets it knows of.
        return proto.ConfigureResponse(acceptSecrets=False)

    def CheckConfig(self, request, context):
        news = plain(from_struct(request.news, True))
        failures = [
            proto.CheckFailure(property=field, reason=reason)
            for field, reason in connection_failures(news)
        ]
        olds = connection_settings(plain(from_struct(request.olds, True)))
        if news := connection_settings(news):
            if refusal := left_default_wire_form(olds, news):
                failures.append(proto.CheckFailure(property="", reason=refusal))
        return proto.CheckResponse(inputs=request.news, failures=failures)

    def DiffConfig(self, request, context):
        # Another connection (rotated credentials, another wire form or address, a provider
        # taking over the default one, which has none) is an update of the provider alone:
        # it never replaces the provider, so no resource changes. It must not be "no change":
        # newer engines then keep the provider running as configured from the state, with
        # the old connection, for the whole deployment, and bound resources send none.
        olds = connection_settings(plain(from_struct(request.olds, True)))
        news = connection_settings(plain(from_struct(request.news, True)))
        if olds and news:
            # The form talked, not its name: `legacy` and the deprecated `seed` are one form, a
            # form left out is the default. Kept as recorded, the connection talks the same.
            olds["wire_form"], news["wire_form"] = wire_form_of(olds), wire_form_of(news)
        changed = sorted(key for key in olds.keys() | news.keys() if olds.get(key) != news.get(key))
        if not changed:
            return proto.DiffResponse(changes=proto.DiffResponse.DIFF_NONE)
        return proto.DiffResponse(changes=proto.DiffResponse.DIFF_SOME, diffs=changed)

    @_others_to_pulumi
    def Read(self, request, context):
        if request.properties.fields:
            return self._refresh(request)
        try:
            return self._read_for_import(request.urn, request.id)
        except ImportRefused as error:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))

    def _refresh(self, request: Any) -> Any:
        kind = self._bound_kind(request.urn)
        recorded = from_struct(request.properties)
        props = self._completed(kind, recorded)
        result = _serving(kind, props).read(request.id, props)
        outs = self._recorded(kind, _with_code(kind, result.outs, props))
        if outs == recorded and not _carries_plumbing(request.properties):
            # Found as recorded (most of a refresh): answered as the engine sent them.
            properties = request.properties
        else:
            properties = to_struct(outs)
        answer = {"id": result.id, "properties": properties}
        if kind is not None and request.inputs.fields:
            answer["inputs"] = _inputs_kept(request.inputs)
        return proto.ReadResponse(**answer)  # type: ignore[attr-defined]

    def _read_for_import(self, urn: str, id_: str) -> Any:
        kind = kind_of(urn)
        self.imported.add(urn)
        if not kind.importable:
            raise ImportRefused(f"the workspace resource kind {kind.name!r} cannot be imported")
        if not self.connection:
            raise ImportRefused(
                f"cannot import {kind.name} {id_!r}: the resource has no workspace connection; "
                "pass `connection=` the `connection` output of a WorkspaceAuth component"
            )
        problem = kind.import_id_problem(id_)
        if problem is not None:  # before any request: `clusters/..` names another endpoint
            raise ImportRefused(f"cannot import {kind.name}: {problem}")
        provider = kind.provider()
        try:
            found = provider.read(id_, {CONNECTION_KEY: self.connection})
        except (WorkspaceError, ValueError) as error:
            raise ImportRefused(f"cannot import {kind.name} {id_!r}: {error}") from None
        if found.id is None:
            base_url = self.connection.get("base_url")
            raise ImportRefused(
                f"cannot import {kind.name} {id_!r}: the workspace {base_url} has no such object"
            )
        # No inputs: nothing is declared yet, so the diff compares what the program declares
        # with what the service shows, and nothing else. The connection and the provider
        # code come back from the configuration and the type token on every later call.
        outputs = user_inputs(found.outs or {})
        return proto.ReadResponse(  # type: ignore[attr-defined]
            id=found.id, properties=to_struct(outputs), inputs=struct_pb2.Struct()
        )


def main() -> None:
    # The host's tokens, sessions, rate limits and listings, shared by its workers.
    process.start()
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=WORKERS),
        options=[("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)],
        # What a resource call's code logs becomes a diagnostic of its resource.
        interceptors=engine_log.interceptors(sys.argv[1:]),
    )
    provider_pb2_grpc.add_ResourceProviderServicer_to_server(WorkspaceProviderHost(), server)
    port = server.add_insecure_port(address="127.0.0.1:0")
    # What start-up loaded lives as long as the host: kept out of the collector's full
    # passes, each of which would otherwise walk it again (15 ms per pass in a refresh).
    gc.freeze()
    server.start()
    sys.stdout.buffer.write(f"{port}\n".encode())
    sys.stdout.flush()
    try:
        while True:
            time.sleep(86400)
    except KeyboardInterrupt:
        server.stop(0)


if __name__ == "__main__":
    main()
