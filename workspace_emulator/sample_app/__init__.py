"""Emulator of the sample application and its administrative address.

Contract with the emulator core::

    build_apps(clock: Callable[[], float] = time.monotonic) -> tuple[ASGIApp, ASGIApp]

returns ``(app, admin_app)`` sharing one in-memory metric registry:

* ``app`` serves ``GET /my-resource`` -> ``{"value": n}`` (JSON), n = number of calls served
  so far, counting this one (1, 2, 3, ...). Every call is timed by the timer ``runTest``
  (``TIMER_NAME``).
* ``admin_app`` serves ``GET /metrics`` -> ``{"runTest": {...}}``, one entry per timer with
  ``count``, ``max mean min p50 p75 p95 p98 p99 p999 stddev m15_rate m1_rate m5_rate
  mean_rate``, ``duration_units: "seconds"`` and ``rate_units: "calls/second"``;
  ``?pretty=true`` indents it. Also ``GET /healthcheck`` and ``GET /ping``.

``clock`` (seconds, monotonic) drives both the measured durations and the metric decay and
ticking, so a fake clock makes the metrics deterministic. Semantics: ``metrics.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from starlette.types import ASGIApp

from workspace_emulator.sample_app.admin_app import create_admin_app
from workspace_emulator.sample_app.metrics import MetricRegistry
from workspace_emulator.sample_app.resource_app import create_resource_app

TIMER_NAME = "runTest"

__all__ = ["TIMER_NAME", "build_apps"]


def build_apps(clock: Callable[[], float] = time.monotonic) -> tuple[ASGIApp, ASGIApp]:
    registry = MetricRegistry(clock)
    # Registered up front so /metrics lists it, all zeros, before the first call.
    run_test_timer = registry.timer(TIMER_NAME)
    return create_resource_app(run_test_timer), create_admin_app(registry)
