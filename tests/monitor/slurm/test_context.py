"""Job context from SLURM: host lists, the prolog environment, output patterns, listpids."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from monitor.slurm.context import (
    NOT_AN_ARRAY_TASK,
    JobPid,
    JobProcesses,
    NodeView,
    OutputFile,
    PatternFields,
    Scontrol,
    SlurmContext,
    SlurmError,
    batch_output,
    default_output_pattern,
    expand_hostlist,
    expand_pattern,
    files_for_tasks,
    files_open_for_writing,
    is_python_executable,
    node_index,
    node_view,
    parse_listpids,
    parse_show_job,
    pattern_letters,
    python_pids,
    task_output_files,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "deploy"

FIELDS = PatternFields(
    job_id=128,
    user="alice",
    job_name="train",
    step="batch",
    node_name="gpu017",
    node_index=3,
    task_id=5,
)


# --- host lists -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hostlist", "expected"),
    [
        ("gpu[001-004,010],cpu7", ("gpu001", "gpu002", "gpu003", "gpu004", "gpu010", "cpu7")),
        ("node1", ("node1",)),
        ("a[1-3]", ("a1", "a2", "a3")),
        ("a[8-11]", ("a8", "a9", "a10", "a11")),
        ("a[08-11]", ("a08", "a09", "a10", "a11")),
        ("r[1-2]n[01-02]", ("r1n01", "r1n02", "r2n01", "r2n02")),
        ("x[3],y", ("x3", "y")),
        ("", ()),
        ("(null)", ()),
        ("gpu-a[1,3] , gpu-b[2]", ("gpu-a1", "gpu-a3", "gpu-b2")),
    ],
)
def test_expand_hostlist(hostlist: str, expected: tuple[str, ...]) -> None:
    """Bracket ranges expand in order, keeping the zero padding of the first bound."""
    assert expand_hostlist(hostlist) == expected


@pytest.mark.parametrize("bad", ["gpu[1-3", "gpu1-3]", "gpu[a-b]", "gpu[5-1]", "gpu[[1]]"])
def test_expand_hostlist_rejects_malformed_lists(bad: str) -> None:
    """A malformed host list is an error with a bounded reason, never a wrong node list."""
    with pytest.raises(SlurmError) as info:
        expand_hostlist(bad)
    assert info.value.reason == "bad_hostlist"


def test_node_index_is_position_in_expanded_list() -> None:
    """The node index is the node's position in the job's expanded node list."""
    nodes = expand_hostlist("gpu[001-004,010],cpu7")
    assert node_index(nodes, "gpu010") == 4
    assert node_index(nodes, "cpu7.cluster.local") == 5
    assert node_index(nodes, "gpu999") is None


# --- the prolog environment ---------------------------------------------------------------


def _env_file(name: str) -> dict[str, str]:
    lines = (DATA / name).read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def test_context_from_real_22_05_prolog_environment() -> None:
    """The context reads a real 22.05 prolog environment (SLURM_NODELIST, raw pattern)."""
    ctx = SlurmContext.from_env(_env_file("prolog_env_batch_22.05.txt"), "1")
    assert ctx.job_id == "1"
    assert ctx.user == "root"
    assert ctx.uid == 0
    assert ctx.nodes == ("vm",)
    assert ctx.node_index == 0
    assert ctx.work_dir == "/srv/cluster/out"
    assert ctx.stderr_pattern is not None and "%x-%j-%N" in ctx.stderr_pattern
    assert ctx.stdout_pattern is None
    assert ctx.is_batch


def test_context_prefers_job_nodelist_of_newer_releases() -> None:
    """23.02.6+ sets SLURM_JOB_NODELIST as well; either name is read."""
    env = {
        "SLURM_JOB_ID": "77",
        "SLURM_JOB_USER": "bob",
        "SLURM_JOB_UID": "1001",
        "SLURMD_NODENAME": "gpu003",
        "SLURM_JOB_NODELIST": "gpu[001-004]",
    }
    ctx = SlurmContext.from_env(env)
    assert ctx.node_index == 2
    assert ctx.uid == 1001
    assert not ctx.is_batch


def test_context_reports_every_missing_variable_at_once() -> None:
    """Missing variables are listed together, so an admin fixes them in one go."""
    with pytest.raises(SlurmError) as info:
        SlurmContext.from_env({"SLURM_JOB_ID": "5"}, "5")
    message = str(info.value)
    assert "SLURM_JOB_USER" in message
    assert "SLURMD_NODENAME" in message
    assert "SLURM_NODELIST" in message


def test_context_refuses_a_different_job_id() -> None:
    """`--slurm-job 6` in the environment of job 5 is a configuration error."""
    env = {
        "SLURM_JOB_ID": "5",
        "SLURM_JOB_USER": "u",
        "SLURMD_NODENAME": "n",
        "SLURM_NODELIST": "n",
    }
    with pytest.raises(SlurmError, match="SLURM_JOB_ID=5 but job 6"):
        SlurmContext.from_env(env, "6")


# --- scontrol show job ----------------------------------------------------------------


def test_parse_show_job_picks_the_array_task_record() -> None:
    """An array id lists every task; the record of the asked job id is used."""
    text = (DATA / "show_job_array_22.05.txt").read_text()
    details = parse_show_job(text, "5")
    assert details.job_id == "5"
    assert details.array_job_id == 3
    assert details.array_task_id == 3
    assert details.job_name == "pat3"
    assert details.user == "root"
    assert details.batch_host == "vm"
    assert details.nodes == ("vm",)
    assert details.work_dir == "/srv/cluster/out"


def test_parse_show_job_multiline_form() -> None:
    """The multi-line form parses the same way; a non-array job has no array task id."""
    details = parse_show_job((DATA / "show_job_multiline_22.05.txt").read_text())
    assert details.job_id == "1"
    assert details.job_name == "pat"
    assert details.array_task_id is None
    assert details.num_tasks == 1
    assert details.state == "COMPLETED"


def test_parse_show_job_rejects_garbage() -> None:
    """Output without a JobId is an error, not an empty record."""
    with pytest.raises(SlurmError):
        parse_show_job("slurm_load_jobs error: Invalid job id specified")


# --- pattern letters ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("%%", "%"),
        ("%j", "128"),
        ("%J", "128"),
        ("%A", "128"),
        ("%a", str(NOT_AN_ARRAY_TASK)),
        ("%N", "gpu017"),
        ("%n", "3"),
        ("%s", "batch"),
        ("%t", "5"),
        ("%u", "alice"),
        ("%x", "train"),
        ("%4j", "0128"),
        ("%012j", "0000000128"),  # padding is capped at 10
        ("%3t-%2n", "005-03"),
        ("%5N", "gpu017"),  # names are never padded
        ("%%j", "%j"),
        ("%%%j", "%128"),
        ("%z", "%z"),  # unknown letters stay
        ("%4z", "4z"),  # as slurmstepd: the % and all digits but the last go
        ("end%", "end%"),
        ("%x-%j-%N-%t.err", "train-128-gpu017-5.err"),
    ],
)
def test_expand_every_letter(pattern: str, expected: str) -> None:
    """Every pattern letter, padding and literal expands as slurmstepd names files."""
    assert expand_pattern(pattern, FIELDS) == expected


def test_expand_step_letters() -> None:
    """In a step, %J is job.step and %s the step number (padded when asked)."""
    fields = PatternFields(job_id=9, user="u", step="2")
    assert expand_pattern("%J-%s-%3s", fields) == "9.2-2-002"


def test_expand_array_letters() -> None:
    """%A is the array's master id and %a the index, both paddable."""
    fields = PatternFields(job_id=5, user="u", array_job_id=3, array_task_id=7)
    assert expand_pattern("arr-%A_%a-%3a", fields) == "arr-3_7-007"


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("esc\\%j.err", "/w/esc%j.err"),
        ("a\\\\b-%t", "/w/a\\b-%t"),
        ("/abs/%j\\", "/abs/%j"),
    ],
)
def test_backslash_disables_expansion(pattern: str, expected: str) -> None:
    """A backslash anywhere disables all substitution; the escaping backslashes go."""
    assert expand_pattern(pattern, FIELDS, "/w") == expected


