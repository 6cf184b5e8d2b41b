"""The process probe on real process trees: launchers are never ranks, zombies are dead."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from monitor.model import ProcessExit, ProcessSnapshot, ProcRole
from monitor.sources.exit_events import ExitStatusBook
from monitor.sources.process_probe import ProcessProbe, is_launcher

# A launcher that starts two ranks (RANK set); with a lifetime it reaps them when they end,
# without one ("forever") it never waits for them: a killed rank stays a zombie.
LAUNCHER = """
import os, subprocess, sys, time
code = "import time\\nwhile True: time.sleep(0.1)"
short = "import time; time.sleep(float(__import__('os').environ['LIFE']))"
life = sys.argv[1]
ranks = []
for rank in (0, 1):
    env = {**os.environ, "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": "2"}
    if life != "forever":
        env["LIFE"] = life
    ranks.append(subprocess.Popen([sys.executable, "-c", code if life == "forever" else short], env=env))
print("started", flush=True)
if life != "forever":
    for rank in ranks:
        rank.wait()
time.sleep(120)
"""


@pytest.fixture
def launcher(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    started: list[subprocess.Popen[str]] = []

    def start(life: str) -> subprocess.Popen[str]:
        script = tmp_path / "launch.py"
        script.write_text(LAUNCHER)
        proc = subprocess.Popen(
            [sys.executable, str(script), life], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
        started.append(proc)
        return proc

    yield start  # type: ignore[misc]
    for proc in started:
        try:
            os.killpg(os.getpgid(proc.pid), 0)
        except (ProcessLookupError, PermissionError):
            pass
        for child in _children(proc.pid):
            _kill(child)
        _kill(proc.pid)
        proc.wait(timeout=10)


def _children(pid: int) -> list[int]:
    import psutil

    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _poll_until(probe: ProcessProbe, done: object, timeout: float = 10.0) -> list[object]:
    seen: list[object] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen.extend(probe.poll(time.monotonic()))
        if callable(done) and done(seen):
            return seen
        time.sleep(0.2)
    return seen


def _ranks(seen: list[object]) -> dict[int, int]:
    snaps = [o for o in seen if isinstance(o, ProcessSnapshot)]
    return {
        p.pid: p.rank for p in snaps[-1].processes if p.role is ProcRole.RANK and p.rank is not None
    }


def test_a_killed_rank_its_launcher_does_not_reap_is_dead_at_once(launcher: object) -> None:
    """SIGKILL a rank whose launcher never waits for it: the zombie is reported dead, with its
    signal, within a poll or two (not forgotten as an unknown process)."""
    parent = launcher("forever")  # type: ignore[operator]
    probe = ProcessProbe(lambda: [parent.pid], ExitStatusBook(), 0.2)
    seen = _poll_until(probe, lambda s: len(_ranks(s)) == 2)
    ranks = _ranks(seen)
    assert sorted(ranks.values()) == [0, 1]
    victim = next(pid for pid, rank in ranks.items() if rank == 1)
    os.kill(victim, signal.SIGKILL)
    killed = time.monotonic()
    exits = _poll_until(
        probe, lambda s: any(isinstance(o, ProcessExit) for o in s), timeout=10
    )
    dead = [o for o in exits if isinstance(o, ProcessExit)]
    assert [(d.rank, d.signal, d.role) for d in dead] == [(1, signal.SIGKILL, ProcRole.RANK)]
    assert time.monotonic() - killed < 5.0


def test_a_launcher_outliving_its_ranks_is_never_taken_for_one(launcher: object) -> None:
    """Both ranks exit; the launcher (a plain Python parent) lives on: it is not rank 0."""
    parent = launcher("5.0")  # type: ignore[operator]
    probe = ProcessProbe(lambda: [parent.pid], ExitStatusBook(), 0.2)
    seen = _poll_until(probe, lambda s: len(_ranks(s)) == 2)
    assert len(_ranks(seen)) == 2
    time.sleep(6.0)  # both ranks have ended (and been reaped); the launcher lives on
    later = _poll_until(probe, lambda s: len(s) >= 6, timeout=5)
    snaps = [o for o in later if isinstance(o, ProcessSnapshot)]
    assert snaps and all(
        p.role is not ProcRole.RANK for snap in snaps[-2:] for p in snap.processes
    ), [p for p in snaps[-1].processes]
    world = {p.world_size for o in seen if isinstance(o, ProcessSnapshot) for p in o.processes
             if p.role is ProcRole.RANK}
    assert world == {2}


@pytest.mark.parametrize(
    ("cmdline", "expected"),
    [
        (["/usr/bin/python3", "/venv/bin/torchrun", "--nproc_per_node", "8", "train.py"], True),
        (["/venv/bin/torchrun", "train.py"], True),
        (["python", "-m", "torch.distributed.run", "train.py"], True),
        (["python", "-m", "torch.distributed.launch", "train.py"], True),
        (["mpirun", "-np", "8", "python", "train.py"], True),
        (["/usr/bin/srun", "python", "train.py"], True),
        (["deepspeed", "train.py"], True),
        (["accelerate", "launch", "train.py"], True),
        (["python", "train.py", "--accelerate"], False),
        (["python", "-c", "import time; time.sleep(600)"], False),
        (["python", "train.py"], False),
    ],
)
def test_launcher_command_lines(cmdline: list[str], expected: bool) -> None:
    assert is_launcher(cmdline) is expected


def _kill_to_zombie(victim: int) -> None:
    """SIGKILL a rank and wait until it is a zombie (the launcher never reaps it)."""
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while Path(f"/proc/{victim}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline
        time.sleep(0.05)


def _probe_with_oom_counter(
    launcher: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> tuple[dict[str, int], ProcessProbe, dict[int, int]]:
    """A probe watching a launcher's two ranks whose memory cgroup's OOM-kill count is the
    returned counter's "kills" (the test raises it as the kernel would)."""
    from monitor.sources import process_probe

    counter = {"kills": 0}
    monkeypatch.setattr(process_probe, "memory_cgroup", lambda pid: tmp_path)
    monkeypatch.setattr(process_probe, "oom_kills", lambda cgroup: counter["kills"])
    parent = launcher("forever")  # type: ignore[operator]
    probe = ProcessProbe(lambda: [parent.pid], ExitStatusBook(), 0.2)
    ranks = _ranks(_poll_until(probe, lambda s: len(_ranks(s)) == 2))
    return counter, probe, ranks


