"""The wire form's default and names: `public` (the public service's spelling) is the
default everywhere, `legacy` names the original specification's, and `seed`, its former
name, is a deprecated alias that means the same. A provider whose state recorded the legacy
form is refused a configuration that names no form (tests/e2e/test_wire_form_upgrade.py runs
it under the engine)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pulumi
import pytest
import responses
import yaml
from google.protobuf import struct_pb2
from pulumi.runtime import proto, rpc

from providers.auth.component import WorkspaceAuth, WorkspaceAuthArgs
from providers.client import Connection, WireForm
from providers.client.connection import DEFAULT_WIRE_FORM, deprecated_wire_form_warning
from providers.client.wire import profile
from providers.core.host import WorkspaceProviderHost, left_default_wire_form, wire_form_of
from stacks import check as config_check
from stacks import config as stack_config
from stacks.audit import connection_of
from stacks.config_rules import problems, warnings
from stacks.pulumi_cli import REPO_ROOT
from tests.providers.resource_mocks import RecordingMocks
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

pytestmark = pytest.mark.usefixtures("fresh_client_caches")

SETTINGS: dict[str, Any] = {
    "base_url": BASE_URL,
    "auth_url": AUTH_URL,
    "tenant_id": TENANT,
    "client_id": CLIENT_ID,
    "client_secret": CLIENT_SECRET,
    "resource": RESOURCE,
}


# --- the connection ---------------------------------------------------------------------


def test_the_public_form_is_the_default() -> None:
    assert DEFAULT_WIRE_FORM is WireForm.PUBLIC
    assert Connection(**SETTINGS).wire_form is WireForm.PUBLIC
    assert Connection.from_props(SETTINGS).to_props()["wire_form"] == "public"


def test_legacy_names_the_specifications_form_and_seed_is_its_alias() -> None:
    assert [form.value for form in WireForm] == ["legacy", "public"]
    assert WireForm("seed") is WireForm.LEGACY
    assert Connection(**SETTINGS, wire_form="seed").wire_form is WireForm.LEGACY
    # State recorded with the old name reads back as the same form, under its new name.
    recorded = Connection.from_props({**SETTINGS, "wire_form": "seed"})
    assert recorded.wire_form is WireForm.LEGACY
    assert recorded.to_props()["wire_form"] == "legacy"
    assert profile("seed") is profile(WireForm.LEGACY)
    assert profile("seed").token_method == "GET"


def test_another_name_is_refused_naming_the_two_forms() -> None:
    with pytest.raises(ValueError, match="Input should be 'legacy' or 'public'"):
        Connection(**SETTINGS, wire_form="specification")


def test_only_the_deprecated_name_warns() -> None:
    warning = deprecated_wire_form_warning("seed")
    assert warning is not None
    assert "'seed' is the deprecated name of 'legacy'" in warning
    assert [deprecated_wire_form_warning(v) for v in ("legacy", "public", None)] == [None] * 3


# --- WorkspaceAuth ------------------------------------------------------------------------


def deployed(**wire_form: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the connection output, the provider's configuration) of a WorkspaceAuth given
    `wire_form` (or none), under Pulumi's mocks."""
    found: dict[str, Any] = {}

    async def scenario() -> None:
        auth = WorkspaceAuth(
            "auth",
            WorkspaceAuthArgs(**{**SETTINGS, "client_secret": CLIENT_SECRET}, **wire_form),
        )
        found["connection"] = await auth.connection.future()

    mocks = RecordingMocks()
    pulumi.runtime.set_mocks(mocks, preview=False)
    pulumi.runtime.test(scenario)()
    [provider] = [r for r in mocks.registered if r.typ == "pulumi:providers:pulumi-python"]
    settings = dict(provider.inputs)
    settings["client_secret"] = rpc.unwrap_rpc_secret(settings["client_secret"])
    return found["connection"], settings


def test_workspace_auth_talks_the_public_form_by_default_and_records_no_form() -> None:
    assert WorkspaceAuthArgs(**SETTINGS).wire_form is None  # left out: the default
    with responses.RequestsMock() as mocked:
        mocked.post(TOKEN_URL, json=token_body())  # the public form's token request
        mocked.get(SCIM_ME, json=ME)  # WorkspaceAuth proves the token
        connection, provider = deployed()
    assert connection["wire_form"] == "public"
    # The provider host can tell a program that chose no form from one that chose public.
    assert "wire_form" not in provider
    assert Connection.from_props(provider).wire_form is WireForm.PUBLIC


@pytest.mark.parametrize(("given", "recorded"), [("legacy", "legacy"), ("public", "public"),
                                                 ("seed", "legacy")])
