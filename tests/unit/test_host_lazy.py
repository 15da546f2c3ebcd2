"""The provider host loads kinds per request: one that only answers the configuration calls
(the engine starts such a host for a WorkspaceAuth's provider) imports no kind, none of the
kinds' machinery and none of the client's service areas; a request for a job loads the job
kind's module alone. Each check runs in a fresh interpreter, as this one has loaded everything."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from providers.core.host import ImportRefused, kind_of
from providers.core.registry import KINDS

REPO_ROOT = Path(__file__).resolve().parents[2]
KIND_MODULES = sorted(module for _, module in KINDS)
# What only a resource request needs: the kinds' base, the component behind it, the client's
# service areas and transport, the SDK's service modules.
NOT_FOR_CONFIGURATION = [
    "providers.core.kind",
    "providers.core.resource",
    "providers.auth.component",
    "providers.client.workspace",
    "providers.client.http",
    "requests",
]

DRIVE_CONFIGURATION = """
import asyncio, json, sys
from pulumi.runtime import proto, rpc
from providers.core.host import WorkspaceProviderHost

def struct(values):
    return asyncio.new_event_loop().run_until_complete(rpc.serialize_properties(values, {}))

local = "http://127.0.0.1:8765"
settings = {"base_url": local, "auth_url": local, "tenant_id": "t", "client_id": "bootstrap",
            "client_secret": "s3cret", "resource": "2ff814a6-3304-4ab8-85cb-cd0e6f879c1d",
            "allow_insecure_http": True}
good, bad = struct(settings), struct({**settings, "base_url": "ftp://nowhere"})
host = WorkspaceProviderHost()
host.GetPluginInfo(None, None)
def failures(news):
    return [f.property for f in host.CheckConfig(proto.CheckRequest(news=news), None).failures]

checked = {"good": failures(good), "bad": failures(bad)}
host.DiffConfig(proto.DiffRequest(olds=good, news=good), None)
host.Configure(proto.ConfigureRequest(args=good), None)
checked["configured"] = sorted(host.connection)
"""


def run(code: str) -> dict:
    report = "\nchecked['modules'] = sorted(sys.modules)\nprint(json.dumps(checked))"
    result = subprocess.run(
        [sys.executable, "-c", code + report],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_a_host_answering_configuration_loads_no_kind_and_no_service_area() -> None:
    checked = run(DRIVE_CONFIGURATION)
    assert checked["good"] == [] and checked["bad"] == ["base_url"]  # it did validate
    assert "client_secret" in checked["configured"]
    modules = set(checked["modules"])
    assert modules.isdisjoint(KIND_MODULES), sorted(modules & set(KIND_MODULES))
    assert modules.isdisjoint(NOT_FOR_CONFIGURATION), sorted(modules & {*NOT_FOR_CONFIGURATION})
    assert not [m for m in modules if m.startswith("databricks.sdk.service")]


def test_a_request_for_a_job_loads_the_job_kind_alone() -> None:
    checked = run(
        DRIVE_CONFIGURATION
        + "from providers.core.host import kind_of\n"
        + "kind_of('urn:pulumi:dev::w::pulumi-python:dynamic/workspace:Job::nightly').provider\n"
    )
    assert set(checked["modules"]) & set(KIND_MODULES) == {"providers.jobs.job"}


@pytest.mark.parametrize(
    "token",
    ["pulumi-python:dynamic/workspace:Widget", "pulumi-python:dynamic:Resource", "aws:s3:Bucket"],
)
def test_an_unknown_type_token_is_refused_by_name(token: str) -> None:
    with pytest.raises(ImportRefused, match=f"^{token} is not a workspace resource kind$"):
        kind_of(f"urn:pulumi:dev::w::{token}::r")
