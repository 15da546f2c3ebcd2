"""What the provider host keeps out of a resource's state: bound to a configured provider
(a WorkspaceAuth's), a resource's inputs and outputs carry neither the connection nor
`__provider`; every call gets them back from the configuration and the type token. A
state recorded with them keeps working and loses them; an unconfigured host (the default
provider) keeps today's behaviour."""

from __future__ import annotations

import uuid
from typing import Any

from google.protobuf import struct_pb2
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.runtime import proto, rpc

from providers.client import WorkspaceClient
from providers.compute.cluster_state import ClusterStateProvider
from providers.compute.clusters_api import ClustersApi
from providers.core.host import WorkspaceProviderHost
from providers.core.lifecycle import CONNECTION_KEY, PROVIDER_KEY
from providers.jobs.job import JobProvider
from providers.secrets.secret_scope import SecretScopeProvider
from providers.secrets.secret_scopes_api import SecretScopesApi
from tests.providers.test_host import JOB_URN, SCOPE_URN, Context, configured, props_of, struct

PLUMBING = {CONNECTION_KEY, PROVIDER_KEY}


def program_inputs(connection: dict[str, Any], name: str) -> struct_pb2.Struct:
    """What the program sends for a SecretScope: its settings, the connection, the code."""
    return struct(
        {
            "name": name,
            CONNECTION_KEY: connection,
            PROVIDER_KEY: serialize_provider(SecretScopeProvider()),
        }
    )


def check(host: WorkspaceProviderHost, news: struct_pb2.Struct, olds: Any = None) -> Any:
    answer = host.Check(
        proto.CheckRequest(urn=SCOPE_URN, olds=olds or struct({}), news=news), Context()
    )
    assert not answer.failures
    return answer.inputs


def create(host: WorkspaceProviderHost, inputs: struct_pb2.Struct) -> Any:
    return host.Create(proto.CreateRequest(urn=SCOPE_URN, properties=inputs), Context())


def delete_in_a_later_deployment(host: WorkspaceProviderHost, name: str,
                                 outputs: struct_pb2.Struct) -> None:
    """The delete as a later deployment's host, configured alike, makes it: the engine starts
    a host per deployment, and a host never deletes what a create of its own deployment
    returned for the same resource (a replacement that adopted it)."""
    later = WorkspaceProviderHost()
    later.connection = host.connection
    later.Delete(proto.DeleteRequest(id=name, urn=SCOPE_URN, properties=outputs), Context())


def scope_names(client: WorkspaceClient) -> set[str]:
    return {s["name"] for s in SecretScopesApi(client).list()}


def test_a_bound_resource_keeps_no_connection_nor_provider_code(connection, client):
    host = configured(connection)
    name = f"state-{uuid.uuid4().hex[:10]}"

    inputs = check(host, program_inputs(connection, name))
    assert props_of(inputs) == {"name": name}
    made = create(host, inputs)
    outputs = made.properties
    assert made.id == name and name in scope_names(client)
    assert not PLUMBING & set(props_of(outputs))

    same = host.Diff(
        proto.DiffRequest(id=name, urn=SCOPE_URN, olds=outputs, news=inputs, old_inputs=inputs),
        Context(),
    )
    assert same.changes == proto.DiffResponse.DIFF_NONE

    refreshed = host.Read(
        proto.ReadRequest(id=name, urn=SCOPE_URN, properties=outputs, inputs=inputs), Context()
    )
    assert refreshed.id == name
    assert props_of(refreshed.properties) == props_of(outputs)
    assert props_of(refreshed.inputs) == props_of(inputs)

    delete_in_a_later_deployment(host, name, outputs)
    assert name not in scope_names(client)


