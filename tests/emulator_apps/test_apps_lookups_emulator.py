"""The lookups against the emulator's real sample app, admin address and flow controller."""

from __future__ import annotations

import pulumi
import pytest

from providers import apps
from tests.conftest import emulator_fixture
from workspace_emulator.testing import EmulatorInfo

emulator = emulator_fixture("module")


def test_sample_value_counts_calls_and_metrics_follow(emulator: EmulatorInfo) -> None:
    before = apps.find_metrics(emulator.admin_url, allow_insecure_http=True)["runTest"].count
    first = apps.find_sample_resource(emulator.app_url, allow_insecure_http=True).value
    second = apps.find_sample_resource(emulator.app_url, allow_insecure_http=True).value
    assert second == first + 1
    run_test = apps.find_metrics(emulator.admin_url, allow_insecure_http=True)["runTest"]
    assert run_test.count == before + 2
    assert run_test.duration_units == "seconds"
    assert 0.0 <= run_test.min <= run_test.p50 <= run_test.p99 <= run_test.max


def test_root_group_through_flow_login(emulator: EmulatorInfo) -> None:
    root = apps.find_root_process_group(
        emulator.flow_api_base, emulator.client_id, emulator.client_secret,
        allow_insecure_http=True,
    )
    assert root.name == "NiFi Flow"
    assert root.id and root.uri and root.uri.endswith(f"/process-groups/{root.id}")


def test_wrong_flow_password_is_refused_without_echoing_it(emulator: EmulatorInfo) -> None:
    with pytest.raises(apps.AppLookupError) as caught:
        apps.find_root_process_group(
            emulator.flow_api_base, emulator.client_id, "not-the-password-99",
            allow_insecure_http=True,
        )
    assert caught.value.status == 400
    assert f"{emulator.flow_api_base}/access/token" in str(caught.value)
    assert "not-the-password-99" not in str(caught.value)


class NoResources(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        return [f"{args.name}-id", args.inputs]

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


def run_program(scenario) -> None:
    pulumi.runtime.set_mocks(NoResources(), preview=False)
    pulumi.runtime.test(scenario)()


def test_program_lookups_are_plain_outputs_even_with_a_secret_password(
    emulator: EmulatorInfo,
) -> None:
    async def scenario():
        sample = apps.get_sample_resource(emulator.app_url, allow_insecure_http=True)
        metrics = apps.get_metrics(
            pulumi.Output.from_input(emulator.admin_url), allow_insecure_http=True
        )
        root = apps.get_root_process_group(
            emulator.flow_api_base, emulator.client_id,
            pulumi.Output.secret(emulator.client_secret), allow_insecure_http=True,
        )
        found, counted, group = await sample.future(), await metrics.future(), await root.future()
        assert found and counted and group, "an up knows every value"
        assert found["value"] >= 1
        assert counted["runTest"]["count"] >= 1
        assert group["name"] == "NiFi Flow" and group["id"]
        assert not await root.is_secret()

    run_program(scenario)


def test_program_lookup_failure_names_the_call(emulator: EmulatorInfo) -> None:
    async def scenario():
        await apps.get_root_process_group(
            emulator.flow_api_base, emulator.client_id, pulumi.Output.secret("wrong-pw-123"),
            allow_insecure_http=True,
        ).future()

    with pytest.raises(apps.AppLookupFailed) as caught:
        run_program(scenario)
    assert f"POST {emulator.flow_api_base}/access/token: 400" in str(caught.value)
    assert "wrong-pw-123" not in str(caught.value)
