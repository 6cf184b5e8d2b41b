"""NCCL RAS replies beside the logs: what saved `STATUS` replies (the `ncclras` client's output,
text or JSON, or rankwatch's own captures) say about the job, and how that sits with what the
logs concluded.

Pure. RAS sees every process of the job through its own network, so it answers where the ranks'
logs are silent: which processes are dead, which did not answer, and which ranks are behind the
others in a communicator's operation counts. A reply is one moment: a rank one operation behind
in one reply may be passing skew (a healthy job shows it now and then), so counts behind name a
culprit only when two replies show them frozen, or when the logs show the job stopped waiting (a
timeout); dead processes are named from one reply (NCCL never revives them), where the logs
show a failure: a process that exits normally while others run on is reported dead as well (a
staggered teardown), so beside logs that show none a dead rank is only a suspect. The replies take
over only when the logs did not name a cause, as flight-recorder dumps do; otherwise they stand
beside it as agreeing or differing evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from monitor.model import Category
from monitor.parse.ras_model import OPS, RankRef, RasReport
from monitor.parse.ras_saved import RasReply
from monitor.triage.evidence import compress_ranks
from monitor.triage.rules import Finding

# Log conclusions that only describe the symptom: the replies may say more.
_SYMPTOMS = frozenset({Category.UNDETERMINED, Category.NONE})


@dataclass(frozen=True)
class Behind:
    """Ranks of one communicator whose count of one operation is below the others'."""

    comm: str  # the communicator's hash
    op: str
    ranks: tuple[int, ...]
    count: int
    others: int  # the highest count of the others
    replies: int  # consecutive replies, up to the last, that show these same counts


@dataclass(frozen=True)
class RasAnalysis:
    """What the replies, in order, show."""

    replies: int
    dead: tuple[RankRef, ...]  # ranks of processes RAS considers dead (ranks when known)
    dead_processes: tuple[str, ...]  # `process P on node N`, for those no rank is known for
    missing: tuple[int, ...]  # ranks whose process did not answer in the last reply (not dead)
    behind: tuple[Behind, ...]
    errors: tuple[str, ...]  # communicators' reported errors, as sentences

    @property
    def frozen_behind(self) -> tuple[Behind, ...]:
        return tuple(b for b in self.behind if b.replies >= 2)


def analyse(replies: Sequence[RasReply]) -> RasAnalysis | None:
    """The replies in the order given (oldest first)."""
    if not replies:
        return None
    last = replies[-1].report
    dead_refs, unnamed = _dead(last)
    missing = sorted({m.ref.rank for c in last.communicators for m in c.missing
                      if m.ref.rank not in {r.rank for r in dead_refs}})
    errors = tuple(dict.fromkeys(
        f"NCCL RAS: rank(s) {compress_ranks([r.rank for r in g.ranks])} reported "
        f"{g.text or g.kind + ' error'}" + (f" (code {g.code})" if g.code is not None else "")
        for c in last.communicators for g in c.errors if g.ranks))
    return RasAnalysis(len(replies), dead_refs, unnamed, tuple(missing),
                       _behind([r.report for r in replies]), errors)


def _dead(report: RasReport) -> tuple[tuple[RankRef, ...], tuple[str, ...]]:
    """The dead processes' ranks, from the communicators' own listings of their members."""
    refs = [m.ref for c in report.communicators for m in c.missing] + [
        RankRef(r.rank, r.host, r.pid, r.gpu) for c in report.communicators for r in c.ranks]
    by_process = {(r.host, r.pid): r for r in refs if r.host is not None and r.pid is not None}
    ranks: dict[int, RankRef] = {}
    unnamed: list[str] = []
    for p in report.dead_processes:
        ref = by_process.get((p.host, p.pid))
        if ref is not None:
            ranks.setdefault(ref.rank, ref)
        else:
            unnamed.append(f"process {p.pid} on node {p.host}")
    return tuple(ranks[r] for r in sorted(ranks)), tuple(unnamed)


def _behind_now(report: RasReport) -> dict[tuple[str, str], Behind]:
    """Each communicator's ranks behind in one reply: text MISMATCH groups (the ranks RAS lists
    under the lowest count), or JSON's per-rank counts."""
    out: dict[tuple[str, str], Behind] = {}
    for comm in report.communicators:
        by_op: dict[str, dict[int, list[int]]] = {}
        for g in comm.count_groups:
            if g.ranks:
                by_op.setdefault(g.op, {}).setdefault(g.value, []).extend(r.rank for r in g.ranks)
            else:  # the largest group is counted, not listed
                by_op.setdefault(g.op, {}).setdefault(g.value, [])
        if not by_op and comm.ranks:
            for r in comm.ranks:
                for op, count in zip(OPS, r.counts, strict=False):
                    by_op.setdefault(op, {}).setdefault(count, []).append(r.rank)
        for op, counts in by_op.items():
            if len(counts) < 2:
                continue
            low = min(counts)
            if not counts[low]:
                continue
            out[(comm.hash, op)] = Behind(comm.hash, op, tuple(sorted(counts[low])), low,
                                          max(counts), 1)
    return out


