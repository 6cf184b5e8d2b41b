"""Benchmark: the daemon's own cost watching 8 simulated ranks × 4 workers at default intervals.

Records CPU seconds per minute (and % of one core) and peak RSS of the rankwatch process itself,
with a bare Python interpreter's RSS measured in the same run as the reference.
Duration: RW_BENCH_OVERHEAD_SECONDS (default 60).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from monitor.model import ProcessSnapshot
from monitor.sources.exit_events import ExitStatusBook
from monitor.sources.process_probe import ProcessProbe
from tests.benchmarks.report import progress, record
from tests.conftest import child_env, rankwatch_argv
from tests.fake_ras import FakeRasServer, JobShape, scenario


@pytest.mark.benchmark
def test_daemon_overhead(tmp_path: Path) -> None:
    """CPU per minute and RSS of the daemon (targets: < 1% of a core, < 80 MB)."""
    seconds = float(os.environ.get("RW_BENCH_OVERHEAD_SECONDS", "60"))
    job = [sys.executable, str(Path(__file__).parent / "sim_job.py"), "8", "4", str(seconds)]
    proc = subprocess.Popen(
        rankwatch_argv("run", "--metrics-addr", "127.0.0.1:0", "--", *job),
        cwd=tmp_path,
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    me = psutil.Process(proc.pid)
    progress(f"overhead: simulated 8 x 4 job, {seconds:.0f} s")
    time.sleep(min(5.0, seconds / 4))  # start-up (imports) is not steady-state overhead
    cpu0 = sum(me.cpu_times()[:2])
    t0 = t1 = time.monotonic()
    cpu1 = cpu0
    peak_rss = 0
    workers_seen = 0
    while proc.poll() is None and time.monotonic() - t0 < seconds:
        try:
            peak_rss = max(peak_rss, me.memory_info().rss)
            cpu1 = sum(me.cpu_times()[:2])
            workers_seen = max(workers_seen, len(me.children(recursive=True)))
        except psutil.NoSuchProcess:
            break
        t1 = time.monotonic()
        time.sleep(1.0)
    proc.wait(timeout=120)
    per_minute = (cpu1 - cpu0) / (t1 - t0) * 60
    baseline = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3)"])
    time.sleep(1.0)
    base_rss = psutil.Process(baseline.pid).memory_info().rss
    baseline.wait()
    what = f"simulated 8 x 4, watched {workers_seen} processes for {t1 - t0:.0f} s"
    record(
        "overhead",
        f"{what}: daemon CPU",
        f"{per_minute:.2f} s/min = {per_minute / 60 * 100:.2f}% of one core",
        "< 1% of a core",
    )
    record(
        "overhead",
        f"{what}: daemon peak RSS",
        f"{peak_rss / 2**20:.1f} MiB = {peak_rss / base_rss:.1f}x a bare interpreter",
        "< 80 MiB",
    )
    record("overhead", f"{what}: reference: bare interpreter RSS", f"{base_rss / 2**20:.1f} MiB")


# ---------------------------------------------------------------------------------------
# A real torchrun job: R ranks x W DataLoader workers, healthy, every source on.

TORCH_JOB = Path(__file__).resolve().parents[1] / "e2e" / "torch_job.py"


def _job_shape() -> tuple[int, int]:
    quick = os.environ.get("RW_BENCH_QUICK") == "1"
    ranks = int(os.environ.get("RW_BENCH_OVERHEAD_RANKS", "2" if quick else "8"))
    workers = int(os.environ.get("RW_BENCH_OVERHEAD_WORKERS", "2" if quick else "8"))
    return ranks, workers


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _metric(text: str, name: str) -> dict[str, float]:
    """{labels: value} of one metric family in Prometheus text."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith(name) and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key[len(name) :] or "{}"] = float(value)
    return out


def _tree_cpu(root: psutil.Process) -> float:
    total = 0.0
    for proc in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            total += sum(proc.cpu_times()[:2])
    return total


