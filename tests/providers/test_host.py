"""The provider host's own calls (providers/core/host.py) against the emulator: configuration,
the read an import makes (no properties), the diff of an imported resource, and the
explicit provider's CheckConfig/DiffConfig."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.runtime import proto, rpc

from providers.core.host import WorkspaceProviderHost, _nothing_to_change, kind_of
from providers.core.lifecycle import CONNECTION_KEY, PROVIDER_KEY
from providers.jobs.job import JobProvider
from providers.jobs.jobs_api import JobsApi
from providers.secrets.secret_scope import SecretScopeProvider

SCOPE_URN = "urn:pulumi:dev::workspace::pulumi-python:dynamic/workspace:SecretScope::etl"
JOB_URN = "urn:pulumi:dev::workspace::pulumi-python:dynamic/workspace:Job::nightly"


class Aborted(Exception):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details


class Context:
    """What the host uses of a gRPC servicer context."""

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise Aborted(code, details)


def struct(values: dict[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(values)
    return message


def as_secret(value: Any) -> dict[str, Any]:
    return rpc.wrap_rpc_secret(value)


def configured(connection: dict[str, Any]) -> WorkspaceProviderHost:
    """A host configured as the engine configures the WorkspaceAuth provider: one setting
    per connection field, the client secret marked secret."""
    host = WorkspaceProviderHost()
    settings = {**connection, "client_secret": as_secret(connection["client_secret"])}
    host.Configure(proto.ConfigureRequest(args=struct(settings), acceptSecrets=True), Context())
    return host


def props_of(message: struct_pb2.Struct) -> dict[str, Any]:
    return rpc.deserialize_properties(message)


def test_configure_keeps_the_connection_without_secret_markers(connection):
    host = configured(connection)
    assert host.connection == connection


# What newer engines configure the default provider of a dynamic package with: the stack's
# whole config, namespaced, secrets among it.
STACK_CONFIG = {
    "workspace:baseUrl": "http://127.0.0.1:8765",
    "workspace:clientSecret": as_secret("s3cret"),
    "workspace:jobs": '[{"name": "nightly"}]',
    "aws:region": "eu-west-1",
    "version": "0.1.0",
}


def test_the_stack_config_of_a_default_provider_is_no_connection(scope):
    host = WorkspaceProviderHost()
    host.Configure(proto.ConfigureRequest(args=struct(STACK_CONFIG)), Context())
    assert host.connection is None
    # No connection: a resource's state keeps its own, and an import says what to pass.
    assert host._bound_kind(SCOPE_URN) is None
    with pytest.raises(Aborted) as caught:
        host.Read(proto.ReadRequest(urn=SCOPE_URN, id=scope), Context())
    assert "WorkspaceAuth" in caught.value.details
    checked = host.CheckConfig(proto.CheckRequest(urn="p", news=struct(STACK_CONFIG)), Context())
    assert not checked.failures


def test_connection_settings_beside_other_keys_are_the_connection(connection):
    host = WorkspaceProviderHost()
    settings = {**connection, **STACK_CONFIG}
    host.Configure(proto.ConfigureRequest(args=struct(settings)), Context())
    assert host.connection == connection


def test_import_read_serves_the_object_without_connection_or_provider(connection, scope):
    host = configured(connection)
    answer = host.Read(proto.ReadRequest(urn=SCOPE_URN, id=scope), Context())

    assert answer.id == scope
    outputs = props_of(answer.properties)
    assert outputs["name"] == scope
    assert CONNECTION_KEY not in outputs and PROVIDER_KEY not in outputs
    # Nothing declared yet; present but empty, or the engine would refuse the import.
    assert answer.HasField("inputs") and props_of(answer.inputs) == {}


def test_import_read_of_a_missing_id_names_the_kind_and_the_id(connection):
    host = configured(connection)
    with pytest.raises(Aborted) as caught:
        host.Read(proto.ReadRequest(urn=SCOPE_URN, id="no-such-scope"), Context())
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "SecretScope 'no-such-scope'" in caught.value.details
    assert "no such object" in caught.value.details
    assert connection["client_secret"] not in caught.value.details


def test_import_read_of_a_malformed_id_says_why(connection):
    with pytest.raises(Aborted) as caught:
        configured(connection).Read(proto.ReadRequest(urn=JOB_URN, id="nightly"), Context())
    assert caught.value.details == (
        "cannot import Job: import id 'nightly' (job id) must be a numeric id (must be a "
        "positive integer or a string of digits)"
    )


def test_import_read_without_a_configured_connection_says_what_to_pass(scope):
    with pytest.raises(Aborted) as caught:
        WorkspaceProviderHost().Read(proto.ReadRequest(urn=SCOPE_URN, id=scope), Context())
    assert f"SecretScope {scope!r}" in caught.value.details
    assert "WorkspaceAuth" in caught.value.details


def test_read_with_recorded_properties_is_a_refresh(connection, scope):
    host = WorkspaceProviderHost()  # a refresh needs no configuration
    recorded = {
        "name": scope,
        CONNECTION_KEY: connection,
        PROVIDER_KEY: serialize_provider(SecretScopeProvider()),
    }
    answer = host.Read(
        proto.ReadRequest(urn=SCOPE_URN, id=scope, properties=struct(recorded)), Context()
    )
    assert answer.id == scope
    assert props_of(answer.properties)["name"] == scope


def test_diff_of_an_imported_job_ignores_settings_nobody_declared(connection, client):
    settings = {
        "name": f"host-job-{uuid.uuid4().hex[:8]}",
        "new_cluster": {"spark_version": "13.3.x-scala2.12", "node_type_id": "n", "num_workers": 1},
        "spark_python_task": {"python_file": "dbfs:/jobs/etl.py"},
    }
    made_elsewhere = {"max_concurrent_runs": 3}  # set outside the stack, never declared
    job_id = str(JobsApi(client).create({**settings, **made_elsewhere}))
    host = configured(connection)
    imported = host.Read(proto.ReadRequest(urn=JOB_URN, id=job_id), Context())
    outputs = props_of(imported.properties)
    assert outputs["max_concurrent_runs"] == 3  # recorded at import
    news = dict(settings)

    def diff(old_inputs: struct_pb2.Struct, desired: dict[str, Any]) -> Any:
        request = proto.DiffRequest(
            id=job_id,
            urn=JOB_URN,
            olds=imported.properties,
            news=struct(desired),
            old_inputs=old_inputs,
        )
        return host.Diff(request, Context())

    same = diff(imported.inputs, news)
    assert same.changes == proto.DiffResponse.DIFF_NONE
    assert same.hasDetailedDiff and not same.detailedDiff
    # Declared before and dropped now: a change, as for any created resource.
    declared = struct({**news, **made_elsewhere})
    assert diff(declared, news).changes == proto.DiffResponse.DIFF_SOME
    renamed = diff(imported.inputs, {**news, "name": "other"})
    assert renamed.changes == proto.DiffResponse.DIFF_SOME
    # The import fails; the engine shows the key that differs, not every declared one.
    assert list(renamed.diffs) == ["name"] and list(renamed.detailedDiff) == ["name"]
    # Without old inputs: all count.
    assert JobProvider().diff(job_id, outputs, {**news, CONNECTION_KEY: connection}).changes


def test_an_update_right_after_an_import_is_refused_naming_the_settings(connection, client):
    """Newer engines follow an import whose settings differ with an update; the host that
    served the import refuses it, so the import writes nothing. A later deployment (another
    host) updates as usual."""
    settings = {
        "name": f"host-job-{uuid.uuid4().hex[:8]}",
        "new_cluster": {"spark_version": "13.3.x-scala2.12", "node_type_id": "n", "num_workers": 1},
        "spark_python_task": {"python_file": "dbfs:/jobs/etl.py"},
    }
    job_id = str(JobsApi(client).create(settings))
    host = configured(connection)
    imported = host.Read(proto.ReadRequest(urn=JOB_URN, id=job_id), Context())
    request = proto.UpdateRequest(
        id=job_id,
        urn=JOB_URN,
        olds=imported.properties,
        news=struct({**settings, "name": "renamed"}),
        old_inputs=imported.inputs,
    )
    with pytest.raises(Aborted) as caught:
        host.Update(request, Context())
    assert caught.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert caught.value.details.startswith(
        f"cannot import Job {job_id!r}: its settings differ from the declared ones (name); "
    )
    assert JobsApi(client).get(int(job_id))["settings"]["name"] == settings["name"]

    later = configured(connection).Update(request, Context())
    assert props_of(later.properties)["name"] == "renamed"
    assert JobsApi(client).get(int(job_id))["settings"]["name"] == "renamed"


def test_a_refresh_diff_against_the_empty_inputs_of_an_import_is_no_change(connection, scope):
    host = configured(connection)
    imported = host.Read(proto.ReadRequest(urn=SCOPE_URN, id=scope), Context())
    request = proto.DiffRequest(
        id=scope, urn=SCOPE_URN, olds=imported.properties, news=imported.inputs,
        old_inputs=imported.inputs,
    )
    assert host.Diff(request, Context()).changes == proto.DiffResponse.DIFF_NONE


def job_settings() -> dict[str, Any]:
    return {
        "name": f"host-job-{uuid.uuid4().hex[:8]}",
        "job_clusters": [
            {
                "job_cluster_key": "shared",
                "new_cluster": {
                    "spark_version": "13.3.x-scala2.12", "node_type_id": "n", "num_workers": 1
                },
            }
        ],
        "tasks": [
            {
                "task_key": "ingest",
                "job_cluster_key": "shared",
                "spark_python_task": {"python_file": "dbfs:/jobs/ingest.py"},
            }
        ],
        "schedule": {"quartz_cron_expression": "0 0 2 * * ?", "timezone_id": "UTC"},
    }


def created_job(host: WorkspaceProviderHost, settings: dict[str, Any]) -> Any:
    """The create's answer, and the inputs as the engine records them after Check."""
    checked = host.Check(
        proto.CheckRequest(urn=JOB_URN, olds=struct({}), news=struct(settings)), Context()
    )
    assert not checked.failures
    made = host.Create(
        proto.CreateRequest(urn=JOB_URN, properties=checked.inputs), Context()
    )
    return made, checked.inputs


