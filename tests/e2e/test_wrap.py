"""End-to-end: the real `rankwatch run` CLI around real processes (no mocks)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import child_env, rankwatch_argv, read_alerts, wait_for_alert

PROGRAMS = Path(__file__).parent / "programs"
FAST = {
    "RANKWATCH_METRICS_ADDR": "",
    "RANKWATCH_PROGRESS_STALL_FLOOR_SECONDS": "3",
    "RANKWATCH_PROCESS_STOPPED_ALERT_SECONDS": "2",
}


def start(tmp_path: Path, *cmd: str, **env: str) -> tuple[subprocess.Popen[bytes], Path]:
    log = tmp_path / "alerts.jsonl"
    proc = subprocess.Popen(
        rankwatch_argv("run", "--alert-log", str(log), "--", *cmd),
        cwd=tmp_path,
        env=child_env(**{**FAST, **env}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    return proc, log


def rank_pids(proc: subprocess.Popen[bytes], count: int) -> dict[int, int]:
    """Read 'rank N pid P' lines from the wrapped job's passed-through stdout."""
    assert proc.stdout is not None
    found: dict[int, int] = {}
    while len(found) < count:
        line = proc.stdout.readline().decode()
        assert line, "job output ended early"
        # Two ranks share one pipe: a line may carry another rank's text glued to it.
        for m in re.finditer(r"rank (\d+) pid (\d+)", line):
            found[int(m.group(1))] = int(m.group(2))
    return found


def test_stalled_program_raises_stall_alert_naming_its_rank(tmp_path: Path) -> None:
    """A wrapped program that prints progress and then blocks is flagged, naming rank 0."""
    proc, log = start(tmp_path, sys.executable, str(PROGRAMS / "progress_then_block.py"))
    try:
        alert = wait_for_alert(log, lambda r: r["alertname"] == "ProgressStalled", timeout=60)
        assert alert is not None, proc.stderr.read1(65536) if proc.stderr else ""
        assert alert["culprit_ranks"] == [0]
        assert alert["status"] == "firing" and "rank 0" in alert["summary"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM  # SIGTERM forwarded, child died of it


def test_sigkilled_rank_alert_within_5s_and_exit_137(tmp_path: Path) -> None:
    """One of two ranks is SIGKILLed: RankDead names it within 5 s; wrap exits 137."""
    proc, log = start(tmp_path, sys.executable, str(PROGRAMS / "two_ranks.py"))
    pids = rank_pids(proc, 2)
    time.sleep(2.5)  # let the probe see both ranks
    os.kill(pids[1], signal.SIGKILL)
    killed_at = time.monotonic()
    alert = wait_for_alert(
        log, lambda r: r["alertname"] == "RankDead" and r["severity"] == "critical", timeout=10
    )
    elapsed = time.monotonic() - killed_at
    _out, err = proc.communicate(timeout=30)
    assert alert is not None, err.decode()
    assert elapsed < 5, f"alert after {elapsed:.1f} s"
    assert alert["culprit_ranks"] == [1] and alert["category"] == "rank_dead"
    assert "SIGKILL" in alert["summary"] and str(pids[1]) in alert["summary"]
    assert proc.returncode == 137
    records = [r for r in read_alerts(log) if r["status"] == "firing"]
    # One failure, one incident: rank 0's teardown is evidence inside it, recorded as info.
    teardown = [r for r in records if r["labels"].get("rank") == "0"]
    assert teardown and all(
        r["severity"] == "info" and r["incident_id"] == alert["incident_id"] for r in teardown
    )
    pages = [r for r in records if r["severity"] != "info"]
    assert [(r["alertname"], r["culprit_ranks"]) for r in pages] == [("RankDead", [1])]


def test_launcher_exit_zero_does_not_mask_a_failed_rank(tmp_path: Path) -> None:
    """The launcher exits 0 although rank 1 was killed: rankwatch says so in its summary."""
    proc, log = start(tmp_path, sys.executable, str(PROGRAMS / "two_ranks.py"), "mask")
    pids = rank_pids(proc, 2)
    time.sleep(2.5)
    os.kill(pids[1], signal.SIGKILL)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert "launcher exited 0 although a rank failed" in err.decode()
    assert any(r["alertname"] == "RankDead" and r["culprit_ranks"] == [1] for r in read_alerts(log))


def test_sigstopped_rank_raises_rank_stopped(tmp_path: Path) -> None:
    """A SIGSTOPped rank is named in a RankStopped alert."""
    proc, log = start(tmp_path, sys.executable, str(PROGRAMS / "two_ranks.py"))
    pids = rank_pids(proc, 2)
    time.sleep(2)
    os.kill(pids[0], signal.SIGSTOP)
    try:
        alert = wait_for_alert(log, lambda r: r["alertname"] == "RankStopped", timeout=45)
        assert alert is not None
        assert alert["culprit_ranks"] == [0] and alert["category"] == "rank_stopped"
    finally:
        os.kill(pids[0], signal.SIGCONT)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import sys; sys.exit(0)", 0),
        ("import sys; sys.exit(1)", 1),
        ("import sys; sys.exit(3)", 3),
        ("import os, signal; os.kill(os.getpid(), signal.SIGTERM)", 143),
        ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", 137),
        ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", 139),
    ],
)
def test_exit_status_passthrough(run_cli, code: str, expected: int) -> None:  # type: ignore[no-untyped-def]
    """rankwatch exits with exactly the command's status; a signal N gives 128+N."""
    result = run_cli("run", "--", sys.executable, "-c", code, **FAST)
    assert result.returncode == expected, result.stderr.decode()


