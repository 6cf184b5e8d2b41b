"""Cross-node timestamp sanity for timelines merged from several nodes' logs (used by triage).

Every node stamps its log lines with its own clock. When the clocks disagree, sorting the
merged lines by timestamp can put an effect before its cause. This module

  * corrects each timestamp by its node's offset (measured by rankwatch, inferred from events
    that happened together, or assumed), keeping the uncertainty of each correction;
  * says when two events from different nodes are closer than their clocks can be trusted
    (their order is unknown);
  * says when timestamps contradict a known order (cause before effect) by more than the
    clocks' known skew allows: then the skew is larger than measured, or a clock stepped;
  * says which events carry stamps from the stretch of time a backwards step made a node's
    clock repeat: such a stamp may come from before or after the step.

Pure: no I/O. Offsets use rankwatch's sign: node clock minus true time (positive = ahead).
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

MEASURED = "measured"
INFERRED = "inferred"
ASSUMED = "assumed"


@dataclass(frozen=True, slots=True)
class NodeClock:
    offset_seconds: float  # node clock minus true time
    uncertainty_seconds: float  # |actual offset - offset_seconds| <= this
    basis: str = MEASURED  # measured | inferred | assumed


@dataclass(frozen=True, slots=True)
class StampedEvent:
    key: str  # the caller's reference, e.g. "rank3.log:812"
    node: str
    timestamp: float  # Unix seconds, as stamped by that node's clock


@dataclass(frozen=True, slots=True)
class ClockStepRecord:
    """A step of a node's clock: stamps after it repeat (backwards) or skip (forwards) time."""

    node: str
    wall_after: float  # the node's clock just after the step
    step_seconds: float  # signed, negative = backwards


@dataclass(frozen=True, slots=True)
class PlacedEvent:
    event: StampedEvent
    true_time: float  # best estimate of when it happened
    uncertainty_seconds: float
    basis: str


@dataclass(frozen=True, slots=True)
class SkewFinding:
    kind: str  # order_unknown | skew_exceeded | after_backwards_step
    keys: tuple[str, ...]
    nodes: tuple[str, ...]
    seconds: float  # the gap or disagreement the finding is about
    message: str


@dataclass(frozen=True, slots=True)
class TimelineCheck:
    events: tuple[PlacedEvent, ...]  # sorted by estimated true time
    findings: tuple[SkewFinding, ...]


def check_timeline(
    events: Sequence[StampedEvent],
    clocks: Mapping[str, NodeClock],
    *,
    causal_pairs: Sequence[tuple[str, str]] = (),
    steps: Sequence[ClockStepRecord] = (),
    unknown_skew_seconds: float = 0.0,
    max_findings: int = 50,
) -> TimelineCheck:
    """Place events on one time axis and report where cross-node order cannot be trusted.

    `causal_pairs` are (cause key, effect key): the cause happened first. Nodes missing from
    `clocks` are assumed to be right within `unknown_skew_seconds`.
    """
    placed = [_place(e, clocks, unknown_skew_seconds) for e in events]
    order = sorted(range(len(placed)), key=lambda i: (placed[i].true_time, i))
    ordered = tuple(placed[i] for i in order)
    findings: list[SkewFinding] = []
    findings += _order_unknown(ordered)
    findings += _causality(placed, causal_pairs)
    findings += _after_steps(events, steps)
    return TimelineCheck(ordered, tuple(findings[:max_findings]))


def infer_clocks(
    groups: Iterable[Sequence[StampedEvent]], tolerance_seconds: float
) -> dict[str, NodeClock]:
    """Offsets from groups of events known to have happened together (within tolerance).

    Example: every rank's NCCL watchdog timeout for the same collective. Each node's offset is
    its stamp minus the median stamp of the group's nodes (the median node is taken as right),
    combined over groups by median; the uncertainty adds the tolerance and the spread.
    """
    per_node: dict[str, list[float]] = {}
    for group in groups:
        by_node: dict[str, list[float]] = {}
        for event in group:
            by_node.setdefault(event.node, []).append(event.timestamp)
        if len(by_node) < 2:
            continue
        node_stamps = {node: statistics.median(ts) for node, ts in by_node.items()}
        centre = statistics.median(node_stamps.values())
        for node, stamp in node_stamps.items():
            per_node.setdefault(node, []).append(stamp - centre)
    clocks = {}
    for node, offsets in per_node.items():
        spread = (max(offsets) - min(offsets)) / 2 if len(offsets) > 1 else 0.0
        clocks[node] = NodeClock(statistics.median(offsets), tolerance_seconds + spread, INFERRED)
    return clocks


