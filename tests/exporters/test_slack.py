"""Slack incoming webhook: message shape, Slack's answers, retries, and secrecy of the URL."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path

import structlog

from exporters.delivery import DeliveryConfig
from exporters.slack import (
    FIELD_MAX,
    FIELDS_MAX,
    HEADER_MAX,
    SECTION_MAX,
    SlackNotifier,
    build_message,
)
from monitor.model import Scope
from tests.delivery_support.receivers import (
    SLACK_INVALID_PAYLOAD,
    SLACK_OK,
    SLACK_SERVER_ERROR,
    Receiver,
    Response,
    SilentServer,
    free_port,
    rate_limited,
)
from tests.delivery_support.records import (
    FAST,
    assert_golden,
    job_record,
    poster,
    resolved,
    run,
    sample,
    sink,
    stalled_record,
    wait_until,
)

HOOK_PATH = "/services/T0SECRET/B0SECRET/XyZsecretPart123"


def slack_sink(url: str, spool: Path, config: DeliveryConfig = FAST, interval: float = 0.0):  # type: ignore[no-untyped-def]
    notifier = SlackNotifier(poster(url, secrets=[url]), min_interval_seconds=interval)
    return sink(notifier, spool, config, secrets=[url])


def test_firing_message_matches_golden() -> None:
    """A firing alert renders as the golden Block Kit message with a plain-text fallback."""
    assert_golden("slack_firing.json", build_message(stalled_record()))


def test_resolved_message_matches_golden() -> None:
    """A resolved alert says RESOLVED, when it ended and how long it lasted, without evidence."""
    assert_golden("slack_resolved.json", build_message(resolved(stalled_record())))


def test_job_level_message_names_the_reporting_node() -> None:
    """For a job-level alert the node field is titled 'Reported by', not 'Node'."""
    message = build_message(job_record("gpu001"))
    fields = [
        f["text"] for b in message["blocks"] if b["type"] == "section" for f in b.get("fields", [])
    ]
    assert "*Reported by*\ngpu001" in fields
    assert not any(f.startswith("*Node*") for f in fields)
    assert job_record("gpu001").scope is Scope.JOB


def test_provider_limits_are_enforced_by_truncation() -> None:
    """Oversized text is cut to Slack's limits: header 150, section 3000, field 2000, 10 fields."""
    huge = "x" * 10_000
    record = stalled_record(
        alertname="A" * 400,
        summary=huge,
        description=huge,
        labels={"job": huge, "node": "n", **{f"k{i}": "v" for i in range(30)}},
        evidence={"frames": [huge] * 100},
    )
    message = build_message(record)
    header = message["blocks"][0]["text"]["text"]
    assert len(header) <= HEADER_MAX
    for block in message["blocks"]:
        if "text" in block and block["type"] == "section":
            assert len(block["text"]["text"]) <= SECTION_MAX
        for field in block.get("fields", []):
            assert len(field["text"]) <= FIELD_MAX
        assert len(block.get("fields", [])) <= FIELDS_MAX
    assert len(message["text"]) <= 1000
    assert message["text"].endswith("…")


def test_log_text_cannot_form_links_or_mentions() -> None:
    """<, > and & from the job's output are escaped, so '<!channel>' stays inert text."""
    message = build_message(stalled_record(summary="ping <!channel> & <http://evil|click>"))
    text = json.dumps(message)
    assert "<!channel>" not in text
    assert (
        "&lt;!channel&gt; &amp; &lt;http://evil|click&gt;" in message["blocks"][1]["text"]["text"]
    )


def test_delivers_golden_payload_over_http_and_counts_it(tmp_path: Path) -> None:
    """Slack answering 200 `ok`: one POST with the golden body; delivered=1, latency recorded."""
    with Receiver(default=SLACK_OK) as rx:

        async def scenario() -> None:
            s = slack_sink(rx.url(HOOK_PATH), tmp_path)
            s.submit(stalled_record())
            await wait_until(lambda: s.stats.delivered == 1)
            await s.aclose(1.0)
            families = s.metric_families()
            assert sample(families, "alerts_delivered", "slack") == 1
            assert sample(families, "alerts_delivery_last_latency_seconds", "slack") > 0

        run(scenario)
        (request,) = rx.snapshot()
        assert request.path == HOOK_PATH
        assert request.headers["content-type"] == "application/json"
        assert request.headers["user-agent"].startswith("rankwatch/")
        assert_golden("slack_firing.json", request.json)