def test_an_oom_kill_counted_while_the_rank_is_still_seen_is_an_oom_kill(
    launcher: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The OOM killer raises its cgroup counter, then the rank takes a moment to die: a poll
    that still sees it must not make the raised count the baseline."""
    counter, probe, ranks = _probe_with_oom_counter(launcher, tmp_path, monkeypatch)
    probe.poll(time.monotonic())
    counter["kills"] = 1  # the kernel counted the kill...
    probe.poll(time.monotonic())  # ...and the rank is still there for one more look
    _kill_to_zombie(next(pid for pid, rank in ranks.items() if rank == 1))
    exits = _poll_until(probe, lambda s: any(isinstance(o, ProcessExit) for o in s))
    (dead,) = [o for o in exits if isinstance(o, ProcessExit)]
    assert dead.rank == 1 and dead.oom_killed


@pytest.mark.parametrize(("looks_after_the_rise", "seconds_apart", "oom"), [
    (4, 1.0, True),  # a slow teardown: seen alive for several polls after the count rose
    (4, 4.0, False),  # the count rose long before it died: another process's kill
])
def test_a_rank_seen_for_a_while_after_its_cgroups_oom_count_rose(
    launcher: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    looks_after_the_rise: int, seconds_apart: float, oom: bool,
) -> None:
    counter, probe, ranks = _probe_with_oom_counter(launcher, tmp_path, monkeypatch)
    clock = time.monotonic()
    probe.poll(clock)
    counter["kills"] = 1
    for _ in range(looks_after_the_rise):  # the rank is still there, look after look
        clock += seconds_apart
        probe.poll(clock)
    _kill_to_zombie(next(pid for pid, rank in ranks.items() if rank == 1))
    exits: list[ProcessExit] = []
    for _ in range(20):
        clock += 0.2
        exits += [o for o in probe.poll(clock) if isinstance(o, ProcessExit)]
        if exits:
            break
    (dead,) = exits
    assert dead.rank == 1 and dead.oom_killed is oom


def test_a_rank_shown_in_the_root_cgroup_while_the_oom_killer_tears_it_down(
    launcher: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On cgroup v1 the kernel lists an exiting task in the root memory cgroup: a look that
    catches the rank mid-teardown must not swap its cgroup's count for the root's."""
    from monitor.sources import process_probe

    own = tmp_path / "job" / "rank1"
    own.mkdir(parents=True)
    kills = {own: 0, tmp_path: 7}  # the root counts every cgroup's kills
    where = {"cgroup": own}
    monkeypatch.setattr(process_probe, "memory_cgroup", lambda pid: where["cgroup"])
    monkeypatch.setattr(process_probe, "oom_kills", lambda cgroup: kills[cgroup])
    parent = launcher("forever")  # type: ignore[operator]
    probe = ProcessProbe(lambda: [parent.pid], ExitStatusBook(), 0.2)
    ranks = _ranks(_poll_until(probe, lambda s: len(_ranks(s)) == 2))
    probe.poll(time.monotonic())
    kills[own] = 1  # the kernel counted the kill...
    where["cgroup"] = tmp_path  # ...and shows the dying rank in the root
    probe.poll(time.monotonic())
    probe.poll(time.monotonic())
    _kill_to_zombie(next(pid for pid, rank in ranks.items() if rank == 1))
    exits = _poll_until(probe, lambda s: any(isinstance(o, ProcessExit) for o in s))
    (dead,) = [o for o in exits if isinstance(o, ProcessExit)]
    assert dead.rank == 1 and dead.oom_killed
