"""The clock detector as a specification: observations and time in, alerts and metrics out."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from monitor.detectors.time_sync import (
    OFFSET_HIGH,
    STEPPED_BACKWARDS,
    STEPS_PERIODIC,
    UNSYNCHRONISED,
    ClockDetector,
    format_duration,
    format_seconds,
)
from monitor.model import (
    Category,
    DetectorOutput,
    Health,
    JobEnded,
    MetricFamilyData,
    Severity,
    SourceState,
    Transition,
)
from monitor.parse.time_sync_model import (
    ClockMeasurement,
    ClockReading,
    ClockReferenceFailure,
    ClockSlew,
    ClockStep,
    KernelClockStatus,
)
from monitor.parse.timex import interpret_timex
from monitor.settings import ClockSettings

NODE = "gpu017"
WALL0 = 1_795_000_000.0


def detector(**overrides: object) -> ClockDetector:
    return ClockDetector(ClockSettings(**overrides), NODE)  # type: ignore[arg-type]


def reading(
    at: float,
    *,
    jump: float = 0.0,
    interval: float = 1.0,
    rate_ppm: float = 0.0,
    uncertainty: float = 1e-6,
    first: bool = False,
) -> ClockReading:
    """A reading `interval` after the previous one, whose wall clock moved `jump` extra."""
    return ClockReading(
        at=at,
        wall_seconds=WALL0 + at + jump,
        wall_delta_seconds=0.0 if first else interval + jump,
        monotonic_delta_seconds=0.0 if first else interval,
        adjusted_delta_seconds=0.0 if first else interval * (1 + rate_ppm * 1e-6),
        raw_delta_seconds=0.0 if first else interval,
        uncertainty_seconds=uncertainty,
        first=first,
    )


def measurement(
    at: float,
    offset: float | None,
    *,
    reference: str = "ntp1:123",
    method: str = "sntp",
    uncertainty: float = 0.001,
    synchronised: bool = True,
    leap: bool = False,
) -> ClockMeasurement:
    return ClockMeasurement(
        at=at,
        reference=reference,
        method=method,
        offset_seconds=offset,
        uncertainty_seconds=None if offset is None else uncertainty,
        synchronised=synchronised,
        leap_pending=leap,
        stratum=2,
        delay_seconds=0.0005,
        wall_seconds=WALL0 + at,
        detail="10.0.0.1",
    )


def kernel(at: float, synchronised: bool, state: int | None = None) -> KernelClockStatus:
    status = 0 if synchronised else 0x40
    result = state if state is not None else (0 if synchronised else 5)
    return KernelClockStatus(at, interpret_timex(result, status, 1000, 100, 0, 0))


def transitions(outputs: Sequence[DetectorOutput], name: str | None = None) -> list[Transition]:
    return [
        o for o in outputs if isinstance(o, Transition) and (name is None or o.alertname == name)
    ]


def family(det: ClockDetector, now: float, name: str) -> MetricFamilyData:
    return next(f for f in det.metric_families(now) if f.name == name)


def value(det: ClockDetector, now: float, name: str, labels: tuple[str, ...] = ()) -> float | None:
    return dict(family(det, now, name).samples).get(labels)


def warmed(det: ClockDetector, at: float = 10.0) -> None:
    """A detector that has a first reading and a fine reference."""
    det.observe(reading(at, first=True), at)
    det.observe(measurement(at, 0.001), at)


# -- health ---------------------------------------------------------------------------


def test_blind_before_any_reading() -> None:
    """With nothing observed the clock concern is UNKNOWN, never OK."""
    det = detector()
    assert det.health(0.0).health is Health.UNKNOWN


def test_no_reference_is_unknown() -> None:
    """Clock readings alone (no chrony, no NTP server) leave the concern UNKNOWN: no reference."""
    det = detector()
    det.observe(reading(1.0, first=True), 1.0)
    det.observe(
        SourceState(1.0, "clock_reference", False, "no time reference: chronyd is not answering"),
        1.0,
    )
    health = det.health(1.0)
    assert health.health is Health.UNKNOWN
    assert "no time reference" in health.reason
    assert family(det, 1.0, "clock_offset_seconds").samples == ()


def test_healthy_with_a_fresh_reference() -> None:
    """A reading and a fresh measurement under the threshold make the concern OK."""
    det = detector()
    warmed(det)
    assert det.health(11.0).health is Health.OK
    assert value(det, 11.0, "clock_offset_seconds") == 0.001
    assert value(det, 11.0, "clock_error_bound_seconds") == pytest.approx(0.002)
    assert value(det, 11.0, "clock_reference_up", ("ntp1:123",)) == 1.0


def test_stale_measurement_goes_blind() -> None:
    """A measurement older than three offset intervals no longer counts: UNKNOWN, no offset."""
    det = detector(offset_interval_seconds=60.0)
    warmed(det)
    assert det.health(10.0 + 179).health is Health.OK
    assert det.health(10.0 + 181).health is Health.UNKNOWN
    assert family(det, 191.0, "clock_offset_seconds").samples == ()


def test_local_probe_down_is_unknown() -> None:
    """If the local clock probe stops, the concern is UNKNOWN with its reason."""
    det = detector()
    warmed(det)
    det.observe(SourceState(12.0, "clock_local", False, "boom"), 12.0)
    assert det.health(12.0).health is Health.UNKNOWN
    assert det.health(12.0).reason == "boom"


def test_failed_reference_reported_down() -> None:
    """A reference that fails while another answers is shown down in clock_reference_up."""
    det = detector()
    warmed(det)
    det.observe(ClockReferenceFailure(11.0, "ntp2:123", "sntp", "timeout", "no reply"), 11.0)
    assert value(det, 11.0, "clock_reference_up", ("ntp2:123",)) == 0.0
    assert det.health(11.0).health is Health.OK


# -- steps ----------------------------------------------------------------------------


def test_backwards_step_alerts_naming_node_and_size() -> None:
    """A 1.2 s backwards step gives a ClockStep observation and a warning naming node and size."""
    det = detector()
    warmed(det)
    out = det.observe(reading(11.0, jump=-1.2), 11.0)
    steps = [o for o in out if isinstance(o, ClockStep)]
    assert len(steps) == 1 and steps[0].direction == "backward"
    assert steps[0].step_seconds == pytest.approx(-1.2)
    (alert,) = transitions(out, STEPPED_BACKWARDS)
    assert alert.firing and alert.severity is Severity.WARNING and alert.category is Category.CLOCK
    assert NODE in alert.summary and "1.200 s" in alert.summary
    assert alert.evidence["step_seconds"] == pytest.approx(-1.2)
    assert value(det, 11.0, "clock_steps", ("backward",)) == 1
    assert value(det, 11.0, "clock_last_step_seconds") == pytest.approx(-1.2)
    assert det.health(11.0).health is Health.WARNING


def test_forward_step_is_an_observation_not_an_alert() -> None:
    """A forward step is counted and observed, but does not page anyone."""
    det = detector()
    warmed(det)
    out = det.observe(reading(11.0, jump=0.5), 11.0)
    assert [o.direction for o in out if isinstance(o, ClockStep)] == ["forward"]
    assert transitions(out) == []
    assert value(det, 11.0, "clock_steps", ("forward",)) == 1
    assert value(det, 11.0, "clock_steps", ("backward",)) == 0


def test_small_jumps_and_read_uncertainty_are_not_steps() -> None:
    """Jumps under the threshold, or explained by the reading's uncertainty, are not steps."""
    det = detector(step_threshold_seconds=0.05)
    warmed(det)
    assert det.observe(reading(11.0, jump=-0.04), 11.0) == []
    assert det.observe(reading(12.0, jump=-0.06, uncertainty=0.02), 12.0) == []
    assert value(det, 12.0, "clock_steps", ("backward",)) == 0


