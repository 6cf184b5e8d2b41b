"""The sink contract: every sink receives the same AlertRecord and decides nothing about it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from monitor.model import AlertRecord, MetricFamilyData, counter


class AlertSink(Protocol):
    name: str

    def submit(self, record: AlertRecord) -> None:
        """Accept a record for delivery. Never blocks the event loop, never raises."""

    async def aclose(self, deadline_seconds: float) -> None:
        """Flush what is pending within the deadline, then release resources."""

    def metric_families(self) -> Sequence[MetricFamilyData]:
        """Delivery self-metrics (sent, failed, dropped)."""


class CallbackSink:
    """Hands every record to a function (the demo's screen). Never raises."""

    name = "callback"

    def __init__(self, callback: Callable[[AlertRecord], None]) -> None:
        self._callback = callback

    def submit(self, record: AlertRecord) -> None:
        try:
            self._callback(record)
        except Exception:  # noqa: BLE001 - a display must never stop delivery
            pass

    async def aclose(self, deadline_seconds: float) -> None:
        return None

    def metric_families(self) -> Sequence[MetricFamilyData]:
        return []


def local_write_metrics(sink: str, written: int, failed: int) -> list[MetricFamilyData]:
    """The self-metrics of a sink that writes each record locally (a terminal, a file): what
    it wrote, and what a write error lost. The same names the network sinks export."""
    return [
        counter(
            "alerts_delivered",
            "Alert records delivered, by sink.",
            ("sink",),
            [((sink,), written)],
        ),
        counter(
            "alerts_delivery_failed",
            "Alert records that could not be delivered, by sink and reason.",
            ("sink", "reason"),
            [((sink, "write_error"), failed)],
        ),
    ]
