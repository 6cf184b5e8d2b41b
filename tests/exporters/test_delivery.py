"""The delivery loop shared by all remote sinks: spool, coalescing, queue bound, retries,
give-up, re-sends, shutdown and metrics. A scripted notifier stands in for the wire format
(each notifier's HTTP behaviour has its own tests against real local servers)."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from exporters._http import DELIVERED, failure
from exporters.console import ConsoleSink
from exporters.delivery import DeliveryConfig, DeliverySink, backoff_seconds
from exporters.spool import Spool
from monitor.model import AlertRecord, Severity
from tests.delivery_support.records import (
    FAST,
    resolved,
    run,
    sample,
    sink,
    stalled_record,
    wait_until,
)
from tests.delivery_support.scripted import ScriptedNotifier

RETRY = failure("server_error", "HTTP 500", retryable=True)


def coalescing(seconds: float) -> DeliveryConfig:
    return replace(FAST, coalesce_seconds=seconds)


def pending_files(spool_dir: Path) -> list[Path]:
    return sorted((spool_dir / "pending").glob("*.json"))


def test_record_is_spooled_before_the_first_attempt(tmp_path: Path) -> None:
    """When submit() returns, the record is on disk and nothing has been sent yet."""
    notifier = ScriptedNotifier()
    s = sink(notifier, tmp_path)
    s.submit(stalled_record())
    (path,) = pending_files(tmp_path)
    assert json.loads(path.read_text())["record"]["fingerprint"] == stalled_record().fingerprint
    assert notifier.sent == []


def test_delivered_record_leaves_the_spool_and_enters_the_ledger(tmp_path: Path) -> None:
    """After a successful send the pending file is gone and the ledger knows the alert fired."""

    async def scenario() -> None:
        s = sink(ScriptedNotifier(), tmp_path)
        s.submit(stalled_record())
        await wait_until(lambda: s.stats.delivered == 1)
        await s.aclose(0.1)

    run(scenario)
    assert pending_files(tmp_path) == []
    ledger = json.loads((tmp_path / "delivered.json").read_text())
    assert ledger[stalled_record().fingerprint]["status"] == "firing"


def test_storm_of_transitions_becomes_one_message_per_interval(tmp_path: Path) -> None:
    """After the first message, 99 quick updates of one alert become a single message sent
    one coalescing interval later, carrying the newest state."""
    notifier = ScriptedNotifier()

    async def scenario() -> DeliverySink:
        s = sink(notifier, tmp_path, coalescing(1.0))
        s.submit(stalled_record())
        await wait_until(lambda: s.stats.delivered == 1)
        for i in range(99):
            s.submit(stalled_record(culprit_ranks=(100 + i,), summary=f"update {i}"))
            await asyncio.sleep(0)
        await wait_until(lambda: s.stats.delivered == 2, timeout=10)
        await asyncio.sleep(0.3)
        await s.aclose(0.1)
        return s

    s = run(scenario)
    assert len(notifier.sent) == 2
    assert notifier.sent[1].record.summary == "update 98"
    assert notifier.sent[1].at - notifier.sent[0].at >= 0.95
    assert s.stats.coalesced == 98


def test_flapping_back_to_the_delivered_state_sends_nothing(tmp_path: Path) -> None:
    """firing (sent) → resolved → firing within the interval: the receiver already has the
    final state, so nothing more goes out."""
    notifier = ScriptedNotifier()

    async def scenario() -> None:
        s = sink(notifier, tmp_path, coalescing(0.5))
        s.submit(stalled_record())
        await wait_until(lambda: s.stats.delivered == 1)
        s.submit(resolved(stalled_record()))
        s.submit(stalled_record())
        await asyncio.sleep(1.0)
        await s.aclose(0.1)

    run(scenario)
    assert notifier.statuses() == ["firing"]
    assert pending_files(tmp_path) == []


def test_escalation_does_not_wait_for_the_interval(tmp_path: Path) -> None:
    """warning → critical for the same alert is sent at once, coalescing notwithstanding."""
    notifier = ScriptedNotifier()

    async def scenario() -> None:
        s = sink(notifier, tmp_path, coalescing(30.0))
        s.submit(stalled_record(severity=Severity.WARNING))
        await wait_until(lambda: s.stats.delivered == 1)
        s.submit(stalled_record(severity=Severity.CRITICAL))
        await wait_until(lambda: s.stats.delivered == 2, timeout=5)
        await s.aclose(0.1)

    run(scenario)
    assert [s.record.severity for s in notifier.sent] == [Severity.WARNING, Severity.CRITICAL]


def test_resolve_waits_for_the_coalescing_interval(tmp_path: Path) -> None:
    """A resolve right after the firing message goes out one interval after it, not sooner."""
    notifier = ScriptedNotifier()

    async def scenario() -> None:
        s = sink(notifier, tmp_path, coalescing(0.6))
        s.submit(stalled_record())
        await wait_until(lambda: s.stats.delivered == 1)
        s.submit(resolved(stalled_record()))
        await wait_until(lambda: s.stats.delivered == 2, timeout=5)
        await s.aclose(0.1)

    run(scenario)
    assert notifier.statuses() == ["firing", "resolved"]
    assert notifier.sent[1].at - notifier.sent[0].at >= 0.55


def test_queue_bound_drops_new_alerts_and_counts_them(tmp_path: Path) -> None:
    """With queue_size 2 and the receiver stuck, a third waiting alert is dropped and counted;
    the others are delivered once the receiver answers."""
    hold = asyncio.Event()
    notifier = ScriptedNotifier(hold=hold)

    async def scenario() -> DeliverySink:
        hold.clear()
        s = sink(notifier, tmp_path, replace(FAST, queue_size=2))
        s.submit(stalled_record(fingerprint="a"))
        await wait_until(lambda: len(notifier.sent) == 1)
        for fp in ("b", "c", "d"):
            s.submit(stalled_record(fingerprint=fp))
        hold.set()
        await wait_until(lambda: s.stats.delivered == 3)
        await s.aclose(0.1)
        return s

    s = run(scenario)
    assert [x.record.fingerprint for x in notifier.sent] == ["a", "b", "c"]
    assert sample(s.metric_families(), "alerts_delivery_dropped", "scripted", "queue_full") == 1


def test_retryable_failures_are_retried_then_delivered(tmp_path: Path) -> None:
    """Two retryable failures, then success: three attempts, retries counted by reason."""
    notifier = ScriptedNotifier(outcomes=[RETRY, failure("timeout", "t", retryable=True)])

    async def scenario() -> DeliverySink:
        s = sink(notifier, tmp_path)
        s.submit(stalled_record())
        await wait_until(lambda: s.stats.delivered == 1)
        await s.aclose(0.1)
        return s

    s = run(scenario)
    assert len(notifier.sent) == 3
    assert s.stats.retries == {"server_error": 1, "timeout": 1}
    assert sample(s.metric_families(), "alerts_delivery_sink_up", "scripted") == 1


def test_notifier_exception_counts_as_a_retryable_failure(tmp_path: Path) -> None:
    """A notifier that raises does not kill the worker: the attempt is retried."""

    class Exploding(ScriptedNotifier):
        async def send(self, record: AlertRecord, *, resend: bool):  # type: ignore[no-untyped-def]
            if not self.sent:
                self.sent.append(None)  # type: ignore[arg-type]
                raise RuntimeError("boom")
            return DELIVERED

    async def scenario() -> DeliverySink:
        s = sink(Exploding(), tmp_path)
        s.submit(stalled_record())
        await wait_until(lambda: s.stats.delivered == 1)
        await s.aclose(0.1)
        return s

    s = run(scenario)
    assert s.stats.retries == {"network_error": 1}


def test_gives_up_after_the_deadline(tmp_path: Path) -> None:
    """An alert that keeps failing is given up at the deadline: failed{deadline}, spool empty."""
    notifier = ScriptedNotifier(default=RETRY)

    async def scenario() -> DeliverySink:
        s = sink(notifier, tmp_path, replace(FAST, give_up_seconds=0.5))
        s.submit(stalled_record())
        await wait_until(lambda: sum(s.stats.failed.values()) == 1, timeout=10)
        await s.aclose(0.1)
        return s

    s = run(scenario)
    assert s.stats.failed == {"deadline": 1}
    assert len(notifier.sent) >= 2
    assert pending_files(tmp_path) == []


def test_failed_attempt_superseded_by_newer_record(tmp_path: Path) -> None:
    """If the alert resolves while its firing message is failing in flight, the resolve is
    sent next and the stale firing message is not retried."""
    hold = asyncio.Event()
    notifier = ScriptedNotifier(outcomes=[RETRY], hold=hold)

    async def scenario() -> None:
        hold.clear()
        s = sink(notifier, tmp_path)
        s.submit(stalled_record())
        await wait_until(lambda: len(notifier.sent) == 1)
        s.submit(resolved(stalled_record()))
        hold.set()
        await wait_until(lambda: s.stats.delivered == 1)
        await asyncio.sleep(0.2)
        await s.aclose(0.1)

    run(scenario)
    assert notifier.statuses() == ["firing", "resolved"]


def test_spooled_record_is_delivered_by_the_next_run(tmp_path: Path) -> None:
    """A run that could not deliver leaves the record spooled; a new sink on the same
    directory delivers it after start(), without any new submit."""
    first = ScriptedNotifier(default=RETRY)
    second = ScriptedNotifier()

    async def crashed_run() -> None:
        s = sink(first, tmp_path)
        s.submit(stalled_record())
        await wait_until(lambda: len(first.sent) >= 1)
        # No aclose: the process "dies" with the record still pending.

    async def next_run() -> DeliverySink:
        s = sink(second, tmp_path)
        await s.start()
        await wait_until(lambda: s.stats.delivered == 1)
        await s.aclose(0.1)
        return s

    run(crashed_run)
    assert len(pending_files(tmp_path)) == 1
    run(next_run)
    assert second.statuses() == ["firing"]
    assert pending_files(tmp_path) == []


def test_already_delivered_alert_is_not_sent_again_after_restart(tmp_path: Path) -> None:
    """The ledger survives restarts: the same firing alert submitted by a new run is skipped,
    while its resolve still goes out."""
    notifier = ScriptedNotifier()

    async def one_run(records: list[AlertRecord]) -> DeliverySink:
        s = sink(notifier, tmp_path)
        for record in records:
            s.submit(record)
        await asyncio.sleep(0.3)
        await s.aclose(0.5)
        return s

    run(lambda: one_run([stalled_record()]))
    again = run(lambda: one_run([stalled_record(summary="stuck 300 s", starts_at="later")]))
    assert again.stats.skipped == {"already_delivered": 1}
    run(lambda: one_run([resolved(stalled_record())]))
    assert notifier.statuses() == ["firing", "resolved"]


def test_kill_between_ledger_write_and_unlink_does_not_resend(tmp_path: Path) -> None:
    """A pending file whose record the ledger already lists as delivered is dropped on
    recovery instead of being sent twice."""
    record = stalled_record()
    spool = Spool(tmp_path)
    spool.open()
    spool.put(record, 1.0)
    from exporters.spool import content_digest

    spool.mark_delivered(record, content_digest(record), 2.0)
    notifier = ScriptedNotifier()

    async def scenario() -> None:
        s = sink(notifier, tmp_path)
        await s.start()
        await asyncio.sleep(0.2)
        await s.aclose(0.1)

    run(scenario)
    assert notifier.sent == []
    assert pending_files(tmp_path) == []


def test_corrupt_spool_file_is_set_aside(tmp_path: Path) -> None:
    """An unreadable pending file is renamed *.corrupt and counted, not fatal."""
    (tmp_path / "pending").mkdir(parents=True)
    (tmp_path / "pending" / "bad.json").write_text("{not json")
    s = sink(ScriptedNotifier(), tmp_path)
    assert (tmp_path / "pending" / "bad.corrupt").exists()
    assert sample(s.metric_families(), "alerts_delivery_spool_errors", "scripted") == 1


def test_close_flushes_without_waiting_for_coalescing(tmp_path: Path) -> None:
    """aclose() sends what is waiting for its coalescing interval right away."""
    notifier = ScriptedNotifier()

    async def scenario() -> float:
        s = sink(notifier, tmp_path, coalescing(60.0))
        s.submit(stalled_record())
        await wait_until(lambda: s.stats.delivered == 1)
        s.submit(resolved(stalled_record()))
        loop = asyncio.get_running_loop()
        started = loop.time()
        await s.aclose(5.0)
        return loop.time() - started

    took = run(scenario)
    assert notifier.statuses() == ["firing", "resolved"]
    assert took < 2.0
    assert notifier.closed


def test_close_leaves_undeliverable_records_spooled(tmp_path: Path) -> None:
    """A record that cannot be delivered before the close deadline stays in the spool."""
    notifier = ScriptedNotifier(default=RETRY)

    async def scenario() -> None:
        s = sink(notifier, tmp_path, replace(FAST, initial_backoff_seconds=5.0))
        s.submit(stalled_record())
        await wait_until(lambda: len(notifier.sent) == 1)
        await s.aclose(0.3)

    run(scenario)
    assert len(pending_files(tmp_path)) == 1


def test_submit_after_close_is_dropped(tmp_path: Path) -> None:
    """A closed sink counts late records as dropped{closed} and never raises."""

    async def scenario() -> DeliverySink:
        s = sink(ScriptedNotifier(), tmp_path)
        await s.aclose(0.1)
        s.submit(stalled_record())
        return s

    s = run(scenario)
    assert s.stats.dropped == {"closed": 1}


def test_firing_alerts_are_resent_until_resolved(tmp_path: Path) -> None:
    """With a re-send interval, a firing alert is sent again periodically, and no longer once
    it is resolved."""
    notifier = ScriptedNotifier(resend_interval_seconds=0.2)

    async def scenario() -> DeliverySink:
        s = sink(notifier, tmp_path)
        s.submit(stalled_record())
        await asyncio.sleep(1.1)
        s.submit(resolved(stalled_record()))
        await wait_until(lambda: s.stats.delivered == 2)
        await asyncio.sleep(0.6)
        await s.aclose(0.1)
        return s

    s = run(scenario)
    resends = [x for x in notifier.sent if x.resend]
    assert len(resends) >= 3
    assert all(x.record.status == "firing" for x in resends)
    assert notifier.sent[-1].record.status == "resolved"
    assert s.stats.resent == len(resends)


def test_resend_resumes_when_a_new_run_confirms_the_alert(tmp_path: Path) -> None:
    """After a restart, a firing alert the ledger lists as delivered is not announced again,
    but re-sends resume at once (the receiver may have expired it meanwhile)."""
    notifier = ScriptedNotifier(resend_interval_seconds=10.0)

    async def one_run() -> DeliverySink:
        s = sink(notifier, tmp_path)
        s.submit(stalled_record())
        await asyncio.sleep(0.3)
        await s.aclose(0.1)
        return s

    run(one_run)
    second = run(one_run)
    assert [x.resend for x in notifier.sent] == [False, True]
    assert second.stats.skipped == {"already_delivered": 1}


def test_router_decisions_are_applied_and_counted(tmp_path: Path) -> None:
    """Records the router declines are skipped by reason; the router learns whether the sink
    has announced the alert (so the resolve follows a delivered firing message)."""
    seen: list[tuple[str, bool]] = []

    def router(record: AlertRecord, announced: bool) -> str | None:
        seen.append((record.status, announced))
        if record.fingerprint == "elsewhere":
            return "other_node"
        return None

    notifier = ScriptedNotifier()

    async def scenario() -> DeliverySink:
        s = sink(notifier, tmp_path, router=router)
        s.submit(stalled_record(fingerprint="elsewhere"))
        s.submit(stalled_record())
        await wait_until(lambda: s.stats.delivered == 1)
        s.submit(resolved(stalled_record()))
        await wait_until(lambda: s.stats.delivered == 2)
        await s.aclose(0.1)
        return s

    s = run(scenario)
    assert s.stats.skipped == {"other_node": 1}
    assert seen == [("firing", False), ("firing", False), ("resolved", True)]


def test_submit_never_raises(tmp_path: Path) -> None:
    """A failure inside submit (here a broken router) is counted, never raised."""

    def broken(record: AlertRecord, announced: bool) -> str | None:
        raise ValueError("bug")

    s = sink(ScriptedNotifier(), tmp_path, router=broken)
    s.submit(stalled_record())
    assert s.stats.dropped == {"internal_error": 1}


def test_shared_metric_families_match_the_console_sink(tmp_path: Path) -> None:
    """alerts_delivered and alerts_delivery_failed have the console sink's help and labels, so
    the collector can merge them into one family."""
    ours = {f.name: f for f in sink(ScriptedNotifier(), tmp_path).metric_families()}
    for family in ConsoleSink().metric_families():
        assert (ours[family.name].help, ours[family.name].label_names) == (
            family.help,
            family.label_names,
        )
        assert ours[family.name].kind == family.kind


@pytest.mark.parametrize("attempts", [1, 2, 3, 5, 10, 40])
def test_backoff_is_exponential_jittered_and_capped(attempts: int) -> None:
    """The n-th retry waits within [d/2, d], d = initial·2^(n-1) capped at max_backoff."""
    config = DeliveryConfig(initial_backoff_seconds=0.5, max_backoff_seconds=20.0)
    ceiling = min(20.0, 0.5 * 2 ** (attempts - 1))
    rng = random.Random(1)
    for _ in range(200):
        assert ceiling / 2 <= backoff_seconds(attempts, config, rng) <= ceiling