def test_step_alert_resolves_after_the_hold() -> None:
    """ClockSteppedBackwards resolves after step_alert_hold_seconds without another step."""
    det = detector(step_alert_hold_seconds=600.0)
    warmed(det)
    det.observe(reading(11.0, jump=-1.0), 11.0)
    assert transitions(det.tick(600.0)) == []
    (resolved,) = transitions(det.tick(611.0), STEPPED_BACKWARDS)
    assert not resolved.firing


def test_no_step_alert_after_the_job_ended() -> None:
    """Once the job is over a backwards step is still counted but raises nothing."""
    det = detector()
    warmed(det)
    det.observe(JobEnded(10.5, 0), 10.5)
    out = det.observe(reading(11.0, jump=-1.0), 11.0)
    assert transitions(out) == []
    assert value(det, 11.0, "clock_steps", ("backward",)) == 1


def test_periodic_backwards_steps_state_the_period() -> None:
    """Backwards steps every 34 minutes: the third one says so, and ClockStepsPeriodic fires."""
    det = detector(step_alert_hold_seconds=600.0, periodic_min_steps=3)
    warmed(det)
    period = 34 * 60.0
    fired: list[Transition] = []
    for k in range(3):
        at = 100.0 + k * period + (3.0 if k == 1 else 0.0)  # a little jitter
        fired += transitions(det.tick(at - 1))
        fired += transitions(det.observe(reading(at, jump=-0.8), at))
    stepped = [t for t in fired if t.alertname == STEPPED_BACKWARDS and t.firing]
    assert len(stepped) == 3  # each step is its own page: the hold is shorter than the period
    assert "every 34m" in stepped[-1].summary and "3rd" in stepped[-1].summary
    assert "every" not in stepped[0].summary
    (periodic,) = [t for t in fired if t.alertname == STEPS_PERIODIC]
    assert periodic.firing and "every 34m" in periodic.summary and NODE in periodic.summary
    assert periodic.evidence["period_seconds"] == pytest.approx(period, abs=5)
    assert value(det, 5000.0, "clock_step_period_seconds") == pytest.approx(period, abs=5)