def test_relative_patterns_are_relative_to_the_work_dir() -> None:
    """A relative pattern is joined to the work dir; an absolute one is not."""
    assert expand_pattern("out/%j.err", FIELDS, "/home/alice/run") == "/home/alice/run/out/128.err"
    assert expand_pattern("/scratch/%j.err", FIELDS, "/home/alice") == "/scratch/128.err"


def test_pattern_letters_reports_per_task_and_per_node_use() -> None:
    """The letters used tell a per-task file (%t) from a shared one."""
    assert pattern_letters("%x-%j-%N-%4t.err") == frozenset("xjNt")
    assert pattern_letters("a\\%t") == frozenset()
    assert pattern_letters("%%t") == frozenset()


def test_default_pattern_for_plain_and_array_jobs() -> None:
    """Without -o/-e output goes to slurm-%j.out, for arrays slurm-%A_%a.out."""
    assert default_output_pattern(False) == "slurm-%j.out"
    assert default_output_pattern(True) == "slurm-%A_%a.out"


def test_files_for_tasks_per_task_files() -> None:
    """A %t pattern gives each task of this node its own file."""
    files = files_for_tasks("log-%j-%2t.err", FIELDS, [9, 8], "/w")
    assert files == {"/w/log-128-08.err": (8,), "/w/log-128-09.err": (9,)}


