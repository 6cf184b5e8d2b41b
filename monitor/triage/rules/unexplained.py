"""The last resort: failing lines no pattern turned into an event, read by the failure-family
lexicon, and whether anything failed at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from monitor.parse.log_events import EventKind, Level
from monitor.triage.lexicon import (
    CATEGORY,
    OWN_FAULT,
    SHELL_TRACE,
    Family,
    Reading,
    node_names,
    places,
    read_line,
    read_words,
    self_named_rank,
    stops_from_outside,
)
from monitor.triage.reader import FileScan, TailLine
from monitor.triage.rules.base import (
    _NET_SETUP,
    CONNECTED,
    TRAINING_DONE,
    Context,
    Finding,
    _called,
    _chose_another_network,
    _killed_in_tail,
    _some,
    _writer,
    connected_after,
    file_trained_on,
    one_subject,
    others_trained_past,
    rank_stepped_on,
    trained_after,
    training_line,
)

# A network plugin's set-up complaint, what NCCL falls back from (never a failure in the job's
# traffic): the plugin's own words, and the set-up failures `network` reads
_PLUGIN_SETUP = re.compile(r"initiali[sz]ation failed|Failing initiali[sz]ation|No device found|"
                           r"Unable to create|Couldn't open|Unable to find|" + _NET_SETUP.pattern)


def _plugin_fallback_line(scan: FileScan, tail: TailLine, reading: Reading) -> bool:
    """A failing line no pattern knew that is a network plugin's set-up complaint (NCCL's or
    libfabric's) right before its NCCL thread went on with another network."""
    writer = _writer(tail.text)
    return (reading.family in (Family.NETWORK, Family.FAILED) and writer is not None
            and _PLUGIN_SETUP.search(tail.text) is not None
            and _chose_another_network(scan, writer, tail.line))


# the rest of a sentence a line was wrapped inside (it goes on in lower case), not a record of
# its own
_WRAPPED_ON = re.compile(r"[a-z(]")


def failing_readings(ctx: Context, index: int,
                     judged_too: bool = False) -> list[tuple[TailLine, Reading]]:
    """The failing lines of a file's tail, each with what the lexicon read in it; past the
    records its writer went on after (a thread's traceback, a warning the job stepped past, a
    connect that a later line shows made) and a network plugin's complaint NCCL then fell back
    from. A line some pattern made an error of was judged by the rules and is left out unless
    `judged_too`; one whose event is only a warning (a connection error the patterns count) is
    read here."""
    scan = ctx.scans[index]
    judged = set() if judged_too else {e.line for e in scan.events if e.level >= Level.ERROR}
    out = []
    for tail in scan.loose:
        if (tail.line in judged or ctx.passed_over(index, tail.line)
                or _warned_then_went_on(ctx, index, tail) or _spark_ran_again(scan, tail.line)
                or _lustre_restored(scan, tail)):
            continue
        reading = read_line(tail.text)
        if reading is not None and reading.family is Family.FAILED and (
                rest := scan.continued.get(tail.line)):
            # a line that only says something failed, its reason on the lines under it (a
            # wrapped YAML string: `… to FAILED on zones/…/instances/8213…` then `due to Spot
            # VM preemption`): the family its rest names
            said = read_words(rest.split("\n", 1)[0])
            if said.family < Family.PEER_LOST and _WRAPPED_ON.match(rest.lstrip()):
                reading = Reading(said.family, said.word, reading.where or said.where)
        if reading is None or _plugin_fallback_line(scan, tail, reading) or (
                _about_connecting(tail, reading) and (_reconnected(ctx, index, tail, reading)
                                                      or _outlived(ctx, index, tail))):
            continue
        out.append((tail, reading))
    return out


# a Lustre client's target (`scratch-OST0003-osc-ffff…`, `…->scratch-MDT0000-mdc-…@…`)
_LUSTRE_TARGET = re.compile(r"\b([\w.]+-(?:OST|MDT|MGS)[0-9a-fA-F]{4})\b")
_LUSTRE_NID = re.compile(r"\b(\d{1,3}(?:\.\d{1,3}){3}@\w+)")


