"""Cross-node timestamp checks for triage timelines."""

from __future__ import annotations

import pytest

from monitor.clock_skew import (
    ASSUMED,
    INFERRED,
    ClockStepRecord,
    NodeClock,
    StampedEvent,
    check_timeline,
    clocks_from_alert_records,
    infer_clocks,
    steps_from_alert_records,
)

T = 1_795_000_000.0


def keys(check: object) -> list[str]:
    return [p.event.key for p in check.events]  # type: ignore[attr-defined]


def test_measured_offsets_correct_the_order() -> None:
    """gpu02 runs 2 s ahead: its event stamped 1 s after gpu01's really happened 1 s before."""
    events = [StampedEvent("a", "gpu01", T + 10.0), StampedEvent("b", "gpu02", T + 11.0)]
    clocks = {"gpu01": NodeClock(0.0, 0.01), "gpu02": NodeClock(2.0, 0.01)}
    check = check_timeline(events, clocks)
    assert keys(check) == ["b", "a"]
    assert check.events[0].true_time == pytest.approx(T + 9.0)
    assert check.findings == ()


def test_events_closer_than_the_skew_have_unknown_order() -> None:
    """Events 0.1 s apart on nodes whose clocks may disagree by 0.4 s: order unknown."""
    events = [StampedEvent("a", "gpu01", T), StampedEvent("b", "gpu02", T + 0.1)]
    clocks = {"gpu01": NodeClock(0.0, 0.2), "gpu02": NodeClock(0.0, 0.2)}
    (finding,) = check_timeline(events, clocks).findings
    assert finding.kind == "order_unknown"
    assert finding.keys == ("a", "b")
    assert "order is unknown" in finding.message


def test_same_node_events_keep_their_order() -> None:
    """Events of one node share a clock: no finding however close they are."""
    events = [StampedEvent("a", "gpu01", T), StampedEvent("b", "gpu01", T + 0.001)]
    check = check_timeline(events, {"gpu01": NodeClock(0.0, 1.0)})
    assert check.findings == ()


def test_effect_before_cause_beyond_the_skew_is_flagged() -> None:
    """An effect stamped 3 s before its cause, with 0.2 s known skew: disagreement beyond skew."""
    events = [StampedEvent("timeout", "gpu02", T + 7.0), StampedEvent("stall", "gpu01", T + 10.0)]
    clocks = {"gpu01": NodeClock(0.0, 0.1), "gpu02": NodeClock(0.0, 0.1)}
    check = check_timeline(events, clocks, causal_pairs=[("stall", "timeout")])
    (finding,) = [f for f in check.findings if f.kind == "skew_exceeded"]
    assert finding.seconds == pytest.approx(2.8)
    assert finding.nodes == ("gpu01", "gpu02")
    assert "stamped 3.000 s before its cause" in finding.message


def test_violation_explained_by_measured_offset_is_not_flagged() -> None:
    """The same stamps are fine when gpu01 is measured 3.5 s ahead: corrected, the order holds."""
    events = [StampedEvent("timeout", "gpu02", T + 7.0), StampedEvent("stall", "gpu01", T + 10.0)]
    clocks = {"gpu01": NodeClock(3.5, 0.1), "gpu02": NodeClock(0.0, 0.1)}
    check = check_timeline(events, clocks, causal_pairs=[("stall", "timeout")])
    assert [f for f in check.findings if f.kind == "skew_exceeded"] == []
    assert keys(check) == ["stall", "timeout"]


def test_unknown_nodes_use_the_assumed_skew() -> None:
    """Nodes without a measurement are assumed right within unknown_skew_seconds."""
    events = [StampedEvent("a", "gpu01", T), StampedEvent("b", "gpu09", T + 0.5)]
    check = check_timeline(events, {}, unknown_skew_seconds=0.5)
    assert check.events[0].basis == ASSUMED
    assert [f.kind for f in check.findings] == ["order_unknown"]
    assert check_timeline(events, {}).findings == ()


def test_events_after_a_backwards_step_are_flagged() -> None:
    """A 2 s backwards step repeats 2 s of stamps: events stamped there are ambiguous."""
    events = [
        StampedEvent("before", "gpu03", T + 9.5),
        StampedEvent("just_after", "gpu03", T + 8.5),
        StampedEvent("later", "gpu03", T + 12.0),
    ]
    (finding,) = check_timeline(
        events, {}, steps=[ClockStepRecord("gpu03", T + 8.0, -2.0)]
    ).findings
    assert finding.kind == "after_backwards_step"
    assert finding.keys == ("before", "just_after")  # both stamped in the repeated stretch
    assert "stepped back 2.000 s" in finding.message


def test_infer_clocks_from_simultaneous_events() -> None:
    """Watchdog timeouts of one collective on three nodes: the odd node's offset is inferred."""
    groups = [
        [
            StampedEvent("w0", "gpu01", T + 600.0),
            StampedEvent("w1", "gpu02", T + 600.2),
            StampedEvent("w2", "gpu03", T + 634.0),
        ],
        [
            StampedEvent("x0", "gpu01", T + 1200.0),
            StampedEvent("x1", "gpu02", T + 1200.1),
            StampedEvent("x2", "gpu03", T + 1234.1),
        ],
    ]
    clocks = infer_clocks(groups, tolerance_seconds=1.0)
    assert clocks["gpu03"].offset_seconds == pytest.approx(33.9, abs=0.01)
    assert clocks["gpu03"].basis == INFERRED
    assert abs(clocks["gpu02"].offset_seconds) < 0.01
    assert clocks["gpu03"].uncertainty_seconds >= 1.0


def test_single_node_groups_infer_nothing() -> None:
    """A group seen on one node only says nothing about skew."""
    assert infer_clocks([[StampedEvent("a", "gpu01", T)]], 1.0) == {}


def test_clocks_and_steps_from_rankwatch_alert_records() -> None:
    """Firing ClockOffsetHigh and ClockSteppedBackwards records give offsets and steps."""
    records = [
        {
            "alertname": "ClockOffsetHigh",
            "status": "firing",
            "labels": {"node": "gpu04"},
            "evidence": {"offset_seconds": -0.25, "uncertainty_seconds": 0.001},
        },
        {
            "alertname": "ClockOffsetHigh",
            "status": "resolved",
            "labels": {"node": "gpu05"},
            "evidence": {"offset_seconds": 9.0},
        },
        {
            "alertname": "ClockSteppedBackwards",
            "status": "firing",
            "labels": {"node": "gpu04"},
            "evidence": {"step_seconds": -1.2, "wall_after": T},
        },
        {"alertname": "Other", "status": "firing", "labels": {"node": "gpu06"}, "evidence": {}},
    ]
    assert clocks_from_alert_records(records) == {"gpu04": NodeClock(-0.25, 0.001)}
    assert steps_from_alert_records(records) == [ClockStepRecord("gpu04", T, -1.2)]
