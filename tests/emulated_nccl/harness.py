"""Run an emulated NCCL job (optionally under the real `rankwatch run`) and collect what it did.

    from tests.emulated_nccl.harness import scenario, run_scenario

    outcome = run_scenario(scenario("user_deadlock", fault_rank=1), tmp_path,
                           until=lambda alerts: any(a["severity"] == "critical" for a in alerts),
                           timeout=60)
    outcome.fault.wall, outcome.alerts, outcome.output

`EmulatedJob` gives finer control (query the RAS endpoint, read the ranks' counts, wait for a
step or the fault, stop). The RAS endpoint runs beside rankwatch, not under it: like NCCL's RAS
thread it is part of the ranks' processes in spirit, but it must not show up as a process of
the job (it would look like a DataLoader worker).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.emulated_nccl.config import JobConfig
from tests.emulated_nccl.shared import (
    FaultRecord,
    RankCounts,
    process_state,
    read_counts,
    read_fault,
    read_rank_infos,
)

REPO = Path(__file__).resolve().parents[2]
TRAIN = Path(__file__).resolve().parent / "train.py"
Alert = dict[str, Any]

# rankwatch settings that make the emulated job's windows short; each must be a real setting
# (the daemon rejects unknown RANKWATCH_* names). Tests add their own on top.
FAST_SETTINGS: dict[str, str] = {
    "RANKWATCH_RAS_SETTLE_SECONDS": "0",  # the port opens when the ranks' comm exists
    "RANKWATCH_RAS_INTERVAL_SECONDS": "5",  # the fastest poll allowed
}


@dataclass(frozen=True)
class Scenario:
    """One emulated run: the job's knobs, how it is launched, and the RAS endpoint's behaviour."""

    job: JobConfig = field(default_factory=JobConfig)
    ranks: int = 2
    launcher: str = "torchrun"  # "torchrun" (tears down on a failure) or "noteardown"
    reap: bool = True  # noteardown only: False leaves a dead rank a zombie
    nccl_version: str = "2.28.9"
    ras: bool = True
    ras_dead_after_seconds: float = 10.0  # NCCL: 60 s × NCCL_RAS_TIMEOUT_FACTOR
    ras_collection_timeout_seconds: float = 5.0
    ras_reuseport_stall: bool = True
    rankwatch: bool = True
    settings: Mapping[str, str] = field(default_factory=lambda: dict(FAST_SETTINGS))


_SCENARIO_FIELDS = {f.name for f in dataclasses.fields(Scenario)} - {"job"}
_JOB_FIELDS = {f.name for f in dataclasses.fields(JobConfig)} - {"dir"}


def scenario(fault: str = "none", **knobs: Any) -> Scenario:
    """A scenario from flat knobs (JobConfig fields and Scenario fields mixed).

    `dead_unreaped` defaults to the launcher that neither reaps nor tears down; every other
    fault defaults to torchrun. `settings` are merged over FAST_SETTINGS."""
    unknown = set(knobs) - _SCENARIO_FIELDS - _JOB_FIELDS
    if unknown:
        raise TypeError(f"unknown knobs: {sorted(unknown)}")
    job = JobConfig(fault=fault, **{k: v for k, v in knobs.items() if k in _JOB_FIELDS})
    job.validate()
    outer = {k: v for k, v in knobs.items() if k in _SCENARIO_FIELDS}
    if fault == "dead_unreaped":
        outer.setdefault("launcher", "noteardown")
        outer.setdefault("reap", False)
    if "settings" in outer:
        outer["settings"] = {**FAST_SETTINGS, **outer["settings"]}
    return Scenario(job=job, **outer)


@dataclass(frozen=True)
class Outcome:
    alerts: list[Alert]
    fault: FaultRecord | None
    output: Path  # the job's output (rankwatch passes it through) and rankwatch's own log
    alert_log: Path
    state_dir: Path
    job_dir: Path  # RW_EMU_DIR: counts, rank identities, fault.json
    exit_code: int | None  # rankwatch's (or the launcher's) exit status; None if killed by us
    started_wall: float
    stop_wall: float  # when the harness began stopping the job (SIGTERM to rankwatch)
    stopped_wall: float

    def alerts_before_stop(self) -> list[Alert]:
        """The records of alerts that began before the harness stopped the job (what the run
        said about the fault, without what rankwatch said about the shutdown)."""
        return [a for a in self.alerts if _unix(a.get("starts_at")) < self.stop_wall]


def _unix(stamp: Any) -> float:
    if not isinstance(stamp, str):
        return float("inf")
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ras_query(
    address: str,
    *,
    fmt: str = "text",
    verbose: bool = False,
    timeout: float = 15.0,
    attempts: int = 10,
) -> str:
    """One STATUS exchange as a careful RAS client does it: handshake first, and reconnect when
    the handshake gets no reply (the port is shared with stopped processes); then the report,
    without the acknowledgement lines."""
    host, _, port = address.rpartition(":")
    for _ in range(attempts):
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as sock:
            sock.sendall(b"CLIENT PROTOCOL 2\n")
            sock.settimeout(1.0)
            try:
                reply = sock.recv(64)
            except TimeoutError:
                continue
            if not reply.startswith(b"SERVER PROTOCOL "):
                raise ValueError(f"unexpected handshake reply {reply!r}")
            sock.settimeout(timeout)
            lines = ["TIMEOUT 5"] + (["SET FORMAT json"] if fmt == "json" else [])
            lines.append("VERBOSE STATUS" if verbose else "STATUS")
            sock.sendall("".join(line + "\n" for line in lines).encode())
            data = b""
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        text = data.decode()
        for ack in ("OK\n", "OK\n"):
            if text.startswith(ack):
                text = text[len(ack) :]
        return text
    raise TimeoutError(f"no RAS handshake reply from {address} in {attempts} connections")


def stack_dump(pid: int, timeout: float = 20.0) -> list[dict[str, Any]]:
    """`py-spy dump --json --pid PID`: one entry per Python thread, frames innermost first."""
    done = subprocess.run(
        ["py-spy", "dump", "--json", "--pid", str(pid)],
        capture_output=True, text=True, timeout=timeout, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def main_thread_functions(pid: int) -> list[str]:
    """The main thread's function names, innermost first (what the host is blocked in)."""
    for thread in stack_dump(pid):
        if thread.get("thread_name") == "MainThread":
            return [str(frame["name"]) for frame in thread["frames"]]
    raise LookupError(f"no MainThread in the dump of {pid}")