def test_a_form_given_is_recorded_by_its_name_now(
    given: str, recorded: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    warned: list[str] = []
    monkeypatch.setattr(pulumi.log, "warn", lambda message, *a, **k: warned.append(message))
    with responses.RequestsMock() as mocked:
        mocked.add("GET" if recorded == "legacy" else "POST", TOKEN_URL, json=token_body())
        mocked.get(SCIM_ME, json=ME)  # WorkspaceAuth proves the token
        connection, provider = deployed(wire_form=given)
    assert connection["wire_form"] == provider["wire_form"] == recorded
    if given == "seed":
        [warning] = warned
        assert "'seed' is the deprecated name of 'legacy'" in warning
        assert "workspace:wireForm" in warning
    else:
        assert warned == []


# --- the stack's config --------------------------------------------------------------------


def stack_values(**extra: Any) -> dict[str, Any]:
    return {
        "baseUrl": BASE_URL,
        "authUrl": AUTH_URL,
        "tenantId": TENANT,
        "clientId": CLIENT_ID,
        "resource": RESOURCE,
        **extra,
    }


def test_a_stack_config_without_the_key_gives_no_form() -> None:
    secret = {"client_secret": "secret"}
    assert stack_config.connection_args(stack_values(), secret).wire_form is None
    given = stack_config.connection_args(stack_values(wireForm="legacy"), secret)
    assert given.wire_form == "legacy"


def test_seed_in_a_stack_file_is_no_problem_only_a_warning() -> None:
    assert problems(stack_values(wireForm="seed")) == []
    assert problems(stack_values(wireForm="legacy")) == []
    [warning] = warnings(stack_values(wireForm="seed"))
    assert warning.startswith("workspace:wireForm: wire form 'seed' is the deprecated name")
    assert warnings(stack_values(wireForm="legacy")) == warnings(stack_values()) == []


def test_the_offline_check_warns_of_seed_and_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = yaml.safe_load((REPO_ROOT / "Pulumi.local.yaml").read_text())
    document["config"]["workspace:wireForm"] = "seed"
    path = tmp_path / "Pulumi.old.yaml"
    path.write_text(yaml.safe_dump(document))
    assert config_check.main(["--project-dir", str(REPO_ROOT), str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"{path}: warning: workspace:wireForm: wire form 'seed' is the deprecated name of "
        "'legacy' (the specification's legacy spelling of the API): it means the same; say "
        "'legacy'",
        f"{path}: ok",
    ]


def test_the_local_stack_asks_for_the_legacy_form() -> None:
    config = yaml.safe_load((REPO_ROOT / "Pulumi.local.yaml").read_text())["config"]
    assert config["workspace:wireForm"] == "legacy"


def test_the_audit_talks_the_stacks_form() -> None:
    values = {f"workspace:{k}": v for k, v in stack_values().items()}
    values["workspace:clientSecret"] = "s"
    assert connection_of(values).wire_form is WireForm.PUBLIC
    values["workspace:wireForm"] = "seed"
    assert connection_of(values).wire_form is WireForm.LEGACY


# --- the provider host ----------------------------------------------------------------------


class Context:
    def abort(self, code: Any, details: str) -> None:
        raise AssertionError(details)


def struct(values: dict[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(values)
    return message


def recorded(wire_form: str | None) -> dict[str, Any]:
    """A provider configuration as a program gave it (`wire_form` None: none given)."""
    settings: dict[str, Any] = {**SETTINGS, "client_secret": rpc.wrap_rpc_secret(CLIENT_SECRET)}
    return settings if wire_form is None else {**settings, "wire_form": wire_form}


def check_config(olds: dict[str, Any], news: dict[str, Any]) -> list[str]:
    request = proto.CheckRequest(urn="p", olds=struct(olds), news=struct(news))
    return [f.reason for f in WorkspaceProviderHost().CheckConfig(request, Context()).failures]


def diff_config(olds: dict[str, Any], news: dict[str, Any]) -> tuple[int, list[str]]:
    request = proto.DiffRequest(urn="p", olds=struct(olds), news=struct(news))
    answer = WorkspaceProviderHost().DiffConfig(request, Context())
    return answer.changes, sorted(answer.diffs)


def test_a_legacy_provider_without_a_form_is_refused_naming_the_key_and_values() -> None:
    for old_name in ("seed", "legacy"):
        [reason] = check_config(recorded(old_name), recorded(None))
        assert reason.startswith("workspace:wireForm is not set, and this stack was deployed "
                                 "talking the legacy wire form")
        assert "Set workspace:wireForm to 'legacy' to keep talking" in reason
        assert "or to 'public' to switch" in reason


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("seed", "legacy"),  # the form named: kept ...
        ("seed", "seed"),
        ("seed", "public"),  # ... or switched, asked for
        ("public", None),  # the default, as recorded
        (None, None),  # deployed with the default
        (None, "legacy"),
    ],
)
def test_a_form_named_or_the_same_as_recorded_is_accepted(old: str | None, new: str | None):
    assert check_config(recorded(old), recorded(new)) == []


def test_a_new_provider_or_the_default_one_is_no_stack_to_refuse() -> None:
    assert check_config({}, recorded(None)) == []
    stack_config_of_a_default_provider = {"workspace:baseUrl": BASE_URL, "version": "0.1.0"}
    assert check_config(stack_config_of_a_default_provider, recorded(None)) == []
    assert check_config(recorded("seed"), stack_config_of_a_default_provider) == []


def test_diff_config_compares_the_form_talked_not_its_name() -> None:
    none, some = proto.DiffResponse.DIFF_NONE, proto.DiffResponse.DIFF_SOME
    assert diff_config(recorded("seed"), recorded("legacy")) == (none, [])
    assert diff_config(recorded("public"), recorded(None)) == (none, [])
    assert diff_config(recorded(None), recorded("public")) == (none, [])
    assert diff_config(recorded("seed"), recorded("public")) == (some, ["wire_form"])
    assert diff_config(recorded(None), recorded("legacy")) == (some, ["wire_form"])


def test_wire_form_of_names_the_form_talked() -> None:
    assert wire_form_of({}) == "public"
    assert wire_form_of({"wire_form": "seed"}) == "legacy"
    assert wire_form_of({"wire_form": "xml"}) == "xml"  # CheckConfig's failure says why
    assert left_default_wire_form({"wire_form": "public"}, {}) is None
