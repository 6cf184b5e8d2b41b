"""Clock detector: steps, slews, offset against a reference, and synchronisation.

Inputs: ClockReading and KernelClockStatus (clock_local), ClockMeasurement and
ClockReferenceFailure (clock_reference), SourceState of both, JobEnded.

Derived observations: ClockStep (every step, either direction, with its size) and ClockSlew
(a frequency adjustment beyond clock.slew_threshold_ppm over clock.slew_window_seconds).

Alerts (category `clock`, severity warning, node scope), with their edges:
  ClockSteppedBackwards  idle -> firing: a backwards step while the job runs (summary names the
                         node, the step and, once known, the period);
                         firing -> idle: clock.step_alert_hold_seconds without another one.
  ClockStepsPeriodic     idle -> firing: clock.periodic_min_steps backwards steps at a steady
                         interval (summary states the period);
                         firing -> idle: no backwards step for two periods plus the hold.
  ClockOffsetHigh        idle -> firing: the best fresh measurement is beyond
                         clock.offset_threshold_seconds (summary gives sign and size);
                         firing -> idle: a measurement back under 80 % of the threshold.
  ClockUnsynchronised    idle -> firing: the synchronisation authority (chronyd when it
                         answers, else the kernel) says unsynchronised for
                         clock.unsynchronised_grace_seconds;
                         firing -> idle: it says synchronised again.

Health: WARNING while any of these fires; else UNKNOWN when blind (no clock reading, the local
probe down, no fresh offset measurement: "no reference"); else OK.
"""

from __future__ import annotations

import itertools
import statistics
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from monitor.model import (
    Category,
    ConcernHealth,
    DetectorOutput,
    EvidenceValue,
    Health,
    JobEnded,
    MetricFamilyData,
    Observation,
    Severity,
    SourceState,
    Transition,
    counter,
    gauge,
)
from monitor.parse.time_sync_model import (
    LOCAL_SOURCE,
    REFERENCE_SOURCE,
    ClockMeasurement,
    ClockReading,
    ClockReferenceFailure,
    ClockSlew,
    ClockStep,
    KernelClockStatus,
)
from monitor.parse.timex import KernelClock
from monitor.settings import ClockSettings

STEPPED_BACKWARDS = "ClockSteppedBackwards"
STEPS_PERIODIC = "ClockStepsPeriodic"
OFFSET_HIGH = "ClockOffsetHigh"
UNSYNCHRONISED = "ClockUnsynchronised"
_RESOLVE_FRACTION = 0.8  # hysteresis: resolve an offset alert only well under the threshold
_STALE_INTERVALS = 3.0  # a measurement older than this many intervals no longer counts
_PERIOD_TOLERANCE = 0.1  # intervals within 10 % of their median are "steady"
_LEAP_STEP_TOLERANCE = 0.1


@dataclass
class _Alert:
    firing: bool = False
    until: float = 0.0  # for held alerts: resolve at this monotonic time


