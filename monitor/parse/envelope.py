"""The line envelope: what wraps a training job's log line before its payload.

One physical line can carry, outermost first: a log shipper's timestamp, a launcher's tag
(pdsh host, `mpirun --tag-output`, torchrun `--tee`, Ray actor, `srun --label`), the c10 rank
prefix `[rankN]:` and finally the payload. tqdm bars written with `\\r` and no newline end up
glued in front of the next log line, so the rank anchor is searched anywhere in the line, not
only at column 0.

Two entry points:

* `line_rank(text) -> int | None`: the global rank a line is attributed to, for every line of
  the live stream. Cheap substring pre-checks come before any regular expression, so a line
  without a prefix costs two substring searches.
* `split_envelope(text, ...) -> Envelope`: everything the envelope says (global rank, local rank,
  srun task, host, the prefixes seen, a shipper timestamp, a glued progress bar) and the payload.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# `[rank3]:` (c10 logging, 2.2+) and `[rank3]: ` (Python excepthook, 2.3+).
_RANK_AT = re.compile(r"\[rank(\d+)\]: ?")
# `[1,0]<stderr>:` from OpenMPI's --tag-output; the second number is the MPI world rank.
# horovodrun's gloo launcher tags with the rank alone: `[3]<stderr>:`.
# SageMaker's mpirun adds the rank's name and its host: `[1,mpirank:3,algo-2]<stdout>:`.
_MPIRUN = re.compile(r"\[(?:(\d+),)?(?:mpirank:)?(\d+)(?:,([\w.-]+))?\]<(?:stdout|stderr|stddiag)>: ?")
# torchrun --tee / --redirects: `[default3]:` (role name + local rank); not MPICH 3's ch3
# client (`[cli_4]: aborting job:`), which names an MPI rank
_TORCHRUN = re.compile(r"\[(?!cli_\d+\])([A-Za-z_]+?)(\d+)\]: ?")
# accelerate multi-node: `[alphagpu12:5]:` (host + local rank).
_HOST_LOCAL = re.compile(r"\[([\w.\-]+):(\d+)\]: ?")
# A reporter's viewer numbered the lines: `[1784] `.
_LINE_NUMBER = re.compile(r"\[\d{1,9}\] ")
# Bracketed date-time: NCCL >= 2.26 WARN lines, srun-forwarded slurmstepd lines, torch 2.1-2.2
# Python logging (`[2024-03-18 17:38:50,208] torch.distributed...`).
_BRACKET_DATE = re.compile(
    r"\[(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)\] "
)
# SGLang's logger: the date, then the engine process's parallel indices (`[2025-02-21 22:59:28
# TP0] `, `[… DP1 TP3] `, `[… TP0 EP0] `): which of the server's processes wrote the line.
_ENGINE_TAG = re.compile(
    r"\[(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?) ((?:(?:DP|TP|PP|EP|CP)\d+ ?)+)\] "
)
# Airflow's relay of a task's own output, logged at INFO whatever the line says: BashOperator's
# `{subprocess.py:93} INFO - `, KubernetesPodOperator's `{pod_manager.py:466} INFO - [base] `,
# a print captured by `{logging_mixin.py:188} INFO - `, DockerOperator's
_AIRFLOW = re.compile(
    r"\[(\d{4}-\d\d-\d\d,? \d\d:\d\d:\d\d(?:[.,]\d+)?(?: ?(?:UTC|[+-]\d\d:?\d\d))?)\] "
    r"\{(?:subprocess|pod_manager|logging_mixin|docker)\.py:\d+\} [A-Z]+ - (?:\[base\] )?"
)
# dmesg uptime stamp: `[  1843.308145] `.
_DMESG = re.compile(r"\[\s*\d+\.\d+\] ")
# `dmesg -T`'s wall-clock stamp, ctime's form: `[Sun Nov 29 03:58:12 2026] `.
_DMESG_CTIME = re.compile(r"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?P<mon>[A-Z][a-z]{2}) +(?P<day>\d{1,2}) "
                          r"(?P<clock>\d\d:\d\d:\d\d) (?P<year>\d{4})\] ")
_WEEKDAYS = frozenset(("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"))
_MONTHS = {name: number for number, name in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
# Shipper date prefix: `2026-09-18 19:29:24 ` or ISO `2024-08-23T22:22:51.871Z `; mpirun
# --timestamp-output writes `2019-06-02T16:13:44.884Z: `.
_DATE = re.compile(
    r"(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?):?"
    # a log viewer's copy: the stamp then a tab (Grafana's and Loki's table), or the stamp
    # with its zone's name (`2024-05-01 12:00:00.123 UTC`, Google Cloud Logging's)
    r"(?: UTC)?[ \t]"
)
# Google Cloud's stream of a training job's logs (`gcloud ai custom-jobs stream-logs`, its
# AI Platform forebear): the severity, the time, then the replica that wrote the line
# (`ERROR 2023-02-07T10:23:09.441Z workerpool1-1 `, `INFO 2019-03-11 14:02:31 master-replica-0 `;
# `service` is the platform's own voice)
_GCLOUD_REPLICA = re.compile(r"(?:DEFAULT|DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL|ALERT) "
                             r"(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?Z?) "
                             r"((?:workerpool\d+|master-replica|worker-replica|ps-replica|"
                             r"evaluator-replica)-\d+|service) ")
# stern's pod and container names, each in its colour, before a pod's line
_STERN = re.compile(r"\x1b\[[\d;]*m[\w.-]+\x1b\[0m \x1b\[[\d;]*m[\w.-]+\x1b\[0m ")
# journald's host and program after `journalctl -o short-iso`'s time (`2024-05-14T15:10:00+0000
# gpu-node-14 python[2211]: `): only where a program with its pid, or the kernel, follows
_JOURNALD_ISO = re.compile(r"([\w.\-]+) (?=kernel: |[\w.\-/@]{1,40}\[\d+\]: )"
                           r"(?:(?!kernel\b)[\w.\-/@]{1,40}\[\d+\]: )?")
# a log stream's name as `aws logs tail` prints it after the event's time (`group/stream`)
_LOG_STREAM = re.compile(r"[A-Za-z0-9][\w.-]*/[\w./-]+ ")
# CloudWatch export: `  | 2024-08-23T22:22:51.871Z | `.
_CLOUDWATCH = re.compile(r"\s*\|\s*(\d{4}-\d\d-\d\dT[\d:.]+Z?)\s*\|\s?")
# journald: `Mar 18 17:38:50 gpu017 kernel: `.
_JOURNALD = re.compile(r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d ([\w.\-]+) "
                       # a program's own lines carry its name and pid (`python[7731]: `): the
                       # job's output, stripped of them; the kernel's keep their `kernel: `
                       r"(?:(?!kernel\b)[\w.\-/]{1,40}\[\d+\]: )?")
# pdsh / DeepSpeed multi-node runner with an IPv4 host: `202.197.0.170: `.
_IPV4_HOST = re.compile(r"(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}): ")
# pdsh with a host name (only when the job is known to use it: ambiguous with `srun: error:`).
_NAME_HOST = re.compile(r"([\w.\-]+): ")
# srun --label (only when enabled: ambiguous with payloads starting with a number).
_SRUN_LABEL = re.compile(r"\s*(\d+): ")
# Ray actor prefix: `(WorkerDict pid=231421, ip=10.0.0.3) `; vLLM's worker processes use its
# shape with their tensor-parallel index (`(VllmWorker rank=3 pid=268) `, `(VllmWorker TP3
# pid=268) `): an index inside the engine, never a job's rank.
# An actor's or task's name may be one it was given (`model_worker/12`) or Ray Data's operator
# with its class (`MapBatches(Tokenize)`); Ray before 1.0 gave none (`(pid=15183) `).
# An actor whose `__repr__` Ray prints in its place may state its torch.distributed rank
# (NeMo-RL's policy workers: `(MegatronPolicyWorker[rank=3] pid=6024, ip=10.4.0.8) `, "customizes
# the actor's prefix in the Ray logs"): the rank of the training world the worker group forms.
# vLLM's multiproc executor names pipeline stages too (`(VllmWorker PP1_TP1 pid=5204) `, or
# `PP1` alone): still an index inside the engine.
_RAY = re.compile(r"\((?:([\w.:/-]+(?:\([\w.]*\))?)(?:\[rank=(\d+)\])?(?: rank=\d+| (?:PP\d+_)?TP\d+| PP\d+)? )?"
                  r"pid=(\d+)(?:, ip=([\d.]+))?\) ")
# SkyPilot's tag of a multi-node task's output: its node and node rank (`(head, rank=0,
# pid=5634) `, `(worker1, rank=1, pid=4888, ip=10.60.0.4) `): the node's index and its task
# runner's pid, never a job's rank nor a rank's process
SKYPILOT_TAG = r"\((?:head|worker\d+), rank=\d+, pid=\d+(?:, ip=[\d.]+)?\) "
_SKYPILOT = re.compile(SKYPILOT_TAG)
_RAY_REPEAT = re.compile(r"\s*\[repeated (\d+)x across cluster\]\s*$")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Determined's trial logs: the container's short id, the rank when known, then `||`:
# `8de2ca81 || `, `8de2ca81 [rank=1] || `.
_DETERMINED = re.compile(r"([0-9a-f]{8})(?: \[rank=(\d+)\])? \|\| ?")


def without_colour(text: str) -> str:
    """The text without its terminal colour codes."""
    return _ANSI.sub("", text) if "\x1b" in text else text
# The bracket that closes a tqdm bar: `[2:22:47<01:34,  2.79it/s]` or with postfix fields.
_TQDM_TAIL = re.compile(r"\[[\d:]+<[\d:?]+(?:,[^\]\[]*)?\]")

_MAX_PREFIXES = 8  # a line never carries more; bounds the loop on hostile input


@dataclass(frozen=True, slots=True)
class Envelope:
    """A line split into its envelope and payload.

    `rank` is the global rank (`[rankN]:` or the MPI world rank); `local_rank` comes from a
    torchrun/accelerate tag, `task` from `srun --label`. None means the envelope does not say.
    `prefixes` names what was stripped, outermost first (e.g. `("pdsh", "rank")`).
    """

    payload: str
    rank: int | None = None
    local_rank: int | None = None
    task: int | None = None
    host: str | None = None
    prefixes: tuple[str, ...] = ()
    timestamp: str | None = None
    glued: str | None = None  # text cut from before a glued anchor (usually a tqdm bar)
    repeat: int = 1  # Ray's "[repeated Nx across cluster]"
    actor_pid: int | None = None  # the pid in a Ray actor's prefix (its host is `host`)
    engine_process: str | None = None  # an inference engine's process tag (SGLang's `TP0`)

    @property
    def attributed(self) -> tuple[int | None, str | None]:
        """The best rank the envelope gives and what kind it is: global, local or task."""
        if self.rank is not None:
            return self.rank, "global"
        if self.local_rank is not None:
            return self.local_rank, "local"
        if self.task is not None:
            return self.task, "task"
        return None, None


def without_relay(text: str) -> str:
    """The line a workflow engine relayed at its own level (Airflow's `[…] {subprocess.py:93}
    INFO - `), without that prefix: its INFO is the relay's, not the line's."""
    if "py:" not in text[:60]:
        return text
    m = _AIRFLOW.match(text)
    return text[m.end():] if m is not None else text


def line_rank(text: str) -> int | None:
    """Global rank of a line from `[rankN]:` (anywhere, tqdm-safe) or an mpirun tag; else None."""
    i = text.find("[rank")
    if i >= 0:
        m = _RANK_AT.match(text, i)
        if m is not None:
            return int(m.group(1))
        m = _RANK_AT.search(text, i + 5)
        if m is not None:
            return int(m.group(1))
    if text[:1] == "[" and "]<std" in text[:60]:
        m = _MPIRUN.match(text)
        if m is not None:
            return int(m.group(2))
    return None


def visible_segment(text: str) -> str:
    """The part of a line a terminal shows last: the text after the final carriage return.

    tqdm redraws with `\\r`; the log line written next is glued to the last bar, so the last
    non-empty segment holds both. A trailing `\\r` (CRLF files) is dropped first.
    """
    text = text.rstrip("\r\n")
    if "\r" not in text:
        return text
    for segment in reversed(text.split("\r")):
        if segment.strip():
            return segment
    return ""


def split_envelope(text: str, *, srun_label: bool = False, host_prefix: bool = False,
                   rank_label: bool = False) -> Envelope:
    """Strip every envelope layer from `text` and say what they were.

    `srun_label` strips a leading `N: ` as an srun task id; `host_prefix` strips a leading
    `hostname: ` (pdsh); `rank_label` reads a leading `[N] ` as MPICH's `mpiexec -l` rank,
    not a viewer's line number. All are off by default because they are ambiguous.
    """
    if "\r" in text or text.endswith("\n"):
        text = visible_segment(text)
    if text.startswith("^C"):
        # a terminal's echo of Ctrl-C, glued to the line printed next (`^CW1128 14:39:56 …
        # Received 2 death signal`): the line is what follows it
        text = text[2:]
    if text[:3] in _WEEKDAYS and "]<std" in text[:60] and (
            m := _CTIME_BEFORE_TAG.match(text)) is not None:
        # Open MPI's --timestamp-output: the time, glued to the tag it puts before it
        # (`Thu May  7 10:39:21 2020[1,1]<stderr>:`)
        text = text[m.end():]
    first = text[:1]
    if (
        first not in _PREFIX_STARTS
        and "[rank" not in text
        and "\x1b" not in text
        and not host_prefix
        and not (srun_label and first.isdigit())
        and not (first in _MONTH_INITIALS and text[3:4] == " ")
        and not (first in _SEVERITY_INITIALS and _GCLOUD_REPLICA.match(text))
    ):
        glued, payload = _cut_glued_bar(text)
        if glued is None:
            return Envelope(payload=text)
        return Envelope(payload=payload, glued=glued, prefixes=("glued",))
    return _split_slow(text, srun_label, host_prefix, rank_label)


_CTIME_BEFORE_TAG = re.compile(r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}"
                               r"(?=\[(?:\d+,)?\d+\]<std)")


