"""Dropwizard timer semantics of emulator.sample_app.metrics, driven by a fake clock.

Tolerances: closed-form rates and weighted statistics to 1e-9 (or tighter, noted); quantiles
of 1..100 ms to 1 ms, i.e. one sample step, because which neighbour a quantile lands on
depends on rounding in the cumulative weights.
"""

from __future__ import annotations

import math
import random

import pytest

from tests.emulator_apps.support import FakeClock
from workspace_emulator.sample_app.metrics import (
    RESERVOIR_SIZE,
    ExponentiallyDecayingReservoir,
    MetricRegistry,
    Timer,
)

NUMBER_FIELDS = (
    "max mean min p50 p75 p95 p98 p99 p999 stddev m15_rate m1_rate m5_rate mean_rate".split()
)
M1_DECAY = math.exp(-5 / 60)  # 1 - alpha for the one-minute average
M5_DECAY = math.exp(-5 / 300)
M15_DECAY = math.exp(-5 / 900)


def make_timer(clock: FakeClock) -> Timer:
    return Timer(clock, rng=random.Random(1234))


def test_report_is_all_zeros_before_the_first_update():
    report = make_timer(FakeClock()).report()

    assert list(report) == ["count", *NUMBER_FIELDS, "duration_units", "rate_units"]
    assert report["count"] == 0 and isinstance(report["count"], int)
    for field in NUMBER_FIELDS:
        assert report[field] == 0.0 and isinstance(report[field], float), field
    assert report["duration_units"] == "seconds"
    assert report["rate_units"] == "calls/second"


def test_statistics_of_one_to_a_hundred_milliseconds():
    timer = make_timer(FakeClock())
    durations = [ms / 1000 for ms in range(1, 101)]
    random.Random(7).shuffle(durations)
    for duration in durations:
        timer.update(duration)  # all in the same second, so equal weights

    report = timer.report()

    assert report["count"] == 100
    assert report["min"] == pytest.approx(0.001, abs=1e-12)
    assert report["max"] == pytest.approx(0.100, abs=1e-12)
    assert report["mean"] == pytest.approx(0.0505, abs=1e-12)
    assert report["stddev"] == pytest.approx(math.sqrt((100**2 - 1) / 12) / 1000, abs=1e-12)
    expected = {"p50": 0.050, "p75": 0.075, "p95": 0.095, "p98": 0.098, "p99": 0.099}
    for field, value in {**expected, "p999": 0.0999}.items():
        assert report[field] == pytest.approx(value, abs=0.001), field


def test_later_samples_weigh_more_in_mean_stddev_and_quantiles():
    clock = FakeClock()
    timer = make_timer(clock)
    timer.update(1.0)
    clock.advance(100)
    timer.update(2.0)

    later_share = math.exp(0.015 * 100) / (1 + math.exp(0.015 * 100))
    report = timer.report()

    assert report["mean"] == pytest.approx(1 + later_share, abs=1e-12)
    assert report["stddev"] == pytest.approx(math.sqrt(later_share * (1 - later_share)), abs=1e-12)
    assert report["p50"] == 2.0  # the earlier sample carries only ~18% of the weight
    assert report["min"] == 1.0 and report["max"] == 2.0


def test_one_tick_sets_every_rate_to_marks_over_five_seconds():
    clock = FakeClock()
    timer = make_timer(clock)
    for _ in range(7):
        timer.update(0.01)

    clock.advance(5.5)
    report = timer.report()

    for field in ("m1_rate", "m5_rate", "m15_rate"):
        assert report[field] == pytest.approx(7 / 5, abs=1e-12), field


def test_rates_do_not_tick_until_strictly_more_than_five_seconds_have_passed():
    clock = FakeClock()
    timer = make_timer(clock)
    timer.update(0.01)

    clock.advance(5.0)
    assert timer.report()["m1_rate"] == 0.0
    clock.advance(0.001)
    assert timer.report()["m1_rate"] == pytest.approx(1 / 5, abs=1e-12)


def test_rates_decay_by_the_ewma_factor_on_every_further_tick():
    clock = FakeClock()
    timer = make_timer(clock)
    for _ in range(7):
        timer.update(0.01)
    clock.advance(5.5)
    timer.report()

    for ticks in range(1, 25):
        clock.advance(5)
        report = timer.report()
        assert report["m1_rate"] == pytest.approx(1.4 * M1_DECAY**ticks, abs=1e-9)
        assert report["m5_rate"] == pytest.approx(1.4 * M5_DECAY**ticks, abs=1e-9)
        assert report["m15_rate"] == pytest.approx(1.4 * M15_DECAY**ticks, abs=1e-9)
    assert timer.report()["m1_rate"] == pytest.approx(1.4 / math.e**2, abs=1e-9)  # 2 minutes


