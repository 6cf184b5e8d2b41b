"""Time, injected. Detectors never read a clock; the daemon passes `now` (monotonic seconds)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Protocol


class Clock(Protocol):
    def monotonic(self) -> float: ...

    def wall(self) -> float: ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()


@dataclass
class FakeClock:
    """A clock that moves only when told to; for tests and replays."""

    mono: float = 1000.0
    wall_time: float = 1_700_000_000.0

    def monotonic(self) -> float:
        return self.mono

    def wall(self) -> float:
        return self.wall_time

    def advance(self, seconds: float) -> None:
        self.mono += seconds
        self.wall_time += seconds


def iso_utc(wall_seconds: float) -> str:
    """ISO 8601 UTC with millisecond precision and a Z suffix, as the alert contract wants."""
    stamp = datetime.fromtimestamp(wall_seconds, tz=timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"
