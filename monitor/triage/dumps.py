"""Flight-recorder dumps beside the logs: what the dumps conclude, and how that sits with what
the logs concluded.

Pure. The dumps are direct evidence of which collective each rank entered; they take over
when the logs did not name a cause (undetermined, a desync or a hang read from timeouts), and
otherwise stand beside the log's cause as agreeing or differing evidence.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from monitor.model import Category
from monitor.parse.collectives import StuckCollective
from monitor.parse.flight_recorder import FrAnalysis, GroupVerdict, RankDump, analyse
from monitor.triage.evidence import compress_ranks
from monitor.triage.rules import Finding
from monitor.triage.rules.base import waits_for_nccl_id

# Log conclusions that only describe the symptom: the dumps may say more.
_SYMPTOMS = frozenset({Category.UNDETERMINED, Category.NONE, Category.COLLECTIVE_DESYNC,
                       Category.COLLECTIVE_HANG})


def read_dumps(dumps: Sequence[RankDump]) -> FrAnalysis | None:
    return analyse(dumps) if dumps else None


def dump_finding(fr: FrAnalysis) -> Finding | None:
    """The finding the dumps alone support, or None when they show no disagreement."""
    v = fr.primary
    if v is None:
        return None
    sentences = tuple(f"flight recorder: {s}" for s in v.sentences)
    if v.verdict == "never_entered":
        return Finding(
            Category.COLLECTIVE_DESYNC, v.blamed, tuple(f"rank {r}" for r in v.blamed),
            sentences, None,
            (f"Look at where rank(s) {compress_ranks(v.blamed)} went instead of collective "
             f"#{v.seq} ({v.op}): the stack in its dump names the call it made last.",),
        )
    if v.verdict == "member_mismatch":
        return Finding(
            Category.COLLECTIVE_DESYNC, v.blamed, tuple(f"rank {r}" for r in v.blamed),
            sentences, None,
            ("Compare the ranks' new_group calls: their order, and the rank lists each passes "
             "(every rank must create every group, in the same order, with the same list).",),
        )
    if v.verdict in ("op_mismatch", "size_mismatch", "dtype_mismatch"):
        return Finding(
            Category.COLLECTIVE_DESYNC, v.blamed, tuple(f"rank {r}" for r in v.blamed),
            sentences, None,
            ("Find where the ranks' code paths diverge before this collective (rank-dependent "
             "branches, data-dependent shapes).",),
        )
    if v.verdict == "absent":
        return Finding(
            Category.UNDETERMINED, (), tuple(f"rank {r} (suspect: no dump)" for r in v.no_dump),
            sentences, None,
            (f"Collect rank(s) {compress_ranks(v.no_dump)}'s dump or stack (py-spy): every "
             "rank that wrote one is waiting, so the answer is on the others.",),
        )
    if v.verdict == "all_entered":
        return Finding(
            Category.COLLECTIVE_HANG, (), (), sentences, None,
            ("Every rank entered and none completed: check the GPUs (Xid) and the network "
             "between the nodes (NCCL RAS, NCCL_DEBUG=INFO).",),
        )
    return None


def combine(log: Finding, fr: FrAnalysis | None, stuck: Sequence[StuckCollective],
            stopped: Collection[int] = ()) -> tuple[Finding, list[str]]:
    """The final finding and the sentences that say where logs and dumps agree or differ.
    `stopped`: ranks the launcher's report shows it stopped (SIGTERM) after a failure."""
    if fr is None:
        return log, []
    notes = [f"flight-recorder dumps read from {fr.dumps} rank(s)"
             + (f" ({compress_ranks(fr.ranks)})" if fr.ranks else "")]
    from_dumps = dump_finding(fr)
    v = fr.primary
    if v is not None:
        notes.extend(_agreement(v, stuck, log))
    elif fr.groups:
        notes.extend(s for g in fr.groups for s in g.sentences[:1])
    if from_dumps is None:
        return log, notes
    if v is not None and v.verdict == "absent" and log.culprit_ranks:
        # The logs name who failed first: the missing dumps are that failure's and the
        # launcher's teardown, not other suspects.
        return log, [*notes, _absent_explained(v, log.culprit_ranks, stopped)]
    past_init = v is not None and v.seq is not None and v.seq > 1
    if log.category is Category.INIT_TIMEOUT and past_init:
        # A timeout read as initialisation, but every rank got past the first collective.
        notes.append(f"the logs' timeout is not at initialisation: the dumps show the ranks "
                     f"past collective #1 (they part at #{v.seq if v else '?'})")
        log = Finding(Category.UNDETERMINED, evidence=log.evidence, cause=log.cause)
    if held_in_setup(log):
        # the logs show a rank waiting to set a communicator up: a dump records collectives,
        # not set-ups, so a rank it shows never entering one may be held there too
        return log, notes + list(from_dumps.evidence)
    # (a group its ranks define differently: the logs' reading of who is behind in which
    # collective counts numbers that belong to no one group, and names no culprit either)
    disowned = v is not None and v.verdict == "member_mismatch"
    if log.category in _SYMPTOMS and (not log.culprit_ranks or from_dumps.culprit_ranks
                                      or disowned):
        return Finding(from_dumps.category, from_dumps.culprit_ranks, from_dumps.culprits,
                       from_dumps.evidence + log.evidence, log.cause,
                       from_dumps.recommendations + log.recommendations), notes
    return log, notes + list(from_dumps.evidence)