# Run in a process of its own, whose module table tells what a no-op Check and Diff load.
NO_OP_HOST = """
import base64, json, sys
from pulumi.runtime import proto
from providers.core.host import WorkspaceProviderHost

given = json.load(sys.stdin)
def message(kind, name):
    made = kind()
    made.ParseFromString(base64.b64decode(given[name]))
    return made
host = WorkspaceProviderHost()
host.Configure(message(proto.ConfigureRequest, "configure"), None)
checked = host.Check(message(proto.CheckRequest, "check"), None)
diffed = host.Diff(message(proto.DiffRequest, "diff"), None)
print(json.dumps({
    "same_inputs": checked.inputs == message(proto.CheckRequest, "check").news,
    "failures": len(checked.failures),
    "no_change": diffed.changes == proto.DiffResponse.DIFF_NONE,
    "loaded": sorted(
        m for m in sys.modules if m.startswith(("providers.jobs.job", "databricks.sdk.service"))
    ),
}))
"""


def test_an_unchanged_resource_is_checked_and_diffed_without_its_kinds_code(connection, tmp_path):
    """A no-op preview or up: what is declared is what the state records, and the outputs
    show it as declared. The host answers from the requests and the kind's declaration
    alone: the kind's module loads (its declaration is there), but neither its input model
    nor the service's SDK, and nothing is validated again."""
    host = configured(connection)
    settings = job_settings()
    made, inputs = created_job(host, settings)
    requests = {
        "configure": proto.ConfigureRequest(
            args=struct({**connection, "client_secret": as_secret(connection["client_secret"])}),
            acceptSecrets=True,
        ),
        "check": proto.CheckRequest(urn=JOB_URN, olds=inputs, news=inputs),
        "diff": proto.DiffRequest(
            id=made.id, urn=JOB_URN, olds=made.properties, news=inputs, old_inputs=inputs
        ),
    }
    given = {k: base64.b64encode(r.SerializeToString()).decode() for k, r in requests.items()}
    root = Path(__file__).resolve().parents[2]
    # The SDK's shapes stored, as a host finds them after its first run on a machine (the
    # job's module reads them; deriving them loads the SDK).
    env = {"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin",
           "WORKSPACE_SDK_SHAPES_DIR": str(tmp_path)}
    subprocess.run(
        [sys.executable, "-c", "import providers.jobs.job"], check=True, cwd=root, env=env
    )
    answer = subprocess.run(
        [sys.executable, "-c", NO_OP_HOST],
        input=json.dumps(given),
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env=env,
    )
    assert json.loads(answer.stdout) == {
        "same_inputs": True,
        "failures": 0,
        "no_change": True,
        # The kind's module and what it imports: its area of the client among them, but
        # not its input model (job_settings, job_model) nor the SDK's service modules.
        "loaded": [
            "providers.jobs.job", "providers.jobs.job_diff", "providers.jobs.job_wire",
            "providers.jobs.jobs_api",
        ],
    }


