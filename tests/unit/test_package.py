"""The generic top-level names `monitor` and `exporters` must be this project's packages."""

from __future__ import annotations

from pathlib import Path

import exporters
import monitor

REPO = Path(__file__).resolve().parents[2]


def test_monitor_and_exporters_resolve_to_this_project() -> None:
    """Another installed package called `monitor` would silently shadow ours."""
    assert Path(monitor.__file__).resolve().parent == REPO / "monitor"
    assert Path(exporters.__file__).resolve().parent == REPO / "exporters"
    assert hasattr(monitor, "__version__")
