"""The HTTP boundary: Retry-After parsing, safe endpoint names, and error translation."""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from email.utils import format_datetime

import pytest

from exporters._http import Reply, describe_endpoint, outcome_for_status, parse_retry_after
from tests.delivery_support.receivers import SLACK_OK, Receiver, SilentServer, free_port
from tests.delivery_support.records import poster, run


def test_retry_after_in_seconds_and_as_http_date() -> None:
    """Retry-After is read as delta-seconds or as an HTTP date; junk reads as absent."""
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(" 1.5 ") == 1.5
    now = 1_700_000_000.0
    date = format_datetime(datetime.fromtimestamp(now + 30, tz=timezone.utc), usegmt=True)
    assert parse_retry_after(date, now_wall=now) == 30.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None
    assert parse_retry_after("-5") == 0.0


def test_endpoint_description_hides_path_query_and_credentials() -> None:
    """Only scheme, host and port of an endpoint may be logged."""
    url = "https://user:pw@hooks.slack.com:8443/services/T/B/secret?token=x"
    assert describe_endpoint(url) == "https://hooks.slack.com:8443"


def test_status_reading() -> None:
    """429 and 5xx are retryable (with Retry-After), 408 too; other 4xx are permanent."""

    def reply(status: int, headers: dict[str, str] | None = None) -> Reply:
        return Reply(status, headers or {}, "body")

    limited = outcome_for_status(reply(429, {"retry-after": "3"}))
    assert (limited.retryable, limited.reason, limited.retry_after_seconds) == (
        True,
        "rate_limited",
        3.0,
    )
    assert outcome_for_status(reply(503)).reason == "server_error"
    assert outcome_for_status(reply(408)).retryable
    rejected = outcome_for_status(reply(404))
    assert (rejected.retryable, rejected.reason, rejected.detail) == (
        False,
        "rejected",
        "HTTP 404: body",
    )


def test_connection_refused_translates_to_connect_error_without_the_url() -> None:
    """A refused connection is a retryable connect_error whose detail does not quote the URL."""
    url = f"http://127.0.0.1:{free_port()}/hook/SECRETPATH123"

    async def scenario():  # type: ignore[no-untyped-def]
        p = poster(url)
        try:
            return await p.post_json({"a": 1})
        finally:
            await p.aclose()

    outcome = run(scenario)
    assert (outcome.delivered, outcome.retryable, outcome.reason) == (False, True, "connect_error")
    assert "SECRETPATH123" not in outcome.detail


def test_silent_server_translates_to_timeout() -> None:
    """A server that never answers gives a retryable timeout within the request deadline."""
    with SilentServer() as silent:

        async def scenario():  # type: ignore[no-untyped-def]
            p = poster(silent.url("/x"), timeout=0.3)
            try:
                return await p.post_json({"a": 1})
            finally:
                await p.aclose()

        outcome = run(scenario, timeout=10)
    assert (outcome.retryable, outcome.reason) == (True, "timeout")


def test_stdlib_logging_at_debug_never_shows_the_url(caplog: pytest.LogCaptureFixture) -> None:
    """httpx logs each request's URL at INFO; with the process logging everything at DEBUG,
    no log record still carries the webhook's secret path."""
    logging.getLogger("httpx").setLevel(logging.NOTSET)
    with Receiver(default=SLACK_OK) as rx:

        async def scenario() -> None:
            p = poster(rx.url("/services/T/B/SECRETPATH999"))
            caplog.set_level(logging.DEBUG)  # logging configured after the sinks were built
            await p.post_json({"a": 1})
            await p.aclose()

        run(scenario)
    assert len(rx.snapshot()) == 1
    assert "SECRETPATH999" not in caplog.text