def test_irregular_steps_have_no_period() -> None:
    """Backwards steps at irregular intervals are not called periodic."""
    det = detector(periodic_min_steps=3)
    warmed(det)
    out: list[DetectorOutput] = []
    for at in (100.0, 400.0, 2500.0):
        out += det.observe(reading(at, jump=-0.8), at)
    assert transitions(out, STEPS_PERIODIC) == []
    assert family(det, 2500.0, "clock_step_period_seconds").samples == ()


def test_periodic_alert_resolves_when_steps_stop() -> None:
    """ClockStepsPeriodic resolves once two periods plus the hold pass without a step."""
    det = detector(step_alert_hold_seconds=60.0, periodic_min_steps=3)
    warmed(det)
    for at in (100.0, 400.0, 700.0):
        det.observe(reading(at, jump=-0.2), at)
    assert transitions(det.tick(700.0 + 600 + 59), STEPS_PERIODIC) == []
    (resolved,) = transitions(det.tick(700.0 + 600 + 61), STEPS_PERIODIC)
    assert not resolved.firing


def test_leap_second_step_is_explained() -> None:
    """A 1 s backwards step after a leap second was announced says it is probably the leap."""
    det = detector()
    warmed(det)
    det.observe(measurement(11.0, 0.0, leap=True), 11.0)
    assert value(det, 11.0, "clock_leap_pending") == 1.0
    (alert,) = transitions(det.observe(reading(12.0, jump=-1.0), 12.0), STEPPED_BACKWARDS)
    assert "leap second" in alert.description


# -- slews ----------------------------------------------------------------------------


def test_unusual_slew_is_observed() -> None:
    """A 2000 ppm rate correction over the window yields a ClockSlew and the ratio metric."""
    det = detector(slew_window_seconds=10.0, slew_threshold_ppm=500.0)
    warmed(det, at=0.0)
    out: list[DetectorOutput] = []
    for k in range(1, 11):
        out += det.observe(reading(float(k), rate_ppm=2000.0), float(k))
    slews = [o for o in out if isinstance(o, ClockSlew)]
    assert len(slews) == 1
    assert slews[0].frequency_adjustment_ratio == pytest.approx(2e-3)
    assert value(det, 10.0, "clock_frequency_adjustment_ratio") == pytest.approx(2e-3)
    assert value(det, 10.0, "clock_unusual_slews") == 1
    assert transitions(out) == []


def test_ordinary_frequency_correction_is_not_unusual() -> None:
    """A 30 ppm crystal correction is measured but not reported as a slew."""
    det = detector(slew_window_seconds=10.0)
    warmed(det, at=0.0)
    out: list[DetectorOutput] = []
    for k in range(1, 11):
        out += det.observe(reading(float(k), rate_ppm=-30.0), float(k))
    assert [o for o in out if isinstance(o, ClockSlew)] == []
    assert value(det, 10.0, "clock_frequency_adjustment_ratio") == pytest.approx(-30e-6)


