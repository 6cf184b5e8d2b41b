"""Generic JSON webhook: the alert record is the body; 2xx ok, 408/429/5xx retried."""

from __future__ import annotations

from pathlib import Path

from exporters.webhook import WebhookNotifier, idempotency_key
from tests.delivery_support.receivers import Receiver, Response
from tests.delivery_support.records import (
    assert_golden,
    poster,
    resolved,
    run,
    sink,
    stalled_record,
    wait_until,
)


def test_body_is_the_alert_record_with_an_idempotency_key(tmp_path: Path) -> None:
    """The POST body is the record's JSON (golden) and Idempotency-Key names fingerprint,
    status and content."""
    with Receiver(default=Response(204)) as rx:

        async def scenario() -> None:
            s = sink(WebhookNotifier(poster(rx.url("/hook"))), tmp_path)
            s.submit(stalled_record())
            await wait_until(lambda: s.stats.delivered == 1)
            await s.aclose(0.3)

        run(scenario)
        (request,) = rx.snapshot()
        assert request.json == stalled_record().to_dict()
        assert_golden("webhook_firing.json", request.json)
        assert request.headers["idempotency-key"] == idempotency_key(stalled_record())
        assert idempotency_key(stalled_record()) != idempotency_key(resolved(stalled_record()))


def test_request_timeout_status_is_retried_and_not_found_is_permanent(tmp_path: Path) -> None:
    """408 is retried; a later 404 ends delivery as rejected."""
    with Receiver(script=[Response(408), Response(404, "no such hook")]) as rx:

        async def scenario() -> None:
            s = sink(WebhookNotifier(poster(rx.url("/hook"))), tmp_path)
            s.submit(stalled_record())
            await wait_until(lambda: sum(s.stats.failed.values()) == 1)
            await s.aclose(0.3)
            assert s.stats.retries == {"server_error": 1}
            assert s.stats.failed == {"rejected": 1}

        run(scenario)
        assert len(rx.snapshot()) == 2
