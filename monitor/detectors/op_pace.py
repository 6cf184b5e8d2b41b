"""The job's pace from operation counts in its log lines, for the NCCL detector (pure, bounded).

Fed `OpCount`s (monitor/parse/op_counts.py) with the monotonic time their chunk was read; keeps
per communicator only its last count, a rate sample and the longest gaps between advances in
time buckets, never the lines: a job printing a line per collective (thousands a second) costs
a few numbers per communicator, and at most MAX_COMMS communicators are kept (the least recently
seen goes first).

What is learned, per communicator:
* operations per second, measured over samples at least SAMPLE_SECONDS long and leaning to the
  slowest recent sample (as the RAS rate does);
* the longest gap between two advances of its count in the last HORIZON_SECONDS, and the
  longest ever seen: the job's own rhythm (a step, a checkpoint, a pause every twenty minutes
  that nobody announced), which the stall window must exceed. A false page is worse than a late
  one: a rhythm seen once is not forgotten.

A gap is a time the count sat still and then moved on, so a freeze in progress never lengthens
the window that judges it. Initialisation is not pace: `reset` (a communicator being created, or
RAS reporting communicators in INIT) forgets every baseline, so no gap or rate sample spans it;
what was learned before stays.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass, field

from monitor.parse.op_counts import OpCount

MAX_COMMS = 256
SAMPLE_SECONDS = 1.0  # chunks arrive every ~0.1 s: shorter samples measure the reader, not the job
BUCKET_SECONDS = 10.0
HORIZON_SECONDS = 300.0
MIN_ADVANCES = 3  # advances seen before a communicator's pace counts


@dataclass
class _Comm:
    nranks: int | None
    count: int | None = None  # None: no baseline (new, or reset by an initialisation)
    changed_at: float = 0.0  # when `count` was first seen
    sample_at: float = 0.0
    sample_count: int = 0
    rate: float | None = None
    advances: int = 0
    gaps: deque[tuple[float, float]] = field(
        default_factory=lambda: deque(maxlen=int(HORIZON_SECONDS // BUCKET_SECONDS) + 1)
    )  # (bucket start, longest gap in it)
    longest_ever: float = 0.0

    def longest_gap(self, now: float) -> float:
        recent = max((g for start, g in self.gaps if start >= now - HORIZON_SECONDS), default=0.0)
        return max(recent, self.longest_ever)


@dataclass(frozen=True)
class Pace:
    ops_per_second: float  # the slowest of the communicators it was taken from
    longest_gap_seconds: float  # the longest recent gap between advances among them
    communicators: int
    matched_by_size: bool  # True: only log communicators of the RAS communicator's size


class OpPace:
    """See the module docstring."""

    def __init__(self) -> None:
        self._comms: OrderedDict[str, _Comm] = OrderedDict()
        self.lines = 0  # operation-count lines seen (a counter for the curious)

    def observe(self, op: OpCount, at: float) -> None:
        if not op.collective:
            return  # RAS counts collectives only; p2p traffic is not the pace it judges
        self.lines += 1
        comm = self._comms.get(op.comm)
        if comm is None:
            comm = self._comms[op.comm] = _Comm(op.nranks)
            while len(self._comms) > MAX_COMMS:
                self._comms.popitem(last=False)
        else:
            self._comms.move_to_end(op.comm)
        if comm.count is None or op.count < comm.count:  # first sight, after INIT, or reused
            comm.count, comm.changed_at = op.count, at
            comm.sample_at, comm.sample_count = at, op.count
            return
        if op.count == comm.count:
            return
        gap = at - comm.changed_at
        comm.longest_ever = max(comm.longest_ever, gap)
        if comm.gaps and comm.gaps[-1][0] + BUCKET_SECONDS > at:
            start, longest = comm.gaps[-1]
            comm.gaps[-1] = (start, max(longest, gap))
        else:
            comm.gaps.append((at, gap))
        comm.count, comm.changed_at = op.count, at
        comm.advances += 1
        elapsed = at - comm.sample_at
        if elapsed >= SAMPLE_SECONDS:
            measured = (op.count - comm.sample_count) / elapsed
            old = comm.rate
            comm.rate = measured if old is None else min(measured, 0.5 * (old + measured))
            comm.sample_at, comm.sample_count = at, op.count

    def reset(self) -> None:
        """A communicator is initialising: no gap or sample may span it."""
        for comm in self._comms.values():
            comm.count = None

    def pace(self, nranks: int | None, now: float) -> Pace | None:
        """The pace to judge a RAS communicator of `nranks` ranks by, or None when unknown.

        Per communicator when it can be matched, job-wide when not. A log line names its
        communicator by its address inside one process and RAS by a hash of its unique id; no
        field is shared but the size, so communicators of the same size are taken together
        (every local rank's copy of one communicator, and any other of that size) and, when no
        log communicator has that size, all of them are (the job's pace). Either way the longest
        gap and the slowest rate among them are used, so pooling can only lengthen the window.
        """
        known = [
            c for c in self._comms.values() if c.rate is not None and c.advances >= MIN_ADVANCES
        ]
        if not known:
            return None
        sized = [c for c in known if nranks is not None and c.nranks == nranks]
        chosen = sized or known
        return Pace(
            ops_per_second=min(c.rate for c in chosen if c.rate is not None),
            longest_gap_seconds=max(c.longest_gap(now) for c in chosen),
            communicators=len(chosen),
            matched_by_size=bool(sized),
        )
