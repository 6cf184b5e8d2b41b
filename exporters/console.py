"""Console sink: one readable line per alert on stderr, e.g.
`rankwatch: CRITICAL rank 1 stopped (SIGSTOP) for 10 s [rank_stopped]`."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from exporters.sink import local_write_metrics
from monitor.model import AlertRecord, MetricFamilyData


def format_alert_line(record: AlertRecord) -> str:
    word = "RESOLVED" if record.status == "resolved" else record.severity.value.upper()
    culprits = ""
    if record.culprit_ranks and record.status == "firing" and record.severity.rank > 0:
        culprits = " culprit rank" + ("s " if len(record.culprit_ranks) > 1 else " ")
        culprits += ",".join(str(r) for r in record.culprit_ranks)
    return f"rankwatch: {word} {record.summary} [{record.category.value}]{culprits}"


class ConsoleSink:
    name = "console"

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self._sent = 0
        self._failed = 0

    def submit(self, record: AlertRecord) -> None:
        stream = self._stream or sys.stderr
        try:
            stream.write(format_alert_line(record) + "\n")
            stream.flush()
            self._sent += 1
        except (OSError, ValueError):
            self._failed += 1

    async def aclose(self, deadline_seconds: float) -> None:
        return None

    def metric_families(self) -> Sequence[MetricFamilyData]:
        return local_write_metrics(self.name, self._sent, self._failed)
