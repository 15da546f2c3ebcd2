"""Timer metrics with the semantics of the Dropwizard (Coda Hale) metrics library.

A ``Timer`` is a histogram over an ``ExponentiallyDecayingReservoir`` plus a ``Meter``:

* Reservoir: Cormode et al.'s forward-decaying priority sampling, 1028 samples, alpha 0.015.
  A sample recorded at whole second ``t`` gets weight ``exp(alpha * (t - landmark))`` and
  priority ``weight / u`` with ``u`` uniform in (0, 1]; when full, a new sample replaces the
  lowest priority if its own is higher. Once an hour (checked lazily on update and on
  snapshot) the landmark moves to "now" and every weight and priority is multiplied by
  ``exp(-alpha * shift)``, which keeps the numbers finite without changing any ratio.
* Snapshot (``WeightedSnapshot``): samples sorted by value, weights normalised to sum 1;
  quantile ``q`` is the value whose preceding cumulative weight is the largest one <= ``q``;
  mean and (population) standard deviation are weighted.
* Meter: 1-, 5- and 15-minute exponentially weighted moving averages ticked every 5 s with
  ``alpha = 1 - exp(-5 / 60 / minutes)``. The first tick sets the rate to the instant rate
  (events in the interval / 5 s); later ticks move it by ``alpha`` towards the instant rate.
  Ticking is lazy: every mark or rate read catches up by the number of whole 5 s intervals
  since the last tick, and - as in Dropwizard - only once strictly more than 5 s have passed.
  ``mean_rate`` is count / seconds since the timer was created.

Durations are recorded in seconds (whatever unit the injected clock counts in) and reported
as seconds; rates are per second. Everything takes its time from one injectable clock so tests
can drive it deterministically.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
import threading
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

Clock = Callable[[], float]

TICK_INTERVAL_SECONDS = 5.0
RESERVOIR_SIZE = 1028
RESERVOIR_ALPHA = 0.015
RESCALE_INTERVAL_SECONDS = 3600.0
DURATION_UNITS = "seconds"
RATE_UNITS = "calls/second"
REPORTED_QUANTILES = {
    "p50": 0.5,
    "p75": 0.75,
    "p95": 0.95,
    "p98": 0.98,
    "p99": 0.99,
    "p999": 0.999,
}


class ExponentiallyWeightedMovingAverage:
    """A rate in events per second, averaged over ``window_minutes``."""

    def __init__(self, window_minutes: float, tick_interval: float = TICK_INTERVAL_SECONDS):
        self.alpha = 1.0 - math.exp(-tick_interval / 60.0 / window_minutes)
        self._tick_interval = tick_interval
        self._uncounted = 0
        self._rate = 0.0
        self._initialised = False

    @property
    def rate(self) -> float:
        return self._rate

    def update(self, n: int) -> None:
        self._uncounted += n

    def tick(self, times: int = 1) -> None:
        if times <= 0:
            return
        instant_rate = self._uncounted / self._tick_interval
        self._uncounted = 0
        if self._initialised:
            self._rate += self.alpha * (instant_rate - self._rate)
        else:
            self._rate = instant_rate
            self._initialised = True
        # Later ticks see no new events, so each one only decays the rate; doing them in
        # closed form keeps a read after a long idle period cheap.
        self._rate *= (1.0 - self.alpha) ** (times - 1)


class Meter:
    """Counts events and reports their mean rate and 1/5/15-minute moving-average rates."""

    def __init__(self, clock: Clock):
        self._clock = clock
        self._start_time = clock()
        self._last_tick = self._start_time
        self._count = 0
        self._m1 = ExponentiallyWeightedMovingAverage(1)
        self._m5 = ExponentiallyWeightedMovingAverage(5)
        self._m15 = ExponentiallyWeightedMovingAverage(15)

    @property
    def count(self) -> int:
        return self._count

    def mark(self, n: int = 1) -> None:
        self._tick_if_necessary()
        self._count += n
        for average in (self._m1, self._m5, self._m15):
            average.update(n)

    def one_minute_rate(self) -> float:
        self._tick_if_necessary()
        return self._m1.rate

    def five_minute_rate(self) -> float:
        self._tick_if_necessary()
        return self._m5.rate

    def fifteen_minute_rate(self) -> float:
        self._tick_if_necessary()
        return self._m15.rate

    def mean_rate(self) -> float:
        if self._count == 0:
            return 0.0
        elapsed = self._clock() - self._start_time
        # Dropwizard would report Infinity here; JSON cannot carry it.
        return self._count / elapsed if elapsed > 0 else 0.0

    def _tick_if_necessary(self) -> None:
        now = self._clock()
        age = now - self._last_tick
        if age > TICK_INTERVAL_SECONDS:
            required_ticks = int(age // TICK_INTERVAL_SECONDS)
            # The next interval starts on the 5 s grid, not at "now".
            self._last_tick = now - age % TICK_INTERVAL_SECONDS
            for average in (self._m1, self._m5, self._m15):
                average.tick(required_ticks)


@dataclass(frozen=True)
class WeightedSample:
    value: float
    weight: float


class WeightedSnapshot:
    """Statistics of a weighted sample, computed the way Dropwizard's WeightedSnapshot does."""

    def __init__(self, samples: Iterable[WeightedSample]):
        ordered = sorted(samples, key=lambda sample: sample.value)
        total_weight = sum(sample.weight for sample in ordered)
        self._values = [sample.value for sample in ordered]
        self._weights = [
            sample.weight / total_weight if total_weight else 0.0 for sample in ordered
        ]
        # _cumulative[i] is the total normalised weight of the values below index i.
        self._cumulative = list(itertools.accumulate(self._weights[:-1], initial=0.0))

    def __len__(self) -> int:
        return len(self._values)

    @property
    def values(self) -> list[float]:
        return list(self._values)

    def quantile(self, q: float) -> float:
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"{q} is not in [0..1]")
        if not self._values:
            return 0.0
        position = bisect_right(self._cumulative, q) - 1
        position = min(max(position, 0), len(self._values) - 1)
        return self._values[position]

    def min(self) -> float:
        return self._values[0] if self._values else 0.0

    def max(self) -> float:
        return self._values[-1] if self._values else 0.0

    def mean(self) -> float:
        pairs = zip(self._values, self._weights, strict=True)
        return sum(value * weight for value, weight in pairs)

    def stddev(self) -> float:
        if len(self._values) <= 1:
            return 0.0
        mean = self.mean()
        variance = sum(
            weight * (value - mean) ** 2
            for value, weight in zip(self._values, self._weights, strict=True)
        )
        return math.sqrt(variance)


