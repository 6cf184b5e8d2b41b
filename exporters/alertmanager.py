"""Alertmanager API v2: POST /api/v2/alerts, a JSON array of alerts.

Labels identify an alert in Alertmanager, so they are the alert's identity: alertname, severity,
category and the record's labels, without the reporting node for job-level alerts (the same
finding from two nodes is one alert there). Everything else is annotations ("last one wins":
they are sent again with the resolve, or the resolved notification shows none).

A firing alert is posted without `endsAt`: Alertmanager then keeps it until `resolve_timeout`
(default 5 m) after it last heard of it, so the delivery layer re-sends firing alerts every
`resend_interval_seconds` (keep it well below resolve_timeout). A resolve is the same alert with
`endsAt` set to the record's end time. `generatorURL` points at a dashboard when one is
configured, else at the alert's runbook.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from exporters._http import DELIVERED, HttpPoster, Outcome, outcome_for_status
from exporters.notify_policy import SinkKind
from monitor.clock import iso_utc
from monitor.model import AlertRecord, Scope

API_PATH = "/api/v2/alerts"
ANNOTATION_MAX = 4096


def alerts_url(base_url: str) -> str:
    return base_url.rstrip("/") + API_PATH


_INVALID_LABEL_CHARS = re.compile(r"[^A-Za-z0-9_]")


def label_name(key: str) -> str:
    """A valid Prometheus label name ([A-Za-z_][A-Za-z0-9_]*) from a record label key."""
    name = _INVALID_LABEL_CHARS.sub("_", key) or "_"
    return "_" + name if name[0].isdigit() else name


def alert_labels(record: AlertRecord) -> dict[str, str]:
    labels = {label_name(k): v for k, v in record.labels.items() if v != ""}
    if record.scope is Scope.JOB:
        labels.pop("node", None)
    labels.update(
        alertname=record.alertname,
        severity=record.severity.value,
        category=record.category.value,
    )
    if labels.get("job"):
        # The Prometheus rules' alerts carry the job as `job_id` (`job` is the scrape job
        # there): the same label lets one route group direct and rule alerts of a job together.
        labels["job_id"] = labels["job"]
    return labels


def _cut(text: str) -> str:
    return text if len(text) <= ANNOTATION_MAX else text[: ANNOTATION_MAX - 1] + "…"


def build_alert(record: AlertRecord, generator_url: str = "") -> dict[str, Any]:
    annotations = {
        "summary": _cut(record.summary),
        "runbook_url": record.runbook_url,
        "fingerprint": record.fingerprint,
    }
    if record.description:
        annotations["description"] = _cut(record.description)
    if record.culprit_ranks:
        annotations["culprit_ranks"] = ",".join(str(r) for r in record.culprit_ranks)
    if record.evidence:
        annotations["evidence"] = _cut(json.dumps(dict(record.evidence), sort_keys=True))
    if record.scope is Scope.JOB and record.labels.get("node"):
        annotations["reported_by"] = record.labels["node"]
    alert: dict[str, Any] = {
        "labels": alert_labels(record),
        "annotations": {k: v for k, v in annotations.items() if v},
        "startsAt": record.starts_at,
    }
    url = generator_url or record.runbook_url
    if url:
        alert["generatorURL"] = url
    if record.status == "resolved":
        alert["endsAt"] = record.ends_at or iso_utc(time.time())
    return alert


class AlertmanagerNotifier:
    name = "alertmanager"
    kind = SinkKind.DEDUPLICATING
    min_interval_seconds = 0.0

    def __init__(
        self, poster: HttpPoster, *, resend_interval_seconds: float, generator_url: str = ""
    ) -> None:
        self._poster = poster
        self.endpoint = poster.endpoint
        self.resend_interval_seconds: float | None = resend_interval_seconds
        self._generator_url = generator_url

    async def send(self, record: AlertRecord, *, resend: bool) -> Outcome:
        reply = await self._poster.post_json([build_alert(record, self._generator_url)])
        if isinstance(reply, Outcome):
            return reply
        if 200 <= reply.status < 300:
            return DELIVERED
        return outcome_for_status(reply)

    async def aclose(self) -> None:
        await self._poster.aclose()
