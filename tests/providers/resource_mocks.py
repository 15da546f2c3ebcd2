"""Registers a resource under Pulumi's mocks and gives back what the program sent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi


class RecordingMocks(pulumi.runtime.Mocks):
    """Records each registration; its outputs are its inputs plus `computed`."""

    def __init__(self, computed: dict[str, Any] | None = None) -> None:
        self.computed = computed or {}
        self.registered: list[pulumi.runtime.MockResourceArgs] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        self.registered.append(args)
        return [f"{args.name}-id", {**args.inputs, **self.computed}]

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


def register(
    make: Callable[[], pulumi.CustomResource],
    read: tuple[str, ...],
    computed: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The props the resource registered (without Pulumi's own keys), and the outputs named
    in `read`, resolved through the resource's typed attributes."""
    mocks = RecordingMocks(computed or {})
    pulumi.runtime.set_mocks(mocks, project="proj", stack="dev", preview=False)
    outputs: dict[str, Any] = {}

    @pulumi.runtime.test
    def scenario():
        resource = make()
        values = [getattr(resource, name) for name in read]
        return pulumi.Output.all(*values).apply(
            lambda resolved: outputs.update(zip(read, resolved, strict=True))
        )

    scenario()
    (registered,) = mocks.registered
    inputs = {k: v for k, v in registered.inputs.items() if k != "__provider"}
    return inputs, outputs
