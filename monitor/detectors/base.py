"""The detector contract: a pure state machine fed observations and a monotonic `now`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from monitor.model import ConcernHealth, DetectorOutput, MetricFamilyData, Observation


class Detector(Protocol):
    """Observations and time in, transitions (and derived observations) out. No I/O, no clocks."""

    name: str

    def observe(self, obs: Observation, now: float) -> Sequence[DetectorOutput]: ...

    def tick(self, now: float) -> Sequence[DetectorOutput]: ...

    def metric_families(self, now: float) -> Sequence[MetricFamilyData]: ...

    def health(self, now: float) -> ConcernHealth: ...