# -- offset ---------------------------------------------------------------------------


@pytest.mark.parametrize(("offset", "word"), [(0.25, "ahead of"), (-0.25, "behind")])
def test_offset_alert_has_sign_and_size(offset: float, word: str) -> None:
    """An offset beyond 100 ms fires ClockOffsetHigh saying ahead/behind and how much."""
    det = detector()
    warmed(det)
    (alert,) = transitions(det.observe(measurement(20.0, offset), 20.0), OFFSET_HIGH)
    assert alert.firing
    assert f"250 ms {word} ntp1:123" in alert.summary and NODE in alert.summary
    assert alert.evidence["offset_seconds"] == offset
    assert "limit 100 ms" in alert.summary


def test_offset_alert_hysteresis() -> None:
    """The offset alert resolves only under 80 % of the threshold."""
    det = detector(offset_threshold_seconds=0.1)
    warmed(det)
    det.observe(measurement(20.0, 0.15), 20.0)
    assert transitions(det.observe(measurement(80.0, 0.09), 80.0)) == []
    (resolved,) = transitions(det.observe(measurement(140.0, 0.05), 140.0), OFFSET_HIGH)
    assert not resolved.firing


def test_best_measurement_is_the_least_uncertain() -> None:
    """With several references the one with the smallest uncertainty sets clock_offset_seconds."""
    det = detector()
    warmed(det)
    det.observe(measurement(20.0, 0.030, reference="far:123", uncertainty=0.05), 20.0)
    det.observe(
        measurement(20.0, 0.002, reference="chrony", method="chrony", uncertainty=1e-4), 20.0
    )
    assert value(det, 20.0, "clock_offset_seconds") == 0.002
    assert value(det, 20.0, "clock_reference_offset_seconds", ("far:123",)) == 0.030


# -- synchronisation ------------------------------------------------------------------


def test_kernel_unsynchronised_alerts_after_grace() -> None:
    """Without chronyd, an unsynchronised kernel clock alerts after the grace period."""
    det = detector(unsynchronised_grace_seconds=300.0)
    warmed(det)
    assert transitions(det.observe(kernel(20.0, False), 20.0)) == []
    assert value(det, 20.0, "clock_synchronised") == 0.0
    assert transitions(det.tick(310.0)) == []
    (alert,) = transitions(det.tick(321.0), UNSYNCHRONISED)
    assert alert.firing and "kernel" in alert.summary and NODE in alert.summary
    (resolved,) = transitions(det.observe(kernel(400.0, True), 400.0), UNSYNCHRONISED)
    assert not resolved.firing


def test_chronyd_view_overrides_the_kernel() -> None:
    """When chronyd answers, its verdict counts (the kernel flag needs chrony's rtcsync)."""
    det = detector(unsynchronised_grace_seconds=0.0)
    warmed(det)
    det.observe(measurement(20.0, 0.0001, reference="chrony", method="chrony"), 20.0)
    assert transitions(det.observe(kernel(20.0, False), 20.0)) == []
    assert value(det, 20.0, "clock_synchronised") == 1.0
    assert value(det, 20.0, "clock_kernel_synchronised") == 0.0


def test_chronyd_not_synchronised_alerts() -> None:
    """chronyd saying "Not synchronised" fires ClockUnsynchronised; the offset is unknown."""
    det = detector(unsynchronised_grace_seconds=0.0)
    det.observe(reading(1.0, first=True), 1.0)
    out = det.observe(
        measurement(2.0, None, reference="chrony", method="chrony", synchronised=False), 2.0
    )
    (alert,) = transitions(out, UNSYNCHRONISED)
    assert "chronyd" in alert.summary
    assert det.health(2.0).health is Health.WARNING
    assert family(det, 2.0, "clock_offset_seconds").samples == ()


# -- formatting -----------------------------------------------------------------------


def test_formatting() -> None:
    """Sizes and durations read naturally in alert text."""
    assert format_seconds(0.25) == "250 ms"
    assert format_seconds(-1.2, signed=True) == "-1.200 s"
    assert format_seconds(0.0035, signed=True) == "+3.5 ms"
    assert format_seconds(20e-6) == "20 µs"
    assert format_duration(2040.0) == "34m00s"
    assert format_duration(3720.0) == "1h02m"
    assert format_duration(2.5) == "2.5s"
