"""Triage of log texts written for a test: each text one file, read and diagnosed as the
`rankwatch triage` command does."""

from __future__ import annotations

from pathlib import Path

from monitor.triage.analysis import Diagnosis, diagnose
from monitor.triage.reader import read_inputs


def triage_texts(tmp_path: Path, *files: str) -> Diagnosis:
    tmp_path.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, text in enumerate(files):
        path = tmp_path / f"part{i}.log"
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    scans, problems, _ = read_inputs(paths)
    return diagnose(scans, problems)
