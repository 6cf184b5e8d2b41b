"""PagerDuty Events v2: event shape, PagerDuty's answers, dedup across nodes, key secrecy."""

from __future__ import annotations

import json
from pathlib import Path

import structlog

from exporters.pagerduty import PAYLOAD_MAX_BYTES, SUMMARY_MAX, PagerDutyNotifier, build_event
from tests.delivery_support.receivers import (
    PD_ACCEPTED,
    PD_BAD_REQUEST,
    PD_SERVER_ERROR,
    Receiver,
    rate_limited,
)
from tests.delivery_support.records import (
    assert_golden,
    job_record,
    poster,
    resolved,
    run,
    sink,
    stalled_record,
    wait_until,
)

ROUTING_KEY = "R0ut1ngKeySecret0123456789abcdef"


def pd_sink(url: str, spool: Path):  # type: ignore[no-untyped-def]
    notifier = PagerDutyNotifier(poster(url, secrets=[ROUTING_KEY]), ROUTING_KEY)
    return sink(notifier, spool, secrets=[ROUTING_KEY])


def test_trigger_event_matches_golden() -> None:
    """A firing alert is a `trigger` whose dedup_key is the fingerprint, with summary, source,
    severity, component, group, class and custom_details filled in."""
    assert_golden("pagerduty_trigger.json", build_event(stalled_record(), "golden-routing-key"))


def test_resolve_event_matches_golden() -> None:
    """A resolved alert is a bare `resolve` with the same routing key and dedup_key."""
    event = build_event(resolved(stalled_record()), "golden-routing-key")
    assert_golden("pagerduty_resolve.json", event)


def test_summary_and_payload_limits() -> None:
    """summary is cut to 1024 characters; a payload over 512 KB loses its evidence, not its
    identity."""
    record = stalled_record(summary="s" * 5000, evidence={"blob": "x" * (600 * 1024)})
    event = build_event(record, "k")
    assert len(event["payload"]["summary"]) == SUMMARY_MAX
    assert len(json.dumps(event).encode()) <= PAYLOAD_MAX_BYTES
    assert event["dedup_key"] == record.fingerprint


def test_accepted_trigger_then_resolve_over_http(tmp_path: Path) -> None:
    """202 is success: trigger then resolve arrive at /v2/enqueue with the same dedup_key."""
    with Receiver(default=PD_ACCEPTED) as rx:

        async def scenario() -> None:
            s = pd_sink(rx.url("/v2/enqueue"), tmp_path)
            s.submit(stalled_record())
            await wait_until(lambda: s.stats.delivered == 1)
            s.submit(resolved(stalled_record()))
            await wait_until(lambda: s.stats.delivered == 2)
            await s.aclose(0.5)

        run(scenario)
        trigger, resolve = (r.json for r in rx.snapshot())
        assert_golden("pagerduty_trigger.json", {**trigger, "routing_key": "golden-routing-key"})
        assert trigger["routing_key"] == ROUTING_KEY
        assert resolve == {
            "routing_key": ROUTING_KEY,
            "event_action": "resolve",
            "dedup_key": stalled_record().fingerprint,
        }


def test_bad_request_is_permanent(tmp_path: Path) -> None:
    """400 means the event is invalid: given up after one attempt (reason rejected)."""
    with Receiver(default=PD_BAD_REQUEST) as rx:

        async def scenario() -> None:
            s = pd_sink(rx.url("/v2/enqueue"), tmp_path)
            s.submit(stalled_record())
            await wait_until(lambda: sum(s.stats.failed.values()) == 1)
            await s.aclose(0.3)
            assert s.stats.failed == {"rejected": 1}

        run(scenario)
        assert len(rx.snapshot()) == 1


def test_rate_limit_and_server_errors_are_retried(tmp_path: Path) -> None:
    """429 and 5xx are retried until PagerDuty accepts the event."""
    with Receiver(script=[rate_limited("0"), PD_SERVER_ERROR], default=PD_ACCEPTED) as rx:

        async def scenario() -> None:
            s = pd_sink(rx.url("/v2/enqueue"), tmp_path)
            s.submit(stalled_record())
            await wait_until(lambda: s.stats.delivered == 1)
            await s.aclose(0.3)
            assert s.stats.retries == {"rate_limited": 1, "server_error": 1}

        run(scenario)
        bodies = [r.json for r in rx.snapshot()]
        assert len(bodies) == 3
        assert bodies[0] == bodies[1] == bodies[2]


def test_two_nodes_send_one_dedup_key(tmp_path: Path) -> None:
    """The same job-level alert from two nodes carries one dedup_key (the node is not part of
    it), so PagerDuty opens one incident."""
    with Receiver(default=PD_ACCEPTED) as rx:

        async def scenario() -> None:
            a = pd_sink(rx.url("/v2/enqueue"), tmp_path / "a")
            b = pd_sink(rx.url("/v2/enqueue"), tmp_path / "b")
            a.submit(job_record("gpu001"))
            b.submit(job_record("gpu002"))
            await wait_until(lambda: a.stats.delivered == 1 and b.stats.delivered == 1)
            await a.aclose(0.3)
            await b.aclose(0.3)

        run(scenario)
        keys = {r.json["dedup_key"] for r in rx.snapshot()}
        assert keys == {job_record("x").fingerprint}
        assert {r.json["payload"]["source"] for r in rx.snapshot()} == {"gpu001", "gpu002"}


def test_routing_key_never_logged(tmp_path: Path) -> None:
    """Even when PagerDuty echoes the routing key in an error, it appears in no log event,
    error detail or metric."""
    echo = PD_BAD_REQUEST.__class__(400, f'{{"message": "bad key {ROUTING_KEY}"}}')
    with structlog.testing.capture_logs() as logs, Receiver(script=[PD_SERVER_ERROR, echo]) as rx:

        async def scenario() -> str:
            s = pd_sink(rx.url("/v2/enqueue"), tmp_path)
            s.submit(stalled_record(summary=f"leaked routing_key={ROUTING_KEY} in a log line"))
            await wait_until(lambda: sum(s.stats.failed.values()) == 1)
            await s.aclose(0.3)
            return repr(s.metric_families())

        metrics = run(scenario)
    assert any("HTTP 400" in str(e.get("detail")) for e in logs)
    assert ROUTING_KEY not in metrics
    for event in logs:
        assert ROUTING_KEY not in repr(event)
    # The alert text itself was scrubbed before it was sent.
    assert ROUTING_KEY not in rx.snapshot()[0].json["payload"]["summary"]
