"""Prometheus endpoint: a custom collector over the daemon's latest immutable snapshot.

`collect()` runs in the HTTP server's thread at scrape time and only reads
`holder.current`, which the daemon swaps atomically; nothing here calls `.set()` across
threads, and the registry is private (no global state, no process collectors we did not ask for).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    InfoMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from monitor.model import MetricFamilyData, MetricKind, SnapshotHolder

PREFIX = "rankwatch_"


class SnapshotCollector(Collector):
    def __init__(self, holder: SnapshotHolder) -> None:
        self._holder = holder

    def collect(self) -> Iterator[Metric]:
        merged: dict[str, MetricFamilyData] = {}
        for fam in self._holder.current.families:
            prev = merged.get(fam.name)
            if prev is None:
                merged[fam.name] = fam
            else:  # several components report into one family (e.g. per-sink delivery counts)
                merged[fam.name] = MetricFamilyData(
                    fam.name, fam.kind, fam.help, fam.label_names, prev.samples + fam.samples
                )
        for fam in merged.values():
            yield render(fam)


def render(fam: MetricFamilyData) -> Metric:
    name = PREFIX + fam.name
    labels = list(fam.label_names)
    metric: Any
    if fam.kind is MetricKind.COUNTER:
        metric = CounterMetricFamily(name, fam.help, labels=labels)
    elif fam.kind is MetricKind.INFO:
        metric = InfoMetricFamily(name, fam.help, labels=labels)
    else:
        metric = GaugeMetricFamily(name, fam.help, labels=labels)
    seen: set[tuple[str, ...]] = set()
    for label_values, value in fam.samples:
        if label_values in seen:  # a duplicate series would make the whole scrape invalid
            continue
        seen.add(label_values)
        metric.add_metric(list(label_values), value)
    return metric  # type: ignore[no-any-return]


class MetricsServer:
    """The HTTP endpoint; bind address is explicit (prometheus_client defaults to all interfaces)."""

    def __init__(self, holder: SnapshotHolder, addr: str) -> None:
        host, _, port = addr.rpartition(":")
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(SnapshotCollector(holder))
        self._host = host.strip("[]") or "127.0.0.1"
        self._port = int(port)
        self._server: Any = None
        self._thread: Any = None

    def start(self) -> str:
        self._server, self._thread = start_http_server(
            self._port, addr=self._host, registry=self.registry
        )
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self._server.server_port}/metrics"

    @property
    def port(self) -> int:
        return int(self._server.server_port) if self._server else self._port

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = None
