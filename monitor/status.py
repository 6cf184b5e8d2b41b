"""`rankwatch status`: what a running sidecar sees, from its metrics endpoint, and what it
recorded, from its alert log — info records included (a stop, a clean end, a peer's teardown).

Pure formatting over parsed text; the one I/O call (an HTTP GET of the metrics) is `fetch`.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_SAMPLE = re.compile(r"^(?P<name>[a-zA-Z_:][\w:]*)(?:\{(?P<labels>[^}]*)\})?\s+(?P<value>\S+)")
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Sample:
    name: str
    labels: Mapping[str, str]
    value: float


def parse_metrics(text: str) -> list[Sample]:
    """The samples of a Prometheus text exposition (comments and bad lines skipped)."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        found = _SAMPLE.match(line)
        if found is None:
            continue
        try:
            value = float(found["value"])
        except ValueError:
            continue
        labels = dict(_LABEL.findall(found["labels"] or ""))
        out.append(Sample(found["name"], labels, value))
    return out


@dataclass
class Status:
    job: str = ""
    node: str = ""
    lifecycle: str = "unknown"
    incidents_open: int = 0
    concerns: dict[str, str] = field(default_factory=dict)
    firing: list[tuple[str, str, int]] = field(default_factory=list)  # name, severity, count


def summarise(samples: Iterable[Sample]) -> Status:
    status = Status()
    for s in samples:
        if s.name == "rankwatch_job_info":
            status.job, status.node = s.labels.get("job", ""), s.labels.get("node", "")
        elif s.name == "rankwatch_job_lifecycle" and s.value == 1:
            status.lifecycle = s.labels.get("state", "unknown")
        elif s.name == "rankwatch_incidents_open":
            status.incidents_open = int(s.value)
        elif s.name == "rankwatch_health" and s.value == 1:
            status.concerns[s.labels.get("concern", "?")] = s.labels.get("state", "?")
        elif s.name == "rankwatch_alerts_firing" and s.value > 0:
            status.firing.append(
                (s.labels.get("alertname", "?"), s.labels.get("severity", "?"), int(s.value))
            )
    return status


def render_status(status: Status) -> list[str]:
    lines = [
        f"job {status.job or '-'} on {status.node or '-'}: {status.lifecycle}, "
        f"{status.incidents_open} incident(s) open",
        "concerns: " + (", ".join(f"{c} {h}" for c, h in sorted(status.concerns.items())) or "-"),
    ]
    if status.firing:
        lines.append("firing: " + ", ".join(f"{n} ({sev}) x{c}" for n, sev, c in status.firing))
    else:
        lines.append("firing: nothing")
    return lines


def render_records(records: Iterable[Mapping[str, Any]], last: int = 20) -> list[str]:
    """The recorded alerts, newest last: severity, incident, name, culprit, summary."""
    rows = [r for r in records if r.get("status") == "firing"]
    lines = [f"recorded alerts ({len(rows)} firing records, the last {min(last, len(rows))}):"]
    for r in rows[-last:]:
        culprit = ",".join(map(str, r.get("culprit_ranks") or [])) or "-"
        lines.append(
            f"  {r.get('starts_at', '?')} {str(r.get('severity', '?')).upper():8} "
            f"[{r.get('incident_id') or '-'}] {r.get('alertname')} culprit {culprit}: "
            f"{str(r.get('summary', ''))[:140]}"
        )
    return lines


def read_records(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text(errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line cut by a crash mid-write
        if isinstance(record, dict):
            out.append(record)
    return out


def fetch(url: str, timeout: float = 5.0) -> str:
    """The metrics text; raises OSError with a clear message when nobody answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            return str(reply.read().decode("utf-8", "replace"))
    except urllib.error.URLError as exc:
        raise OSError(f"no rankwatch metrics at {url}: {exc.reason}") from exc
