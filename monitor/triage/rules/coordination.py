"""JAX's and TensorFlow's coordination service: the tasks it names as stopped or late.

The service runs in one task and watches the others by heartbeat and barrier. When a task stops
sending heartbeats, or never reaches a barrier, every surviving task prints the service's list
of those tasks (`/job:jax_worker/replica:0/task:3`) and ends: the tasks listed are the story,
the tasks that print the list are not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from monitor.model import Category
from monitor.triage.lexicon import CATEGORY, OWN_FAULT, Family
from monitor.triage.reader import TailLine
from monitor.triage.rules.base import Context, Finding
from monitor.triage.rules.launchers import native_crash
from monitor.triage.rules.unexplained import failing_readings, platform_stopped

# The service's headings over its list of tasks: stopped heartbeats, or a barrier's late ones
_UNHEALTHY = re.compile(r"\bThe following tasks are unhealthy \(stopped sending heartbeats\):")
_TIMED_OUT = re.compile(r"\bSome timed out task names:")
# `Barrier timed out. Id: PjRT_Client_Connect.` and `[Init]Wait_for_all_tasks_to_register`:
# the barriers of the job's start, every other one is met while it runs
_BARRIER_ID = re.compile(r"\bBarrier timed out\. Id: (\S+?)\.?(?:\s|$)")
_START_BARRIERS = ("PjRT_Client_Connect", "[Init]Wait_for_all_tasks_to_register")
_TASK_NAME = re.compile(r"/job:(\w+)/replica:\d+/task:(\d+)\b")
# the service's own line for one task (`Task /job:worker/replica:0/task:2 heartbeat timeout.`)
_HEARTBEAT_TIMEOUT = re.compile(r"\bTask /job:(\w+)/replica:\d+/task:(\d+) heartbeat timeout\b")
# the line JAX prints under its list of unhealthy tasks (the heading above it may be cut)
_CRASHED = re.compile(r"^\s*(?:\d+: )?The tasks have crashed\.")
# a task's name alone on its line (srun's `0: ` label before it where the reader kept one)
_ALONE = re.compile(r"(?:\d+: )?\s*/job:(\w+)/replica:\d+/task:(\d+)\s*")
_LIST_LINES = 64  # tasks read under one heading: a page names a few, never thousands


@dataclass(frozen=True)
class _Listed:
    heading: str  # "unhealthy" or "timed_out"
    tasks: tuple[tuple[str, int], ...]  # (job, task number)
    barrier: str  # the barrier's id where the service named it, "" otherwise
    where: str  # file:line of the heading


def _list_under(tail: list[TailLine], start: int) -> list[tuple[str, int]]:
    """The task names on the lines from `start` on that hold nothing else."""
    found = []
    for line in tail[start:start + _LIST_LINES]:
        m = _ALONE.fullmatch(line.text)
        if m is None:
            break
        found.append((m[1], int(m[2])))
    return found


def _named_after(text: str, at: int) -> list[tuple[str, int]]:
    return [(m[1], int(m[2])) for m in _TASK_NAME.finditer(text, at)]


def _listings(ctx: Context) -> list[_Listed]:
    out = []
    for scan in ctx.scans:
        barrier = ""
        for i, line in enumerate(scan.tail):
            where = f"{scan.path}:{line.line}"
            if (b := _BARRIER_ID.search(line.text)) is not None:
                barrier = b[1]
            for heading, pattern in (("unhealthy", _UNHEALTHY), ("timed_out", _TIMED_OUT)):
                if (m := pattern.search(line.text)) is not None:
                    tasks = _named_after(line.text, m.end()) + _list_under(scan.tail, i + 1)
                    if tasks:
                        out.append(_Listed(heading, tuple(dict.fromkeys(tasks)),
                                           barrier if heading == "timed_out" else "", where))
            if (m := _HEARTBEAT_TIMEOUT.search(line.text)) is not None:
                out.append(_Listed("unhealthy", ((m[1], int(m[2])),), "", where))
            if _CRASHED.match(line.text):
                # the list right above JAX's `The tasks have crashed.`, its heading cut
                top = i
                while top > 0 and i - top < _LIST_LINES and _ALONE.fullmatch(scan.tail[top - 1].text):
                    top -= 1
                tasks = _list_under(scan.tail, top)
                if tasks:
                    out.append(_Listed("unhealthy", tuple(dict.fromkeys(tasks)), "",
                                       f"{scan.path}:{scan.tail[top].line}"))
    return out


def _named(tasks: tuple[tuple[str, int], ...]) -> tuple[str, ...]:
    """The tasks by the service's own names. (A JAX task's number is its process index, but
    not a torch rank: the names say what the service said.)"""
    return tuple(f"/job:{job}/replica:0/task:{n}" for job, n in sorted(set(tasks)))


def _own_fault(ctx: Context) -> Family | None:
    """The family of a failing line of the job's own (out of memory, a device, a full disk)
    that no pattern read: what the task the service names died of, where it shows."""
    families = [reading.family for index in range(len(ctx.scans))
                for _, reading in failing_readings(ctx, index) if reading.family in OWN_FAULT]
    return min(families) if families else None


def coordination_service(ctx: Context) -> Finding | None:
    """The tasks JAX's or TensorFlow's coordination service names: those that stopped sending
    heartbeats (the cause is theirs and not shown: a crash, a kill, a hang), or those that never
    reached a barrier (at the job's start, an initialisation that timed out on them)."""
    listings = _listings(ctx)
    if not listings:
        return None
    crash = native_crash(ctx)
    if crash is not None and crash.culprit_ranks:
        return None  # a rank's own crash, shown: the service only noticed it
    if platform_stopped(ctx):
        return None  # the platform's word that it stopped a machine: the lexicon's reading
    tasks = tuple(dict.fromkeys(t for listed in listings for t in listed.tasks))
    names = _named(tasks)
    first = listings[0]
    said = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    if all(listed.heading == "unhealthy" for listed in listings):
        own = _own_fault(ctx)
        if own is not None:
            if len(names) > 1:
                return None  # which of them failed so is not shown: the lexicon's reading
            return Finding(
                CATEGORY[own], (), names,
                (f"a failing line reads as {CATEGORY[own].value}, and the coordination service "
                 f"then says {said} stopped sending heartbeats ({first.where}): the one task "
                 "it names is the one that failed",),
                None,
                (f"Read {said}'s log around its failing line.",),
            )
        return Finding(
            Category.UNDETERMINED, (), names,
            (f"the coordination service says {said} stopped sending heartbeats "
             f"({first.where}); every other task only relays that, and no line shows why "
             f"{'it' if len(names) == 1 else 'they'} stopped",),
            None,
            (f"Read the logs of {said} (and the scheduler's events for their nodes: a kill, "
             "a preemption, an out-of-memory) for the cause.",),
        )
    barriers = {listed.barrier for listed in listings if listed.heading == "timed_out"}
    at_start = bool(barriers) and all(b.startswith(_START_BARRIERS) for b in barriers)
    reached = (f"never reached the barrier {', '.join(sorted(b for b in barriers if b))} "
               f"({first.where})")
    if at_start:
        return Finding(
            Category.INIT_TIMEOUT, (), names,
            (f"the coordination service says {said} {reached} while the job started; the "
             "other tasks reached it",),
            None,
            (f"Check why {said} did not start or connect in time (scheduled late, crashed "
             "before connecting, or cannot reach the coordinator).",),
        )
    return Finding(
        Category.UNDETERMINED, (), names,
        (f"the coordination service says {said} {reached} while the job ran; the lines do not "
         "show why " + ("it was" if len(names) == 1 else "they were") + " late",),
        None,
        (f"Read the logs of {said} around the barrier's time: a slow step, a stuck write or a "
         "crash.",),
    )
