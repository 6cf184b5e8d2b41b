"""Benchmarks print one table at the end of the run (tests/benchmarks/report.py)."""

from __future__ import annotations

from typing import Any

from tests.benchmarks.report import ROWS, table


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if ROWS:
        terminalreporter.section("benchmark figures")
        terminalreporter.write_line(table(ROWS))
