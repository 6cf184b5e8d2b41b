"""Triage of log texts written for a test (each text one file) and of the stored probes, read
and diagnosed as the `rankwatch triage` command does."""

from __future__ import annotations

from collections.abc import Mapping
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


def triage_named(root: Path, files: Mapping[str, str]) -> Diagnosis:
    """Each text written under its own name (a launcher's `attempt_0/1/stderr.log`, a pod's
    log named after it): some rules read a file's name."""
    paths = []
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    scans, problems, _ = read_inputs(paths)
    return diagnose(scans, problems)


PROBES = Path(__file__).resolve().parent.parent / "data" / "triage_probes"


def triage_probe(name: str) -> Diagnosis:
    """A stored probe: a file, or a folder that holds each process's file as its launcher named
    it (`rank1.log`, Paddle's `workerlog.1`, torchrun's `--log-dir` tree)."""
    job = PROBES / name
    files = sorted(f for f in job.rglob("*") if f.is_file()) if job.is_dir() else [
        PROBES / f"{name}.log"]
    scans, problems, _ = read_inputs([str(f) for f in files])
    return diagnose(scans, problems)
