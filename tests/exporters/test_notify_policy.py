"""Cross-node and severity routing: who sends which alert to which sink."""

from __future__ import annotations

from exporters.notify_policy import (
    SKIP_OTHER_NODE,
    SKIP_SEVERITY,
    NotifyPolicy,
    SinkKind,
    is_reporting_node,
    skip_reason,
)
from monitor.model import Severity
from tests.delivery_support.records import job_record, resolved, stalled_record

POLICY = NotifyPolicy(node_name="gpu017")
DIRECT, DEDUP = SinkKind.DIRECT, SinkKind.DEDUPLICATING


def decide(record, sink, kind, *, reporting=False, announced=False, policy=POLICY):  # type: ignore[no-untyped-def]
    return skip_reason(policy, record, sink, kind, node_is_reporting=reporting, announced=announced)


def test_job_level_alerts_go_direct_only_from_the_reporting_node() -> None:
    """Slack gets a job-level alert from the reporting node only."""
    record = job_record("gpu017")
    assert decide(record, "slack", DIRECT, reporting=True) is None
    assert decide(record, "slack", DIRECT, reporting=False) == SKIP_OTHER_NODE


def test_deduplicating_sinks_get_job_level_alerts_from_every_node() -> None:
    """PagerDuty and Alertmanager collapse duplicates themselves: every node sends."""
    record = job_record("gpu017")
    assert decide(record, "pagerduty", DEDUP, reporting=False) is None
    assert decide(record, "alertmanager", DEDUP, reporting=False) is None


def test_notify_nodes_all_lifts_the_node_rule() -> None:
    """notify_nodes = "all": every node sends job-level alerts to direct sinks too."""
    policy = NotifyPolicy(node_name="gpu017", notify_nodes="all")
    assert decide(job_record("gpu017"), "slack", DIRECT, policy=policy) is None


def test_node_level_alerts_are_sent_by_the_node_concerned() -> None:
    """A node-level alert about this node is sent; one naming another node is not."""
    assert decide(stalled_record(), "slack", DIRECT) is None
    other = stalled_record(labels={"job": "4242", "node": "gpu003", "rank": "1"})
    assert decide(other, "slack", DIRECT) == SKIP_OTHER_NODE
    assert decide(other, "pagerduty", DEDUP) is None


def test_severity_routing() -> None:
    """Warnings go to warning_sinks, critical alerts to critical_sinks (defaults: PagerDuty
    only for critical)."""
    warning = stalled_record(severity=Severity.WARNING)
    assert decide(warning, "pagerduty", DEDUP) == SKIP_SEVERITY
    assert decide(warning, "slack", DIRECT) is None
    assert decide(stalled_record(), "pagerduty", DEDUP) is None
    custom = NotifyPolicy(node_name="gpu017", critical_sinks=frozenset({"pagerduty"}))
    assert decide(stalled_record(), "slack", DIRECT, policy=custom) == SKIP_SEVERITY


def test_an_announced_alert_always_reaches_its_sink() -> None:
    """After a critical page, the downgrade to warning and the resolve still reach PagerDuty."""
    warning = stalled_record(severity=Severity.WARNING)
    assert decide(warning, "pagerduty", DEDUP, announced=True) is None


def test_resolve_follows_a_job_alert_even_if_the_reporting_node_changed() -> None:
    """Slack heard the job-level alert fire from this node; the resolve goes out from here even
    if this node no longer reports for the job."""
    done = resolved(job_record("gpu017"))
    assert decide(done, "slack", DIRECT, reporting=False, announced=True) is None
    assert decide(done, "slack", DIRECT, reporting=False, announced=False) == SKIP_OTHER_NODE


def test_reporting_node_is_index_zero_or_unknown() -> None:
    """Node index 0 reports; so does a sidecar without an index (a single-node run)."""
    assert is_reporting_node(0)
    assert is_reporting_node(None)
    assert not is_reporting_node(3)
