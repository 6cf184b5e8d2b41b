"""A scripted notifier for delivery-loop tests: answers from a list, records what it was sent."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from exporters._http import DELIVERED, Outcome
from exporters.notify_policy import SinkKind
from monitor.model import AlertRecord


@dataclass
class Sent:
    at: float
    record: AlertRecord
    resend: bool


@dataclass
class ScriptedNotifier:
    outcomes: list[Outcome] = field(default_factory=list)
    default: Outcome = DELIVERED
    name: str = "scripted"
    kind: SinkKind = SinkKind.DEDUPLICATING
    endpoint: str = "http://127.0.0.1:1"
    min_interval_seconds: float = 0.0
    resend_interval_seconds: float | None = None
    hold: asyncio.Event | None = None  # when set, every send waits for it
    sent: list[Sent] = field(default_factory=list)
    closed: bool = False

    async def send(self, record: AlertRecord, *, resend: bool) -> Outcome:
        self.sent.append(Sent(time.monotonic(), record, resend))
        if self.hold is not None:
            await self.hold.wait()
        return self.outcomes.pop(0) if self.outcomes else self.default

    async def aclose(self) -> None:
        self.closed = True

    def statuses(self) -> list[str]:
        return [s.record.status for s in self.sent if not s.resend]
