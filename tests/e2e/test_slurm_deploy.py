"""The deploy scripts and the SLURM job context against a real single-node SLURM cluster.

A fake `rankwatch` (tests/deploy/scripts.py) stands in for the daemon here, so that the
Prolog/Epilog behaviour is tested on its own; test_slurm_rankwatch.py runs the real daemon.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from monitor.slurm.context import (
    JobProcesses,
    PatternFields,
    Scontrol,
    SlurmContext,
    batch_output,
    files_for_tasks,
    files_open_for_writing,
    node_view,
    short_hostname,
    task_output_files,
)
from monitor.sources.user_file import UserIdentity, open_user_file
from tests.deploy.scripts import FAKE_RANKWATCH, pid_alive, wait_until
from tests.e2e.slurm_cluster import SlurmCluster

pytestmark = pytest.mark.e2e

FINISHED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}


@pytest.fixture
def fake(slurm_cluster: SlurmCluster) -> Path:
    """Install the fake rankwatch and point the cluster's deploy settings at it."""
    root = slurm_cluster.root
    bin_dir = root / "fakebin"
    if bin_dir.exists():
        for old in bin_dir.iterdir():
            old.unlink()
    else:
        bin_dir.mkdir()
    tool = bin_dir / "rankwatch"
    tool.write_text(FAKE_RANKWATCH)
    tool.chmod(0o755)
    (root / "rankwatch-slurm.conf").write_text(
        f'PATH="{bin_dir}:$PATH"\n'
        f"run_dir={root}/run\n"
        f"state_dir={root}/rwstate\n"
        f"log_dir={root}/rwlog\n"
        f"file_sd_dir={root}/file_sd\n"
        "metrics_host=127.0.0.1\n"
        "launcher=setsid\n"
        "stop_timeout_seconds=3\n"
    )
    return bin_dir


def _started(bin_dir: Path, job_id: str) -> dict[str, str] | None:
    for path in bin_dir.glob("started.*"):
        lines = path.read_text().splitlines()
        record = dict(line.split("=", 1) for line in lines if "=" in line)
        if record.get("SLURM_JOB_ID") == job_id:
            return record
    return None


def _job_dir(cluster: SlurmCluster, name: str) -> Path:
    path = cluster.root / "jobs" / name
    path.mkdir()
    os.chown(path, 65534, 65534)
    return path


def _submit_as_nobody(cluster: SlurmCluster, work_dir: Path, *args: str) -> str:
    return cluster.sbatch("--uid=nobody", "--gid=nogroup", "-D", str(work_dir), *args)


def test_prolog_starts_sidecar_and_epilog_stops_it(slurm_cluster: SlurmCluster, fake: Path) -> None:
    """With the repo's Prolog/Epilog in slurm.conf: the job starts at once, the sidecar runs
    detached with the job's context, its file_sd registration appears; after scancel the
    Epilog stops it, removes the registration, and the node is not drained."""
    work = _job_dir(slurm_cluster, "lifecycle")
    submitted = time.monotonic()
    job = _submit_as_nobody(
        slurm_cluster, work, "-J", "rw-lifecycle", "-o", "out.txt", "--wrap", "echo up; sleep 300"
    )
    slurm_cluster.wait_state(job, {"RUNNING"}, timeout=30)
    assert wait_until(lambda: "up" in _read(work / "out.txt"), timeout=30)
    started_after = time.monotonic() - submitted
    assert started_after < 10, f"job output appeared {started_after:.1f}s after submission"

    assert wait_until(lambda: _started(fake, job) is not None, timeout=10)
    record = _started(fake, job)
    assert record is not None
    assert record["argv"] == f"run --slurm-job {job}"
    assert record["sid"] == record["pid"]
    assert record["SLURM_JOB_USER"] == "nobody"
    assert record["SLURM_JOB_UID"] == "65534"
    assert record["SLURMD_NODENAME"] == slurm_cluster.node
    pid = int(record["pid"])
    assert pid_alive(pid)

    sd_file = slurm_cluster.root / "file_sd" / f"rankwatch-{job}-{slurm_cluster.node}.json"
    registration = json.loads(sd_file.read_text())
    assert registration[0]["labels"] == {
        "job_id": job,
        "user": "nobody",
        "node": slurm_cluster.node,
    }

    slurm_cluster.run("scancel", job)
    slurm_cluster.wait_state(job, {"CANCELLED"}, timeout=30)
    assert wait_until(lambda: not pid_alive(pid), timeout=20), "the epilog did not stop it"
    assert wait_until(lambda: not sd_file.exists(), timeout=10)
    assert list(fake.glob("terminated.*")), "the sidecar was killed, not asked to stop"
    assert not (slurm_cluster.root / "run" / f"rankwatch-{job}.pid").exists()
    assert wait_until(lambda: slurm_cluster.node_state() == "idle", timeout=20)
    log = slurm_cluster.slurmd_log()
    assert "prolog poll timeout" not in log
    assert f"prolog for job {job} ran for" not in log


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