def held_in_setup(finding: Finding) -> bool:
    """A finding that names no rank because one was shown waiting for a communicator's NCCL id
    (the `straggler` rule's reading of ranks held in a group's set-up)."""
    return (not finding.culprit_ranks and finding.cause is not None
            and waits_for_nccl_id(finding.cause))


def _absent_explained(v: GroupVerdict, culprits: Collection[int], stopped: Collection[int]) -> str:
    parts = [f"flight recorder: every rank that wrote a dump ({compress_ranks(v.waiting)}) is "
             f"in collective #{v.seq} ({v.op}) and none completed it"]
    failed = [r for r in v.no_dump if r in culprits]
    halted = [r for r in v.no_dump if r in stopped and r not in culprits]
    unknown = [r for r in v.no_dump if r not in failed and r not in halted]
    if failed:
        parts.append(f"no dump from rank(s) {compress_ranks(failed)}, which the logs name as "
                     "the culprit")
    if halted:
        parts.append(f"none from rank(s) {compress_ranks(halted)}: the launcher stopped them "
                     "(SIGTERM) after that failure, before they wrote one")
    if unknown:
        parts.append(f"none from rank(s) {compress_ranks(unknown)}: their side is unknown")
    return "; ".join(parts)


def _agreement(v: GroupVerdict, stuck: Sequence[StuckCollective], log: Finding) -> list[str]:
    out: list[str] = []
    if stuck:
        s = stuck[0]
        if v.seq is not None and s.seq == v.seq:
            out.append(f"logs and dumps agree on the collective: #{v.seq} "
                       f"({s.op_type or v.op})")
        elif v.seq is not None:
            out.append(f"logs and dumps differ on the collective: the logs' timeouts are in "
                       f"#{s.seq} ({s.op_type}), the dumps part at #{v.seq} ({v.op}) "
                       "(a log's sequence number may count another process group)")
    if v.blamed and log.culprit_ranks:
        if set(v.blamed) == set(log.culprit_ranks):
            out.append(f"logs and dumps agree on the culprit: rank(s) {compress_ranks(v.blamed)}")
        else:
            out.append(f"logs and dumps differ on the culprit: logs name "
                       f"{compress_ranks(log.culprit_ranks)}, dumps {compress_ranks(v.blamed)}")
    return out


__all__ = ["combine", "dump_finding", "read_dumps"]
