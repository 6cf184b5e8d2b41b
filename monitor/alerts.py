"""Alert policy: turns detector transitions into alert records (architecture §2, §4.2).

The policy owns identity (labels, fingerprint), lifecycle (a firing alert is sent once, again
only when its severity or culprits change, and resolved once) and the runbook link. Sinks never
decide wording or severity.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from monitor.clock import iso_utc
from monitor.model import AlertRecord, Scope, Transition


def runbook_anchor(alertname: str) -> str:
    """Anchor of an alert's runbook entry in docs/alerts.md: `runbook-` + kebab-case name."""
    kebab = "".join("-" + c.lower() if c.isupper() else c for c in alertname).lstrip("-")
    return f"runbook-{kebab}"


def fingerprint(alertname: str, job: str, identity: dict[str, str], scope: Scope, node: str) -> str:
    """Stable id of an alert. Job-scoped alerts leave the reporting node out, so the same
    finding from several nodes collapses into one (PagerDuty dedup_key, Alertmanager)."""
    parts = [alertname, f"job={job}"]
    if scope is Scope.NODE:
        parts.append(f"node={node}")
    parts.extend(f"{k}={v}" for k, v in sorted(identity.items()))
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


@dataclass
class _Active:
    record: AlertRecord


class AlertPolicy:
    def __init__(self, job_id: str, node: str, runbook_base_url: str) -> None:
        self._job = job_id
        self._node = node
        self._runbook_base = runbook_base_url
        self._active: dict[str, _Active] = {}
        self.sent_total: dict[tuple[str, str], int] = {}

    def apply(self, transition: Transition, wall_now: float) -> AlertRecord | None:
        """Return the record to deliver, or None when nothing new is to be said."""
        identity = dict(transition.identity)
        fp = fingerprint(transition.alertname, self._job, identity, transition.scope, self._node)
        active = self._active.get(fp)
        if not transition.firing:
            if active is None:
                return None
            del self._active[fp]
            resolved = replace(
                active.record,
                status="resolved",
                ends_at=iso_utc(wall_now),
                summary=transition.summary or active.record.summary,
                description=transition.description or active.record.description,
            )
            return self._count(resolved)
        if active is not None and not self._changed(active.record, transition):
            return None
        labels = {"job": self._job, "node": self._node, **identity}
        record = AlertRecord(
            status="firing",
            alertname=transition.alertname,
            severity=transition.severity,
            category=transition.category,
            labels=labels,
            summary=transition.summary,
            description=transition.description,
            evidence=dict(transition.evidence),
            culprit_ranks=tuple(sorted(transition.culprit_ranks)),
            starts_at=active.record.starts_at if active else iso_utc(wall_now),
            ends_at=None,
            fingerprint=fp,
            runbook_url=self._runbook_base + runbook_anchor(transition.alertname),
            scope=transition.scope,
            detector=transition.detector,
            incident_id=transition.incident_id,
        )
        self._active[fp] = _Active(record)
        return self._count(record)

    def resolve_all(self, wall_now: float, reason: str) -> list[AlertRecord]:
        """Resolve every firing alert (the job ended or the daemon stops)."""
        out = []
        for fp in list(self._active):
            record = replace(
                self._active.pop(fp).record,
                status="resolved",
                ends_at=iso_utc(wall_now),
                description=reason,
            )
            out.append(self._count(record))
        return out

    def firing(self) -> tuple[AlertRecord, ...]:
        return tuple(a.record for a in self._active.values())

    @staticmethod
    def _changed(old: AlertRecord, new: Transition) -> bool:
        return (
            old.severity != new.severity
            or tuple(sorted(new.culprit_ranks)) != old.culprit_ranks
            or old.category != new.category
            or old.incident_id != new.incident_id
        )

    def _count(self, record: AlertRecord) -> AlertRecord:
        key = (record.alertname, record.status)
        self.sent_total[key] = self.sent_total.get(key, 0) + 1
        return record