def _lustre_restored(scan: FileScan, tail: TailLine) -> bool:
    """A Lustre client's line about a server target (a request timed out, a connect that
    failed, the connection lost) that a later line of the same file says came back
    (`Connection restored to scratch-OST0003 (at 10.10.1.21@o2ib)`): a failover it rode out."""
    if "Lustre" not in tail.text:
        return False
    # (the target by its name, or its server by its network id: `(at 172.28.1.43@tcp)`; a
    # paste may keep only the one)
    names = {m[1] for m in _LUSTRE_TARGET.finditer(tail.text)} | set(_LUSTRE_NID.findall(tail.text))
    return bool(names) and any(
        t.line > tail.line and "Connection restored to" in t.text
        and any(n in t.text for n in names) for t in scan.tail)


# Spark's scheduler on a task it lost (`Lost task 9.0 in stage 3.0 (TID 41) …`) and on an
# attempt of it that finished (`Finished task 9.1 in stage 3.0 (TID 47) … (16/16)`)
_LOST_TASK = re.compile(r"\bLost task (\d+)\.(\d+) in stage (\d+\.\d+)\b")
_FINISHED_TASK = re.compile(r"\bFinished task (\d+)\.(\d+) in stage (\d+\.\d+)\b")
_SPARK_TASK_LINES = 5  # how far below an executor's loss Spark lists the tasks it lost


def _spark_ran_again(scan: FileScan, line: int) -> bool:
    """A loss Spark's scheduler ran again: every task it lost at `line` or in the few lines
    below (an executor YARN killed, then `Lost task 9.0 in stage 3.0`) has a later attempt
    that finished in the same file (`Finished task 9.1 in stage 3.0`)."""
    lost = [(m[1], int(m[2]), m[3]) for t in scan.tail
            if line <= t.line <= line + _SPARK_TASK_LINES and "Lost task" in t.text
            and (m := _LOST_TASK.search(t.text)) is not None]
    if not lost:
        return False
    finished = [(m[1], int(m[2]), m[3], t.line) for t in scan.tail
                if t.line > line and "Finished task" in t.text
                and (m := _FINISHED_TASK.search(t.text)) is not None]
    return all(any(task == f[0] and stage == f[2] and f[1] > attempt for f in finished)
               for task, attempt, stage in lost)


def platform_stopped(ctx: Context) -> bool:
    """A failing line the lexicon reads as the platform stopping a machine or a pod (an
    eviction, a preemption, a node's shutdown or loss)."""
    return any(reading.family is Family.INFRASTRUCTURE and stops_from_outside(tail.text)
               for index in range(len(ctx.scans))
               for tail, reading in failing_readings(ctx, index))


def still_failing(ctx: Context, index: int) -> bool:
    """Whether a failing line of the file's tail still stands once the records its writer
    went on after are left out."""
    return bool(failing_readings(ctx, index, judged_too=True))


def _rank_of(tail: TailLine) -> int | None:
    """The rank a failing line is about: its prefix's, or the one its words name."""
    return tail.rank if tail.rank is not None else self_named_rank(tail.text)


def _next_reading_where(ctx: Context, readings: Sequence[tuple[int, TailLine, Reading]],
                        index: int, first: TailLine, family: Family) -> tuple[str, ...]:
    """What the failing line right under `first` names (blank lines between passed over),
    when it is the same failure's detail: of the same family, or of none (it only says that
    something failed), never another record's (a worker's exit below a network error)."""
    after = [(t, r) for i, t, r in readings if i == index and t.line > first.line]
    tail = ctx.scans[index].tail
    if not after or not tail or first.line < tail[0].line:  # the gap must be in the tail
        return ()
    line, reading = min(after, key=lambda tr: tr[0].line)
    # the tail keeps no blank line: any line it holds between the two is another record
    if (reading.family not in (family, Family.FAILED) or line.line - first.line > 3
            or any(first.line < t.line < line.line for t in tail)):
        return ()
    return reading.where