def test_what_differs_from_the_record_gets_the_kinds_own_check_and_diff(connection):
    host = configured(connection)
    settings = job_settings()
    made, inputs = created_job(host, settings)
    outputs = props_of(made.properties)

    def diff(olds: dict[str, Any], news: dict[str, Any], old_inputs: dict[str, Any]) -> Any:
        request = proto.DiffRequest(
            id=made.id,
            urn=JOB_URN,
            olds=struct(olds),
            news=struct(news),
            old_inputs=struct(old_inputs),
        )
        return _nothing_to_change(kind_of(JOB_URN), request), host.Diff(request, Context())

    fast, same = diff(outputs, settings, settings)
    assert fast and same.changes == proto.DiffResponse.DIFF_NONE
    renamed_elsewhere = {**outputs, "name": "renamed"}  # drift a refresh read
    no_schedule = {k: v for k, v in settings.items() if k != "schedule"}
    undeclared_recorded = {**outputs, "max_concurrent_runs": 3}
    for olds, news, old_inputs, changes in [
        (renamed_elsewhere, settings, settings, proto.DiffResponse.DIFF_SOME),
        (outputs, no_schedule, settings, proto.DiffResponse.DIFF_SOME),  # dropped
        (outputs, {**settings, "name": "new"}, settings, proto.DiffResponse.DIFF_SOME),
        # Recorded by an import, never declared: the kind's diff says no change.
        (undeclared_recorded, settings, settings, proto.DiffResponse.DIFF_NONE),
        (outputs, settings, {}, proto.DiffResponse.DIFF_NONE),  # after an import
    ]:
        fast, answer = diff(olds, news, old_inputs)
        assert not fast
        assert answer.changes == changes

    # A changed input is validated again, however valid the recorded one was.
    bad = struct({**settings, "tasks": [{"task_key": "ingest"}]})
    checked = host.Check(proto.CheckRequest(urn=JOB_URN, olds=inputs, news=bad), Context())
    assert checked.failures