class ExponentiallyDecayingReservoir:
    """A fixed-size sample biased towards the last few minutes of updates."""

    def __init__(
        self,
        clock: Clock,
        size: int = RESERVOIR_SIZE,
        alpha: float = RESERVOIR_ALPHA,
        rng: random.Random | None = None,
    ):
        self._clock = clock
        self._size = size
        self._alpha = alpha
        self._rng = rng or random.Random()
        # Min-heap on priority; the sequence number breaks ties without comparing samples.
        self._heap: list[tuple[float, int, WeightedSample]] = []
        self._sequence = itertools.count()
        self._landmark = self._whole_seconds_now()
        self._next_rescale = clock() + RESCALE_INTERVAL_SECONDS

    def __len__(self) -> int:
        return len(self._heap)

    def update(self, value: float) -> None:
        self._rescale_if_needed()
        weight = math.exp(self._alpha * (self._whole_seconds_now() - self._landmark))
        priority = weight / (1.0 - self._rng.random())
        entry = (priority, next(self._sequence), WeightedSample(value, weight))
        if len(self._heap) < self._size:
            heapq.heappush(self._heap, entry)
        elif self._heap[0][0] < priority:
            heapq.heapreplace(self._heap, entry)

    def snapshot(self) -> WeightedSnapshot:
        self._rescale_if_needed()
        return WeightedSnapshot(sample for _, _, sample in self._heap)

    def _whole_seconds_now(self) -> int:
        # Dropwizard timestamps samples in whole seconds.
        return math.floor(self._clock())

    def _rescale_if_needed(self) -> None:
        now = self._clock()
        if now < self._next_rescale:
            return
        self._next_rescale = now + RESCALE_INTERVAL_SECONDS
        old_landmark = self._landmark
        self._landmark = self._whole_seconds_now()
        factor = math.exp(-self._alpha * (self._landmark - old_landmark))
        rescaled = []
        for priority, sequence, sample in self._heap:
            weight = sample.weight * factor
            if weight > 0.0:  # samples that decayed to nothing are dropped
                rescaled.append((priority * factor, sequence, WeightedSample(sample.value, weight)))
        heapq.heapify(rescaled)  # scaling keeps the order; dropping may not keep the shape
        self._heap = rescaled


class Timer:
    """Durations (seconds) of a timed operation plus the rate at which it is called."""

    def __init__(self, clock: Clock, rng: random.Random | None = None):
        self._clock = clock
        self._lock = threading.Lock()
        self._count = 0
        self._meter = Meter(clock)
        self._reservoir = ExponentiallyDecayingReservoir(clock, rng=rng)

    @property
    def count(self) -> int:
        return self._count

    def update(self, duration: float) -> None:
        if duration < 0:  # a clock that went backwards; Dropwizard drops these too
            return
        with self._lock:
            self._count += 1
            self._reservoir.update(float(duration))
            self._meter.mark()

    @contextmanager
    def time(self) -> Iterator[None]:
        """Time the body of a ``with`` block, recording it even if the body raises."""
        start = self._clock()
        try:
            yield
        finally:
            self.update(self._clock() - start)

    def report(self) -> dict[str, Any]:
        """The metric entry as Dropwizard's JSON module writes it, in the same field order."""
        with self._lock:
            snapshot = self._reservoir.snapshot()
            entry: dict[str, Any] = {
                "count": self._count,
                "max": float(snapshot.max()),
                "mean": float(snapshot.mean()),
                "min": float(snapshot.min()),
            }
            for name, q in REPORTED_QUANTILES.items():
                entry[name] = float(snapshot.quantile(q))
            entry["stddev"] = float(snapshot.stddev())
            entry["m15_rate"] = self._meter.fifteen_minute_rate()
            entry["m1_rate"] = self._meter.one_minute_rate()
            entry["m5_rate"] = self._meter.five_minute_rate()
            entry["mean_rate"] = self._meter.mean_rate()
        entry["duration_units"] = DURATION_UNITS
        entry["rate_units"] = RATE_UNITS
        return entry


class MetricRegistry:
    """Named timers sharing one clock; reports are keyed by name in sorted order."""

    def __init__(self, clock: Clock = time.monotonic, rng: random.Random | None = None):
        self._clock = clock
        self._rng = rng
        self._lock = threading.Lock()
        self._timers: dict[str, Timer] = {}

    def timer(self, name: str) -> Timer:
        with self._lock:
            if name not in self._timers:
                self._timers[name] = Timer(self._clock, rng=self._rng)
            return self._timers[name]

    def report(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            timers = sorted(self._timers.items())
        return {name: timer.report() for name, timer in timers}