def test_unknown_command_exits_127(run_cli) -> None:  # type: ignore[no-untyped-def]
    """An unknown command is a clear error and exit 127, as in a shell."""
    result = run_cli("run", "--", "no-such-command-xyz", **FAST)
    assert result.returncode == 127
    assert b"no-such-command-xyz: command not found" in result.stderr


def test_output_passes_through_byte_for_byte(run_cli) -> None:  # type: ignore[no-untyped-def]
    """stdout and stderr arrive unchanged: `\\r` progress bars, invalid UTF-8, no trailing newline."""
    code = (
        "import sys\n"
        "sys.stdout.buffer.write(b' 10%|#  | 1/10 [\\r 20%|## | 2/10 [\\r\\xff\\xfe raw\\nlast')\n"
        "sys.stdout.flush()\n"
        "sys.stderr.buffer.write(b'[rank0]: err line\\n')\n"
    )
    result = run_cli("run", "--", sys.executable, "-c", code, **FAST)
    assert result.returncode == 0
    assert result.stdout == b" 10%|#  | 1/10 [\r 20%|## | 2/10 [\r\xff\xfe raw\nlast"
    assert result.stderr.startswith(b"[rank0]: err line\n")


def test_attach_mode_follows_pid_and_stderr_file(tmp_path: Path) -> None:
    """`run --pid P --stderr FILE`: a rank killed outside rankwatch is still named."""
    err_file = tmp_path / "job.err"
    code = (
        "import time\nfor i in range(10**6):\n    print(f'step {i}', flush=True); time.sleep(0.1)\n"
    )
    with err_file.open("w") as fh:
        job = subprocess.Popen(
            [sys.executable, "-c", code], stdout=fh, env={**os.environ, "RANK": "4"}
        )
    log = tmp_path / "alerts.jsonl"
    watcher = subprocess.Popen(
        rankwatch_argv(
            "run", "--pid", str(job.pid), "--stderr", str(err_file), "--alert-log", str(log)
        ),
        cwd=tmp_path,
        env=child_env(**FAST),
        stderr=subprocess.PIPE,
    )
    time.sleep(3)
    job.kill()
    job.wait()
    _out, err = watcher.communicate(timeout=30)
    assert watcher.returncode == 0, err.decode()
    dead = [r for r in read_alerts(log) if r["alertname"] == "RankDead"]
    assert dead and dead[0]["culprit_ranks"] == [4]
