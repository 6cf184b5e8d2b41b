"""Golden tests over every real excerpt in tests/data/logs: the events found and the diagnosis
match the expectations written in tests/data/logs/INDEX.md.

INDEX.md is read at test time: its table gives culprit and category per file, its per-file
"Events:" line the event kinds. Categories there use hyphens (`gpu-cuda`); the project's
closed set uses underscores (`gpu_cuda`). Culprits that are not ranks (a GPU, a host pair, an
srun task, an unlabelled process) are checked against `NON_RANK_CULPRITS` below.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from monitor.model import Category
from monitor.triage.analysis import Diagnosis, diagnose
from monitor.triage.reader import FileScan, read_inputs

DATA = Path(__file__).resolve().parent.parent / "data" / "logs"
INDEX = (DATA / "INDEX.md").read_text(encoding="utf-8")

# INDEX event labels that name the same thing differently.
LABELS = {"cascade": "nccl_peer_closed", "signal": "faulthandler"}
# Prefix kinds that are launchers or shippers (INDEX lists these as launcher_prefix:<kind>).
LAUNCHER_PREFIXES = {"pdsh", "mpirun", "date", "torchrun", "ray", "cloudwatch", "accelerate",
                     "srun", "journald"}
# Culprits that are not global ranks: substrings the report's culprit list must contain.
NON_RANK_CULPRITS = {
    "08-nccl-timeout-seqnum3-during-dataset-build.log": ["Creating dataset split",
                                                         "rank is not shown"],
    "12-rendezvous-connection-error-torch1x.log": ["rendezvous endpoint IP1:2222"],
    "14-nccl-net-ib-completion-error4-nccl-tests.log": ["kolyoz2 GPU 0", "pid 25146",
                                                        "10.0.35.1"],
    "20-slurm-cgroup-oom-kill-step-cancelled.log": ["task 0 on gpu20-15"],
    "26-kernel-xid45-after-nvlink-xid145-149.log": ["0000:dc:00 (Xid 149)",
                                                    "0000:ed:00 (Xid 145)",
                                                    "0000:ba:00 (Xid 145)",
                                                    "0000:97:00 (Xid 145)"],
    "48-nccl-system-error-no-route-to-host.log": ["192.168.19.14"],
}


def _table() -> dict[str, tuple[str, str]]:
    rows = {}
    for line in INDEX.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[1].endswith(".log"):
            rows[cells[1]] = (cells[3], cells[4])
    return rows


def _expected_events(name: str) -> set[str]:
    section = INDEX.split(f"### {name}", 1)[1].split("\n### ", 1)[0]
    line = re.search(r"^\* Events: (.*)$", section, re.M)
    assert line is not None, name
    labels = re.sub(r"\([^)]*\)", "", line.group(1)).rstrip(".").split(",")
    return {LABELS.get(label.strip(), label.strip()) for label in labels if label.strip()}


TABLE = _table()
FILES = sorted(TABLE)


def _category(cell: str) -> Category:
    word = cell.split()[0].strip("*")
    return Category(word.replace("-", "_"))


def _run(name: str) -> tuple[Diagnosis, list[FileScan]]:
    scans, problems, _total = read_inputs([str(DATA / name)])
    assert problems == []
    return diagnose(scans, problems), scans


def test_every_excerpt_in_the_directory_is_in_the_index() -> None:
    """No corpus file escapes the golden tests."""
    assert sorted(p.name for p in DATA.glob("*.log")) == FILES
    assert len(FILES) == 24


@pytest.mark.parametrize("name", FILES)
def test_category_matches_the_index(name: str) -> None:
    """The diagnosed category is the one INDEX.md says the log supports."""
    diagnosis, _ = _run(name)
    assert diagnosis.category is _category(TABLE[name][1])


@pytest.mark.parametrize("name", FILES)
def test_culprit_matches_the_index(name: str) -> None:
    """Culprit ranks as INDEX.md gives them: `rank N`, or none where the culprit is not a rank
    or the log does not show it (never a guess presented as a finding)."""
    diagnosis, _ = _run(name)
    cell = TABLE[name][0]
    m = re.match(r"\*{0,2}rank (\d+)", cell)
    if m:
        assert diagnosis.culprit_ranks == (int(m.group(1)),)
    else:
        assert diagnosis.culprit_ranks == ()
    if cell.startswith(("undetermined", "n/a")) and name not in NON_RANK_CULPRITS:
        assert diagnosis.culprits == ()
    for needle in NON_RANK_CULPRITS.get(name, []):
        assert any(needle in culprit for culprit in diagnosis.culprits), (needle,
                                                                         diagnosis.culprits)


@pytest.mark.parametrize("name", FILES)
def test_events_match_the_index(name: str) -> None:
    """The event kinds found are exactly the ones INDEX.md lists for the excerpt."""
    diagnosis, scans = _run(name)
    found = {kind for kind, count in diagnosis.events.items() if count}
    found |= {f"launcher_prefix:{p}" for s in scans for p in s.prefixes if p in LAUNCHER_PREFIXES}
    assert found == _expected_events(name)


def test_whole_corpus_in_one_run_reads_every_file() -> None:
    """Triage of the directory reads all 24 files and reports every one of their events."""
    scans, problems, _ = read_inputs([str(DATA)])
    diagnosis = diagnose(scans, problems)
    assert {Path(s.path).name for s in scans} == set(FILES) | {"INDEX.md"}
    assert diagnosis.events["watchdog_timeout"] == 24
    assert diagnosis.category is not Category.NONE


def test_fr_dump_excerpt_separates_initiators_from_observers() -> None:
    """Excerpt 28: rank 2 was told by rank 6 (observer); ranks 3 and 7 timed out themselves."""
    diagnosis, _ = _run("28-fr-dump-signal-save-model-torch26.log")
    assert (diagnosis.initiator_ranks, diagnosis.observer_ranks, diagnosis.first_detectors) == (
        (3, 7), (2,), (6,))
    stuck = diagnosis.stuck[0]
    assert (stuck.seq, stuck.started_at, stuck.timed_out_at) == (
        460631, "09-01 05:10:03.103992", "09-01 05:20:03.123992")


def test_late_watchdog_is_reported() -> None:
    """Excerpt 40: 25.6 M ms against a 1.8 M ms timeout means the watchdog itself was blocked."""
    diagnosis, _ = _run("40-nemo-progress-bar-then-watchdog-7h-late.log")
    assert any("watchdog thread itself was blocked" in f for f in diagnosis.findings)


def test_interleaved_init_does_not_blame_the_late_printer() -> None:
    """Excerpt 42: rank 3's NCCL init lines print after rank 1's timeout only because stdout
    is buffered; rank 3 is not blamed."""
    diagnosis, _ = _run("42-nccl-init-interleaved-with-first-broadcast-timeout.log")
    assert 3 not in diagnosis.culprit_ranks
    assert not any("rank 3" in c for c in diagnosis.culprits)
