"""Generic JSON webhook: the alert record itself (architecture §4.2) as the request body.

For receivers rankwatch does not know. Each request carries `Idempotency-Key` (fingerprint,
status and a digest of what changed), so a receiver can drop the rare duplicate that a crash
between its answer and our bookkeeping may cause. 2xx is success; 408, 429 and 5xx are
retried (429 after its `Retry-After`); other answers are permanent.
"""

from __future__ import annotations

from exporters._http import DELIVERED, HttpPoster, Outcome, outcome_for_status
from exporters.notify_policy import SinkKind
from exporters.spool import content_digest
from monitor.model import AlertRecord


def idempotency_key(record: AlertRecord) -> str:
    return f"{record.fingerprint}:{record.status}:{content_digest(record)}"


class WebhookNotifier:
    name = "webhook"
    kind = SinkKind.DIRECT
    min_interval_seconds = 0.0
    resend_interval_seconds: float | None = None

    def __init__(self, poster: HttpPoster) -> None:
        self._poster = poster
        self.endpoint = poster.endpoint

    async def send(self, record: AlertRecord, *, resend: bool) -> Outcome:
        reply = await self._poster.post_json(
            record.to_dict(), headers={"Idempotency-Key": idempotency_key(record)}
        )
        if isinstance(reply, Outcome):
            return reply
        if 200 <= reply.status < 300:
            return DELIVERED
        return outcome_for_status(reply)

    async def aclose(self) -> None:
        await self._poster.aclose()