PATTERN_JOBS = [
    # (name, sbatch options) — the expected file is computed from the prolog's environment
    ("issue", ["--error=%x-%j-%N-%t.err"]),
    ("letters", ["--output=all-%x-%j-%N-%t-%s-%n-%u-%J-%A-%a-%%-%4j-%z-%4z-%12j.out"]),
    ("escaped", ["--error=esc\\%j-%N.err"]),
    ("subdir", ["--error=sub/%u-%j.err"]),
    ("default", []),
    ("absolute", ["--error={work}/abs-%j.err"]),
]


def test_stderr_patterns_match_the_files_slurmstepd_created(
    slurm_cluster: SlurmCluster, fake: Path
) -> None:
    """For each pattern, expanding the prolog's raw SLURM_JOB_STDERR/STDOUT with one
    `scontrol show job` names exactly the file that slurmstepd created, and that file can
    be opened with the job user's rights."""
    scontrol = Scontrol(env=slurm_cluster.env)
    submitted: list[tuple[str, Path, str]] = []
    for name, options in PATTERN_JOBS:
        work = _job_dir(slurm_cluster, f"pattern-{name}")
        (work / "sub").mkdir()
        os.chown(work / "sub", 65534, 65534)
        opts = [o.replace("{work}", str(work)) for o in options]
        job = _submit_as_nobody(
            slurm_cluster, work, "-J", f"rw-{name}", *opts, "--wrap", "echo line-on-stderr >&2"
        )
        submitted.append((name, work, job))
    work = _job_dir(slurm_cluster, "pattern-array")
    array = _submit_as_nobody(
        slurm_cluster, work, "-J", "rw-array", "-a", "1-2", "--error=arr-%A_%a-%3a.err",
        "--wrap", "echo line-on-stderr >&2",
    )  # fmt: skip
    for job in (array,):
        slurm_cluster.wait_state(job, FINISHED, timeout=60)
    array_jobs = [
        line.split()[0]
        for line in slurm_cluster.run("scontrol", "show", "job", "-o", array).splitlines()
    ]
    for job_field in array_jobs:
        submitted.append(("array", work, job_field.removeprefix("JobId=")))

    for name, work, job in submitted:
        slurm_cluster.wait_state(job, FINISHED, timeout=60)
        # the prolog's detached sidecar may write its record after the job ends: on a loaded
        # 2-core machine that took over 10 s once, and over 30 s under the full suite
        assert wait_until(lambda job=job: _started(fake, job) is not None, timeout=90), name
        record = _started(fake, job)
        assert record is not None
        ctx = SlurmContext.from_env(record, job)
        details = scontrol.show_job(job)
        out = batch_output(ctx, details, short_hostname())
        assert out is not None
        assert out.local
        created = sorted(str(p.relative_to(work)) for p in work.rglob("*") if p.is_file())
        expected = Path(out.stderr_path)
        assert expected.exists(), f"{name}: expected {expected}, slurmstepd created {created}"
        if name == "array":
            continue  # both array tasks share this directory
        named = {str(Path(p).relative_to(work)) for p in (out.stderr_path, out.stdout_path)}
        assert named == set(created), f"{name}: {created}"
        assert out.shared is (len(named) == 1)
        with open_user_file(str(expected), UserIdentity.lookup(ctx.uid or 0)) as handle:
            assert b"line-on-stderr" in handle.read()
    assert scontrol.controller_calls == len(submitted)
    array_dir = slurm_cluster.root / "jobs" / "pattern-array"
    assert sorted(p.name for p in array_dir.iterdir()) == [
        f"arr-{array}_1-001.err",
        f"arr-{array}_2-002.err",
        f"slurm-{array}_1.out",
        f"slurm-{array}_2.out",
    ]


