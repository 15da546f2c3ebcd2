"""The lookups against the emulator's real sample app, admin address and flow controller."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator.testing import EmulatorInfo, running_emulator
from providers import apps


@pytest.fixture(scope="module")
def emulator() -> Iterator[EmulatorInfo]:
    with running_emulator() as info:
        yield info


def test_sample_value_counts_calls_and_metrics_follow(emulator: EmulatorInfo) -> None:
    before = apps.get_metrics(emulator.admin_url, allow_insecure_http=True)["runTest"].count
    first = apps.get_sample_resource(emulator.app_url, allow_insecure_http=True).value
    second = apps.get_sample_resource(emulator.app_url, allow_insecure_http=True).value
    assert second == first + 1
    run_test = apps.get_metrics(emulator.admin_url, allow_insecure_http=True)["runTest"]
    assert run_test.count == before + 2
    assert run_test.duration_units == "seconds"
    assert 0.0 <= run_test.min <= run_test.p50 <= run_test.p99 <= run_test.max


def test_root_group_through_flow_login(emulator: EmulatorInfo) -> None:
    root = apps.get_root_process_group(
        emulator.flow_api_base, emulator.client_id, emulator.client_secret,
        allow_insecure_http=True,
    )
    assert root.name == "NiFi Flow"
    assert root.id and root.uri and root.uri.endswith(f"/process-groups/{root.id}")


def test_wrong_flow_password_is_refused_without_echoing_it(emulator: EmulatorInfo) -> None:
    with pytest.raises(apps.AppLookupError) as caught:
        apps.get_root_process_group(
            emulator.flow_api_base, emulator.client_id, "not-the-password-99",
            allow_insecure_http=True,
        )
    assert caught.value.status == 400
    assert f"{emulator.flow_api_base}/access/token" in str(caught.value)
    assert "not-the-password-99" not in str(caught.value)
