"""Memory detector: warn before the OOM killer acts.

Two signals from the process probe's snapshots:
- node available memory under `available_warning_fraction` of total *and* falling;
- the ranks' combined RSS growing so fast that, at the slope of the last samples, available
  memory runs out within `horizon_seconds` (eight ranks each loading a 58 GB cache at once).

States and edges (one alert per node, MemoryPressure, warning, category oom):
    OK       --low and falling, or projected exhaustion within horizon--> PRESSURE (fires)
    PRESSURE --available above 1.25 × threshold and no projected exhaustion--> OK (resolves)
Health: UNKNOWN before the first snapshot.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from monitor.model import (
    Category,
    ConcernHealth,
    DetectorOutput,
    Health,
    MetricFamilyData,
    Observation,
    ProcessSnapshot,
    ProcRole,
    Severity,
    Transition,
    gauge,
)
from monitor.settings import MemorySettings

NAME = "memory"
GIB = 1024**3


@dataclass
class _Sample:
    at: float
    available: int
    rank_rss: int


@dataclass
class MemoryDetector:
    settings: MemorySettings
    name: str = NAME
    samples: deque[_Sample] = field(default_factory=lambda: deque(maxlen=16))
    total: int = 0
    firing: bool = False
    top_ranks: list[tuple[int, int]] = field(default_factory=list)

    def observe(self, obs: Observation, now: float) -> Sequence[DetectorOutput]:
        if not isinstance(obs, ProcessSnapshot):
            return ()
        rss_by_rank: dict[int, int] = {}
        for info in obs.processes:
            if info.rank is not None and info.role in (ProcRole.RANK, ProcRole.WORKER):
                rss_by_rank[info.rank] = rss_by_rank.get(info.rank, 0) + info.rss_bytes
        self.total = obs.mem_total_bytes
        self.samples.append(_Sample(obs.at, obs.mem_available_bytes, sum(rss_by_rank.values())))
        self.top_ranks = sorted(rss_by_rank.items(), key=lambda kv: -kv[1])[:4]
        return self._evaluate()

    def tick(self, now: float) -> Sequence[DetectorOutput]:
        return ()

    def seconds_to_exhaustion(self) -> float | None:
        """At the recent slope of available memory, when does it reach zero? None if not falling."""
        if len(self.samples) < 3:
            return None
        first, last = self.samples[0], self.samples[-1]
        span = last.at - first.at
        if span <= 0:
            return None
        slope = (last.available - first.available) / span  # bytes per second, negative if falling
        if slope >= 0:
            return None
        return last.available / -slope

    def _evaluate(self) -> list[DetectorOutput]:
        s = self.settings
        last = self.samples[-1]
        falling = len(self.samples) >= 2 and last.available < self.samples[-2].available
        low = self.total > 0 and last.available < s.available_warning_fraction * self.total
        eta = self.seconds_to_exhaustion()
        racing = eta is not None and eta < s.horizon_seconds
        pressure = (low and falling) or racing
        recovered = (
            self.total > 0
            and last.available > 1.25 * s.available_warning_fraction * self.total
            and not racing
        )
        if pressure and not self.firing:
            self.firing = True  # edge OK -> PRESSURE
            return [self._transition(True, eta)]
        if self.firing and recovered:
            self.firing = False  # edge PRESSURE -> OK
            return [self._transition(False, eta)]
        return []

    def _transition(self, firing: bool, eta: float | None) -> Transition:
        last = self.samples[-1]
        avail_gib = last.available / GIB
        if not firing:
            summary = f"node memory recovered: {avail_gib:.1f} GiB available"
        elif eta is not None:
            summary = (
                f"node memory runs out in ~{eta:.0f} s at the current rate "
                f"({avail_gib:.1f} GiB available); largest ranks: "
                + ", ".join(f"rank {r} {b / GIB:.1f} GiB" for r, b in self.top_ranks)
            )
        else:
            summary = f"node memory low and falling: {avail_gib:.1f} GiB available of {self.total / GIB:.1f} GiB"
        return Transition(
            detector=self.name,
            alertname="MemoryPressure",
            firing=firing,
            severity=Severity.WARNING,
            category=Category.OOM,
            identity={},
            summary=summary,
            description=(
                "The node is close to running out of memory; the kernel OOM killer or the "
                "cgroup limit will SIGKILL a rank next."
            ),
            evidence={
                "available_bytes": last.available,
                "total_bytes": self.total,
                "seconds_to_exhaustion": round(eta, 1) if eta is not None else None,
                "rank_rss_bytes": {str(r): b for r, b in self.top_ranks},
            },
            culprit_ranks=tuple(r for r, _ in self.top_ranks[:1]) if firing and eta else (),
        )

    def metric_families(self, now: float) -> Sequence[MetricFamilyData]:
        if not self.samples:
            return []
        last = self.samples[-1]
        eta = self.seconds_to_exhaustion()
        fams = [
            gauge(
                "node_memory_available_bytes", "Available memory on this node.", (), last.available
            ),
            gauge("node_memory_total_bytes", "Total memory on this node.", (), self.total),
            gauge(
                "ranks_rss_bytes",
                "Combined RSS of this node's ranks and their workers.",
                (),
                last.rank_rss,
            ),
        ]
        if eta is not None:
            fams.append(
                gauge(
                    "node_memory_exhaustion_seconds",
                    "Projected seconds until available memory reaches zero.",
                    (),
                    eta,
                )
            )
        return fams

    def health(self, now: float) -> ConcernHealth:
        if not self.samples:
            return ConcernHealth(self.name, Health.UNKNOWN, "no memory sample yet")
        return ConcernHealth(self.name, Health.WARNING if self.firing else Health.OK)