def _behind(reports: Sequence[RasReport]) -> tuple[Behind, ...]:
    """The last reply's ranks behind, each with how many replies in a row, up to the last, show
    the very same counts (frozen), not merely the same ranks behind."""
    each = [_behind_now(r) for r in reports]  # (each reply read once, not once per key)
    now = each[-1]
    out = []
    for key, b in sorted(now.items()):
        runs = 1
        for earlier in reversed(each[:-1]):
            before = earlier.get(key)
            if before is None or (before.ranks, before.count, before.others) != (
                    b.ranks, b.count, b.others):
                break
            runs += 1
        out.append(Behind(b.comm, b.op, b.ranks, b.count, b.others, runs))
    return tuple(out)


def _sentence(b: Behind) -> str:
    held = (f"the same in {b.replies} replies in a row" if b.replies > 1
            else "in one reply only")
    return (f"NCCL RAS: rank(s) {compress_ranks(b.ranks)} launched {b.op} up to operation "
            f"{b.count}, the others up to {b.others} (communicator {b.comm}; {held})")


def notes(ras: RasAnalysis) -> list[str]:
    """What the replies show, whatever the verdict."""
    out = [f"NCCL RAS replies read: {ras.replies}"]
    if ras.dead:
        out.append("NCCL RAS: " + "; ".join(
            f"rank {r.rank} (process {r.pid} on node {r.host})" for r in ras.dead)
            + " considered dead (unreachable via the RAS network)")
    if ras.dead_processes:
        out.append("NCCL RAS: " + "; ".join(ras.dead_processes) + " considered dead")
    if ras.missing:
        out.append(f"NCCL RAS: rank(s) {compress_ranks(ras.missing)} did not answer in the last "
                   "reply (not dead)")
    out.extend(_sentence(b) for b in ras.behind)
    out.extend(ras.errors)
    return out


def ras_finding(ras: RasAnalysis, waited: bool) -> Finding | None:
    """The finding the replies alone support. `waited`: the logs show ranks that stopped
    waiting (a timeout), so counts behind in a single reply are not passing skew."""
    if ras.dead:
        ranks = tuple(r.rank for r in ras.dead)
        return Finding(
            Category.UNDETERMINED, ranks, tuple(
                f"rank {r.rank} (process {r.pid} on node {r.host})" for r in ras.dead),
            (f"NCCL RAS considers rank(s) {compress_ranks(ranks)} dead: the process ended or "
             "stopped answering, or its node went away; the replies do not say why",), None,
            ("Look at the dead rank's own output and its node's kernel log (OOM killer, Xid, "
             "a kill) for why it ended.",))
    behind = ras.frozen_behind or (ras.behind if waited else ())
    lagging = sorted({r for b in behind for r in b.ranks})
    if behind:
        return Finding(
            Category.COLLECTIVE_DESYNC, tuple(lagging), tuple(f"rank {r}" for r in lagging),
            tuple(_sentence(b) for b in behind), None,
            (f"Look at where rank(s) {compress_ranks(lagging)} went instead of the collective "
             "the others launched: its stack (py-spy) or its flight-recorder dump names the "
             "call it made last.",))
    return None


def combine(log: Finding, ras: RasAnalysis | None, waited: bool,
            replies_only: bool = False) -> tuple[Finding, list[str]]:
    """The final finding and the sentences the replies add. `replies_only`: no file but the
    replies was given (no log can show whether the job ended well)."""
    if ras is None:
        return log, []
    said = notes(ras)
    found = ras_finding(ras, waited)
    if found is None:
        return log, said
    if log.category is Category.NONE and ras.dead and found.category is Category.UNDETERMINED:
        # NCCL reports a process that exited normally while others ran on as dead too (a
        # staggered teardown): beside logs that show no failure, that is all it may be; with
        # the replies alone, a suspect, not a culprit
        if not replies_only:
            return log, [*said, "a process that ends normally while others run is reported "
                         "dead as well, and the logs show no failure"]
        return Finding(
            Category.UNDETERMINED, (), tuple(f"rank {r.rank} (suspect: considered dead by "
                                             "NCCL RAS)" for r in ras.dead),
            (*found.evidence, "a process that ends normally while others run is reported dead "
             "as well, and the logs show no failure: it is not named the culprit"), log.cause,
            found.recommendations), said
    # (a log verdict that already names who failed, a launcher's task or a node, without a
    # rank, keeps it: a reply may be another job's, and its dead rank is no better word)
    if log.category in _SYMPTOMS and not log.culprit_ranks and not log.culprits:
        return Finding(found.category, found.culprit_ranks, found.culprits,
                       found.evidence + log.evidence, log.cause,
                       found.recommendations + log.recommendations), said
    if log.culprit_ranks:
        agree = set(found.culprit_ranks) == set(log.culprit_ranks)
        said.append(f"NCCL RAS {'agrees' if agree else 'differs'}: it points at rank(s) "
                    f"{compress_ranks(found.culprit_ranks)}")
    return log, said