def ras_reports_served(workdir: Path) -> list[str]:
    """The RAS endpoint's log of reports served ("status text at <unix time> took <s>")."""
    path = workdir / "ras.txt"
    return (
        [ln for ln in path.read_text().splitlines() if ln.startswith("status ")]
        if path.exists()
        else []
    )


class EmulatedJob:
    """The emulated job with its RAS endpoint, optionally wrapped by `rankwatch run`."""

    def __init__(self, spec: Scenario, workdir: Path) -> None:
        self.spec = spec
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.job_dir = workdir / "job"
        self.job_dir.mkdir(exist_ok=True)
        self.alert_log = workdir / "alerts.jsonl"
        self.state_dir = workdir / "state"
        self.output = workdir / "output.txt"
        self.ras_port = free_port()
        self.ras_address = f"127.0.0.1:{self.ras_port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.ras_proc: subprocess.Popen[bytes] | None = None
        self.started_wall = 0.0
        self.exit_code: int | None = None

    # -- starting ------------------------------------------------------------------------
    def command(self) -> list[str]:
        job = [sys.executable, "-m", "torch.distributed.run", "--standalone",
               "--nproc_per_node", str(self.spec.ranks), str(TRAIN)]  # fmt: skip
        if self.spec.launcher == "noteardown":
            job = [sys.executable, "-m", "tests.emulated_nccl.launch_noteardown",
                   str(self.spec.ranks)] + ([] if self.spec.reap else ["--no-reap"])  # fmt: skip
        if not self.spec.rankwatch:
            return job
        return [
            sys.executable, "-m", "monitor", "run",
            "--alert-log", str(self.alert_log),
            "--state-dir", str(self.state_dir),
            "--metrics-addr", "",
            "--ras", self.ras_address,
            "--", *job,
        ]  # fmt: skip

    def env(self) -> dict[str, str]:
        cfg = dataclasses.replace(self.spec.job, dir=str(self.job_dir))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RANKWATCH_", "RW_EMU_"))}
        env.update(cfg.to_env())
        env.update(self.spec.settings)
        env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
        env["PYTHONUNBUFFERED"] = "1"
        env["NCCL_RAS_ADDR"] = self.ras_address  # what a real job's ranks would carry
        env["OMP_NUM_THREADS"] = "1"
        return env

    def start(self) -> EmulatedJob:
        if self.proc is not None:
            raise RuntimeError("already started")
        env = self.env()
        if self.spec.ras:
            argv = [
                sys.executable, "-m", "tests.emulated_nccl.ras_server",
                "--dir", str(self.job_dir), "--port", str(self.ras_port),
                "--version", self.spec.nccl_version,
                "--dead-after", str(self.spec.ras_dead_after_seconds),
                "--collection-timeout", str(self.spec.ras_collection_timeout_seconds),
            ]  # fmt: skip
            if not self.spec.ras_reuseport_stall:
                argv.append("--no-reuseport-stall")
            with (self.workdir / "ras.txt").open("wb") as ras_log:
                self.ras_proc = subprocess.Popen(
                    argv, env=env, stdout=ras_log, stderr=subprocess.STDOUT
                )
        self.started_wall = time.time()
        with self.output.open("wb") as out:
            self.proc = subprocess.Popen(
                self.command(), cwd=self.workdir, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        return self

    def __enter__(self) -> EmulatedJob:
        return self if self.proc is not None else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- looking ---------------------------------------------------------------------------
    def counts(self) -> dict[int, RankCounts]:
        return read_counts(self.job_dir)

    def rank_pids(self) -> dict[int, int]:
        return {rank: info.pid for rank, info in read_rank_infos(self.job_dir).items()}

    def fault(self) -> FaultRecord | None:
        return read_fault(self.job_dir)

    def alerts(self) -> list[Alert]:
        if not self.alert_log.exists():
            return []
        lines = self.alert_log.read_text().splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def tail(self, size: int = 4000) -> str:
        return self.output.read_bytes()[-size:].decode(errors="replace")

    def ras_query(self, fmt: str = "text", *, verbose: bool = False) -> str:
        return ras_query(self.ras_address, fmt=fmt, verbose=verbose)

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # -- waiting ---------------------------------------------------------------------------
    def wait_until(self, done: Callable[[], Any], timeout: float, what: str) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = done()
            if value:
                return value
            time.sleep(0.1)
        raise TimeoutError(f"{what} not seen within {timeout:.0f} s\n{self.tail()}")

    def wait_for_ops(self, ops: int, timeout: float = 60.0) -> dict[int, RankCounts]:
        """Until every rank has completed `ops` collectives (the job is past init and running)."""

        def enough() -> dict[int, RankCounts] | None:
            counts = self.counts()
            ok = len(counts) == self.spec.ranks and all(c.completed >= ops for c in counts.values())
            return counts if ok else None

        counts = self.wait_until(enough, timeout, f"{ops} completed collectives on every rank")
        if self.spec.ras:
            self.wait_for_ras_endpoint(timeout)
        return counts  # type: ignore[no-any-return]

    def wait_for_ras_endpoint(self, timeout: float = 60.0) -> None:
        """Until the RAS port accepts (its server process may start after the ranks do)."""
        log = self.workdir / "ras.txt"
        self.wait_until(
            lambda: log.exists() and b"RAS endpoint on" in log.read_bytes(),
            timeout,
            "the RAS endpoint",
        )

    def wait_for_fault(self, timeout: float = 60.0) -> FaultRecord:
        return self.wait_until(self.fault, timeout, "the fault")  # type: ignore[no-any-return]

    def wait_for_alert(self, match: Callable[[Alert], bool], timeout: float) -> Alert | None:
        try:
            return self.wait_until(  # type: ignore[no-any-return]
                lambda: next((a for a in self.alerts() if match(a)), None), timeout, "alert"
            )
        except TimeoutError:
            return None

    def wait_for_state(self, rank: int, states: str, timeout: float = 30.0) -> str:
        """Until rank's process is in one of `states` (kernel letters; "" = gone)."""
        pid = self.rank_pids()[rank]
        return self.wait_until(  # type: ignore[no-any-return]
            lambda: (process_state(pid) or "-") if process_state(pid) in states else None,
            timeout,
            f"rank {rank} in state {states!r}",
        )

    def _ours(self, pid: int) -> bool:
        """Whether pid is still one of this job's ranks (pids are reused)."""
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            return False
        return f"RW_EMU_DIR={self.job_dir}".encode() in environ.split(b"\0")

    # -- stopping --------------------------------------------------------------------------
    def stop(self, timeout: float = 30.0) -> Outcome:
        stop_wall = time.time()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            time.sleep(0.2)
            for pid in self.rank_pids().values():  # stopped ranks must run to act on SIGTERM
                if process_state(pid) in ("T", "t") and self._ours(pid):
                    _signal(pid, signal.SIGCONT)
            try:
                self.exit_code = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _killpg(self.proc.pid)
                self.proc.wait()
        elif self.proc is not None:
            self.exit_code = self.proc.returncode
        for pid in self.rank_pids().values():  # ranks of ours that outlived their launcher
            if process_state(pid) not in ("", "Z") and self._ours(pid):
                _signal(pid, signal.SIGCONT)
                _signal(pid, signal.SIGKILL)
        oom_cgroup = self.job_dir / "oom-cgroup"
        if oom_cgroup.exists():  # the memory cgroup the "oom" fault made, empty now
            try:
                Path(oom_cgroup.read_text().strip()).rmdir()
            except OSError:
                pass
        if self.ras_proc is not None:
            if self.ras_proc.poll() is None:
                self.ras_proc.terminate()
            try:
                self.ras_proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.ras_proc.kill()
                self.ras_proc.wait()
        return Outcome(
            alerts=self.alerts(), fault=self.fault(), output=self.output,
            alert_log=self.alert_log, state_dir=self.state_dir, job_dir=self.job_dir,
            exit_code=self.exit_code, started_wall=self.started_wall, stop_wall=stop_wall,
            stopped_wall=time.time(),
        )  # fmt: skip


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _killpg(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_scenario(
    spec: Scenario,
    workdir: Path,
    *,
    until: Callable[[list[Alert]], bool] | None = None,
    timeout: float = 60.0,
    fault_timeout: float = 90.0,
) -> Outcome:
    """Start, wait for the fault (if any), then until `until(alerts)` holds or `timeout` seconds
    after the fault (after the start when there is no fault) have passed; stop and report."""
    job = EmulatedJob(spec, workdir).start()
    try:
        if spec.job.fault != "none":
            job.wait_for_fault(fault_timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and job.running():
            if until is not None and until(job.alerts()):
                break
            time.sleep(0.2)
    finally:
        outcome = job.stop()
    return outcome