def test_files_for_tasks_shared_file() -> None:
    """Without %t all tasks share one file (per node with %N)."""
    files = files_for_tasks("log-%j-%N.err", FIELDS, [0, 1, 2], "/w")
    assert files == {"/w/log-128-gpu017.err": (0, 1, 2)}


def test_files_for_tasks_single_task_io_writes_no_file() -> None:
    """`--error=3` sends only task 3's output to srun: no file to follow."""
    assert files_for_tasks("3", FIELDS, [0, 3]) == {}


# --- the batch script's output -------------------------------------------------------------


def _ctx(**over: object) -> SlurmContext:
    base: dict[str, object] = dict(
        job_id="42",
        user="alice",
        uid=1000,
        gid=1000,
        node_name="gpu01",
        nodes=("gpu01", "gpu02"),
        node_index=0,
        work_dir="/home/alice/run",
        stdout_pattern=None,
        stderr_pattern=None,
    )
    base.update(over)
    return SlurmContext(**base)  # type: ignore[arg-type]


def test_batch_output_default_is_shared_slurm_out() -> None:
    """A job without -o/-e writes both streams to slurm-<id>.out in the work dir."""
    details = parse_show_job("JobId=42 JobName=t BatchHost=gpu01 WorkDir=/home/alice/run")
    out = batch_output(_ctx(stdout_pattern="/home/alice/run/slurm-%j.out"), details, "gpu01")
    assert out is not None
    assert out.stderr_path == out.stdout_path == "/home/alice/run/slurm-42.out"
    assert out.shared and out.local


def test_batch_output_array_default_and_separate_stderr() -> None:
    """An array job's default name uses %A_%a; a separate -e pattern is expanded on its own."""
    details = parse_show_job(
        "JobId=42 ArrayJobId=40 ArrayTaskId=2 JobName=sweep BatchHost=gpu02 WorkDir=/w"
    )
    out = batch_output(_ctx(stderr_pattern="%x-%A_%a-%N.err"), details, "gpu02")
    assert out is not None
    assert out.stdout_path == "/home/alice/run/slurm-40_2.out"
    assert out.stderr_path == "/home/alice/run/sweep-40_2-gpu02.err"
    assert not out.shared
    assert not out.local  # this node (gpu01) is not the batch host


def test_batch_output_none_for_an_srun_only_job() -> None:
    """A job without a batch script (bare srun/salloc) has no batch output."""
    assert batch_output(_ctx(), None, "gpu01") is None


# --- listpids and Python filtering ---------------------------------------------------------


def test_parse_real_listpids_output() -> None:
    """Real `scontrol listpids` output: -1 placeholders dropped, '-' ids are None."""
    rows = parse_listpids((DATA / "listpids_batch_extern_step.txt").read_text())
    assert [r.pid for r in rows] == [8207, 8214, 8218, 8215, 8230, 8231]
    assert rows[0] == JobPid(8207, "7", "extern", None, None)
    assert rows[1] == JobPid(8214, "7", "batch", 0, 0)
    assert rows[-1] == JobPid(8231, "7", "0", 1, 1)


@pytest.mark.parametrize(
    ("exe", "expected"),
    [
        ("/usr/bin/python3.11", True),
        ("/opt/conda/bin/python3", True),
        ("/usr/bin/python", True),
        ("/usr/bin/pypy3", True),
        ("/usr/bin/python3.12 (deleted)", True),
        ("/usr/bin/srun", False),
        ("/usr/bin/dash", False),
        ("/usr/bin/sleep", False),
        ("/usr/local/bin/python-wrapper", False),
    ],
)
def test_is_python_executable(exe: str, expected: bool) -> None:
    """Only interpreter binaries count; launchers, shells and srun do not."""
    assert is_python_executable(exe) is expected


