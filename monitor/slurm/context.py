"""Job context from SLURM: the prolog environment, host lists, output file patterns and the
job's processes on this node.

Pure functions over text and mappings, plus one small I/O class (`Scontrol`) that runs the
`scontrol` client with a deadline. Cost to the cluster matters: `scontrol show job` talks to
slurmctld, so it is called once per job (plus at most a retry); `scontrol listpids` only asks the
local slurmstepd daemons and may be repeated to notice steps as they start.

Facts this module relies on (Slurm 22.05 to 24.x, measured on 22.05.8):

* the slurmd Prolog and Epilog get `SLURM_JOB_ID`, `SLURM_JOB_USER`, `SLURM_JOB_UID`,
  `SLURM_JOB_GID`, `SLURMD_NODENAME`, `SLURM_JOB_WORK_DIR`, `SLURM_NODELIST` (22.05) or
  `SLURM_JOB_NODELIST` (23.02.6+), and, for batch jobs only, `SLURM_JOB_STDOUT` /
  `SLURM_JOB_STDERR` holding the *unexpanded* pattern (absent when the job did not set it);
* the job name and array ids are not in that environment; `scontrol show job` has them;
* slurmstepd writes per-task output files itself, so a task's fd 2 is a pipe and the files are
  open in the step's slurmstepd (the task's parent).
"""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import product
from pathlib import PurePosixPath

from monitor.errors import RankwatchError

# The array task id Slurm puts in %a for a job that is not part of an array (NO_VAL).
NOT_AN_ARRAY_TASK = 4294967294
# Zero padding is capped at this width, like slurmstepd does.
MAX_PAD_WIDTH = 10
BATCH_STEP = "batch"


class SlurmError(RankwatchError):
    """A SLURM fact could not be read or parsed. `reason` is a bounded label value."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)


# ---------------------------------------------------------------------------------------
# Host lists


def expand_hostlist(hostlist: str) -> tuple[str, ...]:
    """Expand a Slurm host list: `gpu[001-004,010],cpu7` -> gpu001 … gpu004, gpu010, cpu7.

    Ranges keep the zero padding of their first bound; several bracket groups in one name
    expand as a cartesian product (`r[1-2]n[1-2]`). Order is preserved, which is the order of
    node indices (`SLURM_NODEID`, `%n`).
    """
    text = hostlist.strip()
    if text in ("", "(null)"):
        return ()
    names: list[str] = []
    for item in _split_top_level(text):
        names.extend(_expand_host(item))
    return tuple(names)


def _split_top_level(text: str) -> list[str]:
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "[":
            depth += 1
            if depth > 1:
                raise SlurmError("bad_hostlist", f"nested '[' in host list {text!r}")
        elif char == "]":
            depth -= 1
            if depth < 0:
                raise SlurmError("bad_hostlist", f"unbalanced ']' in host list {text!r}")
        elif char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise SlurmError("bad_hostlist", f"unbalanced '[' in host list {text!r}")
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


_BRACKET = re.compile(r"\[([^\]]*)\]")


def _expand_host(item: str) -> list[str]:
    literals = _BRACKET.split(item)
    # split() alternates literal text and bracket contents: lit, group, lit, group, ..., lit
    choices: list[list[str]] = []
    for index, part in enumerate(literals):
        choices.append(_expand_ranges(part, item) if index % 2 else [part])
    return ["".join(combo) for combo in product(*choices)]


def _expand_ranges(spec: str, item: str) -> list[str]:
    values: list[str] = []
    for chunk in spec.split(","):
        chunk = chunk.strip()
        low, sep, high = chunk.partition("-")
        if not low.isdigit() or (sep and not high.isdigit()):
            raise SlurmError("bad_hostlist", f"bad range {chunk!r} in host name {item!r}")
        if not sep:
            values.append(low)
            continue
        first, last = int(low), int(high)
        if last < first:
            raise SlurmError("bad_hostlist", f"descending range {chunk!r} in {item!r}")
        width = len(low)
        values.extend(str(n).zfill(width) for n in range(first, last + 1))
    return values


def node_index(nodes: Sequence[str], node_name: str) -> int | None:
    """Index of this node in the job's node list (`%n`, `SLURM_NODEID`); None when absent."""
    try:
        return nodes.index(node_name)
    except ValueError:
        short = node_name.split(".", 1)[0]
        for i, name in enumerate(nodes):
            if name.split(".", 1)[0] == short:
                return i
        return None


