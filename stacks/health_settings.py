"""The health gate's settings (`workspace:health`, `workspace:flowPassword`): the model and
its config problems, judged with the rest of the stack's config before anything is
registered (stacks/config.py) and used by the gate (stacks/health.py, docs/health.md)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from providers.client.connection import is_loopback_host
from stacks.errors import NAMESPACE, ConfigError, plain_text_problem

HEALTH_KEY = "health"
PASSWORD_KEY = "flowPassword"

MetricField = Literal[
    "count", "max", "mean", "min", "stddev", "p50", "p75", "p95", "p98", "p99", "p999",
    "m1_rate", "m5_rate", "m15_rate", "mean_rate",
]


class Threshold(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    metric: str = Field(min_length=1)
    field: MetricField
    max: float | None = None
    min: float | None = None

    @model_validator(mode="after")
    def _has_a_limit(self) -> Threshold:
        if self.max is None and self.min is None:
            raise ValueError("give `max`, `min` or both")
        if self.max is not None and self.min is not None and self.min > self.max:
            raise ValueError(f"min {self.min:g} is above max {self.max:g}")
        return self

    def violation(self, observed: float) -> str | None:
        """Why `observed` breaks this threshold, or None when it is within it."""
        if self.max is not None and observed > self.max:
            return f"{self.metric}.{self.field} = {observed:g} exceeds max {self.max:g}"
        if self.min is not None and observed < self.min:
            return f"{self.metric}.{self.field} = {observed:g} is below min {self.min:g}"
        return None


class HealthSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    app_url: str = Field(alias="appUrl", min_length=1)
    admin_url: str = Field(alias="adminUrl", min_length=1)
    flow_api_base: str = Field(alias="flowApiBase", min_length=1)
    flow_username: str | None = Field(default=None, alias="flowUsername", min_length=1)
    thresholds: list[Threshold] = Field(default_factory=list)


def problems(values: Mapping[str, Any], secret_keys: Iterable[str] = ()) -> list[str]:
    """The health gate's config problems, for stacks.config.validate (which judges all of
    the config before anything is registered, and files offline)."""
    found = []
    if PASSWORD_KEY in values and PASSWORD_KEY not in set(secret_keys):
        found.append(plain_text_problem(PASSWORD_KEY, placeholder="<password>"))
    raw = values.get(HEALTH_KEY)
    if isinstance(raw, str):  # the engine passes objects as JSON text
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raw = "text"
    if raw is not None:
        try:
            settings = parse_settings(raw)
        except ConfigError as exc:
            found.append(str(exc))
        else:
            if values.get(PASSWORD_KEY) is None:
                found += [p for p in [missing_password_problem(settings)] if p]
    return found


def missing_password_problem(settings: HealthSettings) -> str | None:
    """Why the flow controller needs `workspace:flowPassword`, when it does: the default,
    the workspace's client secret, is sent to a loopback flow controller (the emulator's,
    which accepts the identity provider's applications) only. Another service never gets
    the Azure AD client secret."""
    if is_loopback_host(urlsplit(settings.flow_api_base).hostname or ""):
        return None
    return (
        f"{NAMESPACE}:{PASSWORD_KEY}: required: the flow controller at "
        f"{settings.flow_api_base} gets a credential of its own, never the workspace's client "
        "secret (that default holds for a loopback address, the emulator, only); set it with "
        f"`pulumi config set --secret {NAMESPACE}:{PASSWORD_KEY} <password>`"
    )


def parse_settings(raw: Any) -> HealthSettings:
    """The settings from the config value, or ConfigError naming the key and the reason."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{NAMESPACE}:{HEALTH_KEY} must be an object")
    try:
        return HealthSettings.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"]
        )
        # Never echo an unknown key's value: it may be a misplaced secret.
        shown = "" if error["type"] in ("missing", "extra_forbidden") else (
            f" (got {_shown(error.get('input'))})"
        )
        raise ConfigError(f"{NAMESPACE}:{HEALTH_KEY}{where}: {error['msg']}{shown}") from None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