def test_python_pids_filters_by_exe_link() -> None:
    """Rows are kept when /proc/PID/exe is an interpreter; vanished processes are dropped."""
    rows = parse_listpids((DATA / "listpids_batch_extern_step.txt").read_text())
    exes = {
        8207: "/usr/bin/sleep",
        8214: "/usr/bin/dash",
        8218: "/usr/bin/srun",
        8230: "/usr/bin/python3.11",
        8231: "/usr/bin/python3.11",
    }

    def readlink(path: str) -> str:
        pid = int(path.split("/")[2])
        if pid not in exes:
            raise FileNotFoundError(path)
        return exes[pid]

    assert [r.pid for r in python_pids(rows, readlink)] == [8230, 8231]


def test_python_pids_on_a_real_process() -> None:
    """This test's own interpreter is recognised through the real /proc link."""
    rows = [JobPid(os.getpid(), "1", "0", 0, 0)]
    assert python_pids(rows) == tuple(rows)


# --- output files held open by the job's processes ---------------------------------------


def test_output_files_of_a_real_process(tmp_path: Path) -> None:
    """A process's stderr file (fd 2) is found, its pipe stdout is not; the files it holds
    open for writing are listed, read-only ones and excluded ones are not."""
    log = tmp_path / "daemon.log"
    out = tmp_path / "task-0.err"
    reader = tmp_path / "input.txt"
    reader.write_text("x")
    code = (
        "import sys,time\n"
        f"a=open({str(log)!r},'a'); b=open({str(out)!r},'w'); c=open({str(reader)!r})\n"
        "print('ready', flush=True); time.sleep(60)\n"
    )
    with open(tmp_path / "stderr.txt", "w") as stderr:
        child = subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=stderr, text=True
        )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        assert task_output_files(child.pid) == {2: str(tmp_path / "stderr.txt")}
        found = files_open_for_writing(child.pid, exclude=[str(log)])
        assert str(out) in found
        assert str(tmp_path / "stderr.txt") in found
        assert str(log) not in found
        assert str(reader) not in found
    finally:
        child.kill()
        child.wait()


def test_output_files_of_a_vanished_process() -> None:
    """A process that is gone has no files (no exception)."""
    assert task_output_files(2**22 + 12345) == {}
    assert files_open_for_writing(2**22 + 12345) == ()


# --- scontrol runner and the process list ------------------------------------------------


def _fake_scontrol(tmp_path: Path, listpids: str, rc: int = 0, stderr: str = "") -> Path:
    script = tmp_path / "scontrol"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {tmp_path}/calls\n'
        f"cat <<'EOF'\n{listpids}EOF\n"
        f"echo '{stderr}' >&2\n"
        f"exit {rc}\n"
    )
    script.chmod(0o755)
    return script


def test_job_processes_refresh_reports_new_rows_and_rate_limits(tmp_path: Path) -> None:
    """refresh() asks listpids at most once per interval and returns only new processes."""
    text = (DATA / "listpids_batch_extern_step.txt").read_text()
    scontrol = Scontrol(executable=str(_fake_scontrol(tmp_path, text)))
    procs = JobProcesses(scontrol=scontrol, job_id="7", interval_seconds=5.0)
    first = procs.refresh(100.0)
    assert len(first) == 6
    assert procs.steps == frozenset({"extern", "batch", "0"})
    assert procs.refresh(101.0) == ()  # within the interval: no call
    assert procs.refresh(106.0) == ()  # called again, nothing new
    assert scontrol.local_calls == 2
    assert scontrol.controller_calls == 0
    assert (tmp_path / "calls").read_text().splitlines() == ["listpids 7", "listpids 7"]


def test_a_process_listed_twice_in_one_listing_is_new_once(tmp_path: Path) -> None:
    """slurmstepd may list one pid twice while it moves between steps' cgroups: refresh()
    still reports each process as new only once."""
    text = (DATA / "listpids_batch_extern_step.txt").read_text()
    lines = text.splitlines(keepends=True)
    doubled = "".join([*lines, lines[-1]])  # the last process listed a second time
    procs = JobProcesses(scontrol=Scontrol(executable=str(_fake_scontrol(tmp_path, doubled))),
                         job_id="7")
    first = procs.refresh(100.0)
    assert len(first) == len({row.pid for row in first}) == 6


def test_listpids_before_any_step_is_empty(tmp_path: Path) -> None:
    """'There are no steps for job' (no step on this node yet) is an empty list, not an error."""
    script = _fake_scontrol(
        tmp_path,
        "PID JOBID STEPID LOCALID GLOBALID\n",
        1,
        "There are no steps for job 9 on node (null).",
    )
    assert Scontrol(executable=str(script)).listpids("9") == ()
    script = _fake_scontrol(tmp_path, "", 1, "JobId=9 does not exist on node (null).")
    assert Scontrol(executable=str(script)).listpids("9") == ()