# ---------------------------------------------------------------------------------------
# The prolog environment


@dataclass(frozen=True)
class SlurmContext:
    """What the slurmd Prolog tells us about the job on this node (no slurmctld round trip)."""

    job_id: str
    user: str
    uid: int | None
    gid: int | None
    node_name: str
    nodes: tuple[str, ...]
    node_index: int | None
    work_dir: str
    stdout_pattern: str | None
    stderr_pattern: str | None
    cluster: str = ""
    partition: str = ""

    @property
    def is_batch(self) -> bool:
        """Only batch jobs carry output patterns in the prolog environment."""
        return self.stdout_pattern is not None or self.stderr_pattern is not None

    @classmethod
    def from_env(cls, env: Mapping[str, str], job_id: str | None = None) -> SlurmContext:
        """Read the prolog environment; `job_id` (from `--slurm-job`) must agree with it.

        Raises SlurmError listing every missing variable at once.
        """
        env_job = env.get("SLURM_JOB_ID") or env.get("SLURM_JOBID") or ""
        wanted = job_id or env_job
        problems = []
        if not wanted:
            problems.append("SLURM_JOB_ID is not set and no job id was given")
        elif env_job and env_job != wanted:
            problems.append(f"SLURM_JOB_ID={env_job} but job {wanted} was asked for")
        nodelist = env.get("SLURM_JOB_NODELIST") or env.get("SLURM_NODELIST") or ""
        node_name = env.get("SLURMD_NODENAME") or ""
        for var, value in (
            ("SLURM_JOB_USER", env.get("SLURM_JOB_USER")),
            ("SLURMD_NODENAME", node_name),
            ("SLURM_JOB_NODELIST or SLURM_NODELIST", nodelist),
        ):
            if not value:
                problems.append(f"{var} is not set")
        if problems:
            raise SlurmError("missing_env", "; ".join(problems))
        nodes = expand_hostlist(nodelist)
        return cls(
            job_id=wanted,
            user=env["SLURM_JOB_USER"],
            uid=_int_or_none(env.get("SLURM_JOB_UID")),
            gid=_int_or_none(env.get("SLURM_JOB_GID")),
            node_name=node_name,
            nodes=nodes,
            node_index=node_index(nodes, node_name),
            work_dir=env.get("SLURM_JOB_WORK_DIR") or "",
            stdout_pattern=env.get("SLURM_JOB_STDOUT") or None,
            stderr_pattern=env.get("SLURM_JOB_STDERR") or None,
            cluster=env.get("SLURM_CLUSTER_NAME", ""),
            partition=env.get("SLURM_JOB_PARTITION", ""),
        )


def _int_or_none(text: str | None) -> int | None:
    try:
        return int(text) if text not in (None, "") else None
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------
# `scontrol show job -o ID`


@dataclass(frozen=True)
class JobDetails:
    """The fields of `scontrol show job` that the prolog environment lacks."""

    job_id: str
    job_name: str = ""
    user: str = ""
    array_job_id: int | None = None
    array_task_id: int | None = None
    batch_host: str = ""
    nodes: tuple[str, ...] = ()
    num_tasks: int | None = None
    state: str = ""
    work_dir: str = ""
    std_err: str = ""
    std_out: str = ""


# A key starts a new field only after a space: `Key=value with spaces Key2=...`.
_FIELD = re.compile(r"(?:^|\s)([A-Za-z][A-Za-z0-9_:/]*)=")