def test_check_config_names_bad_settings_and_keeps_the_inputs(connection):
    host = WorkspaceProviderHost()
    news = struct({**connection, "max_attempts": 0, "base_url": ""})
    answer = host.CheckConfig(proto.CheckRequest(urn="p", news=news), Context())
    assert {f.property for f in answer.failures} == {"max_attempts", "base_url"}
    assert answer.inputs == news
    good = host.CheckConfig(proto.CheckRequest(urn="p", news=struct(connection)), Context())
    assert not good.failures
    # The default provider has no settings; a preview may not know them yet.
    empty = host.CheckConfig(proto.CheckRequest(urn="p", news=struct({})), Context())
    assert not empty.failures
    unknown = struct({**connection, "client_secret": rpc.UNKNOWN})
    assert not host.CheckConfig(proto.CheckRequest(urn="p", news=unknown), Context()).failures


def test_diff_config_updates_the_provider_alone_where_its_connection_changes(connection):
    host = WorkspaceProviderHost()

    def diff(olds: dict[str, Any], news: dict[str, Any]) -> Any:
        request = proto.DiffRequest(urn="p", olds=struct(olds), news=struct(news))
        return host.DiffConfig(request, Context())

    same = diff(connection, dict(connection))
    assert same.changes == proto.DiffResponse.DIFF_NONE
    # The default provider: configured with nothing (3.79) or the stack config (newer).
    stack_config = {"workspace:baseUrl": connection["base_url"]}
    assert diff({}, stack_config).changes == proto.DiffResponse.DIFF_NONE

    rotated = {**connection, "client_secret": "rotated", "client_id": "another-client"}
    other_wire_form = "legacy" if connection.get("wire_form") == "public" else "public"
    other_form = {**connection, "wire_form": other_wire_form, "timeout_seconds": 5}
    unknown_secret = {**connection, "client_secret": rpc.UNKNOWN}
    for olds, news, changed in [
        (connection, rotated, {"client_id", "client_secret"}),
        (connection, other_form, {"wire_form", "timeout_seconds"}),
        (connection, unknown_secret, {"client_secret"}),
        # A stack moving over from the default provider: the provider gains its connection.
        ({}, connection, set(connection)),
        (stack_config, connection, set(connection)),
    ]:
        answer = diff(olds, news)
        assert answer.changes == proto.DiffResponse.DIFF_SOME
        assert set(answer.diffs) == changed
        assert not answer.replaces
        assert not answer.deleteBeforeReplace


