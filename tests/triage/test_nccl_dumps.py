"""`rankwatch triage` on what real NCCL jobs left behind: torch 2.11's flight-recorder dumps
(written by the watchdog on a timeout) and the job's own output, from tests/data/nccl_gpu."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from monitor.parse.flight_recorder import analyse, decode_dump, load_dump
from monitor.triage.command import run
from tests.triage.test_command import _parser

DATA = Path(__file__).resolve().parent.parent / "data" / "nccl_gpu"


def _triage(*paths: Path) -> dict[str, Any]:
    args = _parser().parse_args(["triage", *map(str, paths), "--format", "json", "-q"])
    out = io.StringIO()
    run(args, stdout=out, stderr=io.StringIO())
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


def _dumps(run: str) -> list[Path]:
    return sorted((DATA / run).glob("fr_*"))


@pytest.mark.parametrize("run,seq", [("hang", 175), ("gpu_hang", 180)])
def test_the_dumps_alone_name_the_rank_that_never_entered(run: str, seq: int) -> None:
    """Rank 2 stuck in user code (hang) or behind a kernel that never ends (gpu_hang): every
    other rank enqueued collective #seq and waits in it; rank 2's last entry is #seq-1."""
    dumps = [load_dump(p.read_bytes(), source=p.name) for p in _dumps(run)]
    assert [d.rank for d in dumps] == [0, 1, 2, 3]
    assert {e.backend for d in dumps for e in d.entries} == {"nccl"}
    verdict = analyse(dumps).primary
    assert verdict is not None
    assert (verdict.verdict, verdict.seq, verdict.op) == ("never_entered", seq, "all_reduce")
    assert verdict.blamed == (2,) and verdict.waiting == (0, 1, 3)
    report = _triage(*_dumps(run))
    assert (report["category"], report["culprit_ranks"]) == ("collective_desync", [2])


@pytest.mark.parametrize("run,seq", [("hang", 175), ("gpu_hang", 180)])
def test_logs_and_dumps_agree_and_say_so(run: str, seq: int) -> None:
    """The watchdog lines of the same run point at the same collective and rank."""
    report = _triage(DATA / run / "job.out", *_dumps(run))
    assert (report["category"], report["culprit_ranks"]) == ("collective_desync", [2])
    findings = " ".join(report["findings"])
    assert f"logs and dumps agree on the collective: #{seq}" in findings
    assert "logs and dumps agree on the culprit: rank(s) 2" in findings
    assert report["initiator_ranks"] == [0, 1, 3]


def test_the_killed_rank_wrote_no_dump_and_is_a_suspect_not_a_culprit() -> None:
    """rank 2 was SIGKILLed and its launcher did not tear the job down: the other three time out
    in #188 and dump; rank 2's side is unknown, so the dumps alone make it a suspect, said as
    such. Its log said nothing either (its communicator's INFO return-code traces are no
    report): the logs name it as the rank that did not report, and the missing dump is that."""
    dumps = [load_dump(p.read_bytes(), source=p.name) for p in _dumps("kill_no_teardown")]
    verdict = analyse(dumps).primary
    assert verdict is not None and verdict.verdict == "absent" and verdict.seq == 188
    assert verdict.no_dump == (2,) and verdict.blamed == ()
    alone = _triage(*_dumps("kill_no_teardown"))
    assert (alone["category"], alone["culprit_ranks"]) == ("undetermined", [])
    assert "rank 2 (suspect: no dump)" in alone["summary"]
    report = _triage(DATA / "kill_no_teardown" / "job.out", *_dumps("kill_no_teardown"))
    assert (report["category"], report["culprit_ranks"]) == ("undetermined", [2])
    assert report["culprits"] == ["rank 2 (did not report)"]
    assert any("no dump from rank(s) 2, which the logs name as the culprit" in f
               for f in report["findings"])


def test_a_dump_with_stacks_loads_and_the_stuck_collective_has_none(tmp_path: Path) -> None:
    """NCCL dumps carry Python stacks for collectives issued from Python (DDP's set-up
    broadcasts); the all-reduces DDP launches from the autograd thread carry none, so the
    report names the collective without a call site rather than a wrong one."""
    raw = decode_dump(_dumps("hang")[0].read_bytes())
    assert any(f["filename"] == "gpu-lab/train_nccl.py" for f in raw["entries"][0]["frames"])
    assert raw["entries"][-1]["thread_name"] == "pt_autograd_0" and not raw["entries"][-1]["frames"]
    shutil.copy(_dumps("hang")[0], tmp_path / "fr_0")
    group = _triage(tmp_path)["flight_recorder"]["groups"][0]
    assert [(r["rank"], r["last_enqueued"], r["called_from"]) for r in group["ranks"]] == [
        (0, 175, None)
    ]