def test_an_update_of_a_bound_resource_records_no_connection(connection, client):
    host = configured(connection)
    settings = {
        "name": f"state-job-{uuid.uuid4().hex[:8]}",
        "new_cluster": {"spark_version": "13.3.x-scala2.12", "node_type_id": "n", "num_workers": 1},
        "spark_python_task": {"python_file": "dbfs:/jobs/etl.py"},
        "max_retries": 1,
    }

    def job_inputs(**changes: Any) -> struct_pb2.Struct:
        return struct(
            {
                **settings,
                **changes,
                CONNECTION_KEY: connection,
                PROVIDER_KEY: serialize_provider(JobProvider()),
            }
        )

    def call(method: str, request_type: Any, **fields: Any) -> Any:
        return getattr(host, method)(request_type(urn=JOB_URN, **fields), Context())

    inputs = call("Check", proto.CheckRequest, olds=struct({}), news=job_inputs()).inputs
    made = call("Create", proto.CreateRequest, properties=inputs)
    news = call("Check", proto.CheckRequest, olds=inputs, news=job_inputs(max_retries=3)).inputs
    assert not PLUMBING & set(props_of(news))
    diff = call(
        "Diff", proto.DiffRequest, id=made.id, olds=made.properties, news=news, old_inputs=inputs
    )
    assert diff.changes == proto.DiffResponse.DIFF_SOME and not diff.replaces
    updated = call("Update", proto.UpdateRequest, id=made.id, olds=made.properties, news=news)
    outputs = props_of(updated.properties)
    (task,) = outputs["tasks"]  # recorded in the normal form: the legacy job's one task
    assert task["max_retries"] == 3 and not PLUMBING & set(outputs)
    read = call("Read", proto.ReadRequest, id=made.id, properties=updated.properties, inputs=news)
    (task,) = props_of(read.properties)["tasks"]
    assert task["max_retries"] == 3  # as the service shows it now
    call("Delete", proto.DeleteRequest, id=made.id, properties=updated.properties)


def test_a_state_recorded_with_them_is_no_change_and_loses_them(connection, client):
    host = configured(connection)
    name = f"state-{uuid.uuid4().hex[:10]}"
    created = create(host, check(host, program_inputs(connection, name)))
    # The state as recorded before: the connection and the code in inputs and outputs.
    old_inputs = program_inputs(connection, name)
    old_outputs = struct(
        {**props_of(created.properties), **{k: props_of(old_inputs)[k] for k in PLUMBING}}
    )

    news = check(host, program_inputs(connection, name), olds=old_inputs)
    assert props_of(news) == {"name": name}
    same = host.Diff(
        proto.DiffRequest(
            id=name, urn=SCOPE_URN, olds=old_outputs, news=news, old_inputs=old_inputs
        ),
        Context(),
    )
    assert same.changes == proto.DiffResponse.DIFF_NONE

    refreshed = host.Read(
        proto.ReadRequest(id=name, urn=SCOPE_URN, properties=old_outputs, inputs=old_inputs),
        Context(),
    )
    assert props_of(refreshed.properties) == props_of(created.properties)
    assert props_of(refreshed.inputs) == {"name": name}

    delete_in_a_later_deployment(host, name, old_outputs)
    assert name not in scope_names(client)


def test_a_refresh_answers_the_recorded_inputs_as_they_are(connection, client):
    host = configured(connection)
    name = f"state-{uuid.uuid4().hex[:10]}"
    inputs = check(host, program_inputs(connection, name))
    created = create(host, inputs)
    refreshed = host.Read(
        proto.ReadRequest(id=name, urn=SCOPE_URN, properties=created.properties, inputs=inputs),
        Context(),
    )
    assert refreshed.inputs == inputs and props_of(refreshed.inputs) == {"name": name}
    delete_in_a_later_deployment(host, name, created.properties)
    assert name not in scope_names(client)


def test_a_refresh_answers_the_recorded_outputs_or_what_it_found_instead(connection, client):
    host = configured(connection)
    name = f"state-{uuid.uuid4().hex[:10]}"
    inputs = check(host, program_inputs(connection, name))
    created = create(host, inputs)

    def refreshed(recorded: struct_pb2.Struct) -> dict[str, Any]:
        request = proto.ReadRequest(id=name, urn=SCOPE_URN, properties=recorded, inputs=inputs)
        return props_of(host.Read(request, Context()).properties)

    assert refreshed(created.properties) == props_of(created.properties)
    drifted = struct({**props_of(created.properties), "backend_type": "AZURE_KEYVAULT"})
    assert refreshed(drifted) == {"name": name, "backend_type": "DATABRICKS"}
    delete_in_a_later_deployment(host, name, created.properties)
    assert name not in scope_names(client)