def test_invalid_payload_is_permanent(tmp_path: Path) -> None:
    """400 invalid_payload is not retried: one attempt, failed{reason=rejected}, spool emptied."""
    with Receiver(default=SLACK_INVALID_PAYLOAD) as rx:

        async def scenario() -> None:
            s = slack_sink(rx.url(HOOK_PATH), tmp_path)
            s.submit(stalled_record())
            await wait_until(lambda: sum(s.stats.failed.values()) == 1)
            await asyncio.sleep(0.3)
            await s.aclose(0.5)
            assert s.stats.failed == {"rejected": 1}
            assert s.stats.retries == {}

        run(scenario)
        assert len(rx.snapshot()) == 1
        assert list((tmp_path / "pending").glob("*.json")) == []


def test_ok_status_without_ok_body_is_a_bad_response(tmp_path: Path) -> None:
    """HTTP 200 whose body is not `ok` is a failure (bad_response), not a delivery."""
    with Receiver(default=Response(200, "no_text")) as rx:

        async def scenario() -> None:
            s = slack_sink(rx.url(HOOK_PATH), tmp_path)
            s.submit(stalled_record())
            await wait_until(lambda: sum(s.stats.failed.values()) == 1)
            await s.aclose(0.5)
            assert s.stats.failed == {"bad_response": 1}
            assert s.stats.delivered == 0

        run(scenario)


def test_rate_limit_retry_after_is_respected(tmp_path: Path) -> None:
    """429 with Retry-After: 1 — the next attempt comes no sooner than 1 s later, then succeeds."""
    with Receiver(script=[rate_limited("1")], default=SLACK_OK) as rx:

        async def scenario() -> None:
            s = slack_sink(rx.url(HOOK_PATH), tmp_path)
            s.submit(stalled_record())
            await wait_until(lambda: s.stats.delivered == 1)
            await s.aclose(0.5)
            assert s.stats.retries == {"rate_limited": 1}

        run(scenario)
        first, second = rx.snapshot()
        assert second.at - first.at >= 0.95


def test_retry_after_holds_back_every_alert_of_the_sink(tmp_path: Path) -> None:
    """A rate limit is per webhook: a second alert submitted meanwhile also waits it out."""
    with Receiver(script=[rate_limited("1")], default=SLACK_OK) as rx:

        async def scenario() -> None:
            s = slack_sink(rx.url(HOOK_PATH), tmp_path)
            s.submit(stalled_record())
            await wait_until(lambda: len(rx.snapshot()) == 1)
            s.submit(stalled_record(fingerprint="other", labels={"job": "4242", "rank": "2"}))
            await wait_until(lambda: s.stats.delivered == 2)
            await s.aclose(0.5)

        run(scenario)
        times = [r.at for r in rx.snapshot()]
        assert len(times) == 3
        assert min(times[1:]) - times[0] >= 0.95


def test_server_errors_are_retried_with_growing_backoff(tmp_path: Path) -> None:
    """500s are retried; each wait is in [d/2, d] with d doubling, so the gaps grow."""
    script = [SLACK_SERVER_ERROR] * 4
    config = DeliveryConfig(
        coalesce_seconds=0, initial_backoff_seconds=0.2, max_backoff_seconds=10, give_up_seconds=60
    )
    with Receiver(script=script, default=SLACK_OK) as rx:

        async def scenario() -> None:
            s = slack_sink(rx.url(HOOK_PATH), tmp_path, config)
            s.submit(stalled_record())
            await wait_until(lambda: s.stats.delivered == 1)
            await s.aclose(0.5)
            assert s.stats.retries == {"server_error": 4}

        run(scenario)
        times = [r.at for r in rx.snapshot()]
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert len(gaps) == 4
        for n, gap in enumerate(gaps):
            assert gap >= 0.2 * 2**n / 2 - 0.02  # lower edge of the jitter window
        assert gaps[3] > gaps[0]


