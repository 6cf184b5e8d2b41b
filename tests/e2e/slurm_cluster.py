"""A real single-node SLURM cluster (munged + slurmctld + slurmd) on loopback, for tests.

Everything lives in one run directory: its own munge socket and key, the state and spool
directories, logs, and free TCP ports, so it does not touch a system installation and several
runs do not collide. The repo's deploy/slurm/prolog.sh and epilog.sh are the cluster's Prolog
and Epilog; their settings file `rankwatch-slurm.conf` sits next to slurm.conf. Daemons are
stopped by the PIDs in their pid files: SIGTERM, a wait, then SIGKILL.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROLOG = REPO / "deploy" / "slurm" / "prolog.sh"
EPILOG = REPO / "deploy" / "slurm" / "epilog.sh"
REQUIRED = ("munged", "slurmctld", "slurmd", "sbatch", "scontrol", "squeue", "sinfo")


def missing_tools() -> list[str]:
    return [tool for tool in REQUIRED if shutil.which(tool) is None]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class SlurmCluster:
    root: Path
    conf: Path
    node: str
    munge_socket: Path
    pidfiles: list[Path] = field(default_factory=list)

    @property
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
        env["SLURM_CONF"] = str(self.conf)
        env.pop("INVOCATION_ID", None)  # slurmd would think systemd started it
        return env

    def run(self, *args: str, check: bool = True, timeout: float = 30) -> str:
        done = subprocess.run(
            args, capture_output=True, text=True, env=self.env, timeout=timeout, check=False
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed: {done.stdout}{done.stderr}")
        return done.stdout

    def sbatch(self, *args: str) -> str:
        out = self.run("sbatch", "--parsable", *args)
        return out.strip().split(";")[0]

    def job_state(self, job_id: str) -> str:
        out = self.run("scontrol", "show", "job", "-o", job_id, check=False)
        for part in out.split():
            if part.startswith("JobState="):
                return part.split("=", 1)[1]
        return ""

    def wait_state(self, job_id: str, states: set[str], timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        state = ""
        while time.monotonic() < deadline:
            state = self.job_state(job_id)
            if state in states:
                return state
            time.sleep(0.1)
        raise TimeoutError(f"job {job_id} is {state!r}, not in {states} after {timeout}s")

    def node_state(self) -> str:
        return self.run("sinfo", "-h", "-o", "%T").strip()

    def slurmd_log(self) -> str:
        return (self.root / "log" / "slurmd.log").read_text(errors="replace")

    def stop(self) -> None:
        for pidfile in reversed(self.pidfiles):
            _stop_by_pidfile(pidfile)


def _stop_by_pidfile(pidfile: Path, timeout: float = 5.0) -> None:
    try:
        pid = int(pidfile.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not Path(f"/proc/{pid}").exists() or _is_zombie(pid):
            return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def start_cluster(deploy_conf: str = "", timeout: float = 30.0) -> SlurmCluster:
    """Start munged, slurmctld and slurmd in a fresh directory; wait until the node is idle.

    The directory is world-traversable (jobs run as `nobody`), so it is made with mkdtemp
    rather than inside pytest's private temporary tree.
    """
    root = Path(tempfile.mkdtemp(prefix="rankwatch-slurm-"))
    root.chmod(0o755)
    for sub in ("state", "spool", "log", "jobs"):
        (root / sub).mkdir()
    (root / "jobs").chmod(0o1777)
    munge_dir = root / "munge"
    munge_dir.mkdir(mode=0o755)
    munge = pwd.getpwnam("munge")
    key = munge_dir / "munge.key"
    key.write_bytes(os.urandom(128))
    key.chmod(0o600)
    for path in (munge_dir, key):
        os.chown(path, munge.pw_uid, munge.pw_gid)
    munge_socket = munge_dir / "munge.socket"
    node = socket.gethostname().split(".", 1)[0]
    conf = root / "slurm.conf"
    conf.write_text(
        _slurm_conf(root, node, munge_socket, free_port(), free_port(), os.cpu_count() or 1)
    )
    (root / "rankwatch-slurm.conf").write_text(deploy_conf)
    cluster = SlurmCluster(root=root, conf=conf, node=node, munge_socket=munge_socket)
    try:
        subprocess.run(
            [
                "runuser",
                "-u",
                "munge",
                "--",
                "munged",
                f"--socket={munge_socket}",
                f"--key-file={key}",
                f"--pid-file={munge_dir / 'munged.pid'}",
                f"--log-file={munge_dir / 'munged.log'}",
                f"--seed-file={munge_dir / 'munged.seed'}",
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )
        cluster.pidfiles.append(munge_dir / "munged.pid")
        _wait(lambda: munge_socket.exists(), timeout, "munged socket")
        for daemon, pidfile in (("slurmctld", "slurmctld.pid"), ("slurmd", "slurmd.pid")):
            args = [daemon, "-f", str(conf)] + (["-i"] if daemon == "slurmctld" else [])
            subprocess.run(args, check=True, capture_output=True, env=cluster.env, timeout=30)
            cluster.pidfiles.append(root / pidfile)
        _wait(lambda: cluster.node_state() == "idle", timeout, "node idle")
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _wait(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():  # type: ignore[operator]
                return
        except RuntimeError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"waiting for {what} took over {timeout}s")


def _slurm_conf(
    root: Path, node: str, munge_socket: Path, ctld_port: int, slurmd_port: int, cpus: int
) -> str:
    return f"""\
ClusterName=rankwatch-test
SlurmctldHost={node}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={munge_socket}
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/log/slurmctld.log
SlurmdLogFile={root}/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=debug
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MinJobAge=300
KillWait=5
InactiveLimit=0
Prolog={PROLOG}
Epilog={EPILOG}
PrologFlags=Alloc
PrologEpilogTimeout=20
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
"""
