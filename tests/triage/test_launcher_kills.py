"""Exit -9 without a traceback: an OOM kill or an external kill, decided by evidence.

The launcher output is real (torchrun and a subprocess killed with SIGKILL, run here); the
kernel line beside it is written in dmesg's format with the real pid."""

from __future__ import annotations

import subprocess
import sys
import traceback
from pathlib import Path

import pytest

from monitor.model import Category
from monitor.triage.analysis import Diagnosis, diagnose
from monitor.triage.reader import read_inputs

ROOT = Path(__file__).resolve().parents[2]
SUICIDE = ("import os, signal, torch.distributed as dist\n"
           "dist.init_process_group('gloo')\n"
           "if dist.get_rank() == 1:\n"
           "    os.kill(os.getpid(), signal.SIGKILL)\n"
           "dist.barrier()\n")


def _triage(*paths: Path) -> Diagnosis:
    scans, problems, _ = read_inputs([str(p) for p in paths])
    return diagnose(scans, problems)


@pytest.fixture(scope="module")
def torchrun_output(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    root = tmp_path_factory.mktemp("kill")
    script = root / "train.py"
    script.write_text(SUICIDE)
    log = root / "launcher.log"
    with log.open("w") as out:
        done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                               "--nproc-per-node", "2", str(script)], stdout=out,
                              stderr=subprocess.STDOUT, timeout=150, cwd=ROOT)
    assert done.returncode != 0
    text = log.read_text()
    pid_line = next(line for line in text.splitlines() if "exitcode  : -9" in line)
    return log, int(pid_line.split("pid: ")[1].split(")")[0])


@pytest.mark.timeout(200)
def test_a_sigkill_without_evidence_names_the_rank_and_no_cause(
        torchrun_output: tuple[Path, int]) -> None:
    log, _pid = torchrun_output
    d = _triage(log)
    assert (d.category, d.culprit_ranks) == (Category.UNDETERMINED, (1,))
    assert any("SIGKILL" in f for f in d.findings)


@pytest.mark.timeout(200)
def test_the_oom_killers_line_for_that_pid_makes_it_oom_on_that_rank(
        torchrun_output: tuple[Path, int], tmp_path: Path) -> None:
    log, pid = torchrun_output
    dmesg = tmp_path / "dmesg.log"
    dmesg.write_text(f"[2059991.491542] Out of memory: Killed process {pid} (python) "
                     "total-vm:53312244kB, anon-rss:31451456kB, file-rss:74816kB, "
                     "shmem-rss:12296kB, UID:0 pgtables:69068kB oom_score_adj:0\n")
    d = _triage(log, dmesg)
    assert (d.category, d.culprit_ranks) == (Category.OOM, (1,))
    assert any(f"pid {pid} is rank 1" in f for f in d.findings)


def test_legacy_launch_called_process_error_names_no_worker_by_its_command(
        tmp_path: Path) -> None:
    """torch.distributed.launch (1.x) raises CalledProcessError with the command it built last
    (its loop's variable), whichever worker failed: the --local_rank in it is the last-started
    worker's, so it is said as such, never as the one that died."""
    try:
        subprocess.run([sys.executable, "-c", "import os, signal; "
                        "os.kill(os.getpid(), signal.SIGKILL)", "--local_rank=3"], check=True)
    except subprocess.CalledProcessError:
        text = traceback.format_exc()
    else:
        pytest.fail("the child was not killed")
    log = tmp_path / "launch.log"
    log.write_text(text)
    d = _triage(log)
    assert d.category is Category.UNDETERMINED and d.culprit_ranks == ()
    assert any("last-started" in c and "--local_rank=3" in c for c in d.culprits)
    assert any("SIGKILL" in f for f in d.findings)


def test_a_distributed_checkpoint_failure_names_the_ranks_that_failed_to_write(
        tmp_path: Path) -> None:
    """torch.distributed.checkpoint's own CheckpointException (made by torch here) names the
    rank whose write failed with ENOSPC; the rank that raised it is rank 0."""
    from torch.distributed.checkpoint.api import CheckpointException

    def write() -> None:
        raise OSError(28, "No space left on device")

    try:
        write()
    except OSError as exc:
        failure = (exc, traceback.extract_tb(exc.__traceback__))
    try:
        raise CheckpointException("save", {3: failure})
    except BaseException:  # noqa: BLE001 - CheckpointException is a BaseException
        text = traceback.format_exc()
    log = tmp_path / "rank0.log"
    log.write_text("".join(f"[rank0]: {line}\n" for line in text.splitlines()))
    d = _triage(log)
    assert (d.category, d.culprit_ranks) == (Category.STORAGE_IO, (3,))