def test_server_that_never_answers_times_out_then_gives_up(tmp_path: Path) -> None:
    """A receiver that accepts and never answers: attempts time out, and the give-up deadline
    ends the story with failed{reason=deadline}."""
    config = DeliveryConfig(
        coalesce_seconds=0,
        initial_backoff_seconds=0.05,
        max_backoff_seconds=0.1,
        give_up_seconds=1.5,
        attempt_timeout_seconds=5,
    )
    with SilentServer() as silent:

        async def scenario() -> None:
            notifier = SlackNotifier(poster(silent.url(HOOK_PATH), timeout=0.4))
            s = sink(notifier, tmp_path, config)
            s.submit(stalled_record())
            await wait_until(lambda: sum(s.stats.failed.values()) == 1, timeout=30)
            await s.aclose(0.5)
            assert s.stats.retries.get("timeout", 0) >= 1
            assert s.stats.failed == {"deadline": 1}
            assert sample(s.metric_families(), "alerts_delivery_sink_up", "slack") == 0

        run(scenario)


def test_connection_refused_is_retried_until_slack_comes_back(tmp_path: Path) -> None:
    """Nothing listening: connect errors are retried; once the server appears, it is delivered."""
    port = free_port()
    url = f"http://127.0.0.1:{port}{HOOK_PATH}"

    async def scenario() -> None:
        s = slack_sink(url, tmp_path)
        s.submit(stalled_record())
        await wait_until(lambda: s.stats.retries.get("connect_error", 0) >= 2)
        with Receiver(default=SLACK_OK, port=port) as rx:
            await wait_until(lambda: s.stats.delivered == 1)
            assert len(rx.snapshot()) == 1
        await s.aclose(0.5)

    run(scenario)


def test_min_interval_paces_messages(tmp_path: Path) -> None:
    """Two different alerts go out at least min_interval_seconds apart (Slack allows ~1/s)."""
    with Receiver(default=SLACK_OK) as rx:

        async def scenario() -> None:
            s = slack_sink(rx.url(HOOK_PATH), tmp_path, interval=0.5)
            s.submit(stalled_record())
            s.submit(stalled_record(fingerprint="second"))
            await wait_until(lambda: s.stats.delivered == 2)
            await s.aclose(0.5)

        run(scenario)
        first, second = rx.snapshot()
        assert second.at - first.at >= 0.45


def test_webhook_url_never_appears_in_logs_errors_or_metrics(tmp_path: Path) -> None:
    """Across every failure mode, the webhook URL's secret path is in no log event, no error
    detail and no metric label (the URL is the credential)."""
    secret = "XyZsecretPart123"
    port = free_port()
    refused_url = f"http://127.0.0.1:{port}{HOOK_PATH}"
    texts: list[str] = []
    script = [
        Response(500, f"echo {HOOK_PATH}"),
        rate_limited("0"),
        Response(400, f"invalid_payload for {HOOK_PATH}"),
    ]
    with (
        structlog.testing.capture_logs() as logs,
        Receiver(script=script) as rx,
        SilentServer() as silent,
    ):

        async def scenario() -> None:
            sinks = [
                slack_sink(rx.url(HOOK_PATH), tmp_path / "a"),
                slack_sink(
                    refused_url,
                    tmp_path / "b",
                    DeliveryConfig(
                        coalesce_seconds=0, initial_backoff_seconds=0.05, give_up_seconds=0.5
                    ),
                ),
            ]
            notifier = SlackNotifier(
                poster(silent.url(HOOK_PATH), timeout=0.2, secrets=[silent.url(HOOK_PATH)])
            )
            sinks.append(
                sink(
                    notifier,
                    tmp_path / "c",
                    DeliveryConfig(
                        coalesce_seconds=0, initial_backoff_seconds=0.05, give_up_seconds=0.6
                    ),
                    secrets=[silent.url(HOOK_PATH)],
                )
            )
            for s in sinks:
                s.submit(stalled_record())
            await wait_until(lambda: all(sum(s.stats.failed.values()) == 1 for s in sinks), 30)
            for s in sinks:
                await s.aclose(0.2)
                texts.append(repr(s.metric_families()))
                texts.append(repr(s.stats))

        run(scenario)
    texts.extend(repr(event) for event in logs)
    assert any(e.get("event") == "alert_delivery_gave_up" for e in logs)
    assert any("HTTP 500" in str(e.get("detail")) for e in logs)
    for text in texts:
        assert secret not in text
        assert "T0SECRET" not in text
