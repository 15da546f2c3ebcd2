"""The health gate: after the stack's resources are deployed, read the sample resource, its
metrics and the flow controller's root group, export them as `health`, and fail `pulumi up`
when a configured threshold is exceeded (docs/health.md).

The reads happen only during an update, never in a preview: the preview shows `health` as
unknown (known after up), and a no-op preview calls none of these services. The reads wait
for every custom resource the program registers after `gate` (a stack transformation
collects them), so they see the deployed workspace, whatever kinds the program declares.
They are reads, not resources: a second `up` re-reads and re-checks without any change.

Config (namespace `workspace`):

    workspace:health:
      appUrl: http://127.0.0.1:8767               # the sample application
      adminUrl: http://127.0.0.1:8768             # its administrative address (metrics)
      flowApiBase: http://127.0.0.1:8769/nifi-api # the flow controller
      flowUsername: <optional; default workspace:clientId>
      thresholds:
        - {metric: runTest, field: p99, max: 0.5}
    workspace:flowPassword  secret; required unless flowApiBase is a loopback address (the
                            emulator), where it defaults to the workspace client secret
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping
from typing import Any

import pulumi

from providers import apps
from providers.client.blocking import in_thread
from stacks.config import StackSettings
from stacks.errors import NAMESPACE, ConfigError
from stacks.health_settings import (
    HEALTH_KEY,
    HealthSettings,
    Threshold,
    missing_password_problem,
)


class HealthGateError(pulumi.RunError):
    """A health read failed or a threshold was exceeded; fails `pulumi up`."""


def gate(stack: StackSettings) -> None:
    """Export `health` and enforce its thresholds once every custom resource the program
    registers after this call is deployed. Call it before declaring resources: bad settings
    then fail before anything is registered. Does nothing without `workspace:health`."""
    settings = stack.health
    if settings is None:
        return
    if pulumi.runtime.is_dry_run():
        pulumi.export(HEALTH_KEY, _unknown())
        return
    username = settings.flow_username or stack.values["clientId"]
    password = flow_password(settings, stack.flow_password, stack.credentials.get("client_secret"))
    insecure = stack.allow_insecure_http
    registered: list[pulumi.CustomResource] = []

    def collect(args: pulumi.ResourceTransformationArgs) -> None:
        if isinstance(args.resource, pulumi.CustomResource):
            registered.append(args.resource)

    pulumi.runtime.register_stack_transformation(collect)

    async def all_registered() -> list[pulumi.CustomResource]:
        # Runs once the program body has returned: every resource is registered by then.
        return registered

    def deployed(resources: list[pulumi.CustomResource]) -> pulumi.Output[list[Any]]:
        return pulumi.Output.all(password, *(resource.id for resource in resources))

    def check(values: list[Any]) -> Awaitable[dict[str, Any]]:
        return in_thread(check_health, settings, username, values[0], insecure)

    resources: pulumi.Output[list[pulumi.CustomResource]] = pulumi.Output.from_input(
        all_registered()
    )
    password_and_ids: pulumi.Output[list[Any]] = resources.apply(deployed)
    report: pulumi.Output[dict[str, Any]] = password_and_ids.apply(check)
    # The report holds no secret; only the password that went into it was one.
    pulumi.export(HEALTH_KEY, pulumi.Output.unsecret(report))


def flow_password(settings: HealthSettings, flow_password: Any, client_secret: Any) -> Any:
    """The flow controller's credential: `workspace:flowPassword`, or the client secret for
    a loopback flow controller only (the config check refuses the rest before this)."""
    if flow_password is not None:
        return flow_password
    if (problem := missing_password_problem(settings)) is not None:
        raise ConfigError(problem)
    return client_secret


def check_health(
    settings: HealthSettings, username: str, password: str, allow_insecure_http: bool
) -> dict[str, Any]:
    """Read the three services, check the thresholds: the report, or HealthGateError."""
    try:
        # The sample call first, so the metrics include at least this one timed call.
        sample = apps.find_sample_resource(
            settings.app_url, allow_insecure_http=allow_insecure_http
        )
        metrics = apps.find_metrics(settings.admin_url, allow_insecure_http=allow_insecure_http)
        root = apps.find_root_process_group(
            settings.flow_api_base, username, password, allow_insecure_http=allow_insecure_http
        )
    except apps.AppLookupError as exc:
        raise HealthGateError(f"health gate: {exc}") from None
    checks, failures = evaluate(settings.thresholds, metrics, f"{settings.admin_url}/metrics")
    if failures:
        raise HealthGateError(
            f"health gate failed ({NAMESPACE}:{HEALTH_KEY}.thresholds): " + "; ".join(failures)
        )
    return {
        "sample_value": sample.value,
        "metrics": {name: entry.model_dump() for name, entry in metrics.items()},
        "root_group": {"id": root.id, "name": root.name},
        "checks": checks,
    }


def evaluate(
    thresholds: list[Threshold], metrics: Mapping[str, apps.MetricEntry], source: str
) -> tuple[list[dict[str, Any]], list[str]]:
    """(one record per threshold, the failure messages)."""
    checks: list[dict[str, Any]] = []
    failures: list[str] = []
    for index, threshold in enumerate(thresholds):
        entry = metrics.get(threshold.metric)
        if entry is None:
            reported = ", ".join(sorted(metrics)) or "none"
            failures.append(
                f"thresholds[{index}].metric {threshold.metric!r} is not reported by "
                f"{source} (reported: {reported})"
            )
            continue
        observed = float(getattr(entry, threshold.field))
        problem = threshold.violation(observed)
        if problem:
            failures.append(problem)
        checks.append(
            {
                **threshold.model_dump(exclude_none=True),
                "observed": observed,
                "passed": problem is None,
            }
        )
    return checks, failures


def _unknown() -> pulumi.Output[Any]:
    """An output the preview shows as known only after up."""
    value: asyncio.Future[Any] = asyncio.Future()
    value.set_result(None)
    known: asyncio.Future[bool] = asyncio.Future()
    known.set_result(False)
    return pulumi.Output(set(), value, known)
