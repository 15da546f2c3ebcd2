"""Providers whose calls log through `pulumi.log`, for tests/unit/test_engine_log.py. A module
of its own: the provider code a request carries names its class, so a host started as the
engine starts it imports this module, and nothing of the tests."""

from __future__ import annotations

import threading
from typing import Any

import pulumi
from pulumi.dynamic import DiffResult, ResourceProvider

# Two requests served at once both reach it before either logs its second line.
BOTH_SERVED = threading.Barrier(2, timeout=20)


class LogsEverySeverity(ResourceProvider):
    """Its diff logs one line of each severity, naming the resource's `name`."""

    def diff(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        name = news["name"]
        pulumi.log.debug(f"{name}: debug line")
        pulumi.log.info(f"{name}: info line")
        pulumi.log.warn(f"{name}: warning line")
        pulumi.log.error(f"{name}: error line")
        return DiffResult(changes=False)


class LogsAroundAnother(ResourceProvider):
    """Its diff warns, waits until a second request's diff runs too, and warns again."""

    def diff(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        name = news["name"]
        pulumi.log.warn(f"{name}: first")
        BOTH_SERVED.wait()
        pulumi.log.warn(f"{name}: second")
        return DiffResult(changes=False)
