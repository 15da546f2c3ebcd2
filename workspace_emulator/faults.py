"""Injected faults: error statuses, added latency and dropped connections, on request.

By default a fault is decided and answered before the request reaches its handler, so an
injected error never has a side effect: the client may safely retry. With `after_write`
the 500s, 503s, dropped connections and added latency come after the handler ran instead:
the operation is applied and its answer lost or late, the case a client cannot tell from
a failure before the write (429 stays before: a service throttles before it works).
One uniform draw per matching request, from a generator with a fixed random state
(`random_state`), makes a sequential run repeat exactly.
"""

from __future__ import annotations

import fnmatch
import random
import threading
from dataclasses import asdict, dataclass, field
from typing import Any

ADMIN_PREFIX = "/_emulator"


@dataclass(frozen=True)
class FaultSettings:
    rate_429: float = 0.0
    rate_500: float = 0.0
    rate_503: float = 0.0
    rate_drop: float = 0.0
    latency_ms: float = 0.0
    random_state: int | None = None
    paths: tuple[str, ...] = field(default_factory=tuple)
    after_write: bool = False

    def __post_init__(self) -> None:
        for name in ("rate_429", "rate_500", "rate_503", "rate_drop"):
            rate = getattr(self, name)
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {rate}")
        if self.total_rate > 1.0 + 1e-9:
            raise ValueError(f"the fault rates add up to {self.total_rate}, more than 1")
        if self.latency_ms < 0:
            raise ValueError("latency_ms must not be negative")

    @property
    def total_rate(self) -> float:
        return self.rate_429 + self.rate_500 + self.rate_503 + self.rate_drop

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FaultSettings:
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown fault settings: {', '.join(sorted(unknown))}")
        values = dict(data)
        paths = values.get("paths") or ()
        if isinstance(paths, str):
            paths = parse_path_globs(paths)
        if not all(isinstance(p, str) for p in paths):
            raise ValueError("paths must be a list of glob strings")
        values["paths"] = tuple(paths)
        for name in ("rate_429", "rate_500", "rate_503", "rate_drop", "latency_ms"):
            if name in values:
                value = values[name]
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ValueError(f"{name} must be a number")
                values[name] = float(value)
        if not isinstance(values.get("after_write", False), bool):
            raise ValueError("after_write must be true or false")
        state = values.get("random_state")
        if state is not None and (isinstance(state, bool) or not isinstance(state, int)):
            raise ValueError("random_state must be an integer")
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["paths"] = list(self.paths)
        return data


def parse_path_globs(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


@dataclass(frozen=True)
class FaultDecision:
    latency_seconds: float = 0.0
    status: int | None = None  # 429, 500 or 503
    drop: bool = False
    after_write: bool = False  # the handler runs first; its answer is replaced or delayed

    @property
    def label(self) -> str | None:
        """"500", "drop", ...; "500 after write" when the handler ran first."""
        kind = "drop" if self.drop else None if self.status is None else str(self.status)
        return f"{kind} after write" if kind and self.after_write else kind


NO_FAULT = FaultDecision()


class FaultInjector:
    def __init__(self, settings: FaultSettings | None = None) -> None:
        self._lock = threading.Lock()
        self.configure(settings or FaultSettings())

    @property
    def settings(self) -> FaultSettings:
        return self._settings

    def configure(self, settings: FaultSettings) -> None:
        with self._lock:
            self._settings = settings
            self._random = random.Random(settings.random_state)

    def applies_to(self, path: str) -> bool:
        if path.startswith(ADMIN_PREFIX):
            return False
        globs = self._settings.paths
        return not globs or any(fnmatch.fnmatchcase(path, glob) for glob in globs)

    def decide(self, path: str) -> FaultDecision:
        settings = self._settings
        if (settings.total_rate == 0 and settings.latency_ms == 0) or not self.applies_to(path):
            return NO_FAULT
        latency = settings.latency_ms / 1000.0
        if settings.total_rate == 0:
            return FaultDecision(latency_seconds=latency, after_write=settings.after_write)
        with self._lock:
            draw = self._random.random()
        threshold = 0.0
        for status, rate in ((429, settings.rate_429), (500, settings.rate_500),
                             (503, settings.rate_503)):
            threshold += rate
            if draw < threshold:
                return FaultDecision(latency_seconds=latency, status=status,
                                     after_write=settings.after_write and status != 429)
        if draw < threshold + settings.rate_drop:
            return FaultDecision(latency_seconds=latency, drop=True,
                                 after_write=settings.after_write)
        return FaultDecision(latency_seconds=latency, after_write=settings.after_write)