def test_marks_in_a_later_interval_move_the_rate_by_alpha_towards_the_instant_rate():
    clock = FakeClock()
    timer = make_timer(clock)
    for _ in range(7):
        timer.update(0.01)
    clock.advance(5.5)
    timer.report()  # first tick: 1.4 calls/s
    for _ in range(3):
        timer.update(0.01)

    clock.advance(5)
    report = timer.report()

    for field, decay in (("m1_rate", M1_DECAY), ("m5_rate", M5_DECAY), ("m15_rate", M15_DECAY)):
        alpha = 1 - decay
        assert report[field] == pytest.approx(1.4 + alpha * (3 / 5 - 1.4), abs=1e-9), field


def test_a_long_gap_catches_up_the_same_as_reading_every_tick():
    stepwise_clock, gap_clock = FakeClock(), FakeClock()
    stepwise, gap = make_timer(stepwise_clock), make_timer(gap_clock)
    for timer in (stepwise, gap):
        for _ in range(20):
            timer.update(0.01)

    for _ in range(120):
        stepwise_clock.advance(5)
        stepwise.report()
    stepwise_clock.advance(0.5)
    gap_clock.advance(600.5)

    for field in ("m1_rate", "m5_rate", "m15_rate"):
        assert gap.report()[field] == pytest.approx(stepwise.report()[field], rel=1e-9, abs=1e-15)


def test_mean_rate_is_count_over_seconds_since_the_timer_was_made():
    clock = FakeClock(start=100.0)
    timer = make_timer(clock)
    clock.advance(1)
    for _ in range(10):
        timer.update(0.01)
    clock.advance(3)

    assert timer.report()["mean_rate"] == pytest.approx(10 / 4, abs=1e-12)


def test_reservoir_keeps_at_most_1028_samples():
    clock = FakeClock()
    timer = make_timer(clock)
    reservoir = ExponentiallyDecayingReservoir(clock, rng=random.Random(1))
    for i in range(5000):
        reservoir.update(float(i))
        timer.update(0.001)
        if i % 100 == 0:
            clock.advance(1)

    assert RESERVOIR_SIZE == 1028
    assert len(reservoir) == 1028
    assert len(reservoir.snapshot()) == 1028
    assert timer.count == 5000


def test_reservoir_favours_recent_values_after_many_updates():
    clock = FakeClock()
    reservoir = ExponentiallyDecayingReservoir(clock, rng=random.Random(99))
    for _ in range(2000):
        reservoir.update(0.0)
    clock.advance(600)  # ten minutes: new samples weigh e^9 (about 8100) times more
    for _ in range(2000):
        reservoir.update(1.0)

    snapshot = reservoir.snapshot()

    assert snapshot.values.count(1.0) >= 1020
    assert snapshot.quantile(0.5) == 1.0
    assert snapshot.mean() > 0.999


def test_hourly_rescale_preserves_relative_weights():
    clock = FakeClock()
    reservoir = ExponentiallyDecayingReservoir(clock, rng=random.Random(5))
    reservoir.update(1.0)
    clock.advance(1800)
    reservoir.update(2.0)
    before = reservoir.snapshot()

    clock.advance(1800)  # reaching the hour triggers the rescale on the next read
    after = reservoir.snapshot()

    assert after.mean() == pytest.approx(before.mean(), abs=1e-9)
    assert after.stddev() == pytest.approx(before.stddev(), abs=1e-9)


def test_weights_stay_finite_over_days_of_updates():
    clock = FakeClock()
    reservoir = ExponentiallyDecayingReservoir(clock, rng=random.Random(3))
    for hour in range(72):  # without rescaling exp(0.015 * t) would overflow after ~13 h
        for _ in range(10):
            reservoir.update(float(hour))
        clock.advance(3600)

    snapshot = reservoir.snapshot()

    assert snapshot.quantile(0.5) == 71.0
    assert math.isfinite(snapshot.mean()) and snapshot.mean() == pytest.approx(71.0, abs=1e-6)


def test_timer_context_records_the_clock_time_spent_even_on_error():
    clock = FakeClock()
    timer = make_timer(clock)
    with timer.time():
        clock.advance(0.25)
    with pytest.raises(RuntimeError), timer.time():
        clock.advance(0.75)
        raise RuntimeError("boom")

    report = timer.report()

    assert report["count"] == 2
    assert report["min"] == 0.25 and report["max"] == 0.75


def test_negative_durations_are_ignored():
    timer = make_timer(FakeClock())
    timer.update(-1.0)
    assert timer.report()["count"] == 0


def test_registry_reuses_timers_and_reports_them_by_sorted_name():
    registry = MetricRegistry(FakeClock())
    assert registry.timer("runTest") is registry.timer("runTest")
    registry.timer("another")

    assert list(registry.report()) == ["another", "runTest"]
