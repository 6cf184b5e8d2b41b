"""PagerDuty Events API v2: `trigger` for firing alerts, `resolve` for resolved ones.

`dedup_key` is the alert's fingerprint, which leaves the reporting node out for job-level
alerts: the same finding sent by several nodes opens one incident, and a re-sent trigger after a
restart is absorbed. 202 is success; 400 is permanent (bad payload); 429 and 5xx are retried.
Other 4xx (a wrong routing key answers 4xx too) are permanent. Limits: summary ≤ 1024
characters, dedup_key ≤ 255, payload ≤ 512 KB (evidence is cut when larger).
"""

from __future__ import annotations

import json
from typing import Any

from exporters._http import DELIVERED, HttpPoster, Outcome, outcome_for_status
from exporters.notify_policy import SinkKind
from monitor.model import AlertRecord, Scope

SUMMARY_MAX = 1024
DEDUP_KEY_MAX = 255
PAYLOAD_MAX_BYTES = 512 * 1024
CLIENT = "rankwatch"


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def build_event(record: AlertRecord, routing_key: str) -> dict[str, Any]:
    """The Events v2 body for one alert record."""
    dedup_key = _truncate(record.fingerprint, DEDUP_KEY_MAX)
    if record.status == "resolved":
        return {"routing_key": routing_key, "event_action": "resolve", "dedup_key": dedup_key}
    labels = dict(record.labels)
    job = labels.get("job", "")
    if record.culprit_ranks:
        ranks = ",".join(str(r) for r in record.culprit_ranks)
        component = ("rank " if len(record.culprit_ranks) == 1 else "ranks ") + ranks
    else:
        component = record.detector or record.alertname
    summary = record.summary if not job else f"job {job}: {record.summary}"
    event: dict[str, Any] = {
        "routing_key": routing_key,
        "event_action": "trigger",
        "dedup_key": dedup_key,
        "payload": {
            "summary": _truncate(f"[{record.alertname}] {summary}", SUMMARY_MAX),
            "source": labels.get("node") or "rankwatch",
            "severity": record.severity.value,
            "timestamp": record.starts_at,
            "component": component,
            "group": f"job {job}" if job else "rankwatch",
            "class": record.category.value,
            "custom_details": {
                "alertname": record.alertname,
                "description": record.description,
                "culprit_ranks": list(record.culprit_ranks),
                "labels": labels,
                "scope": record.scope.value,
                "evidence": dict(record.evidence),
                "starts_at": record.starts_at,
            },
        },
        "client": CLIENT,
    }
    if record.scope is Scope.JOB:
        event["payload"]["custom_details"]["reported_by"] = labels.get("node", "")
    if record.runbook_url:
        event["links"] = [{"href": record.runbook_url, "text": f"Runbook: {record.alertname}"}]
        event["client_url"] = record.runbook_url
    if len(json.dumps(event).encode("utf-8")) > PAYLOAD_MAX_BYTES:
        event["payload"]["custom_details"]["evidence"] = {"truncated": "evidence exceeded 512 KB"}
    return event


class PagerDutyNotifier:
    name = "pagerduty"
    kind = SinkKind.DEDUPLICATING
    min_interval_seconds = 0.0
    resend_interval_seconds: float | None = None

    def __init__(self, poster: HttpPoster, routing_key: str) -> None:
        self._poster = poster
        self._routing_key = routing_key
        self.endpoint = poster.endpoint

    async def send(self, record: AlertRecord, *, resend: bool) -> Outcome:
        reply = await self._poster.post_json(build_event(record, self._routing_key))
        if isinstance(reply, Outcome):
            return reply
        if 200 <= reply.status < 300:
            return DELIVERED
        return outcome_for_status(reply)

    async def aclose(self) -> None:
        await self._poster.aclose()