class ClockDetector:
    name = "clock"

    def __init__(self, settings: ClockSettings, node: str) -> None:
        self._s = settings
        self._node = node or "this node"
        self._job_ended = False
        # local clock
        self._readings = 0
        self._local_down: str | None = None
        self._steps = {"backward": 0, "forward": 0}
        self._last_step: ClockStep | None = None
        self._backward_ats: deque[float] = deque(maxlen=16)
        self._period: float | None = None
        self._slew_adjusted = 0.0
        self._slew_raw = 0.0
        self._frequency_ratio: float | None = None
        self._unusual_slews = 0
        self._kernel: KernelClock | None = None
        self._leap_seen_at: float | None = None
        # references
        self._reference_down: str | None = None
        self._measurements: dict[str, ClockMeasurement] = {}
        self._reference_up: dict[str, bool] = {}
        self._unsync_since: float | None = None
        # alerts
        self._stepped = _Alert()
        self._periodic = _Alert()
        self._offset = _Alert()
        self._unsync = _Alert()

    # -- inputs ---------------------------------------------------------------------------
    def observe(self, obs: Observation, now: float) -> Sequence[DetectorOutput]:
        if isinstance(obs, ClockReading):
            return self._reading(obs)
        if isinstance(obs, ClockMeasurement):
            return self._measurement(obs, now)
        if isinstance(obs, KernelClockStatus):
            self._kernel = obs.kernel
            if obs.kernel.leap_pending:
                self._leap_seen_at = obs.at
            return self._check_sync(now)
        if isinstance(obs, ClockReferenceFailure):
            self._reference_up[obs.reference] = False
            return []
        if isinstance(obs, SourceState):
            return self._source_state(obs)
        if isinstance(obs, JobEnded):
            self._job_ended = True
        return []

    def tick(self, now: float) -> Sequence[DetectorOutput]:
        out: list[DetectorOutput] = []
        if self._stepped.firing and now >= self._stepped.until:
            self._stepped.firing = False
            out.append(self._stepped_transition(None, firing=False))
        if self._periodic.firing and now >= self._periodic.until:
            self._periodic.firing = False
            out.append(self._periodic_transition(firing=False))
        out.extend(self._check_sync(now))
        return out

    # -- steps and slews ------------------------------------------------------------------
    def _reading(self, obs: ClockReading) -> list[DetectorOutput]:
        self._readings += 1
        self._local_down = None
        if obs.first:
            return []
        out: list[DetectorOutput] = []
        jump = obs.wall_delta_seconds - obs.monotonic_delta_seconds
        if abs(jump) > self._s.step_threshold_seconds + obs.uncertainty_seconds:
            out.extend(self._step(obs, jump))
        slew = self._slew(obs)
        if slew is not None:
            out.append(slew)
        return out

    def _step(self, obs: ClockReading, jump: float) -> list[DetectorOutput]:
        direction = "backward" if jump < 0 else "forward"
        self._steps[direction] += 1
        period = None
        if direction == "backward":
            self._backward_ats.append(obs.at)
            period = self._steady_period()
            self._period = period
        step = ClockStep(obs.at, direction, jump, obs.wall_seconds, period)
        self._last_step = step
        out: list[DetectorOutput] = [step]
        if direction == "backward" and not self._job_ended:
            hold = self._s.step_alert_hold_seconds
            if not self._stepped.firing:
                self._stepped.firing = True
                out.append(self._stepped_transition(step, firing=True))
            self._stepped.until = obs.at + hold
            if period is not None:
                self._periodic.until = obs.at + 2 * period + hold
                if not self._periodic.firing:
                    self._periodic.firing = True
                    out.append(self._periodic_transition(firing=True))
        return out

    def _steady_period(self) -> float | None:
        """The interval of the latest backwards steps when it has been steady, else None."""
        needed = self._s.periodic_min_steps - 1
        intervals = self._intervals()[-needed:]
        if len(intervals) < needed:
            return None
        median = statistics.median(intervals)
        tolerance = max(_PERIOD_TOLERANCE * median, 2 * self._s.step_check_seconds)
        if all(abs(i - median) <= tolerance for i in intervals):
            return median
        return None

    def _intervals(self) -> list[float]:
        return [b - a for a, b in itertools.pairwise(self._backward_ats)]

    def _slew(self, obs: ClockReading) -> ClockSlew | None:
        self._slew_adjusted += obs.adjusted_delta_seconds
        self._slew_raw += obs.raw_delta_seconds
        if self._slew_raw < self._s.slew_window_seconds:
            return None
        ratio = (self._slew_adjusted - self._slew_raw) / self._slew_raw
        window = self._slew_raw
        self._slew_adjusted = self._slew_raw = 0.0
        self._frequency_ratio = ratio
        if abs(ratio) * 1e6 <= self._s.slew_threshold_ppm:
            return None
        self._unusual_slews += 1
        return ClockSlew(obs.at, ratio, window)

    # -- offset and synchronisation -------------------------------------------------------
    def _measurement(self, obs: ClockMeasurement, now: float) -> list[DetectorOutput]:
        self._measurements[obs.reference] = obs
        self._reference_up[obs.reference] = True
        self._reference_down = None
        if obs.leap_pending:
            self._leap_seen_at = obs.at
        out = self._check_offset(now)
        out.extend(self._check_sync(now))
        return out

    def _fresh(self, now: float) -> list[ClockMeasurement]:
        horizon = _STALE_INTERVALS * self._s.offset_interval_seconds
        return [m for m in self._measurements.values() if now - m.at <= horizon]

    def best_measurement(self, now: float) -> ClockMeasurement | None:
        """The fresh measurement with the smallest uncertainty (None: no usable reference)."""
        usable = [
            m
            for m in self._fresh(now)
            if m.offset_seconds is not None and m.uncertainty_seconds is not None
        ]
        return min(usable, key=lambda m: m.uncertainty_seconds or 0.0, default=None)

    def _check_offset(self, now: float) -> list[DetectorOutput]:
        best = self.best_measurement(now)
        if best is None or best.offset_seconds is None:
            return []
        size = abs(best.offset_seconds)
        limit = self._s.offset_threshold_seconds
        if not self._offset.firing and size > limit and not self._job_ended:
            self._offset.firing = True
            return [self._offset_transition(best, firing=True)]
        if self._offset.firing and size <= _RESOLVE_FRACTION * limit:
            self._offset.firing = False
            return [self._offset_transition(best, firing=False)]
        return []

    def sync_verdict(self, now: float) -> tuple[bool, str] | None:
        """(synchronised, authority): chronyd's view when it answers, else the kernel's."""
        chrony = next((m for m in self._fresh(now) if m.method == "chrony"), None)
        if chrony is not None:
            return chrony.synchronised, "chronyd"
        if self._kernel is not None:
            return self._kernel.synchronised, "kernel"
        return None

    def _check_sync(self, now: float) -> list[DetectorOutput]:
        verdict = self.sync_verdict(now)
        if verdict is None:
            return []
        synchronised, authority = verdict
        if synchronised:
            self._unsync_since = None
            if self._unsync.firing:
                self._unsync.firing = False
                return [self._unsync_transition(authority, 0.0, firing=False)]
            return []
        if self._unsync_since is None:
            self._unsync_since = now
        lasted = now - self._unsync_since
        grace = self._s.unsynchronised_grace_seconds
        if not self._unsync.firing and lasted >= grace and not self._job_ended:
            self._unsync.firing = True
            return [self._unsync_transition(authority, lasted, firing=True)]
        return []

    def _source_state(self, obs: SourceState) -> list[DetectorOutput]:
        if obs.source == LOCAL_SOURCE:
            self._local_down = None if obs.up else (obs.reason or "clock probe down")
        elif obs.source == REFERENCE_SOURCE:
            self._reference_down = None if obs.up else (obs.reason or "no time reference")
            if not obs.up:
                for reference in self._reference_up:
                    self._reference_up[reference] = False
                self._measurements.clear()
        return []

    # -- transitions ----------------------------------------------------------------------
    def _stepped_transition(self, step: ClockStep | None, *, firing: bool) -> Transition:
        if step is None:
            return self._transition(
                STEPPED_BACKWARDS,
                firing=False,
                summary=f"{self._node}: no backwards clock step for "
                f"{format_duration(self._s.step_alert_hold_seconds)}",
            )
        count = self._steps["backward"]
        summary = f"{self._node}: clock stepped back {format_seconds(-step.step_seconds)}"
        if step.period_seconds is not None:
            every = format_duration(step.period_seconds)
            summary += f" ({ordinal(count)} backwards step, every {every})"
        elif count > 1:
            summary += f" ({ordinal(count)} backwards step)"
        description = (
            f"The wall clock of {self._node} jumped "
            f"{format_seconds(step.step_seconds, signed=True)} relative to the monotonic clock "
            "while the job runs. Timeouts, log timelines and cross-node correlation assume "
            "clocks that only move forward; a time daemon stepping the clock is the usual cause."
        )
        if self._leap_second_likely(step):
            description += " A leap second was announced: this step is probably its insertion."
        evidence: dict[str, EvidenceValue] = {
            "step_seconds": round(step.step_seconds, 6),
            "wall_after": step.wall_seconds,
            "backward_steps": count,
        }
        if step.period_seconds is not None:
            evidence["period_seconds"] = round(step.period_seconds, 3)
        return self._transition(
            STEPPED_BACKWARDS,
            firing=firing,
            summary=summary,
            description=description,
            evidence=evidence,
        )

    def _periodic_transition(self, *, firing: bool) -> Transition:
        period = self._period
        last = self._last_step
        if not firing or period is None:
            return self._transition(
                STEPS_PERIODIC,
                firing=False,
                summary=f"{self._node}: periodic backwards clock steps have stopped",
            )
        size = format_seconds(-last.step_seconds) if last is not None else "?"
        summary = (
            f"{self._node}: clock steps back every {format_duration(period)} "
            f"({self._steps['backward']} steps, last {size})"
        )
        description = (
            f"Backwards steps on {self._node} recur at a steady period of "
            f"{format_duration(period)}. Errors or hangs that recur at the same period are "
            "likely caused by them: look for a time daemon (or a cron job) stepping the clock "
            "instead of slewing it."
        )
        intervals = [round(i, 3) for i in self._intervals()]
        return self._transition(
            STEPS_PERIODIC,
            firing=True,
            summary=summary,
            description=description,
            evidence={
                "period_seconds": round(period, 3),
                "intervals_seconds": intervals,
                "backward_steps": self._steps["backward"],
            },
        )

    def _offset_transition(self, best: ClockMeasurement, *, firing: bool) -> Transition:
        offset = best.offset_seconds or 0.0
        relation = "ahead of" if offset > 0 else "behind"
        reference = best.reference if best.method == "sntp" else f"chronyd ({best.detail})"
        limit = format_seconds(self._s.offset_threshold_seconds)
        size = format_seconds(abs(offset))
        if firing:
            summary = f"{self._node}: clock is {size} {relation} {reference} (limit {limit})"
        else:
            summary = f"{self._node}: clock offset back to {format_seconds(offset, signed=True)}"
        description = (
            f"Measured offset {format_seconds(offset, signed=True)} (this clock minus the "
            f"reference; measurement uncertainty "
            f"±{format_seconds(best.uncertainty_seconds or 0.0)}). "
            "Log timestamps from this node are off by as much, and cross-node timeouts that "
            "compare wall clocks misfire."
        )
        return self._transition(
            OFFSET_HIGH,
            firing=firing,
            summary=summary,
            description=description,
            evidence={
                "offset_seconds": round(offset, 6),
                "uncertainty_seconds": round(best.uncertainty_seconds or 0.0, 6),
                "error_bound_seconds": round(best.error_bound_seconds or 0.0, 6),
                "reference": best.reference,
                "method": best.method,
                "stratum": best.stratum,
                "threshold_seconds": self._s.offset_threshold_seconds,
            },
        )

    def _unsync_transition(self, authority: str, lasted: float, *, firing: bool) -> Transition:
        if firing:
            summary = (
                f"{self._node}: clock not synchronised for {format_duration(lasted)} "
                f"(according to the {authority})"
            )
        else:
            summary = f"{self._node}: clock synchronised again (according to the {authority})"
        kernel = self._kernel
        evidence: dict[str, EvidenceValue] = {"authority": authority}
        if kernel is not None:
            evidence["kernel_state"] = kernel.state
            evidence["kernel_max_error_seconds"] = kernel.max_error_seconds
        return self._transition(
            UNSYNCHRONISED,
            firing=firing,
            summary=summary,
            description=(
                "No time daemon is keeping this clock synchronised (none runs, or it cannot "
                "reach its sources), so it drifts freely and its offset grows. Check "
                "chronyd/ntpd/systemd-timesyncd and their sources."
            ),
            evidence=evidence,
        )

    def _transition(
        self,
        alertname: str,
        *,
        firing: bool,
        summary: str,
        description: str = "",
        evidence: Mapping[str, EvidenceValue] | None = None,
    ) -> Transition:
        return Transition(
            detector=self.name,
            alertname=alertname,
            firing=firing,
            severity=Severity.WARNING,
            category=Category.CLOCK,
            identity={},
            summary=summary,
            description=description,
            evidence=dict(evidence or {}),
        )

    def _leap_second_likely(self, step: ClockStep) -> bool:
        if self._leap_seen_at is None or step.at - self._leap_seen_at > 86400:
            return False
        return abs(abs(step.step_seconds) - 1.0) <= _LEAP_STEP_TOLERANCE

    # -- outputs --------------------------------------------------------------------------
    def metric_families(self, now: float) -> Sequence[MetricFamilyData]:
        best = self.best_measurement(now)
        verdict = self.sync_verdict(now)
        last = self._last_step
        families = [
            gauge(
                "clock_offset_seconds",
                "This node's clock minus the reference time (positive: ahead); best fresh "
                "measurement.",
                samples=[] if best is None else [((), best.offset_seconds)],
            ),
            gauge(
                "clock_error_bound_seconds",
                "Largest |clock - true time| consistent with the best measurement.",
                samples=[] if best is None else [((), best.error_bound_seconds)],
            ),
            gauge(
                "clock_synchronised",
                "1 when the clock is synchronised (chronyd's view, else the kernel's), 0 when not.",
                samples=[] if verdict is None else [((), 1.0 if verdict[0] else 0.0)],
            ),
            gauge(
                "clock_reference_up",
                "1 when the time reference answered the last measurement, by reference.",
                ("reference",),
                [((ref,), 1.0 if up else 0.0) for ref, up in sorted(self._reference_up.items())],
            ),
            gauge(
                "clock_reference_offset_seconds",
                "This clock minus each reference's time (fresh measurements only).",
                ("reference",),
                [
                    ((m.reference,), m.offset_seconds)
                    for m in sorted(self._fresh(now), key=lambda m: m.reference)
                    if m.offset_seconds is not None
                ],
            ),
            gauge(
                "clock_leap_pending",
                "1 when a leap second is announced by a reference or the kernel.",
                samples=1.0 if self._leap_pending(now) else 0.0,
            ),
            counter(
                "clock_steps",
                "Steps of the wall clock relative to the monotonic clock, by direction.",
                ("direction",),
                [((d,), n) for d, n in sorted(self._steps.items())],
            ),
            gauge(
                "clock_last_step_seconds",
                "Signed size of the last clock step (negative: backwards).",
                samples=[] if last is None else [((), last.step_seconds)],
            ),
            gauge(
                "clock_last_step_timestamp_seconds",
                "Unix time just after the last clock step.",
                samples=[] if last is None else [((), last.wall_seconds)],
            ),
            gauge(
                "clock_step_period_seconds",
                "Period of recurring backwards steps, when they recur at a steady interval.",
                samples=[] if self._period is None else [((), self._period)],
            ),
            gauge(
                "clock_frequency_adjustment_ratio",
                "Kernel rate correction (MONOTONIC vs MONOTONIC_RAW) over the last slew window.",
                samples=[] if self._frequency_ratio is None else [((), self._frequency_ratio)],
            ),
            counter(
                "clock_unusual_slews",
                "Slew windows whose rate correction exceeded clock.slew_threshold_ppm.",
                samples=self._unusual_slews,
            ),
        ]
        if self._kernel is not None:
            families.append(
                gauge(
                    "clock_kernel_synchronised",
                    "1 when the kernel considers the clock synchronised (STA_UNSYNC clear).",
                    samples=1.0 if self._kernel.synchronised else 0.0,
                )
            )
            families.append(
                gauge(
                    "clock_kernel_max_error_seconds",
                    "The kernel's maximum error estimate for the clock.",
                    samples=self._kernel.max_error_seconds,
                )
            )
        return families

    def _leap_pending(self, now: float) -> bool:
        if self._kernel is not None and self._kernel.leap_pending:
            return True
        return any(m.leap_pending for m in self._fresh(now))

    def health(self, now: float) -> ConcernHealth:
        firing = [
            name
            for name, alert in (
                (STEPPED_BACKWARDS, self._stepped),
                (STEPS_PERIODIC, self._periodic),
                (OFFSET_HIGH, self._offset),
                (UNSYNCHRONISED, self._unsync),
            )
            if alert.firing
        ]
        if firing:
            return ConcernHealth(self.name, Health.WARNING, ", ".join(firing))
        if self._local_down is not None:
            return ConcernHealth(self.name, Health.UNKNOWN, self._local_down)
        if self._readings == 0:
            return ConcernHealth(self.name, Health.UNKNOWN, "no clock reading yet")
        if self.best_measurement(now) is None:
            if self._reference_down is not None:
                reason = self._reference_down
            elif self._measurements:
                reason = "no time reference with a usable offset (chronyd not synchronised?)"
            else:
                reason = "no time reference measured yet"
            return ConcernHealth(self.name, Health.UNKNOWN, reason)
        return ConcernHealth(self.name, Health.OK)


def format_seconds(value: float, *, signed: bool = False) -> str:
    """Human size of a time difference: '250 ms', '1.200 s', '+3.5 ms'."""
    sign = ("+" if value >= 0 else "-") if signed else ("-" if value < 0 else "")
    size = abs(value)
    if size >= 1:
        text = f"{size:.3f} s"
    elif size >= 0.01:
        text = f"{size * 1e3:.0f} ms"
    elif size >= 1e-3:
        text = f"{size * 1e3:.1f} ms"
    else:
        text = f"{size * 1e6:.0f} µs"
    return sign + text


def format_duration(seconds: float) -> str:
    """'34m00s', '1h02m', '45s', '2.5s'."""
    if seconds < 10:
        return f"{seconds:.1f}s"
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
