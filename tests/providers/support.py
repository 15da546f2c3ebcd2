"""Helpers shared by the provider tests."""

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from providers.client import Connection, WorkspaceClient, client_for
from providers.core import polling
from providers.core.lifecycle import WorkspaceProvider
from providers.workspace.workspace_objects_api import WorkspaceObjectsApi
from workspace_emulator.testing import EmulatorInfo, advance_clock


def failures(provider: WorkspaceProvider, props: dict[str, Any]) -> dict[str, str]:
    """The provider's check failures, keyed by the field they name."""
    return {f.property: f.reason for f in provider.check({}, props).failures}


def with_change(props: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """`props` with `change` applied; a None in `change` leaves that field out."""
    return {key: value for key, value in {**props, **change}.items() if value is not None}


def assert_check_names(
    provider: WorkspaceProvider,
    props: dict[str, Any],
    change: dict[str, Any],
    field: str,
    reason: str,
) -> None:
    """The provider's check of `props` with `change` (see `with_change`) fails at `field`,
    for a reason that says `reason`."""
    found = failures(provider, with_change(props, change))
    assert field in found, found
    assert reason in found[field]


def client_of(connection: dict[str, Any]) -> WorkspaceClient:
    """The client of a provider's connection props."""
    return client_for(Connection.from_props(connection))


def waits_move_the_emulator_clock(monkeypatch: pytest.MonkeyPatch, info: EmulatorInfo) -> None:
    """A provider's waits (providers.core.polling) move the manual clock of the emulator (`clock=
    "manual"`) instead of sleeping: a state that takes a minute is reached at once, and
    timeouts count the same time the emulator sees."""
    now = [0.0]

    def sleep(seconds: float) -> None:
        advance_clock(info, seconds)
        now[0] += seconds

    monkeypatch.setattr(polling, "monotonic", lambda: now[0])
    monkeypatch.setattr(polling, "sleep", sleep)


def import_notebook(client: WorkspaceClient, path: str, source: str = "print('hello')\n") -> None:
    """A Python notebook at `path`, its folder made (a job's run of a missing notebook
    fails), one there overwritten."""
    WorkspaceObjectsApi(client).mkdirs(path.rsplit("/", 1)[0] or "/")
    WorkspaceObjectsApi(client).import_(path, source.encode(), format="SOURCE", language="PYTHON",
                                     overwrite=True)


def assert_left_out_settings_cleared_or_kept(
    provider: WorkspaceProvider,
    declared: dict[str, Any],
    get: Callable[[str], Mapping[str, Any]],
    cleared: Mapping[str, Any],
    kept: Mapping[str, Any],
) -> None:
    """Made as `declared`, then declared without the `cleared` and `kept` settings: the diff
    names the cleared ones alone, the update clears them in the service (each to its empty
    value there), the kept ones stay as the service has them (`kept`: as it shows them), and
    the next preview shows no change."""
    made = provider.create(declared)
    assert made.outs is not None
    left_out = {k: v for k, v in declared.items() if k not in {*cleared, *kept}}
    diff = provider.diff(made.id, made.outs, left_out, old_inputs=declared)
    assert sorted(diff.changed_keys) == sorted(cleared) and not diff.replaces
    updated = provider.update(made.id, made.outs, left_out)
    assert updated.outs is not None
    found = get(made.id)
    assert {k: found.get(k) for k in cleared} == dict(cleared), found
    assert {k: found.get(k) for k in kept} == dict(kept), found
    read = provider.read(made.id, updated.outs)
    assert read.outs is not None
    assert not provider.diff(made.id, read.outs, left_out, old_inputs=left_out).changes


def assert_a_name_in_another_case_is_no_change(
    provider: WorkspaceProvider,
    declared: dict[str, Any],
    get: Callable[[str], Mapping[str, Any]],
    key: str = "name",
) -> None:
    """Made as `declared`, then declared with `key` in another case, which the service
    matches without regard to case: the same object, so neither a change nor a replacement
    (which would adopt it by that name, then delete it as the old one); it is still there."""
    made = provider.create(declared)
    assert made.outs is not None
    other_case = {**declared, key: str(declared[key]).swapcase()}
    diff = provider.diff(made.id, made.outs, other_case, old_inputs=declared)
    assert not diff.changes and not diff.replaces
    read = provider.read(made.id, made.outs)
    assert read.outs is not None
    assert not provider.diff(made.id, read.outs, other_case, old_inputs=other_case).changes
    assert get(made.id)