def _file_host(scan: FileScan) -> tuple[str, ...]:
    """The one machine whose syslog a file holds: a stop from outside names no node of its
    own, and the machine that logged it is the one stopped; () for none, or for several."""
    return tuple(scan.syslog_hosts) if len(scan.syslog_hosts) == 1 else ()


# A line its writer logged as a warning: Python's logging, glog's `W0320 05:57:29`, Ray's and
# TensorFlow's `… 16:06:26,552 W 350061` / `05:57:29.228: W tensorflow/…`; c10's `[W910 02:10:41.3…`
# (under torchrun's `[rank0]:` prefix too)
_WARNED = re.compile(r"\bWARN(?:ING)?\b|(?:^|\]:)\W*W\d{3,4} \d\d:|\d\d:\d\d:\d\d[.,]\d+\]?:? W ")
# LSF's job report puts its verdict (`TERM_MEMLIMIT: …`, `Exited with exit code 137.`) above the
# job's own output, under this line: what follows it ran before the verdict, not after
_LSF_OUTPUT_FOLLOWS = re.compile(r"^\s*The output \(if any\) follows:\s*$")


def _report_above_output(tail: list[TailLine], line: TailLine) -> bool:
    """The line is in an LSF job report's head, above the job's output the report appends."""
    return any(t.line > line.line and _LSF_OUTPUT_FOLLOWS.match(t.text) for t in tail)


def _warned_then_went_on(ctx: Context, index: int, line: TailLine) -> bool:
    """A warning its writer went on after: the same file shows the job stepping below it; or
    any failing line of a rank that logged two steps of its own below it (it caught, logged
    and skipped what failed: an evaluation hook's error). Never a verdict in an LSF job
    report's head: the output under it is what ran before."""
    if _report_above_output(ctx.scans[index].tail, line):
        return False
    if line.rank is not None and rank_stepped_on(ctx, index, line.line, line.rank):
        return True
    if line.rank is None and file_trained_on(ctx, index, line.line):
        return True
    if _in_a_warning(ctx.scans[index].tail, line) and _finished_above(ctx.scans[index].tail,
                                                                      line):
        return True  # a warning of the teardown, below the run's word that it finished
    return _WARNED.search(line.text) is not None and (any(
        p.file_index == index and p.event.line > line.line for p in ctx.of(EventKind.PROGRESS))
        # (or a step's loss below it, in words no progress pattern reads: `Epoch 5/10 - loss`)
        or trained_after(ctx, index, line.line))


# a line that opens a logger's record at some level (glog's `W0826 01:43:18`, `WARNING:`)
_LEVELLED = re.compile(r"(?:^|\]:)\W*[IWEF]\d{4} \d\d:|\b(?:INFO|WARN(?:ING)?|ERROR|CRITICAL|FATAL)\b|"
                       r"\d\d:\d\d:\d\d[.,]\d+\]?:? [IWEF] ")
_RECORD_LINES = 5  # how far above a line its record's first line may be


def _in_a_warning(tail: list[TailLine], line: TailLine) -> bool:
    """The line is a warning, or a line of one (gRPC's detail under glog's `W0826 …` line):
    the nearest line at or above it that opens a record at some level is a warning, with no
    other program's line between (a shell's trace of its next command, `+ aws s3 cp …`)."""
    for t in reversed([t for t in tail if line.line - _RECORD_LINES <= t.line <= line.line]):
        if t is not line and (SHELL_TRACE.match(t.text) or _PROMPT.match(t.text)):
            return False
        if _LEVELLED.search(t.text):
            return _WARNED.search(t.text) is not None
    return False


def _finished_above(tail: list[TailLine], line: TailLine) -> bool:
    """The run's own word that it finished, above `line`, with no training line after that
    word (a stage that finished, then the next stage's steps, has not finished the run)."""
    done = [t.line for t in tail if t.line < line.line and TRAINING_DONE.search(t.text)]
    return bool(done) and not any(done[-1] < t.line < line.line and training_line(t)
                                  for t in tail)


_PROMPT = re.compile(r"^\S{0,60}[$#] \S")  # a shell's prompt and the command typed after it


