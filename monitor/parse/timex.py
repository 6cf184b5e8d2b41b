"""The kernel's clock discipline state, as returned by adjtimex(2) with no modes set.

Pure interpretation of the numbers; the system call lives in the clock probe. The kernel calls
the clock unsynchronised while STA_UNSYNC is set or the call returns TIME_ERROR; a time daemon
that disciplines the clock clears it (chronyd only with `rtcsync`, see docs/clock.md).
"""

from __future__ import annotations

from dataclasses import dataclass

STA_UNSYNC = 0x0040
STA_NANO = 0x2000
CLOCK_STATES = {
    0: "ok",
    1: "insert_leap",
    2: "delete_leap",
    3: "leap_in_progress",
    4: "wait",
    5: "error",
}
TIME_ERROR = 5


@dataclass(frozen=True, slots=True)
class KernelClock:
    synchronised: bool
    state: str  # ok, insert_leap, delete_leap, leap_in_progress, wait, error
    max_error_seconds: float
    estimated_error_seconds: float
    offset_seconds: float  # the kernel PLL's residual offset (~0 unless the kernel PLL is used)
    frequency_ppm: float
    status_bits: int

    @property
    def leap_pending(self) -> bool:
        return self.state in ("insert_leap", "delete_leap")


def interpret_timex(
    return_value: int,
    status: int,
    max_error_us: int,
    estimated_error_us: int,
    offset: int,
    frequency_scaled_ppm: int,
) -> KernelClock:
    """Build the typed view from adjtimex's return value and struct timex fields."""
    offset_unit = 1e-9 if status & STA_NANO else 1e-6
    return KernelClock(
        synchronised=not status & STA_UNSYNC and return_value != TIME_ERROR,
        state=CLOCK_STATES.get(return_value, f"state_{return_value}"),
        max_error_seconds=max_error_us * 1e-6,
        estimated_error_seconds=estimated_error_us * 1e-6,
        offset_seconds=offset * offset_unit,
        frequency_ppm=frequency_scaled_ppm / 65536.0,  # 16.16 fixed point ppm
        status_bits=status,
    )
