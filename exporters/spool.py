"""The durable spool of one sink: what is still to be delivered, and what already was.

Layout under the sink's directory:

    pending/<fingerprint>.json   the newest undelivered record of each alert (coalescing
                                 overwrites it), written before the first send attempt
    delivered.json               the ledger: per fingerprint, what the receiver last got

Every write is a whole-file replace (write a temporary file, then rename), so a SIGKILL at any
point leaves either the old file or the new one. Files are not fsynced: the spool survives a
crash or kill of the daemon, not a crash of the kernel.

Exactly once, as far as the receiver can tell: after a successful send the ledger is written
first, then the pending file removed. A kill between the two is caught on restart (the pending
record's digest equals the ledger's); a kill between the receiver's answer and the ledger write
re-sends once, which PagerDuty (same dedup_key) and Alertmanager (same labels) absorb.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monitor.model import AlertRecord, Category, Scope, Severity

LEDGER_MAX_ENTRIES = 5000
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def content_digest(record: AlertRecord) -> str:
    """What a receiver would see as a different message: status, severity, category, culprits.

    Summary and timestamps are left out on purpose: an alert that fires again after a restart
    with a newer start time and a longer "stuck for …" is the same news.
    """
    parts = [
        record.fingerprint,
        record.status,
        record.severity.value,
        record.category.value,
        ",".join(str(r) for r in record.culprit_ranks),
    ]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]


def record_from_dict(data: Mapping[str, Any]) -> AlertRecord:
    """Inverse of AlertRecord.to_dict(); raises KeyError/ValueError/TypeError on a bad shape."""
    return AlertRecord(
        status=str(data["status"]),
        alertname=str(data["alertname"]),
        severity=Severity(data["severity"]),
        category=Category(data["category"]),
        labels={str(k): str(v) for k, v in dict(data["labels"]).items()},
        summary=str(data["summary"]),
        description=str(data.get("description", "")),
        evidence=dict(data.get("evidence") or {}),
        culprit_ranks=tuple(int(r) for r in data.get("culprit_ranks") or ()),
        starts_at=str(data["starts_at"]),
        ends_at=None if data.get("ends_at") is None else str(data["ends_at"]),
        fingerprint=str(data["fingerprint"]),
        runbook_url=str(data.get("runbook_url", "")),
        scope=Scope(data.get("scope", Scope.NODE.value)),
        detector=str(data.get("detector", "")),
        incident_id=str(data.get("incident_id", "")),
    )


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    digest: str
    status: str
    severity: str
    at_wall: float


@dataclass(frozen=True, slots=True)
class SpooledRecord:
    record: AlertRecord
    submitted_wall: float


class Spool:
    """File operations only; every method reports failure by return value, never raises."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.pending_dir = directory / "pending"
        self.ledger_path = directory / "delivered.json"
        self.ledger: dict[str, LedgerEntry] = {}
        self.corrupt_files = 0

    def open(self) -> bool:
        try:
            self.pending_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError:
            return False
        self.ledger = self._read_ledger()
        return True

    # -- pending ---------------------------------------------------------------------------
    def put(self, record: AlertRecord, submitted_wall: float) -> bool:
        body = {"submitted_wall": submitted_wall, "record": record.to_dict()}
        return _replace_file(self._pending_path(record.fingerprint), body)

    def remove(self, fingerprint: str) -> None:
        with contextlib.suppress(OSError):
            self._pending_path(fingerprint).unlink(missing_ok=True)

    def load(self) -> list[SpooledRecord]:
        """Every readable pending record, oldest first; unreadable files are set aside."""
        found: list[SpooledRecord] = []
        try:
            paths = sorted(self.pending_dir.glob("*.json"))
        except OSError:
            return found
        for path in paths:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                found.append(
                    SpooledRecord(record_from_dict(data["record"]), float(data["submitted_wall"]))
                )
            except (OSError, ValueError, KeyError, TypeError):
                self.corrupt_files += 1
                with contextlib.suppress(OSError):
                    path.rename(path.with_suffix(".corrupt"))
        found.sort(key=lambda s: s.submitted_wall)
        return found

    def _pending_path(self, fingerprint: str) -> Path:
        name = fingerprint if _SAFE_NAME.match(fingerprint) else _hashed(fingerprint)
        return self.pending_dir / f"{name}.json"

    # -- ledger ----------------------------------------------------------------------------
    def mark_delivered(self, record: AlertRecord, digest: str, wall: float) -> bool:
        self.ledger[record.fingerprint] = LedgerEntry(
            digest, record.status, record.severity.value, wall
        )
        if len(self.ledger) > LEDGER_MAX_ENTRIES:
            # Forget the oldest; resolved alerts go first, they need no follow-up.
            victims = sorted(
                self.ledger.items(), key=lambda kv: (kv[1].status == "firing", kv[1].at_wall)
            )
            for fp, _ in victims[: len(self.ledger) - LEDGER_MAX_ENTRIES]:
                del self.ledger[fp]
        body = {
            fp: {"digest": e.digest, "status": e.status, "severity": e.severity, "at": e.at_wall}
            for fp, e in self.ledger.items()
        }
        return _replace_file(self.ledger_path, body)

    def _read_ledger(self) -> dict[str, LedgerEntry]:
        try:
            data = json.loads(self.ledger_path.read_text(encoding="utf-8"))
            return {
                str(fp): LedgerEntry(
                    str(e["digest"]), str(e["status"]), str(e["severity"]), float(e["at"])
                )
                for fp, e in data.items()
            }
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.corrupt_files += 1
            with contextlib.suppress(OSError):
                self.ledger_path.rename(self.ledger_path.with_suffix(".corrupt"))
            return {}


def _hashed(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def _replace_file(path: Path, body: Any) -> bool:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        data = json.dumps(body, sort_keys=True, default=str).encode("utf-8")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(tmp, path)
        return True
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        return False
