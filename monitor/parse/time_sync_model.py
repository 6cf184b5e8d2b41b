"""Observations about this node's clock: what the probes saw, what the clock detector derived.

Sign convention everywhere in rankwatch: an offset is *this node's clock minus the reference*,
so a positive offset means the clock is ahead (fast) and a negative one that it is behind.
"""

from __future__ import annotations

from dataclasses import dataclass

from monitor.model import Observation
from monitor.parse.timex import KernelClock

LOCAL_SOURCE = "clock_local"
REFERENCE_SOURCE = "clock_reference"


@dataclass(frozen=True, slots=True)
class ClockReading(Observation):
    """Deltas of several clocks since the previous reading (all zero on the first one).

    The wall clock is compared with CLOCK_BOOTTIME (monotonic, counts suspend) to find steps,
    and CLOCK_MONOTONIC with CLOCK_MONOTONIC_RAW (never adjusted) to find slewing: the kernel
    applies NTP frequency corrections to MONOTONIC but not to RAW.
    """

    wall_seconds: float  # Unix time of this reading, for humans
    wall_delta_seconds: float
    monotonic_delta_seconds: float  # CLOCK_BOOTTIME where the platform has it
    adjusted_delta_seconds: float  # CLOCK_MONOTONIC (frequency-adjusted)
    raw_delta_seconds: float  # CLOCK_MONOTONIC_RAW
    uncertainty_seconds: float  # how far apart the paired clock reads were
    first: bool = False


@dataclass(frozen=True, slots=True)
class KernelClockStatus(Observation):
    kernel: KernelClock


@dataclass(frozen=True, slots=True)
class ClockMeasurement(Observation):
    """One reference's verdict on this clock. `offset_seconds` is None when the reference
    answered but has no usable estimate (chronyd not synchronised)."""

    reference: str  # "chrony" or the configured "host:port"
    method: str  # "chrony" | "sntp"
    offset_seconds: float | None
    uncertainty_seconds: float | None  # measurement error: |true offset - offset| <= this
    synchronised: bool
    leap_pending: bool
    stratum: int
    delay_seconds: float | None
    wall_seconds: float
    detail: str = ""  # chrony's selected source, or the server's reference id

    @property
    def error_bound_seconds(self) -> float | None:
        """Largest |clock - true time| consistent with the measurement."""
        if self.offset_seconds is None or self.uncertainty_seconds is None:
            return None
        return abs(self.offset_seconds) + self.uncertainty_seconds


@dataclass(frozen=True, slots=True)
class ClockReferenceFailure(Observation):
    """A configured reference did not give a usable answer this time."""

    reference: str
    method: str
    error_type: str  # timeout, refused, kiss_of_death, server_unsynchronised, ...
    message: str


@dataclass(frozen=True, slots=True)
class ClockStep(Observation):
    """Derived by the clock detector: the wall clock jumped relative to the monotonic clock."""

    direction: str  # "backward" | "forward"
    step_seconds: float  # signed: negative = backwards
    wall_seconds: float  # Unix time just after the step
    period_seconds: float | None  # set when backwards steps recur at a steady interval


@dataclass(frozen=True, slots=True)
class ClockSlew(Observation):
    """Derived by the clock detector: the kernel adjusted the clock's rate unusually hard."""

    frequency_adjustment_ratio: float  # (adjusted - raw) / raw over the window
    window_seconds: float