# Characters a recognised prefix can start with; anything else takes the fast path.
_PREFIX_STARTS = frozenset("[( |0123456789\t") | {chr(0x1B)}
_MONTH_INITIALS = frozenset("ADFJMNOS")  # journald's `Mar 18 17:38:50 host `
_SEVERITY_INITIALS = frozenset("ACDEINW")  # Google Cloud's `ERROR 2023-02-07T10:23:09.441Z `


def _split_slow(text: str, srun_label: bool, host_prefix: bool,
                rank_label: bool = False) -> Envelope:
    prefixes: list[str] = []
    rank = local_rank = task = None
    host = timestamp = glued = None
    actor_pid: int | None = None
    engine_process: str | None = None
    repeat = 1
    if text.startswith("\x1b"):
        m = _STERN.match(text)
        if m is not None:  # stern's coloured pod and container before each line
            prefixes.append("stern")
            text = text[m.end():]
    text = without_colour(text)
    if text.endswith("cluster]"):
        m = _RAY_REPEAT.search(text)
        if m is not None:
            repeat = int(m.group(1))
            text = text[: m.start()]
            prefixes.append("ray_repeat")
    for _ in range(_MAX_PREFIXES):
        first = text[:1]
        m = None
        kind = ""
        if first == "[":
            if text.startswith("[rank"):
                m = _RANK_AT.match(text)
                if m is not None:
                    rank, kind = int(m.group(1)), "rank"
            if m is None and "]<std" in text[:60]:
                m = _MPIRUN.match(text)
                if m is not None:
                    rank, kind = int(m.group(2)), "mpirun"
                    host = m.group(3) or host
            if m is None and "py:" in text[:60]:
                m = _AIRFLOW.match(text)
                if m is not None:
                    timestamp, kind = m.group(1), "airflow"
            if m is None:
                m = _BRACKET_DATE.match(text)
                if m is not None:
                    timestamp, kind = m.group(1), "timestamp"
            if m is None:
                m = _ENGINE_TAG.match(text)
                if m is not None:
                    timestamp, engine_process, kind = m.group(1), m.group(2).strip(), "engine"
            if m is None:
                m = _LINE_NUMBER.match(text)
                if m is not None and rank_label and rank is None:
                    rank, kind = int(m.group(0)[1:-2]), "mpiexec"
                elif m is not None:
                    kind = "line_number"
            if m is None:
                m = _DMESG.match(text)
                if m is not None:
                    kind = "dmesg"
            if m is None and text[1:4] in _WEEKDAYS:
                m = _DMESG_CTIME.match(text)
                if m is not None and m["mon"] not in _MONTHS:
                    m = None
                if m is not None:
                    timestamp = (f"{m['year']}-{_MONTHS[m['mon']]:02d}-{int(m['day']):02d} "
                                 f"{m['clock']}")
                    kind = "dmesg"
            if m is None:
                m = _TORCHRUN.match(text)
                if m is not None:
                    local_rank, kind = int(m.group(2)), "torchrun"
            if m is None:
                m = _HOST_LOCAL.match(text)
                if m is not None:
                    host, local_rank, kind = m.group(1), int(m.group(2)), "accelerate"
        elif first == "(":
            m = _RAY.match(text)
            if m is not None:
                host, actor_pid, kind = m.group(4), int(m.group(3)), "ray"
                if m.group(2) is not None and rank is None:
                    rank = int(m.group(2))  # the actor's repr's rank (`Worker[rank=3]`)
            else:
                m = _SKYPILOT.match(text)
                if m is not None:
                    kind = "skypilot"
        elif first in " |\t":
            m = _CLOUDWATCH.match(text)
            if m is not None:
                timestamp, kind = m.group(1), "cloudwatch"
            elif srun_label:
                m = _SRUN_LABEL.match(text)
                if m is not None:
                    task, kind = int(m.group(1)), "srun"
        elif first.isdigit():
            m = _DATE.match(text)
            if m is not None:
                timestamp, kind = m.group(1), "date"
            else:
                m = _IPV4_HOST.match(text)
                if m is not None:
                    host, kind = m.group(1), "pdsh"
                elif srun_label:
                    m = _SRUN_LABEL.match(text)
                    if m is not None:
                        task, kind = int(m.group(1)), "srun"
        elif first in _MONTH_INITIALS and text[3:4] == " ":
            m = _JOURNALD.match(text)
            if m is not None:
                host, kind = m.group(1), "journald"
        if m is None and first in _SEVERITY_INITIALS and not prefixes:
            m = _GCLOUD_REPLICA.match(text)
            if m is not None:
                timestamp, kind = m.group(1), "gcloud"
                host = m.group(2) if m.group(2) != "service" else host
        if m is None and prefixes[-1:] == ["date"] and (timestamp or "")[10:11] == "T":
            # `journalctl -o short-iso`: the time, then the host and the program, as journald's
            # own form has them; `aws logs tail`: the time, then the log stream
            # (`job/algo-2-1715…`)
            m = _JOURNALD_ISO.match(text)
            if m is not None:
                host, kind = m.group(1), "journald"
            else:
                m = _LOG_STREAM.match(text)
                if m is not None:
                    kind = "log_stream"
        if m is None and "||" in text[:32]:
            m = _DETERMINED.match(text)
            if m is not None:
                kind = "determined"
                if m.group(2) is not None:
                    rank = int(m.group(2))
        if m is None and host_prefix and host is None and "stream" not in prefixes:
            m = _NAME_HOST.match(text)
            if m is not None:
                # a test runner's or a job's stream name (`stderr: `) is no host
                if m.group(1) in ("stdout", "stderr"):
                    kind = "stream"
                else:
                    host, kind = m.group(1), "pdsh"
        if m is None:
            break
        prefixes.append(kind)
        text = text[m.end() :]
    if rank is None:
        i = text.find("[rank")
        if i > 0:
            m = _RANK_AT.search(text, i)
            if m is not None:
                rank = int(m.group(1))
                glued = text[: m.start()] or None
                text = text[m.end() :]
                prefixes.append("glued" if glued and glued.strip() else "rank")
                if glued is not None and not glued.strip():
                    glued = None
    if glued is None:
        cut, text = _cut_glued_bar(text)
        if cut is not None:
            glued = cut
            prefixes.append("glued")
    return Envelope(
        payload=text,
        rank=rank,
        local_rank=local_rank,
        task=task,
        host=host,
        prefixes=tuple(prefixes),
        timestamp=timestamp,
        glued=glued,
        repeat=repeat,
        actor_pid=actor_pid,
        engine_process=engine_process,
    )


def _cut_glued_bar(text: str) -> tuple[str | None, str]:
    """Split `<tqdm bar><log line>` into the bar and the log line (None when nothing is glued)."""
    if "<" not in text or ("it/s" not in text and "s/it" not in text):
        return None, text
    matches = list(_TQDM_TAIL.finditer(text))
    last = matches[-1] if matches else None
    if last is None or last.end() >= len(text.rstrip()):
        return None, text
    return text[: last.end()], text[last.end() :]
