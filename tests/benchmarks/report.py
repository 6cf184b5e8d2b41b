"""One table at the end of a benchmark run: each benchmark records its figures here instead of
printing them as it goes; progress notes go to stderr, and only on a terminal."""

from __future__ import annotations

import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    benchmark: str
    what: str
    measured: str
    target: str = ""


ROWS: list[Row] = []


def record(benchmark: str, what: str, measured: str, target: str = "") -> None:
    ROWS.append(Row(benchmark, what, measured, target))


def progress(message: str) -> None:
    """A note while a long benchmark runs: shown on a terminal, silent in CI logs."""
    if sys.stderr.isatty():
        sys.stderr.write(message + "\n")
        sys.stderr.flush()


def table(rows: list[Row]) -> str:
    headers = ("benchmark", "what", "measured", "target")
    cells = [headers, *((r.benchmark, r.what, r.measured, r.target) for r in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)