# a failing line about a connection (`Failed to connect to GCS.`): a later connect answers it
_ABOUT_CONNECTING = re.compile(r"(?i)\bconnect|\bnot responding\b|\bunreachable\b|\bis down\b|"
                               r"\bGRPC error information\b")


def _about_connecting(line: TailLine, reading: Reading) -> bool:
    return reading.family is Family.NETWORK or (
        reading.family in (Family.FAILED, Family.PEER_LOST)
        and _ABOUT_CONNECTING.search(line.text) is not None)


def _outlived(ctx: Context, index: int, line: TailLine) -> bool:
    """A connect its client logged as a warning (it tries again) with no error after it in its
    file, while another file shows the job training: the connect was made in the end (a node
    that started before the store's host was up)."""
    return _WARNED.search(line.text) is not None and others_trained_past(ctx, index, line.line)


def _reconnected(ctx: Context, index: int, line: TailLine, reading: Reading) -> bool:
    """A failed connect that the same file later shows made (to the host it named, where it
    named one): a retry that worked."""
    host = next((w for w in reading.where if re.fullmatch(r"[\w.\-]+", w)), "")
    return connected_after(ctx, index, line.line, host)


# A failure whose own words say only that time ran out (etcd's `Error: context deadline
# exceeded`, Kafka's `TimeoutException`, gRPC's DEADLINE_EXCEEDED)
TIME_RAN_OUT = re.compile(r"(?i:deadline exceeded|\btimed out\b|TimeoutException|TimeoutError)|"
                          r"\bDEADLINE_EXCEEDED\b")
RETRIES_ABOVE_LINES = 40  # how far above a timeout its client's own retried connects are read


def retried_connects_above(ctx: Context, index: int, line: int,
                           rank: int | None) -> tuple[TailLine, Reading] | None:
    """The connect its client kept retrying, a few lines above a failure that says only that
    time ran out (`Connection to node -1 (kafka-0…:9092) could not be established` logged as a
    warning, then the producer's TimeoutException): the retries were the wait that ran out, so
    the endpoint they could not reach is the failure's story. None where a later line shows
    the connect made, or no such line is there."""
    tail = ctx.scans[index].tail
    above = [t for t in tail if 0 < line - t.line <= RETRIES_ABOVE_LINES
             and (t.rank is None or rank is None or t.rank == rank)]
    found = [(t, reading) for t in above
             if (reading := read_words(t.text)).family is Family.NETWORK]
    if not found or any(t.line > found[-1][0].line and CONNECTED.search(t.text) is not None
                        for t in above):
        return None
    named = [(t, reading) for t, reading in found if reading.where]
    return named[-1] if named else found[-1]


_RANK_ENDED = re.compile(r"\b[Rr]ank (\d+) (?:crashed|exited|died|was killed|terminated)\b")


# a row of `kubectl get pods` whose pod ended badly (`pytorchjob-worker-0  0/1  Error  0  12m`)
_FAILED_POD_ROW = re.compile(r"^(?P<pod>[a-z0-9][\w.-]*)\s+\d+/\d+\s+(?:Error|CrashLoopBackOff|"
                             r"OOMKilled|ContainerStatusUnknown|Init:Error)\s+\d+")


def _failed_pods(ctx: Context) -> list[str]:
    """The pods a pasted `kubectl get pods` lists as ended badly, in the files' order."""
    return list(dict.fromkeys(m["pod"] for scan in ctx.scans for t in scan.tail
                              if (m := _FAILED_POD_ROW.match(t.text)) is not None))