def test_scontrol_failure_and_absence_are_bounded_errors(tmp_path: Path) -> None:
    """A failing or missing scontrol raises SlurmError with a reason usable as a label."""
    script = _fake_scontrol(tmp_path, "", 1, "slurm_load_jobs error: Invalid job id")
    with pytest.raises(SlurmError) as info:
        Scontrol(executable=str(script)).show_job("9")
    assert info.value.reason == "scontrol_failed"
    assert "Invalid job id" in str(info.value)
    with pytest.raises(SlurmError) as missing:
        Scontrol(executable=str(tmp_path / "absent")).show_job("9")
    assert missing.value.reason == "scontrol_missing"


def test_show_job_counts_as_a_controller_call(tmp_path: Path) -> None:
    """show job is the one call that reaches slurmctld, and it is counted."""
    script = _fake_scontrol(tmp_path, "JobId=9 JobName=x UserId=u(1) BatchHost=n1\n")
    scontrol = Scontrol(executable=str(script))
    assert scontrol.show_job("9").job_name == "x"
    assert scontrol.controller_calls == 1


# --- what to watch on this node -------------------------------------------------------------


def _view_rows() -> list[JobPid]:
    return parse_listpids((DATA / "listpids_batch_extern_step.txt").read_text())


EXES = {
    8207: "/usr/bin/sleep",
    8214: "/usr/bin/dash",
    8218: "/usr/bin/srun",
    8215: "/usr/bin/srun",
    8230: "/usr/bin/python3.11",
    8231: "/usr/bin/python3.11",
}


def _readlink(path: str) -> str:
    return EXES[int(path.split("/")[2])]


def test_node_view_combines_batch_task_and_srun_files() -> None:
    """Ranks are the step's Python tasks; files are the batch output (on the batch host),
    each task's own file, and srun's shared step file, each once."""
    ctx = _ctx(job_id="7", node_name="vm", nodes=("vm",), work_dir="/w", stdout_pattern="b.out")
    details = parse_show_job("JobId=7 JobName=lp BatchHost=vm WorkDir=/w")
    task_files = {8230: {2: "/w/task-7-00.err"}, 8231: {2: "/w/task-7-01.err", 1: "/w/b.out"}}
    srun_files = {8218: ("/w/shared-7.err",), 8215: ()}

    view = node_view(
        ctx,
        details,
        _view_rows(),
        hostname="vm",
        readlink=_readlink,
        task_files=lambda pid: task_files.get(pid, {}),
        open_files=lambda pid, exclude: tuple(
            p for p in srun_files.get(pid, ()) if p not in set(exclude)
        ),
    )
    assert [r.pid for r in view.ranks] == [8230, 8231]
    assert view.files == (
        OutputFile("/w/b.out", "batch", "stderr", "batch"),
        OutputFile("/w/task-7-00.err", "task", "stderr", "0", 0),
        OutputFile("/w/task-7-01.err", "task", "stderr", "0", 1),
        OutputFile("/w/shared-7.err", "srun", "output", "batch"),
    )


def test_node_view_on_a_node_without_the_batch_script() -> None:
    """Elsewhere than the batch host only the tasks' own files are followed; a batch script
    running Python directly makes that process the rank."""
    ctx = _ctx(job_id="7", node_name="gpu02", stderr_pattern="e.err")
    details = parse_show_job("JobId=7 BatchHost=gpu01")
    rows = [JobPid(100, "7", "batch", 0, 0), JobPid(101, "7", "extern", None, None)]
    view = node_view(
        ctx,
        details,
        rows,
        hostname="gpu02",
        readlink=lambda path: "/usr/bin/python3" if "/100/" in path else "/usr/bin/sleep",
        task_files=lambda pid: {},
        open_files=lambda pid, exclude: ("/never.err",),
    )
    assert view == NodeView(ranks=(rows[0],), files=())
    shared = node_view(
        ctx,
        details,
        rows,
        hostname="gpu02",
        follow_shared_output=True,
        readlink=lambda path: "/usr/bin/sleep",
        task_files=lambda pid: {},
        open_files=lambda pid, exclude: ("/never.err",),
    )
    assert shared.files == (
        OutputFile("/home/alice/run/e.err", "batch", "stderr", "batch"),
        OutputFile("/home/alice/run/slurm-7.out", "batch", "stdout", "batch"),
    )