def test_listpids_finds_python_ranks_and_their_output_files(
    slurm_cluster: SlurmCluster, fake: Path
) -> None:
    """`scontrol listpids` (local slurmstepd only, no slurmctld) lists each step's tasks as
    steps start; the Python ones are the ranks. A per-task `srun --error=...%t...` file is the
    task's own fd 2 and matches the pattern's expansion for its task id; a shared `--error`
    file (no %t) is held open by srun on the batch host."""
    work = _job_dir(slurm_cluster, "listpids")
    rank = "import sys,time; print('rank up', file=sys.stderr, flush=True); time.sleep(120)"
    script = (
        f'srun --overlap -n 2 --error=task-%j-%2t.err /usr/bin/python3 -c "{rank}" & '
        "sleep 2; "
        f'srun --overlap -n 2 --error=shared-%j-%s.err /usr/bin/python3 -c "{rank}" & '
        "wait"
    )
    job = _submit_as_nobody(
        slurm_cluster, work, "-J", "rw-listpids", "-n", "2", "-o", "batch.out", "--wrap", script
    )
    slurm_cluster.wait_state(job, {"RUNNING"}, timeout=30)
    scontrol = Scontrol(env=slurm_cluster.env)
    procs = JobProcesses(scontrol=scontrol, job_id=job, interval_seconds=0.5)
    reported_new: list[int] = []

    def all_ranks() -> bool:
        reported_new.extend(row.pid for row in procs.refresh(time.monotonic(), force=True))
        # (a task found before slurmstepd has given it its task id is read again next time)
        tasks = procs.python_tasks()
        return len(tasks) == 4 and all(r.global_id is not None for r in tasks)

    try:
        assert wait_until(all_ranks, timeout=40), procs.rows
        assert {"batch", "0", "1"} <= procs.steps
        assert scontrol.controller_calls == 0
        assert len(reported_new) == len(set(reported_new))  # each process is new only once
        assert {row.pid for row in procs.rows} <= set(reported_new)
        ranks = procs.python_tasks()
        by_step = {step: sorted(r.global_id for r in ranks if r.step == step) for step in "01"}
        assert by_step == {"0": [0, 1], "1": [0, 1]}

        per_task = {r.global_id: task_output_files(r.pid).get(2) for r in ranks if r.step == "0"}
        fields = PatternFields(job_id=int(job), user="nobody", step="0")
        expanded = files_for_tasks("task-%j-%2t.err", fields, [0, 1], str(work))
        assert {path: (task,) for task, path in per_task.items()} == expanded
        assert all(task_output_files(r.pid).get(2) is None for r in ranks if r.step == "1")

        batch_out = str(work / "batch.out")
        srun_files = set()
        for row in procs.rows:
            if row.step == "batch":
                srun_files.update(files_open_for_writing(row.pid, exclude=[batch_out]))
        shared = files_for_tasks(
            "shared-%j-%s.err", PatternFields(job_id=int(job), user="nobody", step="1"), [0, 1],
            str(work),
        )  # fmt: skip
        assert set(shared) <= srun_files, srun_files
        assert list(shared.values()) == [(0, 1)]

        record = _started(fake, job)
        assert record is not None
        view = node_view(SlurmContext.from_env(record, job), scontrol.show_job(job), procs.rows)
        assert {r.pid for r in view.ranks} == {r.pid for r in ranks}
        origins = {(f.origin, Path(f.path).name, f.task_id) for f in view.files}
        assert origins == {
            ("batch", "batch.out", None),
            ("task", f"task-{job}-00.err", 0),
            ("task", f"task-{job}-01.err", 1),
            ("srun", f"shared-{job}-1.err", None),
        }
    finally:
        slurm_cluster.run("scancel", job)
        slurm_cluster.wait_state(job, FINISHED, timeout=30)