def unrecognised_failure(ctx: Context) -> Finding | None:
    """The last resort: failing lines that no pattern turned into an event, read by the
    failure-family lexicon. A log from a stack the patterns never met is judged by what its
    errors are about (a full disk, a lost GPU, an unreachable host) instead of being called
    healthy; a line that only shows that something failed makes it `undetermined`."""
    readings = [(index, tail, reading)  # (file index, line, what the lexicon read in it)
                for index in range(len(ctx.scans))
                for tail, reading in failing_readings(ctx, index)]
    if not readings:
        return None
    readings.sort(key=lambda r: (r[2].family, r[0], r[1].line))
    index, first, reading = readings[0]
    if reading.family is Family.FAILED and TIME_RAN_OUT.search(first.text) is not None and (
            retried := retried_connects_above(ctx, index, first.line, _rank_of(first))):
        # the retries above were what ran out: their endpoint is the story
        first, reading = retried
    family = reading.family
    place = f"{ctx.scans[index].path}:{first.line}"
    category = CATEGORY[family]
    ranks: tuple[int, ...] = ()
    if family in OWN_FAULT:
        named = (_rank_of(t)
                 for _, t, r in readings if r.family is family)
        shown = {rank for rank in named if rank is not None}
        ranks = (shown.pop(),) if len(shown) == 1 else ()
    elif family is Family.KILLED and (ended := _RANK_ENDED.search(first.text)) is not None:
        # a launcher's own words for which rank ended (`Rank 2 crashed with exit code -6`):
        # that rank, its cause not shown
        ranks = (int(ended.group(1)),)
    # One failure often takes several lines (the kernel's two-line NVRM report): where the
    # first line names no place, the next lines of its family may.
    # (a link's far end is never the host whose journal logged the line: that is its near end)
    near = ctx.scans[index].syslog_hosts if family is Family.NETWORK else set()

    def far(where: Sequence[str]) -> tuple[str, ...]:
        return tuple(w for w in where if w not in near)

    spots = far(reading.where) or far(places(ctx.scans[index].continued.get(first.line, ""))) or (
        tuple(dict.fromkeys(w for _, _, r in readings if r.family is family
                            for w in far(r.where)))[:3]) or (
        # or the failing line right under it, the same failure's detail (gRPC's `Additional
        # GRPC error information from remote target /job:ps/replica:0/task:0`)
        far(_next_reading_where(ctx, readings, index, first, family)))
    if not spots and ranks:  # another failing line about the same rank may say where it ran
        spots = tuple(dict.fromkeys(
            w for _, t, r in readings
            if _rank_of(t) == ranks[0]
            for w in r.where))[:3]
    if not spots and family is Family.OOM:  # memory ran out, and a process was killed
        spots = _killed_in_tail(ctx.scans[index])
    where = ", ".join(spots)
    if family is Family.NETWORK:  # never a rank: the reporter is one end of the link
        name = f"the link to {where}" if where else ""
    elif family in (Family.INFRASTRUCTURE, Family.CLOCK) and not ranks and (nodes := tuple(dict.fromkeys(
            # nodes or their scheduler: every node the family's lines name, not the first
            n for _, t, r in readings if r.family is family for n in node_names(t.text)))
            # or the one pod or node the files' orchestrator output is about (`kubectl
            # describe pod w-4`'s Message line names neither), never an address under it
            or one_subject(ctx.scans) or _file_host(ctx.scans[index])):
        name = _some(nodes)
    elif family >= Family.KILLED and not ranks and (subject := one_subject(ctx.scans)):
        # a failure that names no cause, in the output about one pod or node (`kubectl
        # describe pod w-2`: Status Failed, Exit Code 139): that pod, not an address in it
        name = subject[0]
    elif family is Family.GPU and not ranks and spots and "nvswitch" in first.text.lower():
        name = f"the NVSwitch at {where}"  # its driver's or Fabric Manager's line: not a GPU
    else:
        name = _called(ranks[0] if ranks else None, where)
    if not name and not ranks and family >= Family.KILLED and (pods := _failed_pods(ctx)):
        # a job the listing says failed, one of its pods in Error (`kubectl get pods`: the
        # worker that ended badly while the master still runs): that pod
        name = f"pod {pods[0]}" if len(pods) == 1 else ""
    culprits = (name,) if name else ()
    if family >= Family.PEER_LOST:
        said = (f"the first failing line no rule explains ({place}): {first.text[:160]}; "
                "it does not show the cause")
    else:
        said = (f"'{reading.word}' reads as {category.value} ({place}): {first.text[:160]} "
                "(a wording no pattern knows, read by the failure-family lexicon)")
    return Finding(
        category, ranks, culprits, (said,), None,
        ("This wording is not in rankwatch's pattern table: check the line above, and report "
         "it so a pattern can read its fields.",),
    )
