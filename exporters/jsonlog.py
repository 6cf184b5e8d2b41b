"""JSON-lines alert log (`--alert-log PATH`): one alert record per line, flushed per record."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

from exporters.sink import local_write_metrics
from monitor.model import AlertRecord, MetricFamilyData


class JsonLogSink:
    name = "alert_log"

    def __init__(self, path: str) -> None:
        self._path = path
        self._sent = 0
        self._failed = 0
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, exist_ok=True)
        # Append mode with O_APPEND: each record is one write, whole lines even across restarts.
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o640)

    def submit(self, record: AlertRecord) -> None:
        line = json.dumps(record.to_dict(), sort_keys=True, default=str) + "\n"
        try:
            os.write(self._fd, line.encode("utf-8"))
            self._sent += 1
        except OSError:
            self._failed += 1

    async def aclose(self, deadline_seconds: float) -> None:
        try:
            os.fsync(self._fd)
        except OSError:
            pass
        os.close(self._fd)

    def metric_families(self) -> Sequence[MetricFamilyData]:
        return local_write_metrics(self.name, self._sent, self._failed)
