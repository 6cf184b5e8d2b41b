"""The process probe against real process trees (no fakes): roles, /proc readings, children
forked from any thread, and exit statuses."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from monitor.model import ProcessExit, ProcessInfo, ProcessSnapshot, ProcRole, ProcState
from monitor.sources.exit_events import ExitStatusBook
from monitor.sources.process_probe import ProcessProbe, read_children, read_stat

# A launcher starting two ranks (RANK in their environment); each rank forks one worker from
# its main thread and, when `spawn-<rank>` appears in the work directory, another from a
# second thread. Worker 0 of rank 1 exits with code 3 on `exit-1` and is never reaped.
RANK = textwrap.dedent(
    """
    import os, sys, threading, time
    here, rank = sys.argv[1], os.environ["RANK"]

    def worker(code_file):
        grand = os.path.join(here, "grandchild-" + rank)
        while not os.path.exists(code_file):
            if os.path.exists(grand) and not os.path.exists(grand + ".pid"):
                pid = os.fork()
                if pid == 0:
                    time.sleep(600)
                    os._exit(0)
                open(grand + ".pid", "w").write(str(pid))
            time.sleep(0.02)
        os._exit(3)

    def fork_worker(code_file):
        pid = os.fork()
        if pid == 0:
            worker(code_file)
        return pid

    fork_worker(os.path.join(here, "exit-" + rank))

    def later():
        while not os.path.exists(os.path.join(here, "spawn-" + rank)):
            time.sleep(0.02)
        pid = fork_worker(os.path.join(here, "never"))
        open(os.path.join(here, "spawned-" + rank), "w").write(str(pid))
        threading.Event().wait()  # the thread lives on: the child stays its own

    threading.Thread(target=later, daemon=True).start()
    open(os.path.join(here, "ready-" + rank), "w").close()
    while True:
        time.sleep(1)
    """
)
LAUNCHER = textwrap.dedent(
    """
    import os, subprocess, sys, time
    here = sys.argv[1]
    for rank in (0, 1):
        env = {**os.environ, "RANK": str(rank), "LOCAL_RANK": str(rank)}
        subprocess.Popen([sys.executable, os.path.join(here, "rank.py"), here], env=env)
    while True:
        time.sleep(1)
    """
)


class Tree:
    def __init__(self, here: Path) -> None:
        self.here = here
        (here / "rank.py").write_text(RANK)
        env = {k: v for k, v in os.environ.items() if k not in ("RANK", "LOCAL_RANK")}
        self.launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(here)], env=env)
        deadline = time.monotonic() + 30
        while not all((here / f"ready-{r}").exists() for r in (0, 1)):
            assert time.monotonic() < deadline, "the ranks never started"
            time.sleep(0.05)

    def wait_for(self, name: str) -> str:
        deadline = time.monotonic() + 30
        while not (self.here / name).exists() or not (self.here / name).read_text():
            assert time.monotonic() < deadline, f"{name} never appeared"
            time.sleep(0.02)
        return (self.here / name).read_text()

    def stop(self) -> None:
        for proc in psutil.Process(self.launcher.pid).children(recursive=True):
            proc.kill()
        self.launcher.kill()
        self.launcher.wait()


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Tree]:
    running = Tree(tmp_path)
    yield running
    running.stop()


def snapshot_of(probe: ProcessProbe) -> tuple[ProcessSnapshot, list[ProcessExit]]:
    out = probe.poll(time.monotonic())
    snapshot = out[0]
    assert isinstance(snapshot, ProcessSnapshot)
    return snapshot, [o for o in out if isinstance(o, ProcessExit)]


def by_role(snapshot: ProcessSnapshot) -> dict[ProcRole, list[ProcessInfo]]:
    roles: dict[ProcRole, list[ProcessInfo]] = {}
    for info in snapshot.processes:
        roles.setdefault(info.role, []).append(info)
    return roles


def test_launcher_ranks_and_workers_with_their_proc_readings(tree: Tree) -> None:
    """The launcher, two ranks found by their RANK variable, one worker each; state, CPU
    time, RSS and threads as psutil reads them."""
    probe = ProcessProbe(lambda: [tree.launcher.pid], ExitStatusBook())
    snapshot, exits = snapshot_of(probe)
    roles = by_role(snapshot)
    assert exits == []
    assert [p.pid for p in roles[ProcRole.LAUNCHER]] == [tree.launcher.pid]
    ranks = sorted(roles[ProcRole.RANK], key=lambda p: p.rank or 0)
    assert [(r.rank, r.local_rank, r.ppid) for r in ranks] == [
        (0, 0, tree.launcher.pid),
        (1, 1, tree.launcher.pid),
    ]
    workers = roles[ProcRole.WORKER]
    assert sorted((w.rank, w.rank_pid, w.ppid) for w in workers) == [
        (0, ranks[0].pid, ranks[0].pid),
        (1, ranks[1].pid, ranks[1].pid),
    ]
    for info in snapshot.processes:
        real = psutil.Process(info.pid)
        with real.oneshot():
            assert info.name == real.name()
            assert info.threads == real.num_threads()
            assert abs(info.rss_bytes - real.memory_info().rss) < 4 * 2**20
            assert abs(info.cpu_seconds - sum(real.cpu_times()[:2])) < 0.1
        assert info.is_python and info.env_readable
        assert info.state in (ProcState.SLEEPING, ProcState.RUNNING)
    assert probe.environments.keys() == {r.pid for r in ranks}


def polls_until_found(
    probe: ProcessProbe, pid: int, most: int
) -> tuple[int | None, ProcessSnapshot]:
    """How many polls (at most `most`) it takes the probe to list `pid`, and the last snapshot."""
    for index in range(1, most + 1):
        snapshot, _ = snapshot_of(probe)
        if any(p.pid == pid for p in snapshot.processes):
            return index, snapshot
    return None, snapshot


def test_a_worker_forked_from_another_thread_is_found_by_a_full_scan(tree: Tree) -> None:
    """Most polls read only the main thread's children; every `full_scan_every` polls read
    every thread's, so a child forked from a second thread is found by then."""
    probe = ProcessProbe(lambda: [tree.launcher.pid], ExitStatusBook(), full_scan_every=3)
    snapshot_of(probe)
    (tree.here / "spawn-0").write_text("")
    spawned = int(tree.wait_for("spawned-0"))
    found_at, snapshot = polls_until_found(probe, spawned, 3)
    assert found_at == 3, found_at  # the main thread's children file does not list it
    found = next(p for p in snapshot.processes if p.pid == spawned)
    assert (found.role, found.rank) == (ProcRole.WORKER, 0)


