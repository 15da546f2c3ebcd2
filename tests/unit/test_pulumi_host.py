"""The provider host hands every dynamic resource that is no workspace kind to Pulumi's own
host, as the installed SDK implements it (providers/core/pulumi_host.py); the end-to-end proof
on both engines is tests/e2e/test_coexistence.py."""

from __future__ import annotations

import ast
import asyncio
from typing import Any

import pytest
from google.protobuf import struct_pb2
from pulumi.dynamic import CreateResult, DiffResult, ReadResult, ResourceProvider, UpdateResult
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.runtime import proto, rpc

from providers.core.host import WorkspaceProviderHost, is_workspace_resource
from providers.core.lifecycle import PROVIDER_KEY
from providers.core.pulumi_host import _starts_the_server, sdk_host_module

TEAM_URN = "urn:pulumi:dev::app::pulumi-python:dynamic:Resource::note"
SCOPE_URN = "urn:pulumi:dev::app::pulumi-python:dynamic/workspace:SecretScope::etl"
CALLS: list[tuple[str, Any]] = []


class NoteProvider(ResourceProvider):
    """A team's own provider: records each call."""

    def create(self, props: dict[str, Any]) -> CreateResult:
        CALLS.append(("create", props["text"]))
        return CreateResult("note-1", {**props, "length": len(props["text"])})

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        CALLS.append(("diff", news["text"]))
        return DiffResult(changes=olds["text"] != news["text"], replaces=[])

    def update(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        CALLS.append(("update", news["text"]))
        return UpdateResult({**news, "length": len(news["text"])})

    def delete(self, id_: str, _props: dict[str, Any]) -> None:
        CALLS.append(("delete", id_))

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        CALLS.append(("read", id_))
        return ReadResult(id_, props)


class Context:
    def abort(self, code: Any, details: str) -> None:
        raise AssertionError(f"aborted: {code} {details}")


def struct(values: dict[str, Any]) -> struct_pb2.Struct:
    return asyncio.new_event_loop().run_until_complete(rpc.serialize_properties(values, {}))


def team_props(text: str) -> struct_pb2.Struct:
    return struct({"text": text, PROVIDER_KEY: serialize_provider(NoteProvider())})


@pytest.fixture(autouse=True)
def no_calls_yet() -> None:
    CALLS.clear()


def test_the_sdks_host_module_loads_without_starting_its_server() -> None:
    module = sdk_host_module()
    assert callable(module.main)  # defined, not called: loading returned
    assert hasattr(module.DynamicResourceProviderServicer, "Create")


@pytest.mark.parametrize(
    ("statement", "starts"),
    [("main()", True), ("if __name__ == '__main__':\n    main()", True),
     ("def main():\n    pass", False), ("x = main", False), ("other()", False)],
)
def test_only_the_call_that_starts_the_server_is_left_out(statement: str, starts: bool) -> None:
    [node] = ast.parse(statement).body
    assert _starts_the_server(node) is starts


def test_workspace_kinds_are_told_apart_by_their_type_token() -> None:
    assert is_workspace_resource(SCOPE_URN)
    assert is_workspace_resource(
        "urn:pulumi:dev::app::workspace:auth:WorkspaceAuth$pulumi-python:dynamic/workspace:Job::j"
    )
    assert not is_workspace_resource(TEAM_URN)
    assert not is_workspace_resource("urn:pulumi:dev::app::pulumi-python:dynamic/team:Note::n")


def test_a_teams_resource_goes_through_pulumis_host_in_every_call() -> None:
    host = WorkspaceProviderHost()
    host.Configure(proto.ConfigureRequest(args=struct({}), acceptSecrets=True), Context())
    context = Context()

    checked = host.Check(
        proto.CheckRequest(urn=TEAM_URN, olds=struct({}), news=team_props("hello")), context
    )
    assert not checked.failures and PROVIDER_KEY in checked.inputs.fields
    created = host.Create(proto.CreateRequest(urn=TEAM_URN, properties=checked.inputs), context)
    outs = rpc.deserialize_properties(created.properties)
    assert (created.id, outs["length"]) == ("note-1", 5)
    assert PROVIDER_KEY in outs  # Pulumi's host keeps the provider code in the outputs

    diff = host.Diff(
        proto.DiffRequest(urn=TEAM_URN, id="note-1", olds=created.properties,
                          news=team_props("hello, world")),
        context,
    )
    assert diff.changes == proto.DiffResponse.DIFF_SOME
    updated = host.Update(
        proto.UpdateRequest(urn=TEAM_URN, id="note-1", olds=created.properties,
                            news=team_props("hello, world")),
        context,
    )
    assert rpc.deserialize_properties(updated.properties)["length"] == 12
    read = host.Read(
        proto.ReadRequest(urn=TEAM_URN, id="note-1", properties=updated.properties), context
    )
    assert read.id == "note-1"
    host.Delete(proto.DeleteRequest(urn=TEAM_URN, id="note-1", properties=updated.properties),
                context)

    assert [call for call, _ in CALLS] == ["create", "diff", "update", "read", "delete"]
    assert host._pulumi_host is not None  # made on first use


def test_a_host_that_serves_only_workspace_kinds_never_makes_pulumis() -> None:
    host = WorkspaceProviderHost()
    connection = {"base_url": "https://adb-1.example.net", "client_id": "c"}
    host.Configure(proto.ConfigureRequest(args=struct(connection), acceptSecrets=True),
                   Context())
    recorded = struct({"name": "etl"})
    checked = host.Check(proto.CheckRequest(urn=SCOPE_URN, olds=recorded, news=recorded),
                         Context())
    assert checked.inputs == recorded
    assert host._pulumi_host is None