def parse_show_job(text: str, job_id: str | None = None) -> JobDetails:
    """Parse `scontrol show job -o ID` (or the multi-line form).

    An array's master id lists every task of the array, one record each; `job_id` picks the
    record whose JobId matches (default: the first).
    """
    records: list[dict[str, str]] = []
    for chunk in re.split(r"(?m)^(?=\s*JobId=)", text):
        if chunk.strip():
            records.append(_fields(chunk))
    records = [r for r in records if "JobId" in r]
    if not records:
        raise SlurmError("bad_scontrol_output", f"no JobId in scontrol output: {text[:200]!r}")
    fields = next((r for r in records if r["JobId"] == job_id), records[0])
    user = fields.get("UserId", "")
    return JobDetails(
        job_id=fields["JobId"],
        job_name=fields.get("JobName", ""),
        user=user.split("(", 1)[0],
        array_job_id=_int_or_none(fields.get("ArrayJobId")),
        array_task_id=_int_or_none(fields.get("ArrayTaskId")),
        batch_host=_none_empty(fields.get("BatchHost", "")),
        nodes=expand_hostlist(_none_empty(fields.get("NodeList", ""))),
        num_tasks=_int_or_none(fields.get("NumTasks")),
        state=fields.get("JobState", ""),
        work_dir=_none_empty(fields.get("WorkDir", "")),
        std_err=_none_empty(fields.get("StdErr", "")),
        std_out=_none_empty(fields.get("StdOut", "")),
    )


def _fields(record: str) -> dict[str, str]:
    stripped = record.strip()
    matches = list(_FIELD.finditer(stripped))
    fields: dict[str, str] = {}
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(stripped)
        fields.setdefault(match.group(1), stripped[match.end() : end].strip())
    return fields


def _none_empty(value: str) -> str:
    return "" if value in ("(null)", "None") else value


# ---------------------------------------------------------------------------------------
# Output file patterns (sbatch/srun "filename pattern")


@dataclass(frozen=True)
class PatternFields:
    """Values substituted into an output file pattern.

    `node_name` is the short host name of the node writing the file (what slurmstepd uses for
    %N); `step` is "batch" for the batch script's output or a step number.
    """

    job_id: int
    user: str
    job_name: str = ""
    array_job_id: int | None = None
    array_task_id: int | None = None
    step: str = BATCH_STEP
    node_name: str = ""
    node_index: int = 0
    task_id: int = 0


def has_escape(pattern: str) -> bool:
    """A backslash anywhere in the pattern disables every substitution."""
    return "\\" in pattern


def expand_pattern(pattern: str, fields: PatternFields, work_dir: str = "") -> str:
    """Expand an output pattern the way slurmstepd names the file, relative to `work_dir`.

    `%%` is `%`; `%A` array master id (the job id outside arrays); `%a` array index
    (4294967294 outside arrays, as Slurm writes it); `%J` job id, plus `.step` for a step;
    `%j` job id; `%N` short host name; `%n` node index; `%s` step ("batch" for the batch
    script); `%t` task id; `%u` user; `%x` job name. A width like `%4j` zero-pads numbers (at
    most 10). Unknown letters are kept as they are. Any backslash disables expansion and is
    removed (a doubled one stays as one).
    """
    expanded = _unescape(pattern) if has_escape(pattern) else _substitute(pattern, fields)
    return _absolute(expanded, work_dir)


def _absolute(path: str, work_dir: str) -> str:
    if path.startswith("/") or not work_dir:
        return path
    return str(PurePosixPath(work_dir) / path)


