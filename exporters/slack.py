"""Slack incoming webhook: one readable message per alert (Block Kit, with a plain `text`
fallback for notifications and old clients).

Success is HTTP 200 with the body `ok`. 429 carries `Retry-After`; 5xx is worth a retry; any
other answer (400 `invalid_payload`, 403 `action_prohibited`, 404 `channel_not_found`, 410
`channel_is_archived`, …) is permanent. Slack allows about one message per second per webhook,
so the notifier asks delivery for at least `min_interval_seconds` between attempts.
Slack's limits are enforced by truncation: header 150 characters, section text 3000, field
2000, at most 10 fields.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from exporters._http import (
    DELIVERED,
    REASON_BAD_RESPONSE,
    HttpPoster,
    Outcome,
    Reply,
    failure,
    outcome_for_status,
)
from exporters.notify_policy import SinkKind
from monitor.model import AlertRecord, Scope, Severity

HEADER_MAX = 150
SECTION_MAX = 3000
FIELD_MAX = 2000
FIELDS_MAX = 10
FALLBACK_MAX = 1000
EVIDENCE_LINES_MAX = 20

_ICON = {
    ("firing", Severity.CRITICAL): ":rotating_light:",
    ("firing", Severity.WARNING): ":warning:",
}
_RESOLVED_ICON = ":white_check_mark:"


def truncate(text: str, limit: int) -> str:
    """At most `limit` characters, ending in an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def escape(text: str) -> str:
    """Slack mrkdwn control characters (&, <, >) as entities, so log text cannot form links
    or mentions."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _word(record: AlertRecord) -> str:
    return "RESOLVED" if record.status == "resolved" else record.severity.value.upper()


def _icon(record: AlertRecord) -> str:
    return _ICON.get((record.status, record.severity), _RESOLVED_ICON)


def _when(iso: str | None) -> str:
    """'2026-11-20 23:18:46 UTC' from the record's ISO timestamp (kept as is if unreadable)."""
    if not iso:
        return "?"
    try:
        stamp = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    return stamp.strftime("%Y-%m-%d %H:%M:%S UTC")


def _duration(start: str, end: str | None) -> str | None:
    try:
        seconds = (
            datetime.fromisoformat((end or "").replace("Z", "+00:00"))
            - datetime.fromisoformat(start.replace("Z", "+00:00"))
        ).total_seconds()
    except ValueError:
        return None
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m {secs}s" if minutes else f"{secs}s"


def _evidence_lines(evidence: Mapping[str, Any]) -> list[str]:
    """Evidence as short lines: scalars as `key: value`, lists (frames) one item per line."""
    lines: list[str] = []
    for key, value in evidence.items():
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines.extend(f"  {item}" for item in value)
        elif isinstance(value, dict):
            inner = ", ".join(f"{k}={v}" for k, v in value.items())
            lines.append(f"{key}: {inner}")
        else:
            lines.append(f"{key}: {value}")
    if len(lines) > EVIDENCE_LINES_MAX:
        cut = len(lines) - EVIDENCE_LINES_MAX + 1
        lines = [*lines[: EVIDENCE_LINES_MAX - 1], f"… {cut} more lines"]
    return lines


def _field(title: str, value: str) -> dict[str, str]:
    return {"type": "mrkdwn", "text": truncate(f"*{title}*\n{escape(value)}", FIELD_MAX)}


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": truncate(text, SECTION_MAX)}}


def fallback_text(record: AlertRecord) -> str:
    labels = record.labels
    where = ", ".join(f"{k} {labels[k]}" for k in ("job", "node") if labels.get(k))
    text = f"{_icon(record)} [{_word(record)}] {record.alertname}: {record.summary}"
    if where:
        text += f" ({where})"
    return truncate(escape(text), FALLBACK_MAX)


def build_message(record: AlertRecord) -> dict[str, Any]:
    """The webhook body for one alert record."""
    labels = dict(record.labels)
    header = truncate(f"{_icon(record)} {_word(record)}: {record.alertname}", HEADER_MAX)
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": header, "emoji": True}},
        _section(escape(record.summary)),
    ]
    fields = []
    if labels.get("job"):
        fields.append(_field("Job", labels["job"]))
    if labels.get("node"):
        title = "Reported by" if record.scope is Scope.JOB else "Node"
        fields.append(_field(title, labels["node"]))
    if record.culprit_ranks:
        ranks = ", ".join(str(r) for r in record.culprit_ranks)
        title = "Culprit ranks" if len(record.culprit_ranks) > 1 else "Culprit rank"
        fields.append(_field(title, ranks))
    fields.append(_field("Category", record.category.value))
    fields.append(_field("Since", _when(record.starts_at)))
    if record.status == "resolved":
        lasted = _duration(record.starts_at, record.ends_at)
        fields.append(_field("Resolved", _when(record.ends_at)))
        if lasted:
            fields.append(_field("Lasted", lasted))
    others = {k: v for k, v in labels.items() if k not in ("job", "node")}
    if others:
        fields.append(_field("Labels", ", ".join(f"{k}={v}" for k, v in sorted(others.items()))))
    blocks.append({"type": "section", "fields": fields[:FIELDS_MAX]})
    if record.description:
        blocks.append(_section(escape(record.description)))
    evidence = _evidence_lines(record.evidence) if record.status == "firing" else []
    if evidence:
        body = truncate(escape("\n".join(evidence)), SECTION_MAX - 40)
        blocks.append(_section(f"*Evidence*\n```{body}```"))
    context = f"<{record.runbook_url}|Runbook: {record.alertname}>" if record.runbook_url else ""
    context += f"{' · ' if context else ''}fingerprint `{record.fingerprint[:12]}` · rankwatch"
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": context}]})
    return {"text": fallback_text(record), "blocks": blocks}


class SlackNotifier:
    name = "slack"
    kind = SinkKind.DIRECT
    resend_interval_seconds: float | None = None

    def __init__(self, poster: HttpPoster, *, min_interval_seconds: float = 1.0) -> None:
        self._poster = poster
        self.endpoint = poster.endpoint
        self.min_interval_seconds = min_interval_seconds

    async def send(self, record: AlertRecord, *, resend: bool) -> Outcome:
        reply = await self._poster.post_json(build_message(record))
        if isinstance(reply, Outcome):
            return reply
        return read_reply(reply)

    async def aclose(self) -> None:
        await self._poster.aclose()


def read_reply(reply: Reply) -> Outcome:
    if reply.status == 200:
        if reply.body_excerpt == "ok":
            return DELIVERED
        return failure(
            REASON_BAD_RESPONSE,
            f"HTTP 200 without 'ok': {reply.body_excerpt!r}",
            retryable=False,
            status=200,
        )
    return outcome_for_status(reply)


def render_json(record: AlertRecord) -> str:
    """The message as pretty JSON (for docs/delivery.md and the golden files)."""
    return json.dumps(build_message(record), indent=2, ensure_ascii=False)