def _probe_cost(root_pid: int, polls: int = 20) -> tuple[float, float, int]:
    """CPU ms per poll of the process probe over the job's tree, and of the floor: one
    /proc/PID/stat read per process of the same tree (the reference)."""
    probe = ProcessProbe(lambda: [root_pid], ExitStatusBook())
    probe.poll(time.monotonic())  # first poll reads environments once
    started = time.thread_time()
    for _ in range(polls):
        snapshot = probe.poll(time.monotonic())[0]
    per_poll = (time.thread_time() - started) / polls * 1000
    assert isinstance(snapshot, ProcessSnapshot)
    pids = [p.pid for p in snapshot.processes]
    started = time.thread_time()
    for _ in range(polls):
        for pid in pids:
            with contextlib.suppress(OSError), open(f"/proc/{pid}/stat", "rb") as fh:
                fh.read()
    floor = (time.thread_time() - started) / polls * 1000
    return per_poll, floor, len(pids)


@pytest.mark.benchmark
def test_daemon_overhead_torch_job(tmp_path: Path) -> None:
    """A healthy torchrun job (gloo, R ranks x W DataLoader workers, 0.2 s steps) with every
    source on: process probe, log tails, RAS polling (a fake RAS port on loopback), clock, and
    py-spy. Records the daemon's CPU (its own and its py-spy children's) as % of one core, its
    peak RSS, py-spy rounds by trigger and the probe's cost per poll; references from the same
    run: the job's own CPU, a bare interpreter's RSS, and one /proc/PID/stat read per process.
    Targets at 8 x 8: <= 1% of a core, <= 60 MB."""
    seconds = float(os.environ.get("RW_BENCH_OVERHEAD_SECONDS", "60"))
    ranks, workers = _job_shape()
    port = _free_port()
    state_dir = tmp_path / "state"
    job = [
        sys.executable, "-m", "torch.distributed.run", "--standalone",
        "--nproc_per_node", str(ranks), str(TORCH_JOB), "--mode", "healthy",
        "--steps", "1000000", "--workers", str(workers), "--step-seconds", "0.2",
    ]  # fmt: skip
    with FakeRasServer(scenario(shape=JobShape(nodes=1, gpus_per_node=ranks))) as ras:
        env = child_env(RANKWATCH_RAS_ADDR=f"127.0.0.1:{ras.port}", OMP_NUM_THREADS="1")
        proc = subprocess.Popen(
            rankwatch_argv(
                "run", "--metrics-addr", f"127.0.0.1:{port}", "--state-dir", str(state_dir),
                "--alert-log", str(tmp_path / "alerts.jsonl"), "--", *job,
            ),
            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        try:
            _measure_torch_job(proc, ranks, workers, seconds, port)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)


