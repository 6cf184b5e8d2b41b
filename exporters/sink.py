"""The sink contract: every sink receives the same AlertRecord and decides nothing about it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from monitor.model import AlertRecord, MetricFamilyData


class AlertSink(Protocol):
    name: str

    def submit(self, record: AlertRecord) -> None:
        """Accept a record for delivery. Never blocks the event loop, never raises."""

    async def aclose(self, deadline_seconds: float) -> None:
        """Flush what is pending within the deadline, then release resources."""

    def metric_families(self) -> Sequence[MetricFamilyData]:
        """Delivery self-metrics (sent, failed, dropped)."""