def clocks_from_alert_records(records: Iterable[Mapping[str, Any]]) -> dict[str, NodeClock]:
    """Measured offsets from rankwatch alert-log records (ClockOffsetHigh evidence).

    The sidecar records an offset only when it is beyond its threshold; nodes without such a
    record were within the threshold (or had no reference) and are left to the caller.
    """
    clocks: dict[str, NodeClock] = {}
    for record in records:
        if record.get("alertname") != "ClockOffsetHigh" or record.get("status") != "firing":
            continue
        node = (record.get("labels") or {}).get("node")
        evidence = record.get("evidence") or {}
        offset = evidence.get("offset_seconds")
        if not node or not isinstance(offset, (int, float)):
            continue
        uncertainty = evidence.get("uncertainty_seconds")
        clocks[str(node)] = NodeClock(
            float(offset),
            float(uncertainty) if isinstance(uncertainty, (int, float)) else 0.0,
            MEASURED,
        )
    return clocks


def steps_from_alert_records(records: Iterable[Mapping[str, Any]]) -> list[ClockStepRecord]:
    """Backwards steps from rankwatch alert-log records (ClockSteppedBackwards evidence)."""
    steps = []
    for record in records:
        if record.get("alertname") != "ClockSteppedBackwards" or record.get("status") != "firing":
            continue
        node = (record.get("labels") or {}).get("node")
        evidence = record.get("evidence") or {}
        wall, size = evidence.get("wall_after"), evidence.get("step_seconds")
        if node and isinstance(wall, (int, float)) and isinstance(size, (int, float)):
            steps.append(ClockStepRecord(str(node), float(wall), float(size)))
    return steps


# ---------------------------------------------------------------------------------------


def _place(event: StampedEvent, clocks: Mapping[str, NodeClock], unknown: float) -> PlacedEvent:
    clock = clocks.get(event.node) or NodeClock(0.0, unknown, ASSUMED)
    return PlacedEvent(
        event, event.timestamp - clock.offset_seconds, clock.uncertainty_seconds, clock.basis
    )


def _order_unknown(ordered: Sequence[PlacedEvent]) -> list[SkewFinding]:
    """Neighbouring events from different nodes closer than their clocks' combined uncertainty."""
    out = []
    for a, b in itertools.pairwise(ordered):
        if a.event.node == b.event.node:
            continue
        gap = b.true_time - a.true_time
        slack = a.uncertainty_seconds + b.uncertainty_seconds
        if gap < slack:
            out.append(
                SkewFinding(
                    "order_unknown",
                    (a.event.key, b.event.key),
                    (a.event.node, b.event.node),
                    gap,
                    f"{a.event.key} ({a.event.node}) and {b.event.key} ({b.event.node}) are "
                    f"{gap:.3f} s apart but their clocks may disagree by {slack:.3f} s: "
                    "their order is unknown",
                )
            )
    return out


def _causality(
    placed: Sequence[PlacedEvent], pairs: Sequence[tuple[str, str]]
) -> list[SkewFinding]:
    """Known cause/effect pairs whose corrected stamps still put the effect first."""
    by_key = {p.event.key: p for p in placed}
    out = []
    for cause_key, effect_key in pairs:
        cause, effect = by_key.get(cause_key), by_key.get(effect_key)
        if cause is None or effect is None or cause.event.node == effect.event.node:
            continue
        slack = cause.uncertainty_seconds + effect.uncertainty_seconds
        excess = (cause.true_time - effect.true_time) - slack
        if excess > 0:
            stamped = cause.event.timestamp - effect.event.timestamp
            out.append(
                SkewFinding(
                    "skew_exceeded",
                    (cause_key, effect_key),
                    (cause.event.node, effect.event.node),
                    excess,
                    f"{effect_key} ({effect.event.node}) is stamped {stamped:.3f} s before its "
                    f"cause {cause_key} ({cause.event.node}); the clocks' known skew allows "
                    f"{slack:.3f} s, so they disagree by at least {excess:.3f} s more "
                    "(unmeasured skew or a clock step): cross-node order is not trustworthy",
                )
            )
    return out


def _after_steps(
    events: Sequence[StampedEvent], steps: Sequence[ClockStepRecord]
) -> list[SkewFinding]:
    """Events stamped in the stretch a backwards step made the node's clock repeat: such a stamp
    may come from before or after the step, so its place in the timeline is ambiguous."""
    out = []
    for step in steps:
        if step.step_seconds >= 0:
            continue
        repeat_until = step.wall_after - step.step_seconds  # the clock read these twice
        keys = tuple(
            e.key
            for e in events
            if e.node == step.node and step.wall_after <= e.timestamp < repeat_until
        )
        if keys:
            out.append(
                SkewFinding(
                    "after_backwards_step",
                    keys,
                    (step.node,),
                    -step.step_seconds,
                    f"the clock of {step.node} stepped back {-step.step_seconds:.3f} s; "
                    f"{len(keys)} event(s) stamped in the repeated stretch may come from before "
                    "or after the step and may be misordered",
                )
            )
    return out