@pytest.mark.parametrize(
    ("urn", "kind"),
    [
        (SCOPE_URN, "SecretScope"),
        (
            "urn:pulumi:dev::w::workspace:auth:WorkspaceAuth$pulumi-python:dynamic/workspace:Job::j",
            "Job",
        ),
    ],
)
def test_kind_of_reads_the_type_token(urn, kind):
    assert kind_of(urn).name == kind


@pytest.mark.parametrize("kind", ["JobRun", "ClusterState"])
def test_actions_cannot_be_imported(connection, kind):
    host = configured(connection)
    urn = f"urn:pulumi:dev::w::pulumi-python:dynamic/workspace:{kind}::r"
    with pytest.raises(Aborted, match=f"'{kind}' cannot be imported"):
        host.Read(proto.ReadRequest(id="1", urn=urn), Context())


def test_other_types_are_not_workspace_kinds():
    with pytest.raises(Exception, match="is not a workspace resource kind"):
        kind_of("urn:pulumi:dev::w::pulumi-python:dynamic/workspace:Widget::w")


def test_an_input_left_out_at_the_value_its_kind_holds_it_to_is_no_change():
    """A principal's `active` is recorded even when left out (True); a no-op diff knows that
    from the declaration, without the kind's implementation. Drift read by a refresh
    (deactivated elsewhere) gets the kind's diff, which brings it back."""
    urn = "urn:pulumi:dev::workspace::pulumi-python:dynamic/workspace:ServicePrincipal::ci"
    declared = {"application_id": "00000000-0000-0000-0000-0000000000c1", "display_name": "ci"}

    def request(recorded: dict[str, Any]) -> Any:
        return proto.DiffRequest(
            id="7",
            urn=urn,
            olds=struct(recorded),
            news=struct(declared),
            old_inputs=struct(declared),
        )

    kind = kind_of(urn)
    assert kind.defaults == {"active": True}
    recorded = {**declared, "active": True}
    assert _nothing_to_change(kind, request(recorded))
    provider = kind.provider()
    assert not provider.diff("7", recorded, declared, old_inputs=declared).changes
    deactivated = {**declared, "active": False}
    assert not _nothing_to_change(kind, request(deactivated))
    assert provider.diff("7", deactivated, declared, old_inputs=declared).changed_keys == ["active"]


def test_a_kind_whose_diff_reads_the_service_always_gets_its_diff() -> None:
    """A token's remaining lifetime is judged against the service's clock at every diff: the
    host never answers its Diff from the requests alone, though they are unchanged."""
    urn = "urn:pulumi:dev::workspace::pulumi-python:dynamic/workspace:Token::reporting"
    declared = {"comment": "reporting", "rotate_before_days": 7}
    request = proto.DiffRequest(id="t1", urn=urn, olds=struct(declared),
                                news=struct(declared), old_inputs=struct(declared))
    assert kind_of(urn).provider.diff_reads_the_service
    assert not _nothing_to_change(kind_of(urn), request)
    job = "urn:pulumi:dev::workspace::pulumi-python:dynamic/workspace:ServicePrincipal::ci"
    principal = {"application_id": "00000000-0000-0000-0000-0000000000c1", "active": True}
    assert _nothing_to_change(kind_of(job), proto.DiffRequest(
        id="7", urn=job, olds=struct(principal), news=struct(principal),
        old_inputs=struct(principal)))