def test_a_child_of_a_worker_is_found_by_a_full_scan(tree: Tree) -> None:
    """Workers' children are looked for on full scans only: found within `full_scan_every`
    polls, a worker of the same rank."""
    probe = ProcessProbe(lambda: [tree.launcher.pid], ExitStatusBook(), full_scan_every=3)
    snapshot_of(probe)
    (tree.here / "grandchild-1").write_text("")
    grandchild = int(tree.wait_for("grandchild-1.pid"))
    found_at, snapshot = polls_until_found(probe, grandchild, 3)
    assert found_at == 3, found_at
    found = next(p for p in snapshot.processes if p.pid == grandchild)
    assert (found.role, found.rank) == (ProcRole.WORKER, 1)


def test_a_worker_exit_is_reported_with_its_zombie_status(tree: Tree) -> None:
    """Worker 0 of rank 1 exits with code 3 and its rank never reaps it: the zombie's /proc
    entry gives the status, once."""
    probe = ProcessProbe(lambda: [tree.launcher.pid], ExitStatusBook())
    snapshot, _ = snapshot_of(probe)
    worker = next(p for p in by_role(snapshot)[ProcRole.WORKER] if p.rank == 1)
    (tree.here / "exit-1").write_text("")
    deadline = time.monotonic() + 20
    while psutil.Process(worker.pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    _, exits = snapshot_of(probe)
    assert [(e.pid, e.role, e.rank, e.exit_code, e.signal, e.status_source) for e in exits] == [
        (worker.pid, ProcRole.WORKER, 1, 3, None, "zombie")
    ]
    _, again = snapshot_of(probe)
    assert again == []


def test_stat_and_children_readers_match_the_kernel(tree: Tree) -> None:
    """read_stat and read_children against psutil on the live tree; None/[] once gone."""
    launcher = psutil.Process(tree.launcher.pid)
    children = read_children("/proc", launcher.pid, every_thread=True)
    assert children is not None
    assert sorted(children) == sorted(c.pid for c in launcher.children())
    stat = read_stat("/proc", launcher.pid)
    assert stat is not None
    assert (stat.ppid, stat.name) == (os.getpid(), launcher.name())
    gone = subprocess.Popen(["true"])
    gone.wait()
    assert read_stat("/proc", gone.pid) is None
    assert read_children("/proc", gone.pid, every_thread=False) == []
    assert read_children("/proc", gone.pid, every_thread=True) == []


def test_a_stopped_rank_reads_stopped(tree: Tree) -> None:
    probe = ProcessProbe(lambda: [tree.launcher.pid], ExitStatusBook())
    snapshot, _ = snapshot_of(probe)
    rank = next(p for p in by_role(snapshot)[ProcRole.RANK] if p.rank == 0)
    os.kill(rank.pid, signal.SIGSTOP)
    try:
        deadline = time.monotonic() + 10
        state = None
        while state is not ProcState.STOPPED and time.monotonic() < deadline:
            snapshot, _ = snapshot_of(probe)
            state = next(p.state for p in snapshot.processes if p.pid == rank.pid)
        assert state is ProcState.STOPPED
    finally:
        os.kill(rank.pid, signal.SIGCONT)
