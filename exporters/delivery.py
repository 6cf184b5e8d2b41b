"""Delivery, written once for every remote sink: spool, queue, coalescing, retries, metrics.

A `DeliverySink` wraps one `Notifier` (Slack, PagerDuty, Alertmanager, webhook). The notifier
knows its wire format and answers one question per attempt: did it work, and is a retry worth
it (`Outcome`). Everything else lives here:

- routing: the cross-node and severity policy (`exporters.notify_policy`) decides per record;
- scrubbing: records are scrubbed of secrets before they are spooled or sent;
- the durable spool (`exporters.spool`): a record is on disk before the first attempt, so it
  survives a crash or SIGKILL and is delivered by the next run on the same state directory;
- a bounded queue holding at most one message per alert (fingerprint): a newer record for the
  same alert replaces the waiting one, and messages for one alert go out at most once per
  `coalesce_seconds` (an escalation to a higher severity does not wait);
- retries with exponential backoff and jitter, `Retry-After` honoured for the whole sink (a
  rate limit is per webhook), a give-up deadline, and permanent failures given up at once;
- periodic re-sends of firing alerts for notifiers that need them (Alertmanager);
- metrics: delivered, failed by reason, retries by reason, dropped, coalesced, skipped,
  latency, queue length, sink up.

Concurrency: everything runs on the daemon's asyncio loop. `submit()` must be called from
that loop's thread; it never blocks on the network (it writes one small file) and never raises.
Each sink has one worker task, started by `await sink.start()` (the daemon does this once at
start-up, so that a spool left by a previous run is delivered without waiting for a new alert)
or lazily by the first `submit()` made inside the running loop. One attempt is in flight per
sink at a time, which keeps the order of messages and respects per-webhook rate limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import structlog

from exporters._http import REASON_DEADLINE, REASON_NETWORK, REASON_TIMEOUT, Outcome, failure
from exporters.notify_policy import SinkKind
from exporters.secrets import Scrubber
from exporters.spool import Spool, content_digest
from monitor.clock import Clock, SystemClock
from monitor.model import AlertRecord, MetricFamilyData, Severity, counter, gauge

log = structlog.get_logger("rankwatch.delivery")

SKIP_ALREADY_DELIVERED = "already_delivered"
DROP_QUEUE_FULL = "queue_full"
DROP_CLOSED = "closed"


class Notifier(Protocol):
    """One integration. `send` performs one attempt and never raises."""

    name: str  # the sink's name in settings and metrics: slack, pagerduty, alertmanager, webhook
    kind: SinkKind
    endpoint: str  # scheme://host[:port] only; safe to log
    min_interval_seconds: float  # at least this long between two attempts (provider rate limit)
    resend_interval_seconds: float | None  # re-send firing alerts this often (None: never)

    async def send(self, record: AlertRecord, *, resend: bool) -> Outcome: ...

    async def aclose(self) -> None: ...


# (record, announced) -> None to deliver, else the skip reason (a label value).
Router = Callable[[AlertRecord, bool], "str | None"]


@dataclass(frozen=True, slots=True)
class DeliveryConfig:
    coalesce_seconds: float = 30.0
    queue_size: int = 1000
    give_up_seconds: float = 3600.0
    initial_backoff_seconds: float = 1.0
    max_backoff_seconds: float = 60.0
    retry_after_max_seconds: float = 600.0
    attempt_timeout_seconds: float = 15.0  # hard cap on one attempt, above the HTTP timeouts


@dataclass(slots=True)
class _Entry:
    record: AlertRecord
    digest: str
    submitted_mono: float
    deadline_mono: float
    resend: bool = False
    attempts: int = 0
    retry_at: float = 0.0


@dataclass
class DeliveryStats:
    delivered: int = 0
    resent: int = 0
    coalesced: int = 0
    spool_errors: int = 0
    latency_seconds_sum: float = 0.0
    last_latency_seconds: float = 0.0
    failed: dict[str, int] = field(default_factory=dict)
    retries: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def bump(table: dict[str, int], key: str) -> None:
        table[key] = table.get(key, 0) + 1


def backoff_seconds(attempts: int, config: DeliveryConfig, rng: random.Random) -> float:
    """Exponential backoff with jitter: the n-th retry waits a random time in [d/2, d], where
    d = initial * 2**(n-1), capped at max_backoff (jitter keeps 40 nodes from retrying in step)."""
    exponent = min(max(attempts - 1, 0), 30)
    ceiling = min(config.max_backoff_seconds, config.initial_backoff_seconds * float(2**exponent))
    return ceiling * rng.uniform(0.5, 1.0)


class DeliverySink:
    """An AlertSink that delivers through one notifier, durably and with retries."""

    def __init__(
        self,
        notifier: Notifier,
        *,
        spool_dir: Path,
        config: DeliveryConfig | None = None,
        router: Router | None = None,
        scrubber: Scrubber | None = None,
        clock: Clock | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.name = notifier.name
        self.notifier = notifier
        self.config = config or DeliveryConfig()
        self._router = router
        self._scrubber = scrubber or Scrubber()
        self._clock: Clock = clock or SystemClock()
        self._rng = rng or random.Random()
        self.stats = DeliveryStats()
        self._spool = Spool(Path(spool_dir))
        self._spool_ok = self._spool.open()
        self._pending: dict[str, _Entry] = {}
        self._inflight: _Entry | None = None
        self._last_sent: dict[str, float] = {}  # fingerprint -> monotonic time of last delivery
        self._live: dict[str, AlertRecord] = {}  # firing alerts confirmed in this run (re-sends)
        self._resend_at: dict[str, float] = {}
        self._blocked_until = 0.0  # Retry-After: the whole sink waits
        self._last_attempt = -math.inf
        self._sink_up = True
        self._failed_streak = 0
        self._closing = False
        self._closed = False
        self._close_by = math.inf
        self._wakeup = asyncio.Event()
        self._idle = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        if not self._spool_ok:
            self.stats.spool_errors += 1
            log.warning("alert_spool_unavailable", sink=self.name, spool_dir=str(spool_dir))
        self._recover()

    # -- the AlertSink contract ---------------------------------------------------------------
    def submit(self, record: AlertRecord) -> None:
        try:
            self._submit(record)
        except Exception as exc:  # noqa: BLE001 - submit must never raise into the detector loop
            self.stats.bump(self.stats.dropped, "internal_error")
            log.error(
                "alert_submit_failed",
                sink=self.name,
                error=self._scrubber.text(f"{type(exc).__name__}: {exc}"),
            )

    async def start(self) -> None:
        """Start the worker (idempotent). Needed to deliver what a previous run spooled."""
        self._ensure_started()

    async def aclose(self, deadline_seconds: float) -> None:
        """Flush what can go out within the deadline (coalescing and pacing waits are skipped,
        backoff and Retry-After are not); what is left stays spooled for the next run."""
        if self._closed:
            return
        self._closing = True
        self._close_by = self._clock.monotonic() + max(0.0, deadline_seconds)
        self._live.clear()
        self._resend_at.clear()
        self._pending = {fp: e for fp, e in self._pending.items() if not e.resend}
        if self._pending and deadline_seconds > 0:
            self._ensure_started()
        if self._task is not None:
            self._wakeup.set()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._idle.wait(), timeout=max(0.0, deadline_seconds))
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._closed = True
        left = len(self._pending)
        if left:
            log.info("alert_delivery_left_spooled", sink=self.name, pending=left)
        await self.notifier.aclose()

    def metric_families(self) -> Sequence[MetricFamilyData]:
        s = self.stats
        sink = (self.name,)
        queued = len([e for e in self._pending.values() if not e.resend])
        return [
            counter(
                "alerts_delivered",
                "Alert records delivered, by sink.",
                ("sink",),
                [(sink, s.delivered)],
            ),
            counter(
                "alerts_delivery_failed",
                "Alert records that could not be delivered, by sink and reason.",
                ("sink", "reason"),
                [((self.name, r), n) for r, n in sorted(s.failed.items())],
            ),
            counter(
                "alerts_delivery_retries",
                "Failed delivery attempts that will be retried, by sink and reason.",
                ("sink", "reason"),
                [((self.name, r), n) for r, n in sorted(s.retries.items())],
            ),
            counter(
                "alerts_delivery_dropped",
                "Alert records dropped before any attempt (queue full, closed); by sink, reason.",
                ("sink", "reason"),
                [((self.name, r), n) for r, n in sorted(s.dropped.items())],
            ),
            counter(
                "alerts_delivery_skipped",
                "Alert records a sink did not send: routed elsewhere, sent by another node, "
                "or already delivered. By sink and reason.",
                ("sink", "reason"),
                [((self.name, r), n) for r, n in sorted(s.skipped.items())],
            ),
            counter(
                "alerts_delivery_coalesced",
                "Alert records merged into a message already waiting for the same alert.",
                ("sink",),
                [(sink, s.coalesced)],
            ),
            counter(
                "alerts_delivery_resent",
                "Periodic re-sends of firing alerts (Alertmanager), by sink.",
                ("sink",),
                [(sink, s.resent)],
            ),
            counter(
                "alerts_delivery_latency_seconds",
                "Sum of the times from submit to the receiver's acknowledgement, by sink.",
                ("sink",),
                [(sink, s.latency_seconds_sum)],
            ),
            gauge(
                "alerts_delivery_last_latency_seconds",
                "Time from submit to acknowledgement of the last delivered record, by sink.",
                ("sink",),
                [(sink, s.last_latency_seconds)],
            ),
            gauge(
                "alerts_delivery_queue_length",
                "Messages waiting for delivery (spooled), by sink.",
                ("sink",),
                [(sink, queued + (1 if self._inflight and not self._inflight.resend else 0))],
            ),
            gauge(
                "alerts_delivery_sink_up",
                "1 when the sink's last delivery attempt succeeded (or none failed yet), else 0.",
                ("sink",),
                [(sink, 1.0 if self._sink_up else 0.0)],
            ),
            counter(
                "alerts_delivery_spool_errors",
                "Failures to read or write the durable spool, by sink.",
                ("sink",),
                [(sink, s.spool_errors)],
            ),
        ]

    # -- submit --------------------------------------------------------------------------------
    def _submit(self, record: AlertRecord) -> None:
        if self._closing:
            self.stats.bump(self.stats.dropped, DROP_CLOSED)
            return
        record = self._scrubber.record(record)
        fp = record.fingerprint
        if self._router is not None:
            reason = self._router(record, self._announced(fp))
            if reason is not None:
                self.stats.bump(self.stats.skipped, reason)
                return
        digest = content_digest(record)
        now = self._clock.monotonic()
        self._track_live(record, digest, now)
        waiting = self._pending.get(fp)
        if waiting is not None and waiting.resend:
            del self._pending[fp]
            waiting = None
        if digest == self._receiver_digest(fp):
            # The receiver has (or is being sent) exactly this news.
            if waiting is not None:
                del self._pending[fp]
                self._spool.remove(fp)
                self.stats.coalesced += 1
            else:
                self.stats.bump(self.stats.skipped, SKIP_ALREADY_DELIVERED)
            return
        if waiting is None and len(self._queued()) >= self.config.queue_size:
            self.stats.bump(self.stats.dropped, DROP_QUEUE_FULL)
            log.warning(
                "alert_dropped_queue_full",
                sink=self.name,
                alertname=record.alertname,
                queue_size=self.config.queue_size,
            )
            return
        if not self._spool.put(record, self._clock.wall()):
            self.stats.spool_errors += 1
        entry = _Entry(
            record=record,
            digest=digest,
            submitted_mono=now,
            deadline_mono=now + self.config.give_up_seconds,
        )
        if waiting is not None:
            self.stats.coalesced += 1
            # Keep the retry pacing the waiting message had earned.
            entry.attempts, entry.retry_at = waiting.attempts, waiting.retry_at
        self._pending[fp] = entry
        self._ensure_started()
        self._wakeup.set()

    def _track_live(self, record: AlertRecord, digest: str, now: float) -> None:
        if self.notifier.resend_interval_seconds is None:
            return
        fp = record.fingerprint
        if record.status != "firing":
            self._live.pop(fp, None)
            self._resend_at.pop(fp, None)
            return
        self._live[fp] = record
        if fp not in self._resend_at and digest == self._receiver_digest(fp):
            # Delivered by an earlier run: the receiver may have expired it meanwhile.
            self._resend_at[fp] = now
            self._ensure_started()
            self._wakeup.set()

    def _queued(self) -> list[_Entry]:
        return [e for e in self._pending.values() if not e.resend]

    def _announced(self, fp: str) -> bool:
        if self._inflight is not None and self._inflight.record.fingerprint == fp:
            return self._inflight.record.status == "firing"
        entry = self._spool.ledger.get(fp)
        return entry is not None and entry.status == "firing"

    def _receiver_digest(self, fp: str) -> str | None:
        """What the receiver will have once the attempt in flight (if any) lands."""
        inflight = self._inflight
        if inflight is not None and inflight.record.fingerprint == fp and not inflight.resend:
            return inflight.digest
        entry = self._spool.ledger.get(fp)
        return entry.digest if entry else None

    def _recover(self) -> None:
        spooled = self._spool.load()
        self.stats.spool_errors += self._spool.corrupt_files
        now_mono, now_wall = self._clock.monotonic(), self._clock.wall()
        recovered = 0
        for item in spooled:
            record, fp = item.record, item.record.fingerprint
            digest = content_digest(record)
            ledger = self._spool.ledger.get(fp)
            if ledger is not None and ledger.digest == digest:
                self._spool.remove(fp)  # delivered; the kill came before the file was removed
                continue
            age = max(0.0, now_wall - item.submitted_wall)
            self._pending[fp] = _Entry(
                record=record,
                digest=digest,
                submitted_mono=now_mono - age,
                deadline_mono=now_mono - age + self.config.give_up_seconds,
            )
            recovered += 1
        if recovered:
            log.info("alert_spool_recovered", sink=self.name, pending=recovered)

    # -- the worker ---------------------------------------------------------------------------
    def _ensure_started(self) -> None:
        if self._task is not None or self._closed:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not inside the loop yet: start() will do it
        self._task = loop.create_task(self._run(), name=f"delivery:{self.name}")

    async def _run(self) -> None:
        while True:
            now = self._clock.monotonic()
            self._queue_due_resends(now)
            entry, ready_at = self._next_ready(now)
            if entry is not None and ready_at <= now:
                await self._attempt(entry)
                continue
            wake_at = min(ready_at, self._next_resend())
            if self._closing and wake_at > self._close_by:
                self._idle.set()
            self._wakeup.clear()
            timeout = None if math.isinf(wake_at) else max(0.0, wake_at - now)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wakeup.wait(), timeout=timeout)

    def _next_ready(self, now: float) -> tuple[_Entry | None, float]:
        best: _Entry | None = None
        best_at = math.inf
        for entry in self._pending.values():
            at = self._ready_at(entry)
            if at < best_at or (
                at == best_at and best is not None and entry.submitted_mono < best.submitted_mono
            ):
                best, best_at = entry, at
        return best, best_at

    def _ready_at(self, entry: _Entry) -> float:
        at = max(entry.retry_at, self._blocked_until)
        if self._closing:
            return at
        at = max(at, self._last_attempt + self.notifier.min_interval_seconds)
        last = self._last_sent.get(entry.record.fingerprint)
        if last is not None and not entry.resend and not self._escalates(entry.record):
            at = max(at, last + self.config.coalesce_seconds)
        return at

    def _escalates(self, record: AlertRecord) -> bool:
        ledger = self._spool.ledger.get(record.fingerprint)
        if record.status != "firing" or ledger is None or ledger.status != "firing":
            return False
        try:
            return record.severity.rank > Severity(ledger.severity).rank
        except ValueError:
            return False

    def _next_resend(self) -> float:
        return min(self._resend_at.values(), default=math.inf)

    def _queue_due_resends(self, now: float) -> None:
        interval = self.notifier.resend_interval_seconds
        if interval is None or self._closing:
            return
        for fp, at in list(self._resend_at.items()):
            if at > now:
                continue
            inflight = self._inflight is not None and self._inflight.record.fingerprint == fp
            record = self._live.get(fp)
            if fp in self._pending or inflight or record is None:
                self._resend_at[fp] = now + interval
                continue
            del self._resend_at[fp]
            self._pending[fp] = _Entry(
                record=record,
                digest=content_digest(record),
                submitted_mono=now,
                deadline_mono=now + interval,
                resend=True,
            )

    async def _attempt(self, entry: _Entry) -> None:
        fp = entry.record.fingerprint
        now = self._clock.monotonic()
        del self._pending[fp]
        if not entry.resend and now > entry.deadline_mono:
            expired = failure(REASON_DEADLINE, "give-up deadline passed", retryable=False)
            self._give_up(entry, expired)
            return
        self._inflight = entry
        entry.attempts += 1
        try:
            outcome = await asyncio.wait_for(
                self.notifier.send(entry.record, resend=entry.resend),
                timeout=self.config.attempt_timeout_seconds,
            )
        except asyncio.TimeoutError:
            outcome = failure(REASON_TIMEOUT, "attempt timed out", retryable=True)
        except asyncio.CancelledError:
            if fp not in self._pending and not entry.resend:
                self._pending[fp] = entry  # closing: it stays spooled for the next run
            raise
        except Exception as exc:  # noqa: BLE001 - the delivery worker is one of three broad catches
            outcome = failure(
                REASON_NETWORK,
                self._scrubber.text(f"notifier error {type(exc).__name__}: {exc}"),
                retryable=True,
            )
        finally:
            self._inflight = None
            # Pace from the end of the attempt: the receiver saw it at the latest by now.
            self._last_attempt = self._clock.monotonic()
        if outcome.delivered:
            self._delivered(entry)
        else:
            self._failed(entry, outcome)

    def _delivered(self, entry: _Entry) -> None:
        now = self._clock.monotonic()
        fp = entry.record.fingerprint
        if not self._sink_up:
            log.info(
                "alert_delivery_recovered",
                sink=self.name,
                endpoint=self.notifier.endpoint,
                failed_attempts=self._failed_streak,
            )
        self._sink_up, self._failed_streak = True, 0
        interval = self.notifier.resend_interval_seconds
        if entry.resend:
            self.stats.resent += 1
            if interval is not None and fp in self._live:
                self._resend_at[fp] = now + interval
            return
        if not self._spool.mark_delivered(entry.record, entry.digest, self._clock.wall()):
            self.stats.spool_errors += 1
        if fp not in self._pending:  # a newer record for this alert owns the spool file now
            self._spool.remove(fp)
        latency = max(0.0, now - entry.submitted_mono)
        self.stats.delivered += 1
        self.stats.latency_seconds_sum += latency
        self.stats.last_latency_seconds = latency
        self._last_sent[fp] = now
        if interval is not None and entry.record.status == "firing" and fp in self._live:
            self._resend_at[fp] = now + interval
        log.info(
            "alert_delivered",
            sink=self.name,
            alertname=entry.record.alertname,
            status=entry.record.status,
            fingerprint=fp,
            attempts=entry.attempts,
            latency_seconds=round(latency, 3),
        )

    def _failed(self, entry: _Entry, outcome: Outcome) -> None:
        now = self._clock.monotonic()
        fp = entry.record.fingerprint
        self._sink_up = False
        self._failed_streak += 1
        if outcome.retry_after_seconds is not None:
            pause = min(outcome.retry_after_seconds, self.config.retry_after_max_seconds)
            self._blocked_until = max(self._blocked_until, now + pause)
        if not outcome.retryable:
            self._give_up(entry, outcome)
            return
        self.stats.bump(self.stats.retries, outcome.reason)
        delay = backoff_seconds(entry.attempts, self.config, self._rng)
        if outcome.retry_after_seconds is not None:
            asked = min(outcome.retry_after_seconds, self.config.retry_after_max_seconds)
            delay = max(delay, asked)
        event = "alert_delivery_failing" if self._failed_streak == 1 else "alert_delivery_retry"
        (log.warning if self._failed_streak == 1 else log.debug)(
            event,
            sink=self.name,
            endpoint=self.notifier.endpoint,
            alertname=entry.record.alertname,
            reason=outcome.reason,
            detail=outcome.detail,
            attempts=entry.attempts,
            retry_in_seconds=round(delay, 3),
        )
        interval = self.notifier.resend_interval_seconds
        if entry.resend:
            if interval is not None and fp in self._live:
                self._resend_at[fp] = now + min(delay, interval)
            return
        newer = self._pending.get(fp)
        if newer is not None and not newer.resend:
            # Superseded while in flight: the newer record inherits the pacing, this one goes.
            newer.attempts = max(newer.attempts, entry.attempts)
            newer.retry_at = max(newer.retry_at, now + delay)
            self.stats.coalesced += 1
            return
        if now + delay > entry.deadline_mono:
            self._give_up(entry, outcome, reason=REASON_DEADLINE)
            return
        entry.retry_at = now + delay
        self._pending[fp] = entry

    def _give_up(self, entry: _Entry, outcome: Outcome, reason: str | None = None) -> None:
        fp = entry.record.fingerprint
        reason = reason or outcome.reason
        self.stats.bump(self.stats.failed, reason)
        if fp not in self._pending:
            self._spool.remove(fp)
        log.error(
            "alert_delivery_gave_up",
            sink=self.name,
            endpoint=self.notifier.endpoint,
            alertname=entry.record.alertname,
            status=entry.record.status,
            fingerprint=fp,
            reason=reason,
            detail=outcome.detail,
            attempts=entry.attempts,
        )