def test_rotated_credentials_serve_a_state_recorded_with_the_old_ones(connection, client):
    host = configured(connection)
    name = f"state-{uuid.uuid4().hex[:10]}"
    created = create(host, check(host, program_inputs(connection, name)))
    stale = {**connection, "client_secret": "revoked-long-ago"}
    old_outputs = struct({**props_of(created.properties), CONNECTION_KEY: stale})
    delete_in_a_later_deployment(host, name, old_outputs)
    assert name not in scope_names(client)


def test_without_a_configured_connection_the_state_keeps_them(connection, client):
    host = WorkspaceProviderHost()  # the default provider: no settings
    host.Configure(proto.ConfigureRequest(args=struct({})), Context())
    name = f"state-{uuid.uuid4().hex[:10]}"
    inputs = check(host, program_inputs(connection, name))
    assert PLUMBING <= set(props_of(inputs))
    outputs = create(host, inputs).properties
    recorded = props_of(outputs)
    assert recorded[CONNECTION_KEY] == connection and PROVIDER_KEY in recorded
    refreshed = host.Read(
        proto.ReadRequest(id=name, urn=SCOPE_URN, properties=outputs, inputs=inputs), Context()
    )
    assert PLUMBING <= set(props_of(refreshed.properties))
    assert not refreshed.HasField("inputs")  # the engine keeps the recorded inputs
    delete_in_a_later_deployment(host, name, outputs)
    assert name not in scope_names(client)


def test_the_secret_markers_of_a_program_connection_do_not_reach_the_state(connection):
    host = configured(connection)
    secret_inputs = struct(
        {
            "name": "n",
            CONNECTION_KEY: rpc.wrap_rpc_secret(connection),
            PROVIDER_KEY: serialize_provider(SecretScopeProvider()),
        }
    )
    assert connection["client_secret"] not in str(check(host, secret_inputs))


def test_an_action_bound_to_the_provider_keeps_no_connection_nor_provider_code(connection, client):
    """ClusterState, held at the state its cluster is in already (so nothing is started)."""
    host = configured(connection)
    cluster = next(c for c in ClustersApi(client).list() if c["state"] in ("RUNNING", "TERMINATED"))
    urn = "urn:pulumi:dev::workspace::pulumi-python:dynamic/workspace:ClusterState::held"
    news = struct(
        {
            "cluster_id": cluster["cluster_id"],
            "state": cluster["state"],
            CONNECTION_KEY: connection,
            PROVIDER_KEY: serialize_provider(ClusterStateProvider()),
        }
    )
    checked = host.Check(proto.CheckRequest(urn=urn, olds=struct({}), news=news), Context())
    assert not checked.failures and not PLUMBING & set(props_of(checked.inputs))
    made = host.Create(proto.CreateRequest(urn=urn, properties=checked.inputs), Context())
    assert made.id == cluster["cluster_id"]
    assert not PLUMBING & set(props_of(made.properties))
    refreshed = host.Read(
        proto.ReadRequest(id=made.id, urn=urn, properties=made.properties, inputs=checked.inputs),
        Context(),
    )
    assert props_of(refreshed.properties) == props_of(made.properties)


def test_a_replacement_that_adopted_the_object_does_not_delete_it(connection, client):
    """Create before delete, in one deployment: the replacement's create returned the id
    the old resource had (it adopted the scope by its name), so the old one's delete is not
    made; another id is deleted as usual."""
    host = configured(connection)
    name = f"state-{uuid.uuid4().hex[:10]}"
    made = create(host, check(host, program_inputs(connection, name)))
    host.Delete(proto.DeleteRequest(id=name, urn=SCOPE_URN, properties=made.properties),
                Context())
    assert name in scope_names(client)

    other = f"state-{uuid.uuid4().hex[:10]}"
    SecretScopesApi(client).create(other)
    host.Delete(proto.DeleteRequest(id=other, urn=SCOPE_URN, properties=made.properties),
                Context())
    assert other not in scope_names(client)