def _unescape(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "\\":
            if i + 1 < len(pattern) and pattern[i + 1] == "\\":
                out.append("\\")
                i += 2
            else:
                i += 1
            continue
        out.append(pattern[i])
        i += 1
    return "".join(out)


_SPEC = re.compile(r"%(%|(\d*)([A-Za-z]?))")


def _substitute(pattern: str, fields: PatternFields) -> str:
    def replace_spec(match: re.Match[str]) -> str:
        if match.group(1) == "%":
            return "%"
        digits, letter = match.group(2), match.group(3)
        width = min(int(digits), MAX_PAD_WIDTH) if digits else 0
        value = _letter_value(letter, fields, width)
        if value is not None:
            return value
        if digits:  # slurmstepd drops the % and all but the last digit of an unknown spec
            return digits[-1] + letter
        return "%" + letter

    return _SPEC.sub(replace_spec, pattern)


def _letter_value(letter: str, f: PatternFields, width: int) -> str | None:
    def num(value: int) -> str:
        return str(value).zfill(width)

    if letter == "j":
        return num(f.job_id)
    if letter == "J":
        return num(f.job_id) if f.step == BATCH_STEP else f"{num(f.job_id)}.{f.step}"
    if letter == "A":
        return num(f.array_job_id if f.array_job_id is not None else f.job_id)
    if letter == "a":
        return num(f.array_task_id if f.array_task_id is not None else NOT_AN_ARRAY_TASK)
    if letter == "s":
        return f.step if not f.step.isdigit() else num(int(f.step))
    if letter == "t":
        return num(f.task_id)
    if letter == "n":
        return num(f.node_index)
    if letter == "N":
        return f.node_name
    if letter == "u":
        return f.user
    if letter == "x":
        return f.job_name
    return None


PER_TASK_LETTERS = frozenset("t")
PER_NODE_LETTERS = frozenset("Nn")


def pattern_letters(pattern: str) -> frozenset[str]:
    """The substitution letters a pattern uses (none when a backslash disables them)."""
    if has_escape(pattern):
        return frozenset()
    return frozenset(m.group(3) for m in _SPEC.finditer(pattern) if m.group(1) != "%")


def is_single_task_io(pattern: str) -> bool:
    """`srun --error=3`: only task 3's output goes to srun; no file is written for it."""
    return pattern.isdigit()


def default_output_pattern(is_array: bool) -> str:
    """Where a batch job's output goes when it gave neither --output nor --error."""
    return "slurm-%A_%a.out" if is_array else "slurm-%j.out"


def files_for_tasks(
    pattern: str, fields: PatternFields, task_ids: Iterable[int], work_dir: str = ""
) -> dict[str, tuple[int, ...]]:
    """Map each distinct file a pattern names for these tasks to the tasks writing it.

    A pattern with `%t` gives one file per task; without it every task shares one file (the
    lines then need another way to tell ranks apart, e.g. `srun --label`).
    """
    if is_single_task_io(pattern):
        return {}
    files: dict[str, list[int]] = {}
    for task in sorted(set(task_ids)):
        path = expand_pattern(pattern, replace(fields, task_id=task), work_dir)
        files.setdefault(path, []).append(task)
    return {path: tuple(tasks) for path, tasks in files.items()}


@dataclass(frozen=True)
class BatchOutput:
    """The batch script's output files, as slurmstepd on the batch host names them.

    `stderr_path == stdout_path` when the job did not separate them (`shared` is then True).
    `local` says whether this node is the batch host (the file is written here; elsewhere it
    is visible only on a shared file system).
    """

    stderr_path: str
    stdout_path: str
    local: bool

    @property
    def shared(self) -> bool:
        return self.stderr_path == self.stdout_path


def batch_output(
    ctx: SlurmContext, details: JobDetails | None, batch_host_short_name: str
) -> BatchOutput | None:
    """Expand the batch step's stdout/stderr patterns; None for a job without a batch script.

    `details` (from one `scontrol show job`) supplies the job name and array ids; without it
    `%x` expands to "" and the job is taken not to be an array.
    """
    if not ctx.is_batch and details is None:
        return None
    is_array = details is not None and details.array_task_id is not None
    fields = PatternFields(
        job_id=int(ctx.job_id),
        user=ctx.user,
        job_name=details.job_name if details else "",
        array_job_id=details.array_job_id if details else None,
        array_task_id=details.array_task_id if details else None,
        step=BATCH_STEP,
        node_name=batch_host_short_name,
        node_index=0,
        task_id=0,
    )
    default = default_output_pattern(is_array)
    stdout_pattern = ctx.stdout_pattern or default
    stderr_pattern = ctx.stderr_pattern or stdout_pattern
    work_dir = ctx.work_dir or (details.work_dir if details else "")
    is_batch_host = (
        details is None
        or not details.batch_host
        or (details.batch_host.split(".", 1)[0] == ctx.node_name.split(".", 1)[0])
    )
    return BatchOutput(
        stderr_path=expand_pattern(stderr_pattern, fields, work_dir),
        stdout_path=expand_pattern(stdout_pattern, fields, work_dir),
        local=is_batch_host,
    )


def short_hostname() -> str:
    """What slurmstepd substitutes for %N on this node."""
    return socket.gethostname().split(".", 1)[0]


# ---------------------------------------------------------------------------------------
# `scontrol listpids`


@dataclass(frozen=True)
class JobPid:
    """One row of `scontrol listpids`: a process of the job on this node."""

    pid: int
    job_id: str
    step: str  # "batch", "extern", "interactive" or a step number
    local_id: int | None
    global_id: int | None  # the task id (rank of the launcher's task) when it is a task


def parse_listpids(text: str) -> tuple[JobPid, ...]:
    """Parse `scontrol listpids` (`PID JOBID STEPID LOCALID GLOBALID`); `-1` rows are skipped."""
    rows = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 5 or parts[0] == "PID":
            continue
        try:
            pid = int(parts[0])
        except ValueError:
            continue
        if pid <= 0:
            continue
        rows.append(
            JobPid(
                pid=pid,
                job_id=parts[1],
                step=parts[2],
                local_id=_int_or_none(parts[3].replace("-", "")),
                global_id=_int_or_none(parts[4].replace("-", "")),
            )
        )
    return tuple(rows)


_PYTHON_NAME = re.compile(r"^(python|pypy)(\d+(\.\d+)*)?[a-z]?$")


def is_python_executable(exe_path: str) -> bool:
    """True for a CPython/PyPy interpreter binary (`python3.11`, `python3`, `pypy3`)."""
    name = os.path.basename(exe_path.removesuffix(" (deleted)"))
    return bool(_PYTHON_NAME.match(name))


def python_pids(
    rows: Iterable[JobPid], readlink: Callable[[str], str] = os.readlink
) -> tuple[JobPid, ...]:
    """The rows whose process runs a Python interpreter (`readlink /proc/PID/exe`).

    Processes that vanished or whose exe cannot be read are left out: py-spy could not dump
    them either.
    """
    found = []
    for row in rows:
        try:
            exe = readlink(f"/proc/{row.pid}/exe")
        except OSError:
            continue
        if is_python_executable(exe):
            found.append(row)
    return tuple(found)


# ---------------------------------------------------------------------------------------
# Output files held open by the job's processes
#
# Where a task's output goes depends on the pattern (measured on 22.05): with a per-task
# `srun --error=...%t...` slurmstepd opens the file and hands it to the task as its fd 2, so
# /proc/PID/fd/2 names it; otherwise fd 2 is a pipe to slurmstepd, which forwards the lines to
# srun on the batch host, and srun writes them to its own --error file (opened by srun) or to
# its stderr (the batch script's output file).


def task_output_files(pid: int, proc: str = "/proc") -> dict[int, str]:
    """The regular files a task writes its stdout (1) and stderr (2) to; pipes are left out."""
    found: dict[int, str] = {}
    for fd in (1, 2):
        try:
            target = os.readlink(f"{proc}/{pid}/fd/{fd}")
            if target.startswith("/") and stat.S_ISREG(os.stat(f"{proc}/{pid}/fd/{fd}").st_mode):
                found[fd] = target
        except OSError:
            continue
    return found


def files_open_for_writing(
    pid: int,
    exclude: Iterable[str] = (),
    proc: str = "/proc",
) -> tuple[str, ...]:
    """Regular files a process holds open for writing, e.g. the `--error` file srun writes
    for all tasks of a step. `exclude` drops known files (the process's own log, the batch
    output it inherited)."""
    excluded = set(exclude)
    fd_dir = f"{proc}/{pid}/fd"
    try:
        names = os.listdir(fd_dir)
    except OSError:
        return ()
    found: list[str] = []
    for name in sorted(names, key=lambda n: int(n) if n.isdigit() else -1):
        try:
            target = os.readlink(f"{fd_dir}/{name}")
            if not target.startswith("/") or target in excluded or target in found:
                continue
            if not _opened_for_writing(f"{proc}/{pid}/fdinfo/{name}"):
                continue
            if not stat.S_ISREG(os.stat(f"{fd_dir}/{name}").st_mode):
                continue
        except OSError:
            continue
        found.append(target)
    return tuple(found)


def _opened_for_writing(fdinfo_path: str) -> bool:
    with open(fdinfo_path, encoding="ascii", errors="replace") as handle:
        for line in handle:
            if line.startswith("flags:"):
                flags = int(line.split()[1], 8)
                return bool(flags & (os.O_WRONLY | os.O_RDWR))
    return False


# ---------------------------------------------------------------------------------------
# Running scontrol


@dataclass
class Scontrol:
    """Runs `scontrol` with a deadline and counts the calls that reach slurmctld.

    `show job` goes to slurmctld: call it once per job. `listpids` reads the local slurmstepd
    sockets only.
    """

    executable: str = "scontrol"
    timeout_seconds: float = 10.0
    env: Mapping[str, str] | None = None
    controller_calls: int = 0
    local_calls: int = 0

    def show_job(self, job_id: str) -> JobDetails:
        self.controller_calls += 1
        return parse_show_job(self._run(["show", "job", "-o", job_id]), job_id)

    def listpids(self, job_id: str) -> tuple[JobPid, ...]:
        self.local_calls += 1
        try:
            return parse_listpids(self._run(["listpids", job_id]))
        except SlurmError as exc:
            text = str(exc).lower()
            if exc.reason == "scontrol_failed" and (
                "no steps" in text or "does not exist on node" in text
            ):
                return ()  # no step of the job has started on this node (yet, or any more)
            raise

    def _run(self, args: list[str]) -> str:
        try:
            done = subprocess.run(
                [self.executable, *args],
                capture_output=True,
                text=True,
                timeout=self.timeout_seconds,
                env=dict(self.env) if self.env is not None else None,
                check=False,
            )
        except FileNotFoundError as exc:
            raise SlurmError("scontrol_missing", f"{self.executable}: not found") from exc
        except subprocess.TimeoutExpired as exc:
            raise SlurmError(
                "scontrol_timeout", f"scontrol {' '.join(args)} took over {self.timeout_seconds}s"
            ) from exc
        except OSError as exc:
            raise SlurmError("scontrol_failed", f"scontrol {args[0]}: {exc}") from exc
        if done.returncode != 0:
            message = (done.stderr or done.stdout).strip()[:300]
            raise SlurmError("scontrol_failed", f"scontrol {' '.join(args)}: {message}")
        return done.stdout


@dataclass
class JobProcesses:
    """The job's processes on this node, refreshed from `scontrol listpids` as steps start.

    `refresh(now)` asks the local slurmstepds at most every `interval_seconds` and returns the
    rows that are new since the last call; slurmctld is never contacted here.
    """

    scontrol: Scontrol
    job_id: str
    interval_seconds: float = 5.0
    readlink: Callable[[str], str] = os.readlink
    rows: tuple[JobPid, ...] = ()
    steps: frozenset[str] = frozenset()
    _seen: set[int] = field(default_factory=set)
    _next_at: float = float("-inf")

    def refresh(self, now: float, force: bool = False) -> tuple[JobPid, ...]:
        if not force and now < self._next_at:
            return ()
        self._next_at = now + self.interval_seconds
        self.rows = self.scontrol.listpids(self.job_id)
        self.steps = frozenset(row.step for row in self.rows)
        fresh: list[JobPid] = []
        for row in self.rows:
            # once per process, also when one listing names it twice (a process that moved
            # between steps' cgroups while slurmstepd listed them)
            if row.pid not in self._seen:
                self._seen.add(row.pid)
                fresh.append(row)
        return tuple(fresh)

    def python_tasks(self) -> tuple[JobPid, ...]:
        """Python interpreters among the job's processes: the candidates for ranks."""
        return python_pids(self.rows, self.readlink)


# ---------------------------------------------------------------------------------------
# What to watch on this node


@dataclass(frozen=True)
class OutputFile:
    """A file the job's output lands in, as seen from this node.

    origin: "batch" — the batch script's stdout/stderr (srun forwards every task's lines here
    unless a step has its own --output/--error); "task" — one task's own file (`%t` in the
    pattern), written on this node; "srun" — a step's --output/--error file without `%t`,
    written by srun on the batch host for all of the step's tasks.
    """

    path: str
    origin: str
    stream: str  # "stdout", "stderr", or "output" when it cannot be told (srun's files)
    step: str
    task_id: int | None = None


@dataclass(frozen=True)
class NodeView:
    """The job's ranks on this node and the output files to follow, at one moment."""

    ranks: tuple[JobPid, ...]
    files: tuple[OutputFile, ...]


NON_TASK_STEPS = frozenset({BATCH_STEP, "extern", "interactive"})


def node_view(
    ctx: SlurmContext,
    details: JobDetails | None,
    rows: Sequence[JobPid],
    *,
    hostname: str | None = None,
    follow_shared_output: bool = False,
    readlink: Callable[[str], str] = os.readlink,
    task_files: Callable[[int], dict[int, str]] = task_output_files,
    open_files: Callable[[int, Iterable[str]], tuple[str, ...]] = files_open_for_writing,
) -> NodeView:
    """Combine the prolog context, one `scontrol show job` and `scontrol listpids` rows.

    Ranks are the Python processes among the tasks of job steps; when no step runs Python
    (the batch script runs `python train.py` itself), the batch step's Python processes.
    The batch output is followed on the batch host, and elsewhere only with
    `follow_shared_output` (a shared file system shows it on every node).
    """
    pythons = python_pids(rows, readlink)
    ranks = tuple(r for r in pythons if r.step not in NON_TASK_STEPS)
    if not ranks:
        ranks = tuple(r for r in pythons if r.step == BATCH_STEP)
    files: dict[str, OutputFile] = {}
    batch = batch_output(ctx, details, hostname or short_hostname())
    batch_paths: list[str] = []
    if batch is not None and (batch.local or follow_shared_output):
        for stream, path in (("stderr", batch.stderr_path), ("stdout", batch.stdout_path)):
            files.setdefault(path, OutputFile(path, "batch", stream, BATCH_STEP))
            batch_paths.append(path)
    for rank in ranks:
        for fd, path in sorted(task_files(rank.pid).items(), reverse=True):
            stream = "stderr" if fd == 2 else "stdout"
            files.setdefault(path, OutputFile(path, "task", stream, rank.step, rank.global_id))
    if batch is not None and batch.local:
        for row in rows:
            if row.step == BATCH_STEP and row not in pythons:
                for path in open_files(row.pid, batch_paths):
                    files.setdefault(path, OutputFile(path, "srun", "output", BATCH_STEP))
    return NodeView(ranks=ranks, files=tuple(files.values()))