def _measure_torch_job(
    proc: subprocess.Popen[bytes], ranks: int, workers: int, seconds: float, port: int
) -> None:
    me = psutil.Process(proc.pid)
    expected = ranks * (workers + 1)
    deadline = time.monotonic() + 300
    launcher: psutil.Process | None = None
    while time.monotonic() < deadline:  # start-up (imports, rendezvous) is not steady state
        assert proc.poll() is None, "rankwatch exited early"
        children = me.children()
        launcher = children[0] if children else None
        if launcher is not None and len(launcher.children(recursive=True)) >= expected:
            break
        time.sleep(1.0)
    assert launcher is not None, "the job never started"
    progress(f"overhead: torchrun {ranks} x {workers} started, measuring {seconds:.0f} s")
    time.sleep(5.0)  # the first background py-spy pass and the first RAS polls
    own0, kids0 = _own_and_children(me)
    threads0 = _thread_cpu(me.pid)
    job0 = _tree_cpu(launcher)
    t0 = time.monotonic()
    peak_rss = 0
    own1, kids1, job1, t1 = own0, kids0, job0, t0
    while time.monotonic() - t0 < seconds:
        assert proc.poll() is None, "rankwatch exited early"
        peak_rss = max(peak_rss, me.memory_info().rss)
        own1, kids1 = _own_and_children(me)
        job1 = _tree_cpu(launcher)
        t1 = time.monotonic()
        time.sleep(1.0)
    threads1 = _thread_cpu(me.pid)
    names = _thread_names(me.pid)
    metrics = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read()
    probe_ms, floor_ms, probed = _probe_cost(launcher.pid)
    text = metrics.decode()
    rounds = _metric(text, "rankwatch_pyspy_rounds_total")
    dumps = sum(_metric(text, "rankwatch_pyspy_dumps_total").values())
    pyspy_cpu = _metric(text, "rankwatch_pyspy_cpu_seconds_total")
    sources = _metric(text, "rankwatch_source_up")
    base = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3)"])
    time.sleep(1.0)
    base_rss = psutil.Process(base.pid).memory_info().rss
    base.wait()
    span = t1 - t0
    own_pct = (own1 - own0) / span * 100
    kids_pct = (kids1 - kids0) / span * 100
    total = own_pct + kids_pct
    job_pct = (job1 - job0) / span * 100
    by_thread: dict[str, float] = {}
    for tid, cpu in threads1.items():
        name = names.get(tid, "other")
        by_thread[name] = by_thread.get(name, 0.0) + (cpu - threads0.get(tid, 0.0)) / span * 100
    split = ", ".join(
        f"{name} {pct:.2f}%" for name, pct in sorted(by_thread.items(), key=lambda i: -i[1])[:8]
    )
    job = f"torchrun {ranks} ranks x {workers} workers, healthy, {span:.0f} s"
    record(
        "overhead",
        f"{job}: daemon CPU (rankwatch + py-spy children)",
        f"{total:.2f}% of one core: rankwatch {own_pct:.2f}%, py-spy children {kids_pct:.2f}%",
        "<= 1% of a core at 8 x 8",
    )
    record(
        "overhead",
        f"{job}: reference: the job's own CPU",
        f"{job_pct:.0f}% (daemon/job = {total / max(job_pct, 1e-9):.4f})",
    )
    record("overhead", f"{job}: rankwatch CPU by thread", split)
    record(
        "overhead",
        f"{job}: daemon peak RSS",
        f"{peak_rss / 2**20:.1f} MiB = {peak_rss / base_rss:.1f}x a bare interpreter",
        "<= 60 MB at 8 x 8",
    )
    record("overhead", f"{job}: reference: bare interpreter RSS", f"{base_rss / 2**20:.1f} MiB")
    record(
        "overhead",
        f"{job}: py-spy since start",
        f"rounds {rounds or '{}'}, {dumps:.0f} dumps, py-spy CPU s by trigger {pyspy_cpu or 'n/a'}",
    )
    record(
        "overhead",
        f"{job}: process probe over {probed} processes",
        f"{probe_ms:.2f} ms CPU per poll ({probe_ms / 10:.2f}% of a core at 1 Hz) "
        f"= x{probe_ms / max(floor_ms, 1e-9):.1f} the floor",
    )
    record(
        "overhead",
        f"{job}: reference: probe floor (one /proc/PID/stat read each)",
        f"{floor_ms:.2f} ms",
    )
    record("overhead", f"{job}: sources up", str(sources))


def _own_and_children(me: psutil.Process) -> tuple[float, float]:
    """CPU seconds of the daemon itself, and of its reaped children (py-spy: the job is
    reaped only when it ends, after the measurement)."""
    times = me.cpu_times()
    return times.user + times.system, times.children_user + times.children_system


def _thread_cpu(pid: int) -> dict[int, float]:
    """CPU seconds of each thread of a process, by native thread id."""
    out: dict[int, float] = {}
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{tid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
                out[int(tid)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def _thread_names(pid: int) -> dict[int, str]:
    """Native thread id -> Python thread name, from one py-spy dump (names such as
    asyncio_0 are the event loop's worker threads that run the polled sources)."""
    py_spy = str(Path(sys.executable).parent / "py-spy")
    done = subprocess.run(
        [py_spy, "dump", "--json", "--nonblocking", "--pid", str(pid)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    names: dict[int, str] = {}
    with contextlib.suppress(ValueError):
        for thread in json.loads(done.stdout):
            if thread.get("os_thread_id"):
                names[int(thread["os_thread_id"])] = str(thread.get("thread_name") or "?")
    return names
