"""Who sends what where: cross-node dedup and severity routing (architecture §3). Pure.

Every node runs a sidecar, and several of them may reach the same job-level conclusion. Sinks
that deduplicate by themselves (PagerDuty by `dedup_key`, Alertmanager by labels) get every
alert from every node; duplicates collapse there. Sinks that cannot (Slack, a generic webhook)
get a job-level alert only from the reporting node, and a node-level alert only from the node
it is about. `notify_nodes = "all"` lifts the node rule for direct sinks.

Severity routing picks the sinks for warnings and for critical alerts. A sink that has been
told an alert is firing always hears the rest of its story (updates and the resolve), so a
PagerDuty incident never stays open because the alert was downgraded to a warning.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from monitor.model import AlertRecord, Scope, Severity


class SinkKind(str, enum.Enum):
    DIRECT = "direct"  # every message reaches a human: send each alert from one node only
    DEDUPLICATING = "deduplicating"  # the receiver collapses duplicates by key


# Reasons a record is not delivered to a sink (label values of alerts_delivery_skipped).
SKIP_SEVERITY = "not_routed"
SKIP_OTHER_NODE = "other_node"


@dataclass(frozen=True, slots=True)
class NotifyPolicy:
    node_name: str
    notify_nodes: str = "auto"  # "auto" | "all"
    warning_sinks: frozenset[str] = frozenset({"slack", "alertmanager", "webhook"})
    critical_sinks: frozenset[str] = frozenset({"slack", "pagerduty", "alertmanager", "webhook"})

    def sinks_for(self, severity: Severity) -> frozenset[str]:
        if severity is Severity.INFO:
            return frozenset()  # info is recorded (alert log, metrics), never sent to a person
        return self.critical_sinks if severity is Severity.CRITICAL else self.warning_sinks


def skip_reason(
    policy: NotifyPolicy,
    record: AlertRecord,
    sink_name: str,
    kind: SinkKind,
    *,
    node_is_reporting: bool,
    announced: bool,
) -> str | None:
    """None when `sink_name` should deliver `record`; otherwise why not (a label value).

    `announced`: this sink has delivered a firing message for the record's fingerprint that no
    resolve has closed yet. `node_is_reporting`: this node speaks for the job.
    """
    if announced:
        return None  # the sink heard this alert fire: it hears updates and the resolve too
    if sink_name not in policy.sinks_for(record.severity):
        return SKIP_SEVERITY
    if kind is SinkKind.DEDUPLICATING or policy.notify_nodes == "all":
        return None
    if record.scope is Scope.JOB:
        return None if node_is_reporting else SKIP_OTHER_NODE
    concerned = record.labels.get("node", "")
    if concerned and concerned != policy.node_name:
        return SKIP_OTHER_NODE
    return None


def is_reporting_node(node_index: int | None) -> bool:
    """The reporting node is node index 0 (also the RAS primary). A sidecar that does not know
    its index (a single-node run, no SLURM) reports: a duplicate beats a lost alert."""
    return node_index is None or node_index == 0
