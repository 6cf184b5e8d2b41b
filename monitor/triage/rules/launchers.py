"""Rules that read what launchers and schedulers say: a job stopped from outside, a process
killed or crashed, the first failure a launcher names, Ray actors.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from monitor.model import Category
from monitor.parse.envelope import split_envelope
from monitor.parse.log_events import EventKind, Level, parse_stamp
from monitor.parse.log_patterns import FieldValue
from monitor.triage.evidence import GLOBAL_ORIGINS, Located, compress_ranks, who
from monitor.triage.lexicon import CATEGORY, OWN_FAULT, Family, Reading, looks_failed, read_line
from monitor.triage.reader import FileScan, TailLine, failed_alike
from monitor.triage.rules.base import (
    _CRASHED,
    _LEGACY_LOCAL,
    _SPAWN_EXIT,
    MPI_ABORT,
    TRAINING_DONE,
    Context,
    Finding,
    _message,
    _ray_rank,
    _ray_task_name,
    _some,
    another_part_between,
    crashed_while_stopping,
    file_trained_on,
    nfs_answered_again,
    ray_retried_past,
    ray_worker_rank,
    record_lines,
    removed_idle_above,
    step_number,
    table_entries,
    trained_after,
    training_line,
)
from monitor.triage.rules.unexplained import failing_readings
from monitor.triage.topology import task_ranks

_SCHEDULER_NOISE = frozenset({EventKind.RETRY, EventKind.CONNECTION_ERROR, EventKind.NCCL_WARN})


# what the surviving ranks say when a peer's node goes away
_PEER_LOSS_KINDS = frozenset({
    EventKind.WATCHDOG_TIMEOUT, EventKind.WATCHDOG_TERMINATED, EventKind.NCCL_TEARDOWN,
    EventKind.NCCL_PEER_CLOSED, EventKind.REMOTE_ERROR, EventKind.HEARTBEAT_HANG,
    EventKind.STORE_CONNECTION_LOST, EventKind.PG_STATUS, EventKind.FR_DUMP,
    EventKind.NCCL_WARN_NET, EventKind.MPI_PEER_LOST})
_PEER_LOSS_WORDS = re.compile(r"remote process exited|[Cc]onnection (?:reset|closed)|"
                              r"[Bb]roken pipe|[Tt]imed out|[Tt]imeout|ncclRemoteError|"
                              r"ncclSystemError|unhandled system error")


def _node_failed(item: Located) -> bool:
    """Slurm's own word that a node of the job failed (`… DUE TO NODE FAILURE`, srun's
    `Node failure on gpu018`)."""
    return (item.event.fields.get("reason") == "node_failure"
            or str(item.event.fields.get("status_text", "")).startswith("Node failure"))


def _lost_a_peer(item: Located) -> bool:
    """An error of a surviving rank that only says a peer went away or never answered (never
    one that carries its own GPU's failure: `… CUDA error: unspecified launch failure`)."""
    said = (f"{item.event.text} {item.event.fields.get('exc_message', '')} "
            f"{item.event.fields.get('message', '')} {item.event.fields.get('cause', '')}")
    if "CUDA" in said or "cuda" in said:
        return False
    if item.kind in _PEER_LOSS_KINDS:
        return True
    return (item.kind in (EventKind.NCCL_ERROR, EventKind.PYTHON_TRACEBACK,
                          EventKind.STORE_TIMEOUT)
            and _PEER_LOSS_WORDS.search(said) is not None)


_DESCRIBED_POD = re.compile(r"^Name:\s+(\S+)\s*$")
_DESCRIBED_NODE = re.compile(r"^Node:\s+([\w.\-]+)(?:/[\d.]+)?\s*$")


def _described(ctx: Context, item: Located) -> tuple[str | None, str | None]:
    """The pod and node of `kubectl describe pod`'s header (`Name:`, `Node: gke-…/10.128.0.44`)
    above a line of its record."""
    pod = node = None
    for t in ctx.scans[item.file_index].tail:
        if t.line >= item.event.line:
            break
        if (m := _DESCRIBED_POD.match(t.text)) is not None:
            pod, node = m[1], None  # a new record begins
        elif (m := _DESCRIBED_NODE.match(t.text)) is not None:
            node = m[1]
    return pod, node


def _failed_before(ctx: Context, item: Located) -> bool:
    """Did the job fail before `item`: an error earlier in its file, or a task that exited by
    itself (srun's `Exited with exit code`, `Killed`) anywhere?"""
    interrupted = _ctrl_c_by_srun(ctx)
    return any(e.event.level >= Level.ERROR and e.kind not in _SCHEDULER_NOISE
               and e.kind is not EventKind.SLURM_CANCEL
               and not (interrupted and (str(e.event.fields.get("exc_type", "")).endswith(
                   "KeyboardInterrupt") or _interrupted_exit(e)))
               and ((e.kind is EventKind.SLURM_TASK_EXIT and not _stopped_by_srun(e)
                     and not _killed_after(e, item))
                    or (e.file_index == item.file_index and e.event.line < item.event.line))
               for e in ctx.located)


def _killed_after(exit_: Located, stop: Located) -> bool:
    """`task 13: Killed` or `tasks 9-10: Aborted (core dumped)` below the stop in its file: the
    SIGKILL that ends the cancel's grace period, or a rank that died of a signal while it shut
    down (srun prints a task's own death, which starts the cancel, above it)."""
    return (exit_.file_index == stop.file_index and exit_.event.line > stop.event.line
            and exit_.event.fields.get("signal") is not None)


# srun passing a Ctrl-C on to the step's tasks (`srun: interrupt (one more within 1 sec to
# abort)`, `srun: sending Ctrl-C to StepId=8.0`): the ranks' KeyboardInterrupt is a stop
# someone asked for
_SRUN_CTRL_C = re.compile(r"\bsrun: (?:sending Ctrl-C to |interrupt \(one more within 1 sec)")


def _started_again_after(ctx: Context, item: Located) -> bool:
    """The file shows a new attempt after `item`: its word that it started again, or NCCL
    setting up its communicators anew (`… Init COMPLETE`), which only a new process does."""
    return any(t.line > item.event.line and _STARTED_AGAIN.search(t.text)
               and "CANCELLED AT" not in t.text  # (Slurm's next line about the same stop)
               for t in ctx.scans[item.file_index].tail) or any(
        e.file_index == item.file_index and e.event.line > item.event.line
        for e in ctx.of(EventKind.NCCL_INIT))


def _interrupted_exit(item: Located) -> bool:
    """srun's report of a task that exited on the interrupt: code 130 (128 + SIGINT)."""
    return (item.kind is EventKind.SLURM_TASK_EXIT
            and "exit code 130" in str(item.event.fields.get("status_text", "")))


def _ctrl_c_by_srun(ctx: Context) -> bool:
    """srun's word, in any file's last lines, that it passed a Ctrl-C on to the step."""
    return any(_SRUN_CTRL_C.search(t.text) for scan in ctx.scans for t in scan.tail)


def _stopped_by_srun(item: Located) -> bool:
    """`tasks 0-3: Terminated`: srun stopping the step's other tasks, not a task's failure."""
    return (item.event.fields.get("signal") == "SIGTERM"
            or str(item.event.fields.get("status_text", "")).startswith("Terminated"))


def _before(item: Located, mark: Located) -> bool:
    """Known to come before `mark`: earlier in its file, or earlier by both clocks."""
    if item.file_index == mark.file_index:
        return item.event.line < mark.event.line
    return item.time is not None and mark.time is not None and item.time < mark.time


def restarted_then_finished(ctx: Context) -> Finding | None:
    """torchrun's agent restarted its failed worker group (`Worker group FAILED. 2/3 attempts
    left; will restart worker group`) and the group then finished (`WorkerState.SUCCEEDED`):
    an attempt failed, the job did not. Only when every failing line is known to come before
    the last restart; anything after it, or of unknown place, is read as usual."""
    restarts = ctx.of(EventKind.AGENT_RESTART)
    if not restarts:
        return None
    last = restarts[-1]
    finished = [d for d in ctx.of(EventKind.AGENT_SUCCEEDED) if _before(last, d)]
    failures = [e for e in ctx.located if e.event.level >= Level.ERROR]
    if not failures:
        return None
    if not finished or not all(_before(e, last) for e in failures):
        # each node's own agent: in every file that holds a failure, its agent restarted
        # after it and its group then finished (lines with no time of their own, a rank's
        # traceback, are placed by their file)
        finished = [d for d in ctx.of(EventKind.AGENT_SUCCEEDED)
                    if any(_before(r, d) for r in restarts if r.file_index == d.file_index)]
        if not all(any(r.file_index == e.file_index and _before(e, r)
                       and any(_before(r, d) for d in finished if d.file_index == r.file_index)
                       for r in restarts) for e in failures):
            return None
    first = min(failures, key=Located.order)
    return Finding(
        Category.NONE, (), (),
        (f"an attempt failed ({first.where}), torchrun restarted the worker group "
         f"({last.where}) and the group then finished ({finished[0].where})",),
        last,
        ("The restart hid a failure: read the failed attempt's first error if it recurs.",),
    )


# how many of the job's own step lines after its last failure show that it trained on
_TRAINED_ON_LINES = 2
# a training loop's own word that it finished (Lightning's `Trainer.fit` stopped:
# `max_epochs=20` reached.`)
_FINISHED_TRAINING = re.compile(TRAINING_DONE.pattern + r"|\bfinished training\b|"
                                # submitit's last word on a job's function that returned
                                r"\bJob completed successfully\b|"
                                r"\bTrainer\.fit`? stopped: `?max_(?:epochs|steps)=\d+`? reached\b")
# the scheduler's word that the stopped job goes back to the queue (`… CANCELLED AT … DUE TO
# JOB REQUEUE ***`, Lightning's `Requeued SLURM job: 44560`)
_REQUEUED = re.compile(r"(?i)\bDUE TO JOB REQUEUE\b|\bRequeued SLURM job\b|\bjob requeued\b|"
                       # submitit's (`Requeued job 60601445 (3 remaining timeouts)`)
                       r"\brequeuing job\b|\brequeued job \d+")


def trained_past_every_failure(ctx: Context) -> Finding | None:
    """Every failing line comes before the job's training went on, in the file of each: an
    attempt failed and was restarted, requeued or retried (torchrun's restart with no line of
    its own at the default log level, a Slurm requeue, a job's own retry), and the job then
    trained on with nothing failing after. The job did not fail; the report says what did."""
    failures = [e for e in ctx.located if e.event.level >= Level.ERROR
                and not ctx.passed_over(e.file_index, e.event.line)
                and not nfs_answered_again(ctx, e)]
    if not failures:
        return None
    # (each judged from the last line of the same words in its file: two ranks' same
    # failure, a line apart, are one)
    last_said: dict[tuple[int, str], int] = {}
    for e in failures:
        key = (e.file_index, e.event.text.strip())
        last_said[key] = max(last_said.get(key, 0), e.event.end_line)
    if all(_setup_gone_around(ctx, e, last_said[(e.file_index, e.event.text.strip())])
           for e in failures):
        first = min(failures, key=Located.order)
        return Finding(
            Category.NONE, (), (),
            (f"{who(first)} failed ({first.where}: {first.event.text.strip()[:120]}), and the "
             "job's training went on after it in the same file, with nothing failing after",),
            first,
            ("Nothing to do: what failed was gone around; read it if it recurs.",),
        )
    last_in: dict[int, int] = {}
    for e in failures:
        last_in[e.file_index] = max(last_in.get(e.file_index, 0), e.event.end_line)
    stopped = {e.file_index for e in ctx.of(EventKind.SLURM_CANCEL)}
    requeue_said = any(_requeued(ctx, index, line) for index, line in last_in.items())
    finished_elsewhere = any(_finished_anew(ctx, index, again_word=not requeue_said)
                             and all(_same_job(ctx, index, other) for other in stopped & set(last_in))
                             for index in range(len(ctx.scans)) if index not in last_in)
    if not all(_steps_after(ctx, index, line) >= _TRAINED_ON_LINES
               or (index in stopped and (_requeued_then_finished(ctx, index, line)
                                         or finished_elsewhere))
               for index, line in last_in.items()):
        return None
    first = min(failures, key=Located.order)
    return Finding(
        Category.NONE, (), (),
        (f"{who(first)} failed ({first.where}: {first.event.text.strip()[:120]}), and the job "
         "trained on after every failure in these logs: the attempt was restarted or retried",),
        first,
        ("The job recovered: read the failed attempt's first error if it recurs.",),
    )


# Events that report a process's or a node's death, a hang or a stop: never a setup step
_DEATHS = frozenset({
    *_CRASHED, EventKind.WATCHDOG_TIMEOUT, EventKind.WATCHDOG_TERMINATED,
    EventKind.NCCL_TEARDOWN, EventKind.HEARTBEAT_HANG, EventKind.XID, EventKind.GPU_FAULT,
    EventKind.HOST_OOM, EventKind.CUDA_OOM, EventKind.CUDA_ERROR, EventKind.SLURM_CANCEL,
    EventKind.SLURM_OOM, EventKind.SLURM_TASK_EXIT, EventKind.AGENT_WORKER_FAILED,
    EventKind.AGENT_DEATH_SIGNAL, EventKind.CHILD_FAILED_SUMMARY, EventKind.MPI_EXIT,
    EventKind.POD_EVICTED, EventKind.ACTOR_DIED, EventKind.DATALOADER_WORKER_DIED,
    EventKind.NCCL_ERROR, EventKind.REMOTE_ERROR,
})


def _setup_gone_around(ctx: Context, item: Located, last: int) -> bool:
    """A failure of no rank's in a step the job's script ran before training, which its
    file shows the job training past (an optional package that would not install, a `git lfs
    pull` of files it did not need): no step line before it in its file, and two numbered
    steps after `last` (the last line of the same failure in its file) with nothing failing
    after. Never a death, a hang or a stop."""
    tail = ctx.scans[item.file_index].tail
    return (item.rank is None and item.kind not in _DEATHS
            and bool(tail) and item.event.line >= tail[0].line
            and not any(t.line < item.event.line and training_line(t) for t in tail)
            and file_trained_on(ctx, item.file_index, last))


# a new attempt's own word that it started again (`resuming from checkpoint …`, `attempt 2`,
# `SLURM_RESTART_COUNT=1`, a restarted worker group, a requeued job)
_STARTED_AGAIN = re.compile(r"(?i)\bresum(?:e|ed|ing)\b.{0,40}\b(?:from|checkpoint|training|step)\b|"
                            # Lightning's `Restoring states from the checkpoint path at …`,
                            # `Restored all states from the checkpoint at …`
                            r"\brestor(?:e|ed|ing) (?:all )?states from the checkpoint\b|"
                            r"\brestart(?:ed|ing)\b|\brequeued?\b|\battempt[ #]\d+\b|"
                            # Megatron's and NeMo's load of the checkpoint a new attempt resumes
                            # from (`loading checkpoint from /ckpt at iteration 52013`)
                            r"\b(?:successfully )?load(?:ed|ing) checkpoint from\b|"
                            # torchrun's agent: `… attempts left; will restart worker group`
                            r"\bwill restart worker group\b|"
                            r"\bRESTART_COUNT=[1-9]|\bretrying\b|\bwill retry\b|"
                            # nvidia-resiliency-ext's in-process restart: its monitor's next
                            # iteration (`starting iteration=1 rank=0 world_size=8`), the
                            # wrapper's passed health check (`restart_ex: HealthCheckPassed()`)
                            r"\bstarting iteration=[1-9]\d*\b|\bHealthCheckPassed\b")
# a step whose loss is no number: the failure itself, not training on
_NO_NUMBER_LOSS = re.compile(r"(?i)\bloss\b\W{0,3}(?:nan|[+-]?inf)")


def _requeued(ctx: Context, file_index: int, line: int) -> bool:
    """The file says, at or before `line`, that the scheduler requeued the job."""
    return any(e.file_index == file_index and e.event.line <= line
               and e.event.fields.get("reason") == "job_requeue"
               for e in ctx.of(EventKind.SLURM_CANCEL)) or any(
        t.line <= line and _REQUEUED.search(t.text) for t in ctx.scans[file_index].tail)


def _requeued_then_finished(ctx: Context, file_index: int, line: int) -> bool:
    """The scheduler stopped this attempt and said it requeued the job (its word is the new
    attempt's), and the file then shows the job training to its end: Slurm appends a
    requeued batch job's output to the same file."""
    if not _requeued(ctx, file_index, line):
        return False
    return _trained_to_the_end([t for t in ctx.scans[file_index].tail if t.line > line])


# the kinds of job Kubeflow's training operator runs (`PyTorchJob`, `MPIJob`, …)
_OPERATOR_KINDS = "(?:PyTorch|TF|MPI|XGBoost|Paddle|MX|JAX)"
# a whole job's own word that it succeeded, as its platform prints it last: Spark's
# ApplicationMaster (`Final app status: SUCCEEDED, exitCode: 0`), `ray job submit`'s
# (`Job 'raysubmit_…' succeeded`), SkyPilot's managed job (`✓ Managed job finished: 41
# (status: SUCCEEDED).`, after any recovery of its cluster)
_JOB_SUCCEEDED = re.compile(r"\bFinal app status: SUCCEEDED, exitCode: 0\b|"
                            r"^\s*Job '[\w.\-]+' succeeded\s*$|"
                            r"\bManaged job finished: \d+ \(status: SUCCEEDED\)|"
                            # (its controller's later word: `Managed job 8 (task: 0) SUCCEEDED.`)
                            r"\bManaged job \d+ (?:\(task: \d+\) )?SUCCEEDED\b|"
                            # HTCondor's job event log (`005 (…) Job terminated.` then `(1)
                            # Normal termination (return value 0)`)
                            r"^\s*\(1\) Normal termination \(return value 0\)|"
                            # kubectl's row for a training operator's job (`kubectl get
                            # pytorchjob`: `gpt-sft   Succeeded   15m`)
                            r"^\s*[\w.\-]+\s+Succeeded\s+\d+[smhd][\dsmhd]*\s*$|"
                            # SageMaker's toolkit and console, Google Batch's job events
                            r"\bReporting training SUCCESS\b|\bCompleted - Training job completed\b|"
                            r"\bJob state is set from RUNNING to SUCCEEDED\b|"
                            # Vertex AI's service stream and its SDK (`CustomJob run completed.
                            # Resource name: projects/…`)
                            r"^\s*Job completed successfully\.\s*$|"
                            r"\b(?:Custom|HyperparameterTuning|Custom\w*Training)Job run completed\. "
                            r"Resource name: |"
                            # Kubeflow's training operator (`PyTorchJob bert-ft is successfully
                            # completed.`; v1's event `PyTorchJob research/ft successfully
                            # completed.`), Spark's scheduler on a job whose lost tasks it ran
                            # again (`Job 3 finished: save at …, took 2625.4 s`)
                            rf"\b{_OPERATOR_KINDS}Job (?:[\w.\-]+/)?[\w.\-]+ (?:is )?successfully "
                            r"completed\b|"
                            r"\bDAGScheduler: Job \d+ finished: ")


# kubectl's rows of a training operator's jobs (`gpt-sft   Succeeded   15m`, `… Failed …`)
_JOB_ROW = re.compile(r"^\s*[\w.\-]+\s+Succeeded\s+\d+[smhd][\dsmhd]*\s*$")
_JOB_ROW_FAILED = re.compile(r"^\s*[\w.\-]+\s+Failed\s+\d+[smhd][\dsmhd]*\s*$")
# a training operator's word on a job (`PyTorchJob bert-ft is failed because …`), and Spark's
# scheduler on a job of the application that failed (`Job 1 failed: save at …`)
_OPERATED_JOB = re.compile(rf"\b{_OPERATOR_KINDS}Job (?:[\w.\-]+/)?([\w.\-]+) "
                           r"(?:is |successfully completed\b)")
_SPARK_JOB_FAILED = re.compile(r"\bDAGScheduler: Job \d+ failed\b")
# a training operator's word that it restarted a job's failed replicas (`PyTorchJob llama-ft is
# restarting because 1 Worker replica(s) failed.`, restartPolicy OnFailure or ExitCode)
_OPERATOR_RESTARTING = re.compile(rf"\b{_OPERATOR_KINDS}Job (?:[\w.\-]+/)?[\w.\-]+ is "
                                  r"restarting because \d+ \w+ replica\(s\) failed")
# DeepSpeed's launcher starting each worker, and its word as each exits with status 0
_SPAWNED = re.compile(r"\bprocess (\d+) spawned with command\b")
_EXITED_CLEANLY = re.compile(r"\bProcess (\d+) exits successfully\b")
# ... and its word on one that did not, pdsh's on a node's launcher that did not
_EXITED_FAILED = re.compile(r"\bexits with return code = (?!0\b)-?\d+|\bssh exited with exit code [1-9]")


def _every_worker_exited_cleanly(tail: list[TailLine]) -> list[int]:
    """The line of DeepSpeed's launcher's last `Process N exits successfully`, where every
    worker it started (`process N spawned with command`, in view) did so: [] otherwise."""
    spawned = {m[1] for t in tail if "spawned" in t.text and (m := _SPAWNED.search(t.text))}
    if not spawned:
        return []
    exited = {m[1]: t.line for t in tail
              if "exits successfully" in t.text and (m := _EXITED_CLEANLY.search(t.text))}
    if not spawned or not spawned <= exited.keys():
        return []
    if any(_EXITED_FAILED.search(t.text) for t in tail):
        return []  # (another node's launcher, its pids the same, saw a worker fail)
    return [max(exited[pid] for pid in spawned)]


# a pasted shell's question for the last command's exit status (`$ echo $?`), answered `0`
_ASKED_STATUS = re.compile(r"^\S{0,60}[$#] echo \$\?\s*$")


_PROMPT = re.compile(r"^\S{0,60}[$#] \S")
# a command that runs the job: a launcher, the interpreter on a script, a job script
_LAUNCHED = re.compile(r"[$#] (?:\S+=\S+ )*(?:torchrun|python[\d.]*|srun|mpirun|mpiexec|"
                       r"deepspeed|accelerate launch|horovodrun|bash \S+\.sh|\./\S+\.sh)\b")


def _shell_said_zero(ctx: Context, index: int) -> list[int]:
    """The line of a pasted shell's `0` under its `echo $?`, asked right after the command
    whose output holds the file's failures (no other command between, no pipe in it, no
    failure table of torchrun's in its output): that command (the launcher) exited with
    status 0. [] where the shell said another status or nothing."""
    tail = ctx.scans[index].tail
    answers = {t.line: t.text.strip() for t in tail}
    asked = [t.line for t in tail if "echo" in t.text and _ASKED_STATUS.match(t.text)
             and answers.get(t.line + 1) == "0"]
    if not asked:
        return []
    failed = max((e.event.end_line for e in ctx.located
                  if e.file_index == index and e.event.level >= Level.ERROR), default=0)
    if any(failed < t.line < asked[-1] and _PROMPT.match(t.text) for t in tail):
        return []  # (another command ran after the failing one: the status is its)
    # (the command above it: in the file's last lines, or in its head where they are long)
    shown = [(t.line, t.text) for t in tail] + [
        c for c in ctx.scans[index].head_commands if c[0] < (tail[0].line if tail else 1)]
    command = next((text for line, text in sorted(shown, reverse=True) if line < asked[-1]
                    and _PROMPT.match(text) and "echo" not in text), "")
    if (_LAUNCHED.search(command) is None or any(c in command for c in "|;&")
            or any(e.file_index == index for e in ctx.of(EventKind.CHILD_FAILED_SUMMARY))):
        # only a launcher's or the job's own command (a viewer's, `kubectl logs` or `tail`,
        # exits 0 whatever it showed); a pipeline's status is its last command's (`torchrun …
        # | tee run.log`), a list's its last; torchrun's failure table is its own word that it
        # exited non-zero
        return []
    return [asked[-1] + 1]


# words every success line above holds one of (a cheap test before the pattern's)
_SUCCESS_WORDS = ("ucceeded", "UCCEEDED", "SUCCESS", "ompleted", "finished",
                  "Normal termination")


def job_succeeded(ctx: Context) -> Finding | None:
    """A platform's own last word that the whole job succeeded (Spark's final app status,
    `ray job submit`'s, SageMaker's, Google Batch's), with every failing line of that file
    before it and none in another file: lost tasks and executors the platform retried, not the
    job's failure."""
    said: dict[int, int] = {}
    # (a training operator's log speaks of every job in the cluster: its word counts only
    # where the files name one job; a Spark application runs many jobs, one may fail)
    said_lines = [(index, t, m) for index, scan in enumerate(ctx.scans) for t in scan.tail
                  if any(w in t.text for w in _SUCCESS_WORDS)
                  and (m := _JOB_SUCCEEDED.search(t.text)) is not None]
    operated = {m[1] for scan in ctx.scans for t in scan.tail
                if "Job " in t.text and (m := _OPERATED_JOB.search(t.text)) is not None}
    spark_failed = any("Job " in t.text and _SPARK_JOB_FAILED.search(t.text)
                       for scan in ctx.scans for t in scan.tail)
    # (a kubectl listing of jobs speaks of each: its Succeeded row counts only where no row of
    # the same file is a job that failed)
    listed_failed = {index for index, scan in enumerate(ctx.scans)
                     if any(_JOB_ROW_FAILED.match(t.text) for t in scan.tail)}
    for index, scan in enumerate(ctx.scans):
        lines = [t.line for i, t, m in said_lines if i == index
                 and not (m[0].endswith("successfully completed") and len(operated) > 1)
                 and not (m[0].startswith("DAGScheduler") and spark_failed)
                 and not (index in listed_failed and _JOB_ROW.match(m[0]))]
        lines += _every_worker_exited_cleanly(scan.tail) + _shell_said_zero(ctx, index)
        # (torchrun's agent: `Local worker group finished (WorkerState.SUCCEEDED)`; not past a
        # collective that timed out, whose results NCCL says may be corrupt)
        lines += [e.event.line for e in ctx.of(EventKind.AGENT_SUCCEEDED)
                  if e.file_index == index and not ctx.timed_out_ranks]
        if lines:
            said[index] = max(lines)
    if not said:
        return None
    failures = [e for e in ctx.located if e.event.level >= Level.ERROR]
    # (the time the job said it: a failure another file stamped before it was got past)
    success_at = max((e.time for e in ctx.of(EventKind.AGENT_SUCCEEDED)
                      if e.time is not None and not e.time_inferred
                      and e.file_index in said and e.event.line <= said[e.file_index]),
                     default=None)
    # (a training operator that said, before its word that the one job it speaks of
    # succeeded, that it restarted the job's failed replicas: another file's failure, a pod's
    # log, is of an attempt it restarted)
    restarted = len(operated) == 1 and any(
        t.line < said[i] and "restarting" in t.text and _OPERATOR_RESTARTING.search(t.text)
        for i in said for t in ctx.scans[i].tail)
    if any(e.event.end_line > said[e.file_index] if e.file_index in said
           # another file's failure (a pod's own log): its process trained to the end after it
           else not (_trained_to_the_end([t for t in ctx.scans[e.file_index].tail
                                          if t.line > e.event.end_line])
                     or restarted
                     or (success_at is not None and e.time is not None and not e.time_inferred
                         and e.time < success_at))
           for e in failures):
        return None
    if any(t.line > last and looks_failed(t.text)
           for i, last in said.items() for t in ctx.scans[i].tail):
        return None
    index, line = next(iter(said.items()))
    return Finding(
        Category.NONE, (), (),
        (f"the job says it succeeded ({ctx.scans[index].path}:{line}); what failed before it "
         "was retried",), None,
        ("Nothing to do: the platform retried what failed; read its first error if it "
         "recurs.",),
    )


def _trained_to_the_end(after: list[TailLine]) -> bool:
    """Step lines (a progress bar, a step's loss, never a `nan` one; the tail keeps the last
    bar only) and the loop's own word that it finished."""
    after = [t for t in after if _NO_NUMBER_LOSS.search(t.text) is None]
    finished = [t for t in after if _FINISHED_TRAINING.search(t.text)]
    steps = sum(1 for t in after if training_line(t)) + len(finished)
    return bool(finished) and steps >= _TRAINED_ON_LINES


_DIGITS = re.compile(r"\d+")


def _same_job(ctx: Context, index: int, stopped: int) -> bool:
    """Whether the file at `index` is another attempt of the job Slurm stopped in `stopped`:
    its name or its lines carry that job's id (a requeued job keeps it: `slurm-71200.out`), or
    the two names differ only in a small attempt counter (`attempt1.out`, `attempt2.out`)."""
    jobs = {str(e.event.fields.get("job") or "").split(".")[0] for e in ctx.of(EventKind.SLURM_CANCEL)
            if e.file_index == stopped} - {""}
    name, other = (ctx.scans[i].path.rsplit("/", 1)[-1] for i in (index, stopped))
    if any(re.search(rf"(?<!\d){job}(?!\d)", name) or any(
            re.search(rf"(?<!\d){job}(?!\d)", t.text) for t in ctx.scans[index].tail)
           for job in jobs):
        return True
    if _DIGITS.sub("#", name) != _DIGITS.sub("#", other):
        return False
    counters = [(a, b) for a, b in zip(_DIGITS.findall(name), _DIGITS.findall(other),
                                       strict=True) if a != b]
    return len(counters) == 1 and all(int(x) < 100 for x in counters[0])


def _finished_anew(ctx: Context, file_index: int, again_word: bool) -> bool:
    """A file with no failure that shows the job trained to its end: another attempt's output
    (a requeued job's second file), where it says it started again (`Resuming from
    checkpoint …`) or, with `again_word` False, where the stopped attempt's file said the
    scheduler requeued it."""
    tail = ctx.scans[file_index].tail
    start = next((t.line for t in tail if _STARTED_AGAIN.search(t.text)), None)
    if again_word and start is None:
        return False
    return _trained_to_the_end([t for t in tail if t.line > (start or 0)])


def _steps_after(ctx: Context, file_index: int, line: int) -> int:
    """How many of the job's step lines (a step's loss, a progress bar, its word that training
    finished) its file shows after a new attempt's word that it started again, itself after
    `line`, as far as its tail holds them: steps without that word may be other ranks' that
    had not yet noticed the failure, another run's, or an evaluator's."""
    tail = ctx.scans[file_index].tail
    again = next((t.line for t in tail if t.line > line and _STARTED_AGAIN.search(t.text)), None)
    if again is not None and another_part_between(ctx.scans[file_index], line, again):
        return 0  # (another command's output: `+ python eval.py` loading the checkpoint)
    if again is None:
        again = _counted_again(ctx.scans[file_index], line)
    if again is None:
        return 0
    return sum(1 for t in tail
               if t.line > again and _NO_NUMBER_LOSS.search(t.text) is None
               and (training_line(t) or _FINISHED_TRAINING.search(t.text)))


# the total a step line counts to (`step 3/6`, `iteration 300/ 500000`)
_STEP_TOTAL = re.compile(r"(?i)\b(?:step|iter(?:ation)?)\W{0,3} {0,12}\d+ ?/ *(\d+)")


def _counted_again(scan: FileScan, line: int) -> int | None:
    """Where a new attempt's steps begin after `line` with no word of their own (torchrun's
    restart says nothing at its default log level): the first training step after it numbered
    below the last one before it, counting to the same total, with no other command's output
    between, where the loop's word that training finished follows; the line above that step
    (so that it counts), or None."""
    tail = scan.tail
    steps = [t for t in tail if training_line(t) and step_number(t.text) is not None]
    before = [t for t in steps if t.line < line]
    if not before:
        return None
    last = step_number(before[-1].text) or 0
    reset = next((t for t in steps if t.line > line and (step_number(t.text) or 0) < last), None)
    if reset is None or not any(t.line > reset.line and _FINISHED_TRAINING.search(t.text)
                                for t in tail):
        return None
    if another_part_between(scan, before[-1].line, reset.line) or (
            _STEP_TOTAL.search(before[-1].text) and _STEP_TOTAL.search(reset.text)
            and _STEP_TOTAL.findall(before[-1].text) != _STEP_TOTAL.findall(reset.text)):
        return None  # (another command's run, or another run's step count: not a restart)
    return reset.line - 1


# exceptions a stop from outside raises in the job, and the collective errors that follow
_STOPPED = re.compile(r"KeyboardInterrupt|SystemExit|SignalException|Terminated|DistBackendError|"
                      r"DistNetworkError|DistStoreError|NCCL|[Tt]imeout|[Tt]imed out|"
                      r"UncompletedJobError")


def _went_on_after(ctx: Context, item: Located) -> bool:
    """The job's progress lines go on after this line in its file (a side thread's or a
    logger's traceback the training outlived)."""
    return ctx.passed_over(item.file_index, item.event.line) or any(
        p.file_index == item.file_index and p.event.line > item.event.end_line
        for p in ctx.of(EventKind.PROGRESS))


def _own_raise(item: Located) -> bool:
    """A traceback of the job's own error, not one a stop or a lost peer raised in it."""
    f = item.event.fields
    return bool(f.get("exc_type")) and _STOPPED.search(
        f"{f.get('exc_type')} {f.get('exc_message', '')}") is None


def _handler_began(ctx: Context, stop: Located) -> Located:
    """Where a launcher's handling of a signal began: DeepSpeed's launcher says it received
    one (`Main process received SIGINT, exiting`) only after its handler killed each worker
    (`[launch.py:319:sigkill_handler] Killing subprocess 41810`), so the signal came before the
    first of those lines; any other stop, where its own line is."""
    if stop.kind is not EventKind.AGENT_DEATH_SIGNAL or "sigkill_handler" not in stop.event.text:
        return stop
    kills = [e for e in ctx.of(EventKind.AGENT_SIGTERM)
             if e.file_index == stop.file_index and e.event.line < stop.event.line
             and "sigkill_handler" in e.event.text]
    return min(kills, key=lambda e: e.event.line) if kills else stop


def _of_this_job(ctx: Context, item: Located) -> bool:
    """An eviction of a pod the job's other files name (a pod's own log file, its `kubectl
    logs` command, a line of its own): a namespace's event table lists other jobs' pods too.
    Slurm's words are the job's own."""
    pod = item.event.fields.get("pod")
    if item.kind is not EventKind.POD_EVICTED or not pod:
        return True
    name = str(pod).rsplit("/", 1)[-1]
    return any(name in scan.path.rsplit("/", 1)[-1] for scan in ctx.scans) or any(
        name in t.text for index, scan in enumerate(ctx.scans) if index != item.file_index
        for t in scan.tail)


def scheduler(ctx: Context) -> Finding | None:
    cancels = [e for e in ctx.of(EventKind.SLURM_CANCEL)
               if e.event.fields.get("reason") in ("time_limit", "preemption", "node_failure")]
    # A plain cancel (scancel, or Slurm <= 23.02 for a failed task) or a requeue is a stop
    # from outside only when nothing in the job failed before it.
    cancels += [e for e in ctx.of(EventKind.SLURM_CANCEL)
                if (e.event.fields.get("reason") in ("cancelled", "job_requeue")
                    # Slurm >= 25.05 names scancel's signal (`DUE to SIGNAL Terminated`)
                    or str(e.event.fields.get("reason")).startswith("signal_"))
                and not _failed_before(ctx, e)]
    nodes = [e for e in ctx.of(EventKind.SLURM_TASK_EXIT)
             if str(e.event.fields.get("status_text", "")).startswith(
                 ("Node failure", "Task launch for"))]
    # torchrun stops its workers with SIGTERM when one fails; any other signal it sends them is
    # the one it was sent (a closed terminal's SIGHUP, Ctrl-C's SIGINT)
    forwarded = [e for e in ctx.of(EventKind.AGENT_SIGTERM)
                 if e.event.fields.get("signal") in ("SIGHUP", "SIGINT", "SIGQUIT")
                 and not _failed_before(ctx, e)]
    # a stop the job started again after (`Resuming from checkpoint …` below it in its file):
    # not what ended it; what failed in the new attempt is read as usual
    cancels = [e for e in cancels if not _started_again_after(ctx, e)]
    # srun passed a Ctrl-C on to the step: its tasks' KeyboardInterrupt and exit code 130
    interrupted = [e for e in ctx.of(EventKind.PYTHON_TRACEBACK, EventKind.SLURM_TASK_EXIT)
                   if str(e.event.fields.get("exc_type", "")).endswith("KeyboardInterrupt")
                   or _interrupted_exit(e)] if _ctrl_c_by_srun(ctx) else []
    items = [*cancels, *nodes, *forwarded, *interrupted,
             *ctx.of(EventKind.AGENT_DEATH_SIGNAL, EventKind.POD_EVICTED)]
    if not items:
        return None
    first = min(items, key=Located.order)
    # one file is written in order: an unstamped line of srun's above a stamped one came first
    first = min((e for e in items if e.file_index == first.file_index),
                key=lambda e: e.event.line)
    signalled = first
    if first.kind in (EventKind.AGENT_DEATH_SIGNAL, EventKind.AGENT_SIGTERM):
        # the launcher's signal is the stop's effect; the platform's own word (an eviction, a
        # node failure, a cancel), unstamped as Kubernetes' event tables are, says who and why
        said = [e for e in (*cancels, *nodes, *ctx.of(EventKind.POD_EVICTED))
                if (_before(e, first) or (e.file_index != first.file_index and e.time is None)
                    # (slurmstepd's `*** JOB 7 ON n1 CANCELLED AT … DUE TO TIME LIMIT ***`
                    # lands in the job's output after the launcher's own report of the
                    # SIGTERM it sent: the same stop, told by whoever sent it)
                    or (e in cancels and e.file_index == first.file_index))
                and _of_this_job(ctx, e)]
        if said:
            first = min(said, key=Located.order)
    # (the stop began where the launcher got the signal, when the scheduler's word of it
    # came after in the same file)
    began = _handler_began(ctx, signalled if (
        signalled is not first and signalled.file_index == first.file_index
        and signalled.event.line < first.event.line) else first)
    # (earlier in time; or, for the job's own exception, earlier in the scheduler line's
    # own file: a traceback with no stamp above a stamped cancel came first)
    earlier = [e for e in ctx.located
               if ((began.time is not None and e.order() < began.order())
                   or (((e.kind is EventKind.PYTHON_TRACEBACK and _own_raise(e))
                        # (or its GPU's own failure: `CUDA error: unspecified launch failure`)
                        or e.kind in (EventKind.CUDA_ERROR, EventKind.CUDA_OOM, EventKind.XID))
                       and e.file_index == began.file_index and e.event.line < began.event.line
                       and not _went_on_after(ctx, e)))
               and e.event.level >= Level.ERROR and e.kind not in _SCHEDULER_NOISE]
    if earlier and _node_failed(first):
        # a node that died (Slurm's own word) takes its ranks' links with it: the others'
        # NCCL errors and timeouts in the minutes before Slurm noticed are its consequences
        earlier = [e for e in earlier if not _lost_a_peer(e)]
    if earlier:
        return None  # the job was already failing when the scheduler stepped in
    if first.kind is EventKind.SLURM_CANCEL and first.event.fields.get("reason") == "time_limit" \
            and any(line.line < first.event.line and reading.family is Family.NETWORK
                    and not trained_after(ctx, first.file_index, line.line)
                    for line, reading in failing_readings(ctx, first.file_index)):
        # a connect that failed in words no pattern knows (Open MPI's `connect() to 10.1.2.3
        # failed: No route to host`), then no step until the time limit: the job hung on it
        return None
    fields = first.event.fields
    if first.kind is EventKind.SLURM_CANCEL:
        text = (f"SLURM cancelled {str(fields.get('what', '')).lower()} {fields.get('job')} due "
                f"to {str(fields.get('reason')).replace('_', ' ')} ({first.where})")
    elif first.kind is EventKind.AGENT_DEATH_SIGNAL:
        text = (f"the launcher received {fields.get('signal')} from outside the job (scheduler "
                f"cancel, preemption or a user) ({first.where})")
    elif first.kind is EventKind.AGENT_SIGTERM:
        text = (f"the launcher passed {fields.get('signal')} on to its workers ({first.where}): "
                "it was sent from outside the job (a closed terminal, Ctrl-C, the scheduler)")
    elif first.kind is EventKind.POD_EVICTED:
        pod, node = fields.get("pod"), fields.get("node")
        if not pod and not node:
            # `kubectl describe pod` puts them in its header above the reason
            pod, node = _described(ctx, first)
        what = {"Preempted": "preempted", "PreemptionByScheduler": "preempted",
                "NodeNotReady": "lost the node of", "TaintManagerEviction": "evicted"}.get(
            str(fields.get("what")), "evicted")
        subject = f"pod {pod}" if pod else (f"the job's pod on node {node}" if node else "a pod")
        text = f"Kubernetes {what} {subject} of the job ({first.where})"
        return Finding(
            Category.INFRASTRUCTURE, (),
            tuple([f"pod {pod}"] if pod else []) + tuple([f"node {node}"] if node else []),
            (text,), first,
            ("An eviction is the node's or the cluster's decision (node pressure, a drain, "
             "preemption): `kubectl describe pod` and the node's conditions say which.",),
        )
    else:
        text = (f"srun passed an interrupt (Ctrl-C) on to the step's tasks, which stopped "
                f"({first.where}): a stop someone asked for" if first in interrupted else
                f"srun: {fields.get('status_text')} ({first.where})")
    named = tuple(dict.fromkeys(str(e.event.fields["node"]) for e in nodes
                                if e.event.fields.get("node"))) if first in nodes else ()
    culprit: tuple[str, ...]
    if len(named) > 1:  # srun could not start the step on several nodes: every one of them
        culprit = ("nodes " + _some(named),)
        text += f"; {len(named)} nodes in all"
    elif first.kind is EventKind.SLURM_CANCEL:
        # the node slurmstepd wrote it on is only where it ran (after a node failure, one
        # that survived): a stop from outside names no node at fault; a node failure, the
        # node Open MPI lost the daemon of before it (`Remote daemon: [[…],4] on node n17`)
        lost = [str(e.event.fields["peer_host"]) for e in ctx.of(EventKind.MPI_PEER_LOST)
                if e.event.fields.get("peer_host") and _before(e, first)
                and any(d.file_index == e.file_index and d.event.fields.get("daemon")
                        and 0 < e.event.line - d.event.line <= 10
                        for d in ctx.of(EventKind.MPI_PEER_LOST))] if _node_failed(first) else []
        # ... or srun's own word of the node that failed (`srun: error: Node failure on
        # gpu-a-011`), printed before or after the cancel
        lost = lost or ([str(e.event.fields["node"]) for e in ctx.of(EventKind.SLURM_TASK_EXIT)
                         if _node_failed(e) and e.event.fields.get("node")]
                        if _node_failed(first) else [])
        culprit = (f"node {lost[0]}",) if len(set(lost)) == 1 else ()
        if not culprit and not _node_failed(first) and str(fields.get("node", ""))[:1].isalnum():
            # a stop from outside (a time limit, a preemption, a cancel): the node it names
            # is the one the stop was served on, said as such (not a node at fault)
            culprit = (f"node {fields['node']} (where the stop was served)",)
    else:
        culprit = (f"node {fields['node']}",) if fields.get("node") else ()
    return Finding(
        Category.INFRASTRUCTURE, (), culprit, (text,), first,
        ("Time limit: raise --time or checkpoint more often; preemption or node failure: "
         "resubmit and have the node checked.",),
    )


# glibc's own consistency checks (`malloc.c:3722: _int_malloc: Assertion … failed`): the heap
# was corrupted somewhere before, which the assertion does not say where
_LIBC_INTERNAL = re.compile(r"(?:\bnptl/|\bpthread_\w+\.c|\btpp\.c|\bdl-\w+\.c|"
                            r"\b(?:malloc|arena|free)\.c):\d+: ")


def _assertion_before(ctx: Context, crash: Located) -> TailLine | None:
    """A failed assertion or check of the program's (glibc's `Assertion `x' failed.`, a
    library's own `GGML_ASSERT: file:line`, glog's `Check failed:`, LightGBM's `[Fatal] Check
    failed:`) in the few lines before an abort in the same file, of the same
    process (its rank, or the pid of Open MPI's prefix, where the lines show them): the abort
    it calls is the crash. A crash by another signal is not that abort."""
    found = _said_before_abort(ctx, crash, lambda tail, reading: (
        reading.family is Family.SOFTWARE and _OWN_CHECK.search(reading.word) is not None
        and not _LIBC_INTERNAL.search(tail.text)))
    return found[0] if found is not None else None


_BACKTRACE_LINES = 30  # UCX prints its backtrace between its fatal error and the abort


def _link_failed_before(ctx: Context, crash: Located) -> tuple[TailLine, Reading] | None:
    """The same process's word that its link gave up, in the few lines before its abort
    (UCX's fatal `Transport retry count exceeded on mlx5_0:1/IB`, then its handler's abort)."""
    return _said_before_abort(ctx, crash, lambda _tail, reading: reading.family is Family.NETWORK,
                              near=_BACKTRACE_LINES)


def _crashed_process(crash: Located, ranks: tuple[int, ...]) -> tuple[str, ...]:
    """The process a crash report is of: its rank, or the pid (and host) its handler names."""
    if ranks:
        return (f"rank {ranks[0]}",)
    pid, host = crash.event.int_field("pid"), crash.event.fields.get("host")
    return (f"pid {pid}" + (f" on {host}" if host else ""),) if pid is not None else ()


def _gpu_failed_before(ctx: Context, crash: Located) -> tuple[TailLine, Reading] | None:
    """The same process's word that a CUDA call failed, in the few lines before it crashed
    (`unknown error in cuda_projector.cu at line 126`, then its segfault in the next call)."""
    return _said_before_abort(ctx, crash, lambda tail, reading: (
        reading.family is Family.GPU and not _NO_DEVICE.search(tail.text)),
        near=_BACKTRACE_LINES, any_signal=True)


# a host with no GPU for the process, said at its start (a CPU job's framework probing CUDA):
# no GPU failed under it
_NO_DEVICE = re.compile(r"CUDA_ERROR_NO_DEVICE|no CUDA-capable device|failed call to cuInit")


def _said_before_abort(ctx: Context, crash: Located, wanted: Callable[[TailLine, Reading], bool],
                       near: int = 0, any_signal: bool = False,
                       ) -> tuple[TailLine, Reading] | None:
    """The first line of the aborted process's own, in the few lines above its abort (or its
    crash by any signal, with `any_signal`), whose reading is `wanted`."""
    signal = str(crash.event.fields.get("signal") or "")
    if not (any_signal or "Abort" in signal or signal == "SIGABRT"
            or crash.event.int_field("signo") == 6):
        return None
    near = near or _NEAR
    pid = crash.event.int_field("pid")
    for tail in ctx.scans[crash.file_index].loose:
        reading = read_line(tail.text)
        if reading is None or tail.rank != crash.rank:
            continue
        if pid is not None and any(w.isdigit() and int(w) != pid for w in reading.where):
            continue
        if crash.event.line - near <= tail.line < crash.event.line and wanted(tail, reading):
            return tail, reading
    return None
    pid = crash.event.int_field("pid")
    for tail in ctx.scans[crash.file_index].loose:
        reading = read_line(tail.text)
        if reading is not None and tail.rank != crash.rank:
            continue
        if reading is not None and pid is not None and any(
                w.isdigit() and int(w) != pid for w in reading.where):
            continue
        if (crash.event.line - _NEAR <= tail.line < crash.event.line and reading is not None
                and reading.family is Family.SOFTWARE and _OWN_CHECK.search(reading.word)
                and not _LIBC_INTERNAL.search(tail.text)):
            return tail
    return None


# The program's own check that failed, in the words the lexicon read: an assertion, glog's and
# absl's `Check failed:` (a stack trace under it before the abort), a compiler's fatal error
# (Triton's MLIR passes: `LLVM ERROR: Failed to compute parent layout …`)
_OWN_CHECK = re.compile(r"(?i:assert)|^\W*(?:Check failed|LLVM ERROR)")


def _table_rank_of_crash(ctx: Context, crash: Located) -> tuple[int, ...]:
    """The rank of an unlabelled crash report (faulthandler's `Fatal Python error:
    Segmentation fault`) that torchrun's failure table below it in the same file names as
    its root cause, died of the same signal, the only one of its entries that did."""
    signal = crash.event.fields.get("signal")
    if crash.event.rank is not None or not signal:
        return ()
    for table in ctx.of(EventKind.CHILD_FAILED_SUMMARY):
        f = table.event.fields
        rank = f.get("root_rank")
        if (table.file_index != crash.file_index or table.event.line < crash.event.line
                or f.get("root_signal") != signal or not isinstance(rank, int)):
            continue
        others = f.get("other_failures")
        if isinstance(others, tuple) and any(dict(o).get("signal") == signal for o in others):
            continue
        return (rank,)
    return ()


def native_crash(ctx: Context) -> Finding | None:
    crashes = ctx.of(EventKind.FAULTHANDLER, EventKind.NATIVE_CRASH)
    if not crashes:
        return None
    first = crashes[0]
    # (the table's word on who died of that signal before a rank only the file's other
    # lines give the unlabelled report)
    ranks = _table_rank_of_crash(ctx, first) or ctx.global_ranks([first])
    gpu = _gpu_failed_before(ctx, first)
    if gpu is not None:
        # a CUDA call failed and the process crashed on: its GPU's failure, not a bug
        failed, _reading = gpu
        return Finding(
            Category.GPU_CUDA, ranks, _crashed_process(first, ranks),
            (f"a CUDA call failed ({failed.text.strip()[:160]}, "
             f"{ctx.scans[first.file_index].path}:{failed.line}), then {who(first)} crashed "
             f"({first.where})",), first,
            ("Check that GPU (`nvidia-smi -q`, the kernel's Xid lines) and the driver against "
             "the CUDA the program was built with; the crash followed the failed call.",),
        )
    asserted = _assertion_before(ctx, first)
    if asserted is not None:
        # the program's own assertion failed and it aborted: its bug, not an unknown crash
        return Finding(
            Category.SOFTWARE, ranks, _crashed_process(first, ranks),
            (f"a check of the program failed ({asserted.text.strip()[:160]}, "
             f"{ctx.scans[first.file_index].path}:{asserted.line}), then {who(first)} crashed "
             f"({first.where})",), first,
            ("Fix the failing assertion (its file and line are in the message); the crash is "
             "the abort it calls.",),
        )
    # (after its own check, above: a failed assertion under a link warning it survived is
    # still the abort's cause)
    link = _link_failed_before(ctx, first)
    if link is not None:
        # the process's transport gave up on its link and aborted it: the network, not a bug
        gave_up, reading = link
        # (UCX names its own port, `mlx5_0:1`, not the far end: the link is the host's)
        link_host = str(first.event.fields.get("host") or first.event.host or "")
        port = ", ".join(w for w in reading.where if not w.isdigit())
        link_of = f"{link_host}'s {port}" if link_host and port else link_host or port
        return Finding(
            Category.NETWORK, (), (f"the link from {link_of}",) if link_of else (),
            (f"{who(first)} aborted ({first.where}) after its transport gave up on its link: "
             f"'{gave_up.text.strip()[:160]}' ({ctx.scans[first.file_index].path}:{gave_up.line})",),
            first,
            ("Check the fabric between the nodes (the HCA's port and cable, `ibstat`, the "
             "switch's error counters); the process that aborted only reported the link.",),
        )
    crashed = {c.rank for c in crashes if c.rank is not None}
    # (OpenMPI's `Failing at address` line names no signal: the one its handler printed above)
    signals = [str(c.event.fields["signal"]) for c in crashes if c.event.fields.get("signal")]
    signal = signals[0] if signals else f"a fault at address {first.event.fields.get('address')}"
    # a crash handler's line names its process (host and pid: two containers' pids repeat)
    # when no rank is shown
    processes = sorted({(str(c.event.fields.get("host") or ""), p) for c in crashes
                        if (p := c.event.int_field("pid")) is not None})
    several = (f"ranks {compress_ranks(sorted(crashed))}" if len(crashed) >= 2 else
               "processes " + _some([f"{p} on {h}" if h else str(p) for h, p in processes])
               if not ranks and len(processes) >= 2 else "")
    if several and len(set(signals)) <= 1:
        # the same signal in several processes at once: a cause they share, not the first
        # to print it
        hosts = {h for h, _ in processes if h}
        shared = ("shared memory, the node" if "Bus error" in signal or "SIGBUS" in signal
                  else "code or input they all ran" if len(hosts) > 1 else
                  "code or input they all ran, the node")
        return Finding(
            Category.UNDETERMINED, (), (),
            (f"{several} all crashed"
             + (f" with {signal}" if signals else " (faults at addresses)")
             + f" (first at {first.where}); a cause they share ({shared}) is likelier than one "
             "process's fault",), first,
            ("A bus error in several ranks is usually a full /dev/shm (raise --shm-size); a "
             "segfault in all of them, the code they share (a native extension, a library "
             "version): get a core dump of one.",),
        )
    where = " inside a collective (all_reduce)" if first.event.fields.get("in_collective") else ""
    pid = processes[0][1] if len(processes) == 1 else first.event.int_field("pid")
    cause = _said_before_crash(ctx, first, pid)
    if cause is not None:
        # its own lines said why just before (UCX's transport gave up and aborted it)
        return _exit_with_cause(ctx, first, who(first), f"crashed with {signal}",
                                ranks[0] if ranks else None, cause)
    said = _host_memory_failed(ctx, pid)
    if said is not None:
        host = first.event.fields.get("host")
        return _memory_hardware(ranks[:1], (f"rank {ranks[0]} (pid {pid})" if ranks else
                                            f"pid {pid}") + (f" on {host}" if host else ""),
                                said, first)
    culprits: tuple[str, ...] = (
        (who(first) if first.rank == ranks[0] else f"rank {ranks[0]}",) if ranks else ())
    if not ranks and pid is not None:
        # mpirun names the rank of the pid whose handler printed the crash
        mpi = [e.event.int_field("mpi_rank") for e in ctx.of(EventKind.MPI_EXIT)
               if e.event.int_field("pid") == pid]
        ranks = tuple(r for r in mpi[:1] if r is not None)
        host = next((h for h, p in processes if p == pid and h), "")  # that pid's own host
        culprits = (*(f"rank {r}" for r in ranks), f"pid {pid}" + (f" on {host}" if host else ""))
    return Finding(
        Category.UNDETERMINED, ranks, culprits,
        (f"{who(first)} crashed with {signal}{where} ({first.where})",), first,
        ("A native crash: get a core dump, or run the failing rank with NCCL_DEBUG=INFO; "
         "check the node's kernel log for GPU or NIC errors.",),
    )


# The kernel's word that a page of host memory went bad under a process and it sent the process
# SIGBUS (mm/memory-failure.c; before 5.2 it said "Killing", before 3.x its prefix was "MCE")
_HOST_MEMORY_FAILED = re.compile(r"(?:Memory failure|MCE):? (?:0x)?[0-9a-fA-F]+: (?:Sending SIGBUS "
                                 r"to|Killing) .{1,16}?:(?P<pid>\d+) due to hardware memory "
                                 r"corruption")


def _host_memory_failed(ctx: Context, pid: object) -> str | None:
    """Where the kernel says it sent `pid` SIGBUS for host memory gone bad (`file:line`)."""
    if not isinstance(pid, int):
        return None
    for scan in ctx.scans:
        for t in scan.tail:
            found = _HOST_MEMORY_FAILED.search(t.text)
            if found is not None and int(found["pid"]) == pid:
                return f"{scan.path}:{t.line}"
    return None


def _memory_hardware(ranks: tuple[int, ...], named: str, said: str, item: Located) -> Finding:
    return Finding(
        Category.INFRASTRUCTURE, ranks, (named,),
        (f"{named} was killed because the host's memory under it failed: the kernel "
         f"found a page of it corrupt and sent it SIGBUS ({said}); the process's end follows "
         f"({item.where})",), item,
        ("A hardware memory error on the node: drain it and have its memory checked (`ras-mc-ctl "
         "--errors`, `mcelog`, the BMC's event log), then run the job again on other nodes.",),
    )


def _said_before_crash(ctx: Context, crash: Located,
                       pid: int | None) -> tuple[TailLine, Reading] | None:
    """A failing line of the crashed process itself (its pid in the line: UCX's and Open MPI's
    `[host:pid…]` stamps) a few lines above its crash report, that the lexicon reads as a
    cause outside the job's code: a library that aborts the process on a transport error."""
    scan = ctx.scans[crash.file_index]
    if pid is None and (scan.ranks or scan.sections or crash.rank is not None):
        return None
    # (a file no rank's prefix marks, its crash with no pid: one process's own output, as a
    # single job's log is, whose lines above the crash are its own)
    mine = re.compile(rf"[:\[ ]{pid}\b") if pid is not None else None
    near = {t.line for t in scan.tail
            if crash.event.line - _NEAR <= t.line < crash.event.line}
    return _likeliest([(t, r) for t, r in failing_readings(ctx, crash.file_index, judged_too=True)
                       if t.line in near and r.family in _OUTSIDE_CAUSES
                       and (mine is None or mine.search(t.text) is not None)])


def _own_watchdog_ended(ctx: Context, rank: int) -> bool:
    """The rank's own NCCL watchdog thread ended on an error (`… terminated with exception:
    NCCL error: remote process exited …`) and took the process down with it: torch aborts
    then. Another rank's watchdog says nothing of this one's SIGABRT."""
    return any(e.rank == rank for e in ctx.of(EventKind.WATCHDOG_TERMINATED))


def signal_kill(ctx: Context) -> Finding | None:
    aborted_by_watchdog = bool(ctx.of(EventKind.WATCHDOG_TIMEOUT, EventKind.NCCL_TEARDOWN))
    for item in ctx.of(EventKind.CHILD_FAILED_SUMMARY):
        signal = item.event.fields.get("root_signal")
        rank = item.event.fields.get("root_rank")
        if not isinstance(rank, int):
            finding = _killed_on_one_host(item)
            if finding is not None:
                return finding
            continue
        if not signal:
            continue
        if _exited_earlier_elsewhere(ctx, item):
            return None  # another node's table: its root exited first with a code (launcher_exit)
        if signal == "SIGABRT" and (aborted_by_watchdog or _own_watchdog_ended(ctx, rank)
                                    or _heartbeat_hang_elsewhere(ctx, rank)):
            continue  # the NCCL watchdog aborted it: a consequence of the timeout
        if signal == "SIGTERM" and _exited_of_its_own(item) is not None:
            continue  # stopped by the teardown of another worker's own exit (launcher_exit)
        pid = item.event.fields.get("root_pid")
        said = _host_memory_failed(ctx, pid)
        if said is not None:
            host = item.event.fields.get("root_host")
            return _memory_hardware((rank,), f"rank {rank} (pid {pid})"
                                    + (f" on {host}" if host else ""), said, item)
        alike = failed_alike(item.event.fields)
        checked = _own_check_above(ctx, item) if signal == "SIGABRT" else None
        if alike and checked is not None:
            # each aborted itself on a check of its own that failed alike: the code or input
            # they all ran, no one rank's
            return Finding(
                Category.SOFTWARE, (), (),
                (f"ranks {compress_ranks(sorted({rank, *alike}))} all aborted in the same second "
                 f"({item.where}) after a check of the program failed "
                 f"({checked.text.strip()[:160]}, {ctx.scans[item.file_index].path}:"
                 f"{checked.line}): the code or input they all ran",), item,
                ("Fix the failing check (its message names it); every rank ran into it.",),
            )
        if alike:
            ranks = compress_ranks(sorted({rank, *alike}))
            return Finding(
                Category.UNDETERMINED, (), (),
                (f"ranks {ranks} were all killed by {signal} in the same second "
                 f"({item.event.fields.get('root_time')}, {item.where}): the launcher's 'root "
                 "cause' is only the first it noticed, and one cause outside the ranks (the "
                 "host, its shared memory, a kill of the job) is as likely as a culprit among "
                 "them",), item,
                ("Check the host: `dmesg -T` for the kernel's word on the signal, `df -h "
                 "/dev/shm` for SIGBUS, the scheduler's record for a kill.",),
            )
        return Finding(
            Category.UNDETERMINED, (rank,), (f"rank {rank} (pid {pid})",),
            (f"rank {rank} (local_rank {item.event.fields.get('root_local_rank')}, pid {pid}) "
             f"was the first to fail: killed by {signal} ({item.where}); nothing in the logs "
             "says who sent it",), item,
            ("A SIGKILL is usually the host OOM killer or the scheduler: check `dmesg -T | grep "
             "-i 'killed process'` on that host and `sacct -j JOB -o MaxRSS,State`.",),
        )
    return None


def _exited_earlier_elsewhere(ctx: Context, table: Located) -> bool:
    """Another failure table (another node's launcher) whose root cause exited with a code of
    its own, no signal and no peer's loss in its record, minutes before this table's root was
    killed: that exit came first, and this kill may be its consequence."""
    killed_at = _table_time(table)
    return killed_at is not None and any(
        other is not table and not other.event.fields.get("root_signal")
        and isinstance(other.event.fields.get("root_rank"), int)
        and (exited_at := _table_time(other)) is not None
        # (minutes apart: nodes' clocks hours apart are other time zones, not an order)
        and 0 < killed_at - exited_at <= _TABLES_APART_S
        # (and its own error no peer's loss relayed: `Connection reset by peer`)
        and not any(_PEER_LOSS_WORDS.search(t.text) for t in record_lines(ctx, other))
        for other in ctx.of(EventKind.CHILD_FAILED_SUMMARY))


_TABLES_APART_S = 600.0


def _table_time(table: Located) -> float | None:
    """A failure table's root cause time (`2026-11-28_06:58:37`), in seconds."""
    stamp = parse_stamp(str(table.event.fields.get("root_time") or ""))
    return stamp.sort_key(stamp.year or 2000) if stamp is not None else None


def _own_check_above(ctx: Context, table: Located) -> TailLine | None:
    """A failed check of the program's own (an assertion, glog's `Check failed:`, `LLVM
    ERROR:`) above a launcher's failure table in its file: what an abort (SIGABRT) there was
    called by."""
    return next((t for t, r in failing_readings(ctx, table.file_index, judged_too=True)
                 if t.line < table.event.line and r.family is Family.SOFTWARE
                 and _OWN_CHECK.search(r.word)), None)


# What a process's own lines may say it met before its launcher reported its exit: a cause
# outside the job's code (its own bugs are read by the rules before this one)
_OUTSIDE_CAUSES = (Family.OOM, Family.GPU, Family.CLOCK, Family.STORAGE, Family.INFRASTRUCTURE,
                   Family.NETWORK,
                   # ... or that a peer dropped its connection: the peer's story, not its own
                   Family.PEER_LOST)


# A failing line its writer went on after (`… ; trying another index`, `… ignored`,
# `using /tmp/x as scratch instead`, `skipped the batch`), or logged as a warning or at INFO by
# a glog or TensorFlow stamp (`W0601 …`, `… 09:12:09.185833: W …`): no process's last words
_HANDLED = re.compile(r"(?i)\b(?:ignored|continuing|trying another|instead|skipp(?:ed|ing))\b|"
                      r"^\W*[WI]\d{4} \d\d:|\d\d:\d\d:\d\d\.\d+: [WI] ")
_NEAR = 12  # lines above the launcher's report that may hold the worker's last words
# what the kernel's or a scheduler's SIGKILL can be explained by (never a link or a device)
_KILL_CAUSES = (Family.OOM, Family.INFRASTRUCTURE)


def _cause_shown_above(ctx: Context, exit_: Located, ids: set[int], killed: bool,
                       own_too: bool = False, failed_too: bool = False,
                       ) -> tuple[TailLine, Reading] | None:
    """The failing line among a process's last lines before its launcher's report of its exit
    (mpirun's `noticed that process rank 5 … exited on signal 6`, srun's `task 1: Exited with
    exit code 5`), in the same file, that the lexicon reads as a cause outside the job's code
    (the network, the GPU, memory, storage, the node, a peer that dropped it): from that
    process (its `[1,5]<stderr>:` tag, its srun label), or unlabelled only in a file whose lines
    carry no labels. A SIGKILL is explained only by memory or the node. Where several are
    shown, the one the lexicon puts first. `own_too`: the job's own errors count as well."""
    last = {t.line for t in _last_words(ctx, exit_, ids)}
    allowed = _KILL_CAUSES if killed else _OUTSIDE_CAUSES
    if own_too:
        allowed = (*allowed, Family.SOFTWARE, Family.DATA)
    if failed_too:  # ... and a line that only says something failed
        allowed = (*allowed, Family.FAILED)
    # (a line a pattern made an event of counts too: the rules before this one did not
    # conclude on it)
    return _likeliest([(t, r) for t, r in failing_readings(ctx, exit_.file_index, judged_too=True)
                       if t.line in last and r.family in allowed
                       and _HANDLED.search(t.text) is None])


def _last_words(ctx: Context, exit_: Located, ids: set[int]) -> list[TailLine]:
    """A process's last lines before its launcher's report of its exit, in the same file:
    those its tag (`[1,5]<stderr>:`, srun's label) says are its own, or unlabelled ones only in a
    file whose lines carry no labels."""
    tail = [t for t in ctx.scans[exit_.file_index].tail if t.line < exit_.event.line]
    # in a file whose lines carry labels, an unlabelled line counts only once the job's
    # processes were writing (not a hook the batch script ran before the launcher)
    began = min((t.line for t in tail if _writer_of(t) is not None), default=0)
    own = [t for t in tail if _writer_of(t) in ids or (_writer_of(t) is None and t.line > began)]
    # (a runtime's backtrace under its error and the launcher's own banner above its report
    # are no one's last words: they must not push the error out of reach)
    return [t for t in own if _NOT_LAST_WORDS.search(t.text) is None][-_NEAR:]


# gfortran's backtrace under its runtime error (`Error termination. Backtrace:`, `#0  0x4a1b2c in
# __flux_MOD_compute_flux`, `\tat /src/flux.f90:87`; a signal's `Backtrace for this error:`),
# and the banner Open MPI 4's mpirun and 5's prterun print above their report of the first
# process to exit with a status (`Primary job  terminated normally, but 1 process returned`,
# `a non-zero exit code. Per user-direction, the job has been aborted.`, `mpirun detected that
# one or more processes exited with non-zero status, thus causing`, the dashed rules)
_NOT_LAST_WORDS = re.compile(
    r"^\s*$|^\s*#\d+\s+0x[0-9a-fA-F]+ in |^\s+at \S+:\d+\s*$|"
    r"^\s*(?:Error termination|Program aborted)\. Backtrace:|^\s*Backtrace for this error:|"
    r"^-{20,}$|^Primary job\s+terminated normally, but \d+ process(?:es)? returned$|"
    r"^a non-zero exit code\. Per user-direction, the job has been aborted\.$|"
    r"\bdetected that one or more processes exited with non-zero status,|"
    r"^(?:thus causing )?the job to be terminated\. The first process to do so was:$|"
    # PETSc's report below its error (src/sys/error/errtrace.c): the call stack (`#1
    # PetscMallocAlign() at mal.c:53`, before 3.15 `#1 PetscMallocAlign() line 49 in mal.c`),
    # the option table, its version, FAQ and banner lines: none says why
    r"^\s*\[\d+\]PETSC ERROR: (?:#\d+ \S+\(\) (?:at|line) |PETSc Option Table entries:|"
    r"-\w+(?: \S+)? \(source: |Petsc (?:Release|Development) |See https?://\S+ for trouble|"
    r"Configure options |\S+ on a \S+ named \S+ by |-{5,}\s*(?:End of Error Message|$))")


# A process's own last words that the failure was another's (JAX's `Terminating process because
# the JAX distributed service detected fatal errors. This most likely indicates that another
# task died`, or `… that the coordinator task died`): it stopped because of that one, and is no
# culprit (only its own labelled lines say so: an unlabelled line may be any task's)
_ANOTHER_FAILED = re.compile(r"\b(?:another|the coordinator) (?:task|process|rank|worker) "
                             r"(?:died|failed|crashed)\b")


def _likeliest(causes: list[tuple[TailLine, Reading]]) -> tuple[TailLine, Reading] | None:
    """Of several lines that say why, the one the lexicon puts first (then the earliest)."""
    return min(causes, key=lambda tr: (tr[1].family, tr[0].line)) if causes else None


# Open MPI's abort block puts the errorcode below: `with errorcode 0.` (4.x), `  Errorcode: 0`
# two lines down (5.x)
_ERRORCODE = re.compile(r"^\s*(?:with errorcode|Errorcode:) (-?\d+)")


def _aborted_on_purpose(ctx: Context, exit_: Located) -> bool:
    """An MPI_Abort with errorcode 0 (the job ended itself after its work), where the code
    is on the line below the abort's."""
    if not MPI_ABORT.search(exit_.event.text) or exit_.event.fields.get("exitcode") is not None:
        return False
    below = [t for t in ctx.scans[exit_.file_index].tail
             if exit_.event.line < t.line <= exit_.event.line + 2]
    codes = [int(c[1]) for t in below if (c := _ERRORCODE.match(t.text)) is not None]
    return codes[:1] == [0]


def _cause_shown_below(ctx: Context, exit_: Located) -> tuple[TailLine, Reading] | None:
    """MPICH's abort line that opens its error stack (`Abort(…) (rank 8 in comm 0): Fatal
    error in PMPI_Waitall: Other MPI error, error stack:`): the stack's own lines below it,
    read for a cause outside the job's code (the network's `… UNDELIVERABLE`)."""
    if "error stack" not in exit_.event.text:
        return None
    stack = {t.line for t in ctx.scans[exit_.file_index].tail
             if exit_.event.line < t.line <= exit_.event.line + _NEAR}
    return _likeliest([(t, r) for t, r in failing_readings(ctx, exit_.file_index, judged_too=True)
                       if (t.line in stack or t.line == exit_.event.line)
                       and r.family in _OUTSIDE_CAUSES])


# A launcher's words for a SIGKILL: `signal 9 (Killed)`, srun's `Killed`, exit 137 or -9
_KILLED = re.compile(r"\bKilled\b|\bSIGKILL\b|\bsignal 9\b|code:? 137\b|(?<![\w-])-9\b")


def _killed(text: str) -> bool:
    return _KILLED.search(text) is not None


_SRUN_LABEL = re.compile(r"^\s*(\d+): ")  # `srun --label`'s task number
# PETSc prefixes each line of its error report with the rank in PETSC_COMM_WORLD
# (`[3]PETSC ERROR: Caught signal number 11 SEGV`, `[2]PETSC ERROR: Out of memory.`)
_PETSC_LABEL = re.compile(r"^\s*\[(\d+)\]PETSC ERROR: ")


def _writer_of(line: TailLine) -> int | None:
    """The process a line is tagged with: its rank prefix, srun's task label, or the rank
    PETSc writes before each line of its error report."""
    if line.rank is not None:
        return line.rank
    label = _SRUN_LABEL.match(line.text) or _PETSC_LABEL.match(line.text)
    return int(label[1]) if label is not None else None


# An MPI code's own error message that names the process it ran in (LAMMPS's `ERROR on proc
# 71: …`, `Error on rank 3: …`, `process 2: error: …`): the code found the fault and aborted
_NAMES_ITS_PROCESS = re.compile(r"\b(?:error|fatal)\b.{0,20}?\b(?:on |in )?(?:proc|process|rank|task)"
                                r" (\d+)\b|\b(?:proc|process|rank|task) (\d+)\s*:\s*(?:\S+ )?"
                                r"(?:error|fatal)\b", re.IGNORECASE)


# a language runtime's own words as it ends the process (gfortran's `Fortran runtime error:
# …`, Intel Fortran's `forrtl: severe (N): …`)
# (and the runtime's report of the program's own ERROR STOP: `ERROR STOP 3`, `ERROR STOP
# 'negative density'`, printed by libgfortran's stop.c and Intel Fortran's alike)
_RUNTIME_ENDED = re.compile(r"\bFortran runtime error: |\bforrtl: severe \(\d+\): |"
                            r"^\s*ERROR STOP\b")


def _own_error_before_abort(ctx: Context, exit_: Located, rank: int,
                            ) -> tuple[TailLine, Reading] | None:
    """The rank's own error message just above its call to MPI_Abort, naming that rank in its
    words: the code detected the fault itself and aborted, its own (software) failure, as a
    Python exception is. A line the lexicon reads as a cause outside the code was taken first."""
    for tail in reversed(_last_words(ctx, exit_, {rank})):
        said = _NAMES_ITS_PROCESS.search(tail.text)
        if said is None or int(said[1] or said[2]) != rank:
            continue
        reading = read_line(tail.text)
        if reading is None or reading.family not in (Family.FAILED, Family.SOFTWARE,
                                                     Family.STORAGE, Family.OOM, Family.DATA):
            return None
        if reading.family is Family.FAILED:
            reading = Reading(Family.SOFTWARE, reading.word, reading.where)
        return tail, reading
    return None


def _exit_with_cause(ctx: Context, exit_: Located, name: str, how: str, rank: int | None,
                     cause: tuple[TailLine, Reading]) -> Finding:
    """The launcher's report of an exit, explained by the line above it that says why."""
    tail, reading = cause
    category = CATEGORY[reading.family]
    where = ", ".join(reading.where)
    # the reporter is one end of the link, or the end its peer left
    network = reading.family is Family.NETWORK
    peer_left = reading.family is Family.PEER_LOST
    ranks = () if network or peer_left or rank is None else (rank,)
    culprit = ((f"the link to {where}" if where else "the link that line names") if network
               else f"the peer of {name}" if peer_left else name)
    return Finding(
        category, ranks, (culprit,),
        (f"'{reading.word}' reads as {category.value} "
         f"({ctx.scans[exit_.file_index].path}:{tail.line}): {tail.text.strip()[:160]}; then "
         f"the launcher: {name} {how} ({exit_.where})",), exit_,
        ("The process's own line above the launcher's report says why it ended: check what "
         "it names (the link, the device, the node's memory or disk).",),
    )


# MPI error classes that say the calling process passed a wrong argument (MPICH's and Intel
# MPI's `Invalid root`, Open MPI's `MPI_ERR_ROOT`), and that a message was longer than the
# receiver's buffer (`Message truncated`, `MPI_ERR_TRUNCATE`)
_MPI_USAGE = re.compile(r"^Invalid (?:root|communicator|rank|tag|count|datatype|argument|buffer|"
                        r"group|op|MPI_Op)\b|^MPI_ERR_(?:ROOT|COMM|RANK|TAG|COUNT|TYPE|ARG|"
                        r"BUFFER|GROUP|OP)$")
_MPI_TRUNCATED = re.compile(r"^Message truncated$|^MPI_ERR_TRUNCATE$")
_COLLECTIVE_CALL = re.compile(r"(?:Bcast|Allreduce|Reduce|Allgather|Gather|Scatter|Alltoall|"
                              r"Reduce_scatter|Scan|Exscan|Barrier)(?:v|w|_block)?(?:_c)?$",
                              re.IGNORECASE)


def mpi_error(ctx: Context) -> Finding | None:
    """MPI's error handler naming the call that failed and its error class: a wrong argument
    is the calling process's bug; a truncated message in a collective means the ranks called
    it with different sizes (no one rank is shown to be wrong), in a point-to-point receive
    the receiver's buffer was too small."""
    for item in ctx.of(EventKind.MPI_ERROR):
        error = str(item.event.fields.get("mpi_error") or "")
        usage, truncated = _MPI_USAGE.search(error), _MPI_TRUNCATED.search(error)
        if usage is None and truncated is None:
            continue
        if any(e.event.level >= Level.ERROR and e.kind not in _MPI_KINDS and _before(e, item)
               for e in ctx.located):
            return None  # another failure came first: a peer's crash truncates messages too
        call = str(item.event.fields.get("mpi_call") or _call_above(ctx, item) or "")
        rank = _mpi_rank_of(ctx, item)
        name = f"rank {rank}" if rank is not None else who(item)
        if truncated is not None and _COLLECTIVE_CALL.search(call):
            return Finding(
                Category.COLLECTIVE_DESYNC, (), (),
                (f"MPI: {error} in {call} ({item.where}): the ranks called this collective "
                 "with different counts; the rank that reports it only sees the mismatch",),
                item,
                ("Check that every rank calls the collective with the same count and type "
                 "(a shape that differs per rank, a rank on another code path).",),
            )
        return Finding(
            Category.SOFTWARE, (rank,) if rank is not None else (), (name,),
            (f"{name}: MPI rejected its call {call or '(call not shown)'}: {error} "
             f"({item.where})",), item,
            ("Fix the arguments of that call on that rank (root, communicator, count, tag, "
             "buffer size).",),
        )
    return None


_MPI_CALL = re.compile(r"An error occurred in (MPI_\w+)")
_MPI_KINDS = frozenset({EventKind.MPI_EXIT, EventKind.MPI_ERROR})


def _call_above(ctx: Context, item: Located) -> str | None:
    """Open MPI's `*** An error occurred in MPI_Bcast` a few lines above its error class."""
    above = [t for t in ctx.scans[item.file_index].tail
             if t.line < item.event.line and t.text.strip()]  # (a paste may be double-spaced)
    for t in reversed(above[-4:]):
        found = _MPI_CALL.search(t.text)
        if found is not None:
            return found[1]
    return None


def _written_apart(ctx: Context, index: int, a: int, b: int) -> int:
    """How many lines apart two lines of a file are, blank lines aside (a paste may be
    double-spaced); by their numbers where the lines between are not in the tail."""
    low, high = min(a, b), max(a, b)
    tail = ctx.scans[index].tail
    if not tail or low < tail[0].line:
        return high - low
    return sum(1 for t in tail if low < t.line <= high and t.text.strip())


def _mpi_rank_of(ctx: Context, item: Located) -> int | None:
    """The rank an MPI error is from: its line's own rank, or the rank MPI names on that line
    (`(rank 2 in comm 0)`) or just below it (`*** reported by process [847773697,2]`)."""
    near = [e for e in ctx.of(EventKind.MPI_EXIT)
            if e.file_index == item.file_index
            and _written_apart(ctx, item.file_index, e.event.line, item.event.line) <= 3]
    named = near[0].event.int_field("mpi_rank") if near else None
    # (MPI's own word beats a rank the file was given as a whole: a file whose only tagged
    # line is rank 0's `[1,0]<stdout>:` holds the error handler's lines of every rank)
    if item.rank is not None and item.rank_origin in GLOBAL_ORIGINS and not (
            item.rank_origin == "file" and named is not None):
        return item.rank
    return named


_HYDRA_STATUS = re.compile(r"^=\s+((?:KILLED BY SIGNAL|EXIT CODE|EXIT STATUS): .*?)\s*$")


def _hydra_status(ctx: Context, item: Located) -> str:
    """The status line under a Hydra block's `RUNNING AT` line (`=   KILLED BY SIGNAL: 9
    (Killed)`, `=   EXIT CODE: 139`), "" when it is not shown."""
    for t in ctx.scans[item.file_index].tail:
        if item.event.line < t.line <= item.event.line + 2:
            m = _HYDRA_STATUS.match(t.text)
            if m is not None:
                return m[1]
    return ""


def _hang_reported(ctx: Context) -> bool:
    """NCCL's watchdog or heartbeat monitor fired, or NCCL tore a communicator down: a hang
    whose abort makes every worker exit, the first report of an exit only the first."""
    return bool(ctx.of(EventKind.WATCHDOG_TIMEOUT, EventKind.NCCL_TEARDOWN,
                       EventKind.HEARTBEAT_HANG)) or any(
        # (or the watchdog thread's own exception, its message cut: `Exception raised from
        # ncclCommWatchdog at …ProcessGroupNCCL.cpp:1521`)
        "Watchdog" in str(e.event.fields.get("raised_from", ""))
        for e in ctx.of(EventKind.CPP_EXCEPTION))


def _text_below(ctx: Context, item: Located, lines: int = 3) -> str:
    """The text of the few lines under an event's line (Open MPI's `Exit code:` row)."""
    return " ".join(t.text for t in ctx.scans[item.file_index].tail
                    if item.event.line < t.line <= item.event.line + lines)


def _heartbeat_hang_elsewhere(ctx: Context, rank: int) -> bool:
    """Another rank's word that ProcessGroupNCCL's heartbeat monitor found its watchdog stuck
    and ended the process (`Heartbeat monitor timed out! … Terminating the process`): the
    monitor aborted the ranks alike, and the first aborted is not shown to be the cause."""
    if any(e.rank == rank and "Watchdog" not in str(e.event.fields.get("raised_from", ""))
           for e in ctx.of(EventKind.CPP_EXCEPTION)):
        return False  # (its own native error ended it first: `terminate called after …`)
    return bool({e.rank for e in ctx.of(EventKind.HEARTBEAT_HANG) if e.rank is not None} - {rank})


# A rank's own error that says another rank's failure stopped it
_RELAYS_ANOTHERS = ("Horovod has been shut down",)


def _only_relayed(ctx: Context, exit_: Located, rank: int) -> bool:
    """The rank's own tagged errors before the launcher's report are all relays of another
    rank's failure, and there is at least one."""
    own = [e for e in ctx.located if e.rank == rank and e.event.level >= Level.ERROR
           and e.kind is EventKind.PYTHON_TRACEBACK and _before(e, exit_)]
    return bool(own) and all(
        any(w in f"{e.event.fields.get('exc_message')}" for w in _RELAYS_ANOTHERS) for e in own)


def launcher_task_exit(ctx: Context) -> Finding | None:
    """mpirun and srun name the first process that died or exited by itself. An mpirun rank
    is the job's rank; an srun task is one only when srun started the ranks itself (not a
    per-node launcher), so it is named as a task. Why it died is not in these lines, unless
    that process's own line above them says it."""
    # (a process that died of SIGABRT where NCCL's watchdog or heartbeat monitor fired: the
    # watchdog aborted it, a consequence of the hang, as signal_kill reads torchrun's table)
    watchdog_aborted = _hang_reported(ctx)
    mpi = [e for e in ctx.of(EventKind.MPI_EXIT)
           if (e.event.level >= Level.ERROR or (e.event.level is Level.WARNING
                                                 and MPI_ABORT.search(e.event.text)))
           and not _aborted_on_purpose(ctx, e) and not crashed_while_stopping(ctx, e)
           and not (watchdog_aborted and (e.event.int_field("signo") == 6
                                          # (TGI's word that a shard crashed: of its signal)
                                          or e.event.fields.get("tgi_shard") == "crashed"))]
    tasks = [e for e in ctx.of(EventKind.SLURM_TASK_EXIT)
             if not _stopped_by_srun(e) and not e.event.fields.get("oom")
             and (e.event.fields.get("exitcode") or e.event.fields.get("signal"))
             and not (watchdog_aborted
                      and str(e.event.fields.get("status_text", "")).startswith("Aborted"))]
    aborts = {e.event.int_field("mpi_rank") for e in mpi if MPI_ABORT.search(e.event.text)}
    if len(aborts) >= 2:
        # several ranks called MPI_Abort: each found the failure, none is shown to be its cause
        first = mpi[0]
        shown = _cause_shown_above(ctx, first, set(), False) or _cause_shown_below(ctx, first)
        return Finding(
            Category.UNDETERMINED if shown is None else CATEGORY[shown[1].family], (), (),
            (f"ranks {compress_ranks(sorted(r for r in aborts if r is not None))} all called "
             f"MPI_Abort (first at {first.where}); each found the failure, none is shown to "
             "be its cause",), first,
            ("Read the first lines above the aborts, and each rank's own output, for the "
             "error that made them abort.",),
        )
    blocks = [e for e in mpi if "RUNNING AT" in e.event.text]
    statuses = [_hydra_status(ctx, e) for e in blocks[:2]]
    if len(statuses) == 2 and statuses[0] == statuses[1]:
        # MPICH Hydra's blocks for several processes, the first two ended alike: its first
        # block is only the first it reported
        reported = sorted({r for e in blocks if (r := e.event.int_field("mpi_rank")) is not None})
        first = blocks[0]
        return Finding(
            Category.UNDETERMINED, (), (),
            (f"MPICH's launcher reports {len(blocks)} processes "
             + (f"(ranks {compress_ranks(reported)}) " if reported else "")
             + f"ended alike ({statuses[0] or 'status not shown'}, first at "
             f"{first.where}): the first it reported is not shown to be the cause",), first,
            ("Read each rank's own output and the node's kernel log (OOM killer) for the "
             "process that failed first.",),
        )
    if mpi:
        first = mpi[0]
        f = first.event.fields
        rank = first.event.int_field("mpi_rank")
        signal = f.get("signal_text") or (f"signal {f['signo']}" if f.get("signo") else "")
        how = f"died of {signal}" if signal else "was the first to exit with a non-zero status"
        on = f" on node {f['node']}" if f.get("node") else ""
        process = f.get("process_name") or (f"pid {f['pid']}" if f.get("pid") else "a process")
        name = f"rank {rank}{on}" if rank is not None else str(process)
        if MPI_ABORT.search(first.event.text):
            how = "called MPI_Abort" + (f" (errorcode {f['exitcode']})"
                                        if f.get("exitcode") is not None else "")
        killed = _killed(f"{how} {first.event.text}")
        cause = _cause_shown_above(ctx, first, {rank} if rank is not None else set(),
                                   killed) or _cause_shown_below(ctx, first)
        if cause is None and rank is not None and not killed:
            # or an error of its own in its own tagged lines (`[1,7]<stderr>: … NCCL WARN
            # Invalid rank requested : 8/8`): its bug, which the patterns did not make an event
            own = _cause_shown_above(ctx, first, {rank}, False, own_too=True)
            if own is None and "Process name:" in first.event.text:
                # (its runtime's own last words in its tagged lines, `[1,2]<stderr>:Fortran
                # runtime error: Index '129' of dimension 1 of array 'q' above upper bound`,
                # which say only that something failed: the program's own error)
                failed = _cause_shown_above(ctx, first, {rank}, False, own_too=True,
                                            failed_too=True)
                if failed is not None and _RUNTIME_ENDED.search(failed[0].text) is not None:
                    own = (failed[0], Reading(Family.SOFTWARE, failed[1].word, failed[1].where)
                           if failed[1].family is Family.FAILED else failed[1])
            cause = own if own is not None and _writer_of(own[0]) == rank else None
        if cause is None and rank is not None and MPI_ABORT.search(first.event.text):
            cause = _own_error_before_abort(ctx, first, rank)
        if (cause is None and rank is not None and not killed
                and (MPI_ABORT.search(first.event.text)
                     # (or Open MPI's first process to exit with a status: a runtime's own
                     # `Fortran runtime error: …` then `Error termination`)
                     or ("Process name:" in first.event.text
                         and first.event.int_field("signo") is None))
                and not any(_writer_of(t) is not None
                            for t in ctx.scans[first.file_index].tail)):
            # one rank's MPI_Abort right under an error block a code printed (GROMACS's
            # `Fatal error:`, Quantum ESPRESSO's `Error in routine`, WRF's `FATAL CALLED FROM
            # FILE`, OpenFOAM's `--> FOAM FATAL ERROR`), in a file whose lines carry no rank
            # labels: the block is the aborting rank's own last words (each process prints
            # its own fatal error just before it calls MPI_Abort)
            own = _cause_shown_above(ctx, first, {rank}, False, own_too=True, failed_too=True)
            if (own is not None and not MPI_ABORT.search(first.event.text)
                    and not any(_RUNTIME_ENDED.search(t.text) is not None
                                for t in _last_words(ctx, first, {rank}))):
                own = None  # (an exit with a status: only a runtime's own last words say why)
            if own is not None and own[1].family is Family.FAILED:
                own = (own[0], Reading(Family.SOFTWARE, own[1].word, own[1].where))
            cause = own
        if cause is not None:
            return _exit_with_cause(ctx, first, name, how, rank, cause)
        peers = [str(e.event.fields["peer_host"]) for e in ctx.of(EventKind.MPI_PEER_LOST)
                 if e.event.fields.get("peer_host") and not e.event.fields.get("daemon")
                 and e.file_index == first.file_index and e.event.line < first.event.line]
        if peers and not killed and "xit code" in first.event.text + _text_below(ctx, first):
            # Open MPI said a peer process on another host disconnected before this one
            # exited with a status: the exit relays the peer's loss, and the peer's host is
            # where to look (the first to exit is only the first to notice)
            hosts = list(dict.fromkeys(peers))
            return Finding(
                Category.UNDETERMINED, (), tuple(f"the process on {h} (it disconnected first)"
                                                 for h in hosts),
                (f"Open MPI: a peer process on {', '.join(hosts)} disconnected unexpectedly "
                 f"before {name} {how} ({first.where}): the peer's failure, not shown here, is "
                 "the root cause",), first,
                ("Read the output and kernel log of the process on "
                 f"{', '.join(hosts)} (a core file, the OOM killer) at that time.",),
            )
        if rank is not None and not killed and _only_relayed(ctx, first, rank):
            # its own tagged output is shown, and says only that another rank's failure
            # stopped it (Horovod's `Horovod has been shut down. This was caused by an
            # exception on one of the ranks…`): the first to exit is only the first to notice
            return Finding(
                Category.UNDETERMINED, (), (),
                (f"the launcher: {name} {how} ({first.where}); its own output only relays "
                 "another rank's failure, which is not shown",), first,
                ("Read every rank's output from the start of the failure for the first "
                 "exception (the one before the first shutdown message).",),
            )
        return Finding(
            Category.UNDETERMINED, (rank,) if rank is not None else (), (name,),
            (f"the launcher: {name} {how} ({first.where}); its own output, not shown, holds "
             "why",), first,
            ("Read that rank's own output (mpirun --tag-output prefixes it with [1,N]) and the "
             "node's kernel log (OOM killer) at that time.",),
        )
    if tasks:
        first = tasks[0]
        f = first.event.fields
        ids = sorted({i for t in _alike_at_once(first, tasks)
                      for i in t.event.fields.get("tasks") or ()  # type: ignore[union-attr]
                      if isinstance(i, int)})
        ranks = task_ranks(ctx.topology, ids)
        name = f"task {compress_ranks(ids)} on {f.get('node')}"
        if ranks:
            name = f"rank {compress_ranks(ranks)} (srun {name})"
        said = _node_failed_first(ctx, first)
        cause = (_cause_shown_above(ctx, first, set(ids),
                                    _killed(str(f.get("status_text") or "")))
                 if said is None else None)
        if cause is not None:
            return _exit_with_cause(ctx, first, name, str(f.get("status_text") or "exited"),
                                    ranks[0] if len(ranks) == 1 else None, cause)
        own = (_cause_shown_above(ctx, first, set(ids), False, own_too=True)
               if said is None and cause is None and f.get("exitcode") else None)
        named = _RANK_IN_OWN_WORDS.search(own[0].text) if own is not None else None
        if own is not None and named is not None and not any(_NOT_REPRODUCED.search(t.text)
                                         for t in _last_words(ctx, first, set(ids))):
            # the job's own error line above srun's report names the rank it is about
            # (Megatron's result validation on a NaN loss or grad norm, then every task
            # exits alike with the code it chose): that rank, whatever task srun named first
            rank = int(next(g for g in named.groups() if g))
            return _exit_with_cause(ctx, first, f"rank {rank}",
                                    str(f.get("status_text") or "exited"), rank, own)
        own = (_cause_shown_above(ctx, first, set(ids), False, own_too=True)
               if said is None and f.get("signal") == "SIGABRT" else None)
        if own is not None:
            # the process aborted itself on an error of its own its last lines show (a failed
            # CHECK, a C++ exception): that line is the story. Where the line carries the
            # task's own label it names the task; unlabelled, it may be any task's (the
            # lexicon reads it, naming none)
            if _writer_of(own[0]) not in ids:
                return None
            return _exit_with_cause(ctx, first, name, str(f.get("status_text") or "aborted"),
                                    ranks[0] if len(ranks) == 1 else None, own)
        if said is None and any(_ANOTHER_FAILED.search(t.text) and _writer_of(t) in ids
                                for t in _last_words(ctx, first, set(ids))):
            return Finding(
                Category.UNDETERMINED, (), (),
                (f"srun: {name} was the first to stop ({f.get('status_text')}, {first.where}), "
                 "and its own last lines say it stopped because another process failed; no "
                 "line shows which, or why",), first,
                ("Read every task's own output (srun --label prefixes it) for the first to "
                 "fail, and the nodes' kernel logs (OOM killer) at that time.",),
            )
        image = _image_import_cause(ctx, said[0], first) if said is not None else None
        if image is not None:
            # the container's image could not be fetched or unpacked: the registry could not
            # be reached, or the node's disk filled, in enroot's words pyxis printed
            return _exit_with_cause(ctx, first, f"the image import on node {f.get('node')}",
                                    "could not start its container", None, image)
        if said is not None:  # the node said why first (its container could not start)
            tail, reading = said
            return Finding(
                Category.INFRASTRUCTURE, (), (f"node {f.get('node')}",),
                (f"'{reading.word}' ({ctx.scans[first.file_index].path}:{tail.line}): "
                 f"{tail.text.strip()[:160]}; then srun: {name}: {f.get('status_text')} "
                 f"({first.where})",), first,
                ("The node could not start the step (its container runtime, a plugin): drain "
                 "it and check its slurmd and container logs.",),
            )
        return Finding(
            Category.UNDETERMINED, ranks, (name,),
            (f"srun: {name} was the first to stop by itself: {f.get('status_text')} "
             f"({first.where}); the others were terminated after it",), first,
            ("Read that task's own output (srun --label prefixes it) for its error.",),
        )
    return None


# a job's own error line that names the global rank it is about, in Megatron's result
# validation words (`Unexpected result nan on rank 21 at iteration #8812 invocation #1
# (message='found NaN in local forward loss calculation')`, `Rank 21, node hgx-b-003, device 5,
# iteration #8812: …`)
_RANK_IN_OWN_WORDS = re.compile(r"\bUnexpected result \S+ on rank (\d+) at iteration\b|"
                                r"\bRank (\d+), node [\w.-]+, device \d+, iteration\b")
# ... unless its rerun found the result not reproducible (a suspected transient or persistent
# hardware fault: `First rerun: unexpected result is not reproducible within the tolerance`,
# `Possible transient error!`): then the NaN is not shown to be the job's own
_NOT_REPRODUCED = re.compile(r"\bunexpected result is not reproducible\b|"
                             r"\bPossible (?:transient|persistent) error\b")


def _alike_at_once(first: Located, tasks: list[Located]) -> list[Located]:
    """srun reports the tasks of one node that died of one signal in lines a moment apart
    (`tasks 1408-1418,1420: Aborted`, then `tasks 1419,1421: Aborted`): one failure, all
    of them its tasks. A later line, another node or another reason is not, nor a SIGKILL,
    which srun itself sends the tasks that outlive the step's grace period."""
    f = first.event.fields
    if f.get("signal") == "SIGKILL":
        return [first]
    return [t for t in tasks if t is first or (
        t.file_index == first.file_index and 0 < t.event.line - first.event.line <= 4
        and t.event.fields.get("node") == f.get("node")
        and t.event.fields.get("status_text") == f.get("status_text"))]


# The node's own word that it could not start the step's task (its container runtime, a
# SPANK plugin, the program's exec): not any line that mentions /dev/shm or a preemption
_COULD_NOT_START = re.compile(
    r"pyxis: (?:couldn't start container|container start failed|failed to start container)|"
    r"spank: required plugin \S+ task_init\(\) failed|slurmstepd: error: execve\(\)")


def _node_failed_first(ctx: Context, exit_: Located) -> tuple[TailLine, Reading] | None:
    """A failing line of the same file, before srun's task exit, in which the node says it
    could not start the task (pyxis: `couldn't start container`): the exit's cause. A line
    labelled with another task (`2: …`) is another task's."""
    tasks = {i for i in exit_.event.fields.get("tasks") or () if isinstance(i, int)}  # type: ignore[union-attr]
    for tail in ctx.scans[exit_.file_index].loose:
        if tail.line >= exit_.event.line:
            break
        m = _COULD_NOT_START.search(tail.text)
        if m is None:
            continue
        if tail.rank is not None and tasks and tail.rank not in tasks:
            continue
        return tail, read_line(tail.text) or Reading(Family.INFRASTRUCTURE, m.group(0), ())
    return None


# pyxis's copy of enroot's log (`pyxis: printing enroot log file:`, then each line indented
# under `pyxis:`), printed just before it says it could not start the container
_ENROOT_LOG = re.compile(r"\bpyxis: printing enroot log file:")
# pyxis's word on the image it imports (`pyxis: importing docker image:
# nvcr.io#nvidia/pytorch:24.05-py3`): its registry is before the `#`
_IMAGE_REGISTRY = re.compile(r"\bpyxis: importing docker image: ([\w.-]+\.[\w.-]+(?::\d+)?)#")
# what enroot met that explains a failed import more than the node does: the registry it could
# not reach (`curl: (6) Could not resolve host: nvcr.io`), a disk that filled
_IMPORT_CAUSES = (Family.OOM, Family.CLOCK, Family.STORAGE, Family.NETWORK, Family.PEER_LOST)


def _image_import_cause(ctx: Context, could_not: TailLine,
                        exit_: Located) -> tuple[TailLine, Reading] | None:
    """The line of enroot's log, as pyxis printed it above its `couldn't start container`,
    that says why the image could not be imported, when it names the network, storage,
    memory or the clock."""
    above = [t for t in ctx.scans[exit_.file_index].tail if t.line < could_not.line]
    lines: list[TailLine] = []
    for t in reversed(above):  # up through pyxis's lines to its header, however many
        if _ENROOT_LOG.search(t.text):
            readings = [(line, r) for line in lines if (r := read_line(line.text)) is not None
                        and r.family in _IMPORT_CAUSES]
            found = _likeliest(readings)
            if found is None or found[1].family not in (Family.NETWORK, Family.PEER_LOST):
                return found
            # the registry's end of the link: the connection it reset or would not make is the
            # network's, and where curl names no host, the image's registry is the far end
            registry = next((m[1] for a in above if (m := _IMAGE_REGISTRY.search(a.text))),
                            None)
            where = found[1].where or ((registry,) if registry else ())
            return found[0], Reading(Family.NETWORK, found[1].word, where)
        if "pyxis:" not in t.text:
            return None
        lines.append(t)
    return None


def _killed_on_one_host(item: Located) -> Finding | None:
    """A failure table without its root cause (cut in the paste) whose every failure was
    killed by a signal on one host: the host is what the table shows, not a rank."""
    others = item.event.fields.get("other_failures")
    entries = [dict(e) for e in others] if isinstance(others, tuple) else []
    hosts = {e.get("host") for e in entries}
    signals = {e.get("signal") for e in entries}
    if not entries or len(hosts) != 1 or None in hosts or len(signals) != 1 or None in signals:
        return None
    host, signal = hosts.pop(), signals.pop()
    ranks = sorted(int(str(e["rank"])) for e in entries if isinstance(e.get("rank"), int))
    return Finding(
        Category.UNDETERMINED, (), (f"host {host} ({len(entries)} workers killed by {signal})",),
        (f"every failure the launcher lists ({len(entries)}: ranks "
         f"{', '.join(map(str, ranks)) or 'unknown'}) was killed by {signal} on host {host} "
         f"({item.where}); the table's root cause is not in the logs, and nothing says who "
         "sent the signal",), item,
        ("Several workers of one host killed at once is usually the host OOM killer or the "
         f"scheduler: check `dmesg -T | grep -i 'killed process'` on {host}.",),
    )


# The families whose words explain why a process died (not a lost peer, a kill or a bare
# failure, which only say that it did)
_EXPLAINS_A_DEATH = frozenset({Family.OOM, Family.GPU, Family.STORAGE, Family.INFRASTRUCTURE,
                               Family.NETWORK, Family.INIT_TIMEOUT, Family.ENVIRONMENT,
                               Family.SOFTWARE})


def _actors_own_failure(ctx: Context, task: Located) -> tuple[TailLine, Reading] | None:
    """The same Ray worker's (its prefix's pid) failing line nearest before the task's
    error, in words that explain a death."""
    pid, ip = task.event.int_field("pid"), task.event.fields.get("ip")
    found = None
    for tail in ctx.scans[task.file_index].loose:
        env = split_envelope(tail.text)
        if (tail.line < task.event.line and pid is not None and env.actor_pid == pid
                and (ip is None or env.host is None or env.host == ip)):
            reading = read_line(tail.text)
            if reading is not None and reading.family in _EXPLAINS_A_DEATH:
                found = (tail, reading)
    return found


def ray_creation_task(ctx: Context) -> Finding | None:
    """Ray: an actor's constructor raised and the actor died. Its own exception, when the
    traceback shows it, is read by the earlier rules; here the traceback was cut before it."""
    items = [t for t in ctx.of(EventKind.RAY_TASK_ERROR) if "creation task" in t.event.text]
    if not items:
        return None
    first = items[0]
    ranks = _ray_rank(ctx, first)
    said = _actors_own_failure(ctx, first)
    if said is not None:  # the actor's own lines before its death say why (a bind that failed)
        tail, reading = said
        return Finding(
            CATEGORY[reading.family], () if reading.family not in OWN_FAULT else ranks,
            (*(f"rank {r}" for r in ranks if reading.family in OWN_FAULT),
             _ray_task_name(first)),
            (f"{_ray_task_name(first)} died while it was being created ({first.where}), "
             f"after its own line '{reading.word}' "
             f"({ctx.scans[first.file_index].path}:{tail.line}): {tail.text.strip()[:160]}",),
            first,
            ("The actor's constructor met the failure its line names; its full traceback is "
             "in the worker's log under /tmp/ray/session_latest/logs on that node.",),
        )
    return Finding(
        Category.UNDETERMINED, ranks,
        (*(f"rank {r}" for r in ranks), _ray_task_name(first)),
        (f"{_ray_task_name(first)} died while it was being created ({first.where}); the "
         "exception that killed it is not in the logs",), first,
        ("The actor's constructor raised: its full traceback is in the worker's log under "
         "/tmp/ray/session_latest/logs (worker-*.err) on that node.",),
    )


def _below(ctx: Context, item: Located) -> str:
    """The lines of an exception's report under its first line (Ray's cause comes after the
    actor's indented fields: `The actor is dead because its node has died.`)."""
    said = []
    for t in ctx.scans[item.file_index].tail:
        if t.line <= item.event.end_line:
            continue
        said.append(t.text)
        if not t.text[:1].isspace():  # the indented fields, then the cause's line
            break
    return " ".join(said)


def actor_died(ctx: Context) -> Finding | None:
    """Ray: an actor or worker process died; Ray states the pid and, sometimes, the cause."""
    # (a node the autoscaler had just removed for being idle is then marked dead: its own
    # doing, not a loss)
    # (nor a worker whose task Ray said it retries, the job training on after)
    items = [i for i in ctx.of(EventKind.ACTOR_DIED)
             if not removed_idle_above(ctx, i) and not ray_retried_past(ctx, i)]
    if not items:
        return None
    if any(s.order() < items[0].order() for s in ctx.of(EventKind.AGENT_DEATH_SIGNAL)):
        return None  # the driver was stopped from outside first: its actors died with it
    node = [i for i in items if any(w in f"{i.event.fields.get('message', '')} {_below(ctx, i)}"
                                    for w in ("node has crashed", "marked dead", "node has died",
                                              "node was terminated"))]
    if node:
        first = node[0]
        ips = sorted(set(re.findall(r"(?:Owner Ip address:|and address:|and ip:|IP:) ([\d.]+)",
                                    first.event.text)))
        if not ips and first.event.fields.get("ip"):
            ips = [str(first.event.fields["ip"])]  # the actor's own `ip:` field: its node
        if not ips:
            # (or among the indented fields under its exception line: `\tip: 10.0.3.21`)
            ips = sorted(set(re.findall(r"(?<!\S)ip: ([\d.]+)", _below(ctx, first))))
        return Finding(
            Category.INFRASTRUCTURE, (), tuple(f"node {ip}" for ip in ips),
            (f"Ray reports that a node died or was lost: "
             f"{str(first.event.fields.get('message'))[:120]} ({first.where})",), first,
            ("Check that node's health (kernel log, memory, power) and the Ray head's logs.",),
        )
    with_pid = [i for i in items if i.event.fields.get("pid")]
    first = with_pid[0] if with_pid else items[0]
    if _actors_own_failure(ctx, first) is not None:
        # the dead worker's own lines above, under its prefix, say why it died (torch's
        # watchdog line with the CUDA error that aborted it): the rules that read those words
        # name the cause, not Ray's list of possible ones
        return None
    pid = first.event.fields.get("pid")
    ip = first.event.fields.get("ip")
    culprit = f"Ray worker pid {pid}" + (f" on {ip}" if ip else "") if pid else ""
    # (a Ray Train worker: the trainer's table of its workers gives the pid's rank)
    ranks = ray_worker_rank(ctx, first.event.int_field("pid"), ip) if pid and not any(
        _before(first, row) for row in ctx.of(EventKind.RAY_WORKER_RANK)) else ()
    # (not where the trainer started its workers again after: that table is another group's)
    return Finding(
        Category.UNDETERMINED, ranks,
        (*(f"rank {r}" for r in ranks), *((culprit,) if culprit else ())),
        (f"a Ray actor/worker died ({first.where}); Ray's own message lists the OOM killer, "
         "`ray stop --force` or a crash as causes, and nothing here picks one",), first,
        ("Look for the worker's own log under /tmp/ray/session_latest/logs and the node's "
         "`dmesg` (OOM killer) at that time.",),
    )


# torch.distributed.launch before torchrun: `Command '[…, '--local_rank=3']' died with
# <Signals.SIGKILL: 9>.` or `returned non-zero exit status 1.`
_LEGACY_EXIT = re.compile(r"died with <Signals\.(SIG\w+): \d+>|returned non-zero exit status (-?\d+)")


def _one_node_rank(ctx: Context, local: int, pid: FieldValue, item: Located | None = None,
                   ) -> tuple[tuple[int, ...], str, tuple[str, ...]]:
    """The ranks, name and reason for a launcher's local rank: on the job's one node it is
    the global rank, and where its file's torchrun agent said which global rank it is, that
    one; elsewhere it names a process, never a rank."""
    at = f"pid {pid}" if pid else ""
    mapped = ctx.topology.local_to_global.get(item.file_index, {}) if item is not None else {}
    if local in mapped:
        rank = mapped[local]
        return ((rank,), f"rank {rank} (local_rank {local}" + (f", {at})" if at else ")"),
                (f"its node's torchrun agent maps local rank {local} to rank {rank} "
                 f"({ctx.scans[item.file_index].path})",) if item is not None else ())
    if not ctx.topology.one_node:
        return (), f"local_rank {local}" + (f" ({at})" if at else ""), ()
    return ((local,), f"rank {local} (local_rank {local}" + (f", {at})" if at else ")"),
            (f"the job ran on one node ({ctx.topology.one_node}): local rank {local} is "
             f"rank {local}",))


_LAUNCHER_REPORTS = (EventKind.AGENT_WORKER_FAILED, EventKind.AGENT_SIGTERM,
                     EventKind.CHILD_FAILED_SUMMARY)


def _own_error_above(ctx: Context, item: Located, rank: int | None,
                     ranks: Collection[int] = (), near: int = _NEAR) -> tuple[TailLine, Reading] | None:
    """A worker's own error right above the launcher's report of its exit, in the same file,
    when the lexicon reads every failing line there as one family of the job's own faults (a
    DDP error whose exception line was cut, a disk that filled): that is why it exited. Only
    lines a few above the report with no progress between count (the job went on after an
    earlier one), never another rank's, nor one its writer went on after; lines of several such
    families, or none, leave the exit unexplained."""
    went_on = [p.event.line for p in ctx.of(EventKind.PROGRESS)
               if p.file_index == item.file_index and p.event.line < item.event.line]
    # (the launcher's own lines about the exit are its report, not the worker's words)
    reports = {e.event.line for e in ctx.of(*_LAUNCHER_REPORTS) if e.file_index == item.file_index}
    readings = []
    for t in ctx.scans[item.file_index].loose:
        if not item.event.line - near <= t.line < item.event.line or any(
                t.line < line for line in went_on) or _HANDLED.search(t.text) or t.line in reports \
                or ctx.passed_over(item.file_index, t.line):
            continue
        reading = read_line(t.text)
        if reading is None:
            continue
        if t.rank is not None and t.rank != rank and t.rank not in ranks:
            return None  # another rank's words (or a rank the launcher did not name)
        readings.append((t, reading))
    families = {r.family for _, r in readings}
    if len(families) != 1 or not families <= OWN_FAULT:
        return None
    return readings[0]


def _every_rank_wrote_alike(
        ctx: Context, item: Located, rank: int) -> tuple[list[int], tuple[TailLine, Reading]] | None:
    """Two or more ranks, the table's among them, whose failing lines just above the launcher's
    report all read as one family of the job's own faults, each rank's first of them in the
    same words (numbers aside): one error every rank ran into, not the named rank's alone."""
    near = min(_NEAR * 8, _NEAR * len(ctx.scans[item.file_index].ranks))  # each rank's lines
    lines = [t for t in ctx.scans[item.file_index].loose
             if item.event.line - near <= t.line < item.event.line and t.rank is not None]
    ranks = {t.rank for t in lines if t.rank is not None}
    if len(ranks) < 2 or rank not in ranks:
        return None
    own = _own_error_above(ctx, item, None, ranks, near)
    if own is None:
        return None
    near_lines = [t for t in lines if read_line(t.text) is not None]
    firsts: dict[int, str] = {}
    for t in near_lines:
        firsts.setdefault(t.rank, re.sub(r"\d+", "#", t.text.strip()))  # type: ignore[arg-type]
    if set(firsts) != ranks or len(set(firsts.values())) != 1:
        return None
    return sorted(ranks), own


def _exit_cause(ctx: Context, item: Located, rank: int | None) -> tuple[Category, str]:
    """The category of a worker's exit the launcher reported, and what says so: its own last
    words above the report (`_own_error_above`), or nothing in these logs."""
    own = _own_error_above(ctx, item, rank)
    if own is None:
        return Category.UNDETERMINED, "its own error is not in these logs"
    line, reading = own
    return CATEGORY[reading.family], (
        f"the error above it reads as {CATEGORY[reading.family].value} "
        f"({ctx.scans[item.file_index].path}:{line.line}): {line.text[:160]}")


# an exception line inside the table's `traceback :` field, indented under it
_TABLE_EXCEPTION = re.compile(r"^\s+((?:\w+\.)*\w*(?:Error|Exception))(?:: (.*))?$")


def _table_exception(ctx: Context, item: Located) -> tuple[Category, str] | None:
    """The root cause's exception as the failure table itself quotes it (its `traceback :`
    field, written from the worker's error file when its entry point has @record): where the
    worker's own output is not in the logs, that is its error. A timeout or a lost peer
    raised in the worker is another process's story, and stays undetermined."""
    lines = record_lines(ctx, item)
    start = next((i for i, t in enumerate(lines) if "Root Cause" in t.text), None)
    if start is None:
        return None
    found = [(t, m) for t in lines[start:] if (m := _TABLE_EXCEPTION.match(t.text)) is not None]
    if not found:
        return None
    line, m = found[-1]
    said = f"{m[1]}: {m[2] or ''}"
    if _STOPPED.search(said) or _PEER_GONE.search(said):
        return None
    reading = read_line(said)
    category = CATEGORY[reading.family] if reading is not None else Category.SOFTWARE
    return category, (f"the table's own traceback ends in {said[:160]} "
                      f"({ctx.scans[item.file_index].path}:{line.line})")


_PEER_GONE = re.compile(r"[Cc]onnection (?:reset|closed|refused)|[Bb]roken pipe|peer")
# a collective's wait for its peers that ran out (gloo's `Timed out waiting 5000ms for recv
# operation to complete`, the NCCL watchdog's, a monitored barrier's)
_WAIT_RAN_OUT = re.compile(r"Timed out waiting \d+ ?ms for (?:recv|send)|"
                           r"aught collective operation timeout|timed out in monitoredBarrier|"
                           r"received errors while waiting for send/recv from rank")


def _only_waited(ctx: Context, rank: int) -> Located | None:
    """The first error of `rank` in these logs, where it is a collective's wait for its peers
    that ran out; None where it has another error first, or none."""
    own = [i for i in ctx.of(EventKind.PYTHON_TRACEBACK, EventKind.WATCHDOG_TIMEOUT,
                             EventKind.STORE_TIMEOUT, EventKind.CUDA_ERROR, EventKind.CUDA_OOM,
                             EventKind.NCCL_ERROR, EventKind.NATIVE_CRASH)
           if i.rank == rank and i.rank_origin in GLOBAL_ORIGINS and i.event.level >= Level.ERROR
           # (never the launcher's own traceback, in a file that names only this rank)
           and not str(i.event.fields.get("exc_type", "")).endswith(
               ("ChildFailedError", "CalledProcessError"))]
    if not own:
        return None
    first = min(own, key=Located.order)
    said = f"{first.event.fields.get('exc_message', '')} {first.event.text}"
    return first if (_WAIT_RAN_OUT.search(said) is not None
                     or _LOST_A_PEER.search(said) is not None) else None


# a rank's own words that a peer went away under it (gloo's `Connection closed by peer`, a
# reset, NCCL's `remote process exited`): it noticed another's failure
_LOST_A_PEER = re.compile(r"Connection (?:closed|reset) by peer|remote process exited|"
                          r"[Bb]roken pipe|\bncclRemoteError\b")


def _exited_of_its_own(item: Located) -> tuple[int, int, FieldValue] | None:
    """The one worker of a torchrun table, besides its root cause, that exited with a code of
    its own (> 0): its rank, code and pid; None with none or several."""
    own = [(rank, code, e.get("pid")) for e in table_entries(item)[1:]
           if isinstance(rank := e.get("rank"), int) and isinstance(code := e.get("exitcode"), int)
           and code > 0]
    return own[0] if len(own) == 1 else None


def launcher_exit(ctx: Context) -> Finding | None:
    """What the launcher says about the first worker to fail: its rank (or local rank and pid)
    and its exit. A SIGKILL without OOM evidence is not a software bug; the category stays
    undetermined and the culprit is the killed process."""
    for item in ctx.of(EventKind.CHILD_FAILED_SUMMARY):
        rank = item.event.fields.get("root_rank")
        code = item.event.fields.get("root_exitcode")
        pid = item.event.fields.get("root_pid")
        named = f"the launcher's summary names rank {rank} as the first failure"
        if code == -15 and (own := _exited_of_its_own(item)) is not None:
            # the "root cause" torchrun picked was stopped (SIGTERM: its teardown) while one
            # other worker exited with a code of its own: that worker failed first
            named = (f"the launcher's summary puts rank {rank} first, stopped by SIGTERM, and "
                     f"rank {own[0]} exited of its own: rank {own[0]} failed first")
            rank, code, pid = own
        # a table cut after its root cause's rank still names the first failure
        if isinstance(rank, int) and (code is None or (isinstance(code, int) and code > 0)):
            exit_text = f"exit code {code}" if code is not None else "its exit code cut off"
            alike = failed_alike(item.event.fields, "exitcode")
            if alike:
                # several ranks ended with one code in one second: the launcher's "root
                # cause" is only the first it noticed
                listed = compress_ranks(sorted({rank, *alike}))
                shared = _own_error_above(ctx, item, None, {rank, *alike})
                if shared is not None:
                    # each wrote the same kind of error of the job's own above the table (a
                    # command line its parser refused): what they all ran, no one rank's
                    line, reading = shared
                    return Finding(
                        CATEGORY[reading.family], (), (),
                        (f"ranks {listed} all exited with {exit_text} in the same second "
                         f"({item.where}), each after an error of the job's own: "
                         f"{line.text.strip()[:160]} ({ctx.scans[item.file_index].path}:"
                         f"{line.line})",), item,
                        ("Fix what every rank ran alike (its command line, its config).",),
                    )
                return Finding(
                    Category.UNDETERMINED, (), (),
                    (f"ranks {listed} all exited with {exit_text} in the same second "
                     f"({item.event.fields.get('root_time')}, {item.where}); the launcher's "
                     "root cause is only the first it noticed, and none of their own errors "
                     "is in these logs",), item,
                    ("Read each rank's own output (or rerun with the entry point decorated with "
                     "torch.distributed.elastic.multiprocessing.errors.record) for its "
                     "traceback.",),
                )
            waited = _only_waited(ctx, rank)
            if waited is not None:
                # the first to exit timed out waiting for a peer: it noticed the fault first,
                # and the rank it waited for is not named
                return Finding(
                    Category.UNDETERMINED, (), (),
                    (f"the launcher's summary names rank {rank} as the first failure, "
                     f"{exit_text} ({item.where}); its own error is a wait for a peer that "
                     f"ran out, or a peer that went away ({waited.where}): it was the first to "
                     "notice, not the cause",),
                    item,
                    (f"Find the rank that rank {rank} waited for: its last lines and stacks "
                     "(`rankwatch run` takes py-spy dumps of a straggler before the timeout).",),
                )
            every = _every_rank_wrote_alike(ctx, item, rank)
            if every is not None:
                # the table names one rank, but every rank wrote the same error of the job's
                # own just above it (a config key Hydra could not override): what all of them
                # ran, no one rank's
                wrote, (line, reading) = every
                return Finding(
                    CATEGORY[reading.family], (), (),
                    (f"{named}, {exit_text} ({item.where}); ranks {compress_ranks(wrote)} each "
                     f"wrote the same error of the job's own above it: {line.text.strip()[:160]} "
                     f"({ctx.scans[item.file_index].path}:{line.line})",), item,
                    ("Fix what every rank ran alike (its command line, its config).",),
                )
            category, cause = _exit_cause(ctx, item, rank)
            raised = _table_exception(ctx, item) if category is Category.UNDETERMINED else None
            if raised is not None:
                category, cause = raised
            return Finding(
                category, (rank,),
                (f"rank {rank} (pid {pid})" if pid is not None else f"rank {rank}",),
                (f"{named}, {exit_text} ({item.where}); {cause}",), item,
                (f"Read rank {rank}'s own output (or rerun with the entry point decorated with "
                 "torch.distributed.elastic.multiprocessing.errors.record) for its traceback.",),
            )
    for item in ctx.of(EventKind.AGENT_WORKER_FAILED):
        code = item.event.int_field("exitcode")
        local = item.event.int_field("local_rank")
        if code is None or code == 0 or local is None:
            continue
        pid = item.event.fields.get("pid")
        if item.event.fields.get("launcher") == "deepspeed":
            # DeepSpeed prints the last-started worker's command, not the failed one's: the
            # local rank is the culprit only when the launcher ran a single worker.
            workers = {e.event.fields.get("pid") for e in ctx.of(EventKind.AGENT_SIGTERM)
                       if "Killing subprocess" in e.event.text}
            if len(workers) != 1:
                # the process is not known, its node is (the host pdsh tagged the line
                # with), unless a hang made every worker exit (a watchdog's abort) or workers
                # of another node exited too: then the first report is only the first
                hosts = {e.event.host for e in ctx.of(EventKind.AGENT_WORKER_FAILED)
                         if e.event.int_field("exitcode") not in (None, 0)}
                host = item.event.host if len(hosts) == 1 and not _hang_reported(ctx) else None
                return Finding(
                    Category.UNDETERMINED, (), (f"a worker on node {host}",) if host else (),
                    (f"DeepSpeed's launcher{' on node ' + host if host else ''} reports that "
                     f"a worker exited with code {code} "
                     f"({item.where}); its line shows the last-started worker's command "
                     f"(--local_rank={local}), not the failed one's, and "
                     + (f"{len(workers)} workers were running" if workers else
                        "the logs do not show how many workers ran"),), item,
                    ("Read each worker's own output for its error; `dmesg -T` on the host "
                     "for a kill.",),
                )
            pid = pid or next(iter(workers))
        ranks, process, one_node = _one_node_rank(ctx, local, pid, item)
        if code > 0:
            category, cause = _exit_cause(ctx, item, ranks[0] if len(ranks) == 1 else None)
            return Finding(
                category, ranks, (process,),
                (f"the launcher reports that {process} exited with code {code} "
                 f"({item.where}); {cause}", *one_node), item,
                (f"Read local_rank {local}'s own output for its traceback (torchrun "
                 "--redirects/--tee, or the entry point decorated with "
                 "torch.distributed.elastic.multiprocessing.errors.record).",),
            )
        said = _host_memory_failed(ctx, pid)
        if said is not None:
            return _memory_hardware(ranks, process, said, item)
        signal = item.event.fields.get("signal") or f"signal {-code}"
        tabled = ranks or tuple(r for table in ctx.of(EventKind.CHILD_FAILED_SUMMARY)
                                for entry in table_entries(table)
                                if entry.get("pid") == pid and isinstance(r := entry.get("rank"), int))
        if signal == "SIGABRT" and (ctx.of(EventKind.WATCHDOG_TIMEOUT, EventKind.NCCL_TEARDOWN)
                                    or (len(set(tabled)) == 1
                                        and (_own_watchdog_ended(ctx, tabled[0])
                                             or _heartbeat_hang_elsewhere(ctx, tabled[0])))):
            continue  # NCCL's watchdog aborted it: the consequence of what it reports
        return Finding(
            Category.UNDETERMINED, ranks, (process,),
            (f"the launcher reports {process} killed by {signal} "
             f"({item.where}); no kernel or cgroup line says whether the OOM killer or "
             "someone else sent it", *one_node), item,
            ("Check `dmesg -T | grep -i 'killed process'` on that host and the scheduler's "
             "accounting (`sacct -j JOB -o MaxRSS,State`).",),
        )
    for item in ctx.of(EventKind.PYTHON_TRACEBACK):
        if not str(item.event.fields.get("exc_type", "")).endswith("CalledProcessError"):
            continue
        message = _message(item)
        legacy = _LEGACY_EXIT.search(message)
        local_arg = _LEGACY_LOCAL.search(message)
        if legacy is None:
            continue
        signal = legacy.group(1)
        if local_arg is None:
            if not signal:
                continue
            return Finding(
                Category.UNDETERMINED, (), (),
                (f"a launcher reports that its worker command was killed by {signal} "
                 f"({item.where}); the command names no rank, and no kernel or cgroup line says "
                 "whether the OOM killer or someone else sent it",), item,
                ("Check `dmesg -T | grep -i 'killed process'` on that host and the scheduler's "
                 "accounting.",),
            )
        what = f"killed by {signal}" if signal else f"exit status {legacy.group(2)}"
        # torch.distributed.launch (1.x) raises with `cmd=cmd`, the loop's last command: its
        # --local_rank is the last-started worker's (nproc_per_node - 1), whichever one failed,
        # as DeepSpeed's launcher's is; it names no process
        ranks, one_node = (), ()
        process = (f"a worker (the command shown is the last-started one's, --local_rank="
                   f"{local_arg.group(1)})")
        return Finding(
            Category.UNDETERMINED, ranks, (process,),
            (f"torch.distributed.launch reports the worker with --local_rank="
             f"{local_arg.group(1)} "
             f"{what} ({item.where})" + ("; no kernel or cgroup line says whether the OOM "
                                         "killer or someone else sent it" if signal else ""),
             *one_node),
            item,
            ("Check `dmesg -T | grep -i 'killed process'` on that host; the worker's own "
             "output holds its error when it exited by itself.",),
        )
    for item in ctx.of(EventKind.PYTHON_TRACEBACK):
        m = _SPAWN_EXIT.search(_message(item))
        if m is None:
            continue
        signal = m.group(2)
        return Finding(
            Category.UNDETERMINED, (), (f"process {m.group(1)}",),
            (f"torch.multiprocessing reports that process {m.group(1)} terminated with "
             f"{signal or 'exit code ' + str(m.group(3))} ({item.where})",), item,
            ("A SIGKILL is usually the host OOM killer or the scheduler: check `dmesg -T` on "
             "that host.",),
        )
    return None


def mpi_daemon_lost(ctx: Context) -> Finding | None:
    """Open MPI's runtime lost a node's daemon (the node died or its link did): the job was
    ended from under the training, the node is named."""
    lost = [e for e in ctx.of(EventKind.MPI_PEER_LOST) if e.event.fields.get("daemon")]
    if not lost:
        return None
    first = lost[0]
    nodes = [str(e.event.fields["peer_host"]) for e in ctx.of(EventKind.MPI_PEER_LOST)
             if e.file_index == first.file_index and e.event.fields.get("peer_host")
             and 0 < e.event.line - first.event.line <= 10]
    return Finding(
        Category.INFRASTRUCTURE, (), tuple(f"node {n}" for n in nodes[:1]),
        (f"Open MPI lost the daemon of {f'node {nodes[0]}' if nodes else 'a node'} "
         f"({first.where}): the node or its TCP link went away, and the job was ended",), first,
        ("Check that node's health (kernel log, power, network) before resubmitting.",),
    )


def exit_barrier(ctx: Context) -> Finding | None:
    """torchrun's agent finished its own workers and waited for the other nodes' agents in
    vain: another node failed or hung, and its logs hold why."""
    items = ctx.of(EventKind.EXIT_BARRIER)
    if not items:
        return None
    first = items[0]
    elapsed = first.event.fields.get("elapsed")
    return Finding(
        Category.UNDETERMINED, (), (),
        ("this node's agent gave up waiting for the other nodes at the exit barrier"
         + (f" after {float(str(elapsed)):.0f} s" if elapsed else "")
         + f" ({first.where}): another node failed or hung, and these logs do not show it",),
        first,
        ("Read the other nodes' logs: the first one to fail holds the cause.",),
    )
