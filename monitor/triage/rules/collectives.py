"""Rules that read the collectives themselves: desync reports, mismatched or missing ranks,
straggling and absent ranks, the hang no rank caused.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from monitor.model import Category
from monitor.parse.ddp_check import contradictory, counts_said
from monitor.parse.log_events import EventKind, Level, failure_table_line
from monitor.parse.log_patterns import CHECKPOINT_PHASE_WORDS, DATA_PHASE_WORDS
from monitor.parse.stack_text import TextDump, read_text_dumps
from monitor.parse.stacks import MainState, WorkerState, classify_main, classify_worker
from monitor.triage.evidence import GLOBAL_ORIGINS, Located, compress_ranks
from monitor.triage.lexicon import Family
from monitor.triage.reader import FileScan, TailLine
from monitor.triage.rules.base import (
    _COLLATERAL,
    _CRASHED,
    Context,
    Finding,
    _ranks_text,
    raised_of_its_own,
    trained_after,
    training_line,
    waits_for_nccl_id,
)
from monitor.triage.rules.unexplained import failing_readings, unrecognised_failure


def desync_report(ctx: Context) -> Finding | None:
    lagging = ctx.picture.lagging
    if not lagging:
        return None
    reports = [r for r in ctx.of(EventKind.DESYNC_REPORT)
               if not ctx.passed_over(r.file_index, r.event.line)]
    if not reports:
        return None  # (stalls the job got past: what failed after, if anything, is another's)
    first = reports[0]
    if any(e.rank in lagging and e.rank_origin in GLOBAL_ORIGINS and e.kind in _OWN_FAILURES
           and e.event.level >= Level.ERROR
           and (e.order() < first.order() if e.time is not None and first.time is not None
                else e.file_index == first.file_index and e.event.line < first.event.line)
           and not ctx.passed_over(e.file_index, e.event.line) for e in ctx.located):
        return None  # the lagging rank failed of its own first (an exception, an OOM): its story
    return Finding(
        Category.COLLECTIVE_DESYNC, lagging, tuple(f"rank {r}" for r in lagging),
        (f"the desync report names rank(s) {compress_ranks(lagging)} as lagging "
         f"({first.where})",), first,
        ("Look at what the lagging ranks were doing (their last lines and stacks); "
         "`rankwatch run` takes py-spy dumps of a straggler before the watchdog fires.",),
    )


# Horovod's stall inspector (0.20 and later): a header, then one line per stalled rank with
# the tensors it has not submitted while others have (`0: [HorovodBroadcast_…, …]`)
_STALLED_HEADER = re.compile(r"^(?:Stalled|Missing) ranks:\s*$")


# (a rank that has already shut down is marked `!`: `3!: [allreduce.fc1.weight, …]`,
# stall_inspector.cc)
_STALLED_RANK = re.compile(r"^(\d+)!?: \[")


# a rank's own failure, which a stall report listing it only follows
_OWN_FAILURES = frozenset({EventKind.PYTHON_TRACEBACK, EventKind.CUDA_OOM, EventKind.CUDA_ERROR,
                           EventKind.NATIVE_CRASH, EventKind.HOST_OOM})


def horovod_stalled(ctx: Context) -> Finding | None:
    """Horovod's stall report, one rank a line. One rank listed never submitted what the
    others wait for: the culprit. Several ranks listed, each missing others' tensors, are in
    different collectives at one point: a desync no single rank can be blamed for."""
    for index, scan in enumerate(ctx.scans):
        tail = scan.tail
        for i, head in enumerate(tail):
            if _STALLED_HEADER.match(head.text.strip()) is None:
                continue
            ranks: list[int] = []
            for line in tail[i + 1:i + 1 + 4096]:
                m = _STALLED_RANK.match(line.text.strip())
                if m is None:
                    break
                ranks.append(int(m.group(1)))
            if not ranks or trained_after(ctx, index, head.line + len(ranks)):
                continue  # (a stall the job then got past: all ranks trained on)
            if _links_failed_first(ctx, index, head.line, set(ranks)):
                return None  # the missing ranks could not reach a peer: the network's
            where = f"{scan.path}:{head.line}"
            if len(set(ranks)) == 1 and any(
                    e.rank == ranks[0] and e.rank_origin in GLOBAL_ORIGINS
                    and e.kind in _OWN_FAILURES for e in ctx.located):
                return None  # it failed of its own first (an OOM, an I/O error): that rule's
            if len(set(ranks)) == 1:
                return Finding(
                    Category.COLLECTIVE_DESYNC, (ranks[0],), (f"rank {ranks[0]}",),
                    (f"Horovod's stall inspector: rank {ranks[0]} has not submitted the tensors "
                     f"the other ranks wait in ({where})",), None,
                    (f"Find why rank {ranks[0]} took another path (a condition on the rank, an "
                     "exception caught, data it ran out of) before the stalled step.",),
                )
            return Finding(
                Category.COLLECTIVE_DESYNC, (), (),
                (f"Horovod's stall inspector: ranks {compress_ranks(ranks)} each wait in "
                 f"tensors the others have not submitted ({where}): they are in different "
                 "collectives at one point, and no single rank can be blamed",), None,
                ("Compare the order in which the ranks submit their collectives (a branch on "
                 "the rank, a broadcast on one and an allreduce on another) at that step.",),
            )
    return None


def _links_failed_first(ctx: Context, index: int, line: int, ranks: set[int]) -> bool:
    """Every rank a stall report lists said, above it, that a connect to a peer failed (Open
    MPI's `connect() to 192.168.50.12 failed: No route to host`): they wait on the network."""
    tail = ctx.scans[index].tail
    trained = [t.line for t in tail if t.line < line and training_line(t)]
    # (connects that failed at start-up, the job training for hours after them, are not why
    # it stalled now)
    since = trained[-1] if trained else 0
    said = {t.rank for t, reading in failing_readings(ctx, index, judged_too=True)
            if since < t.line < line and reading.family is Family.NETWORK}
    return ranks <= said


# Collectives whose sizes differ between ranks by design: an all-to-all's splits (MoE token
# dispatch), a gather's or scatter's root against the rest, a send against its recv
_UNEVEN_BY_DESIGN = frozenset({"ALLTOALL", "ALLTOALL_BASE", "ALLTOALLV", "_ALLTOALL_BASE",
                               "GATHER", "SCATTER", "SEND", "RECV", "RECVANYSOURCE"})


def mismatch(ctx: Context) -> Finding | None:
    mismatches = [(m, ops) for m in ctx.picture.mismatches
                  if len(ops := {op for op, _numel in m.variants}) > 1
                  or not ops <= _UNEVEN_BY_DESIGN]
    if not mismatches:
        return None
    m, ops = mismatches[0]
    parts = [f"{op} NumelIn={numel} on rank(s) {compress_ranks(ranks)}"
             for (op, numel), ranks in sorted(m.variants.items(), key=lambda kv: kv[1])]
    evidence = [f"collective #{m.seq} differs across ranks: " + "; ".join(parts)]
    if m.culprits:
        evidence.append(f"rank(s) {compress_ranks(m.culprits)}: {m.reason}")
    else:
        evidence.append(m.reason)
        evidence.append("no single rank can be blamed: each side only sees the other disagree")
    # Different operations at one sequence number: the ranks' code paths diverged (a desync).
    # The same operation with different sizes is a shape bug where one rank stands out from
    # the others; where no rank does (one rank on each side), nothing says which side diverged,
    # and the ranks are simply not in the same collective: a desync too.
    category = (Category.SOFTWARE if len(ops) == 1 and m.culprits
                else Category.COLLECTIVE_DESYNC)
    return Finding(
        category, m.culprits, tuple(f"rank {r}" for r in m.culprits), tuple(evidence),
        ctx.at(m.first_timeout),
        ("The ranks called different collectives (or different sizes) at the same point: make "
         "every rank issue the same collectives in the same order with the same shapes; "
         "TORCH_DISTRIBUTED_DEBUG=DETAIL checks this at run time.",),
    )


def straggler(ctx: Context) -> Finding | None:
    for stuck in ctx.picture.stuck:
        if not stuck.stragglers or not stuck.waiting:
            continue
        evidence = []
        for rank in stuck.stragglers:
            status = stuck.straggler_status[rank]
            where = ctx.at(status)
            evidence.append(
                f"rank {rank} never entered collective #{stuck.seq} "
                f"({stuck.op_type or 'op unknown'}, PG {stuck.pg}): last enqueued "
                f"{status.fields.get('last_enqueued')}, last completed "
                f"{status.fields.get('last_completed')}" + (f" ({where.where})" if where else "")
            )
        evidence.append(f"{len(stuck.waiting)} rank(s) wait inside it: "
                        f"{compress_ranks(stuck.waiting)}")
        category, doing = _straggler_activity(ctx, stuck.stragglers)
        if doing:
            evidence.append(doing)
        # a rank behind that is itself waiting, timed out, in another collective (another
        # group's: its tensor-parallel group's) is held there by someone else, not at fault
        elsewhere = [e for e in ctx.of(EventKind.WATCHDOG_TIMEOUT, EventKind.PG_STATUS)
                     if e.rank in stuck.stragglers
                     and (e.kind is EventKind.WATCHDOG_TIMEOUT
                          or e.event.fields.get("source") == "watchdog")
                     and _in_a_subgroup(e)
                     and str(e.event.fields.get("pg_id", "")) != str(stuck.pg)]
        if elsewhere:
            return Finding(
                Category.COLLECTIVE_DESYNC, (), (),
                (*evidence, f"rank {elsewhere[0].rank} is itself waiting: its watchdog timed out "
                 f"in collective #{elsewhere[0].event.fields.get('seq')} of another group "
                 f"({elsewhere[0].where}); the rank that holds both is not shown"),
                elsewhere[0],
                ("Find the rank in neither collective (its stack, its log's last lines): the "
                 "ranks behind here wait on it in their own group.",),
            )
        held = [e for e in ctx.of(EventKind.STORE_TIMEOUT)
                if e.rank in stuck.stragglers and waits_for_nccl_id(e)]
        if held:
            # a rank that never entered was waiting to set up another communicator (the NCCL
            # id its group's first rank posts never came): the ranks behind are held in a
            # group's set-up whose other side the logs do not show, not at fault themselves
            return Finding(
                Category.COLLECTIVE_DESYNC, (), (),
                (*evidence, f"rank {held[0].rank} timed out setting up another communicator, "
                 f"waiting for its group's NCCL id ({held[0].where}): the ranks behind are held "
                 "in a group's set-up, and which rank did not post that id the logs do not "
                 "show (groups created in different orders or from different lists do this)"),
                held[0],
                ("Compare the ranks' flight-recorder dumps (their group tables) or stacks: the "
                 "rank whose groups were created differently is the one to fix.",),
            )
        if len(stuck.stragglers) > len(stuck.waiting) and not doing:
            # most ranks idle at one count while fewer went on into the next collective: as
            # likely the few ran ahead (a barrier or a group's collective only they skipped,
            # which torch's counts do not show) as the many are held; no rank is named
            return Finding(
                Category.COLLECTIVE_DESYNC, (), (),
                (*evidence, f"{len(stuck.stragglers)} ranks never entered it and "
                 f"{len(stuck.waiting)} went on into it: either the few ran ahead, past a "
                 "collective only they skipped, or the many are held elsewhere; the counts "
                 "cannot tell which"), ctx.at(stuck.straggler_status[stuck.stragglers[0]]),
                ("Compare the ranks' stacks or flight-recorder dumps (`rankwatch triage` reads "
                 "them beside the logs): the dumps show which collective each rank ran last.",),
            )
        workers = tuple(part.strip() for part in doing.split(";")
                        if category is Category.DATALOADER_STALL and "DataLoader worker pid" in part)
        return Finding(
            category, stuck.stragglers, tuple(f"rank {r}" for r in stuck.stragglers) + workers,
            tuple(evidence), ctx.at(stuck.straggler_status[stuck.stragglers[0]]),
            ("Find what the straggler was doing instead of joining the collective (its last "
             "lines, a py-spy dump); `rankwatch run` names it live, before the watchdog fires.",),
        )
    return None


def _rank_stack_dumps(ctx: Context) -> dict[int, tuple[TextDump, list[TextDump]]]:
    """The text stack dumps (py-spy, faulthandler) of each rank whose file shows them: a file
    named for one rank (`pyspy_rank3.txt`, `rank2.err`) or whose lines name one rank only. Per
    rank its own process's last dump, and the py-spy dumps of that process's children (its
    DataLoader workers, `py-spy dump --subprocesses`)."""
    named = {id(scan): rank for rank, scan in _file_named_ranks(ctx).items()}
    out: dict[int, tuple[TextDump, list[TextDump]]] = {}
    for index, scan in enumerate(ctx.scans):
        if scan.fr_dump is not None or not scan.tail:
            continue
        rank = named.get(id(scan))
        if rank is None and len(scan.ranks) == 1:
            rank = next(iter(scan.ranks))
        if rank is None:
            continue
        dumps = read_text_dumps([(t.line, t.text) for t in scan.tail])
        # (a crash's faulthandler dump, `Fatal Python error: Segmentation fault` above it, is
        # where the process died, not where it waited; a timed-out dump its file trains past
        # was a slow moment, not a stall)
        before = {t.line: t.text for t in scan.tail}
        dumps = [d for d in dumps if not (d.kind == "faulthandler" and any(
            "Fatal Python error: " in before.get(d.line - k, "") for k in range(1, 4)))
            and not (d.timed_out and trained_after(ctx, index, d.line))]
        own = [d for d in dumps if d.parent is None]
        if not own:
            continue
        main = own[-1]
        children = [d for d in dumps if d.parent is not None and d.parent == main.dump.pid]
        out[rank] = (main, children)
    return out


def _busy_workers(children: Sequence[TextDump]) -> list[str]:
    out = []
    for child in children:
        w = classify_worker(child.dump)
        if w.state is WorkerState.BUSY and w.frame is not None:
            out.append(f"DataLoader worker pid {child.dump.pid} busy in {w.frame.location}")
    return out


def stack_outlier(ctx: Context) -> Finding | None:
    """Stack dumps (py-spy's text, faulthandler's) of a stalled job: the ranks whose main thread
    is outside the collective the others wait in are the ones that hold it, waiting for a
    batch (a DataLoader stall) or elsewhere (a desync). The others are the ranks whose dump is
    in a collective and the ranks the logs show waiting in one. Only where the files show a
    stall (an error line, or faulthandler's `Timeout (H:MM:SS)!` dump) and the waiting ranks
    outnumber the ones outside."""
    dumps = _rank_stack_dumps(ctx)
    if not dumps:
        return None
    stalled = (any(d.timed_out for main, _ in dumps.values() for d in (main,))
               or any(e.event.level >= Level.ERROR for e in ctx.located))
    if not stalled:
        return None
    states = {rank: classify_main(main.dump) for rank, (main, _) in dumps.items()}
    inside = {r for r, c in states.items() if c.state is MainState.IN_COLLECTIVE}
    for stuck in ctx.picture.stuck:
        inside |= {r for r in stuck.waiting if r not in states}
    outside = sorted(r for r, c in states.items()
                     if c.state not in (MainState.IN_COLLECTIVE, MainState.UNKNOWN))
    if not outside or len(inside) <= len(outside) or len(inside) < 2:
        return None
    loader = all(states[r].state is MainState.DATALOADER_WAIT for r in outside)
    category = Category.DATALOADER_STALL if loader else Category.COLLECTIVE_DESYNC
    culprits: list[str] = []
    evidence = [f"{len(inside)} rank(s) wait in a collective ({compress_ranks(sorted(inside))}); "
                + "; ".join(f"rank {r}'s {dumps[r][0].kind} stack is {states[r].state.value} at "
                            f"{states[r].where} (line {dumps[r][0].line})" for r in outside)]
    for r in outside:
        culprits.append(f"rank {r}")
        busy = _busy_workers(dumps[r][1])
        culprits.extend(f"{b} (rank {r})" for b in busy)
        evidence.extend(f"rank {r}: {b}" for b in busy)
    return Finding(
        category, tuple(outside), tuple(culprits), tuple(evidence), None,
        (("Find what held the DataLoader (the busy worker's frame: slow storage, a hung read, "
          "a dead worker)." if loader else
          "Find what the rank(s) outside the collective were doing (the stack's user frame): "
          "they never joined it."),),
    )


def _straggler_activity(ctx: Context, ranks: Sequence[int]) -> tuple[Category, str]:
    """Refine collective_desync with what the straggler's own lines show it doing."""
    wanted = set(ranks)
    dumps = _rank_stack_dumps(ctx)
    for rank in ranks:
        if rank in dumps and classify_main(dumps[rank][0].dump).state is MainState.DATALOADER_WAIT:
            busy = _busy_workers(dumps[rank][1])
            return Category.DATALOADER_STALL, (
                f"rank {rank}'s {dumps[rank][0].kind} stack waits for a batch"
                + (f"; {busy[0]}" if busy else ""))
    for item in ctx.located:
        if item.rank not in wanted or item.kind is not EventKind.PYTHON_TRACEBACK:
            continue
        if item.event.fields.get("in_data_code"):
            return Category.DATA, f"rank {item.rank} was in data-loading code ({item.where})"
        if item.event.fields.get("in_checkpoint_code"):
            return Category.STORAGE_IO, f"rank {item.rank} was saving a checkpoint ({item.where})"
    for scan in ctx.scans:
        if not scan.ranks or not scan.ranks <= wanted:
            continue
        for tail in reversed(scan.tail):
            phase = _phase(tail)
            if phase == "data":
                return Category.DATA, (f"its last output is data preparation: "
                                       f"{tail.text.strip()[:100]!r} ({scan.path}:{tail.line})")
            if phase == "checkpoint":
                return Category.STORAGE_IO, (f"its last output is a checkpoint save: "
                                             f"{tail.text.strip()[:100]!r} "
                                             f"({scan.path}:{tail.line})")
            if tail.progress is not None or "DataLoader" in tail.text:
                break
    return Category.COLLECTIVE_DESYNC, ""


def _phase(tail: TailLine) -> str:
    text = tail.text
    if any(word in text for word in CHECKPOINT_PHASE_WORDS):
        return "checkpoint"
    desc = str((tail.progress or {}).get("desc", ""))
    if any(word in desc for word in DATA_PHASE_WORDS) or "DataLoader" in text:
        return "data"
    return ""


_FILE_RANK = re.compile(r"rank[_-]?(\d+)(?:\D*)$", re.IGNORECASE)


def _file_named_ranks(ctx: Context) -> dict[int, FileScan]:
    """Files named for one rank (`rank3.log`) whose lines carry no other rank's prefix."""
    out: dict[int, FileScan] = {}
    for index, scan in enumerate(ctx.scans):
        m = _FILE_RANK.search(scan.path.rsplit("/", 1)[-1])
        if m is None or scan.fr_dump is not None:
            continue
        rank = int(m.group(1))
        others = {i.rank for i in ctx.located if i.file_index == index
                  and i.rank is not None and i.rank_origin != "file"} - {rank}
        if not others:
            out[rank] = scan
    return out


def _in_a_subgroup(item: Located) -> bool:
    """A rank's own watchdog or status line shows its collective is a subgroup's (a tensor- or
    pipeline-parallel group): its rank in the group differs from its global rank
    (`[rank2]:… [Rank 0] Watchdog caught …`), or its group is not the default one
    (`[PG ID 2 …]`). The world's other ranks need not be in it at all."""
    if item.rank_origin not in GLOBAL_ORIGINS:
        return False
    pg_rank, pg = item.event.int_field("pg_rank"), item.event.fields.get("pg_id")
    return (pg_rank is not None and pg_rank != item.rank) or pg not in (None, "0", 0)


def _of_a_subgroup(ctx: Context, waiting: Sequence[int]) -> bool:
    """The waiting ranks' own lines show their collective is a subgroup's."""
    return any(item.rank in waiting and _in_a_subgroup(item)
               for item in ctx.of(EventKind.WATCHDOG_TIMEOUT, EventKind.PG_STATUS))


def absent_rank(ctx: Context) -> Finding | None:
    """Every rank that reported waits in the same collective and the others of a known world
    said nothing: the silent rank is the suspect (it never entered, or died without a word)."""
    files = _file_named_ranks(ctx)
    world = ctx.world_size
    if world is None and files and set(files) == set(range(len(files))):
        world = len(files)
    if world is None:
        return None
    for stuck in ctx.picture.stuck:
        if stuck.stragglers or not stuck.waiting or _of_a_subgroup(ctx, stuck.waiting):
            continue
        # (NCCL's INFO return-code traces are no report: a rank's own comm abort as its
        # process exits prints them)
        # (nor is the launcher's table of how each rank ended: it lists the silent rank too)
        reported = {i.rank for i in ctx.located if i.rank is not None
                    and i.kind not in (EventKind.PROGRESS, EventKind.NCCL_INIT)
                    and not (i.kind is EventKind.NCCL_NET_CALL_FAILED
                             and i.event.level < Level.WARNING)
                    and not failure_table_line(i.event.text)}
        silent = tuple(r for r in range(world) if r not in stuck.waiting and r not in reported)
        if len(silent) != 1:
            continue  # several silent ranks stay suspects (see the report's findings)
        quiet_files = [f"{files[r].path} ({files[r].lines} lines)" for r in silent if r in files]
        evidence = [
            f"rank(s) {compress_ranks(stuck.waiting)} of {world} time out in collective "
            f"#{stuck.seq} ({stuck.op_type or 'op unknown'}); rank(s) {compress_ranks(silent)} "
            "reported nothing: it never entered the collective, or died without a word"]
        if quiet_files:
            evidence.append("its log: " + ", ".join(quiet_files))
        return Finding(
            Category.UNDETERMINED, silent, tuple(f"rank {r} (did not report)" for r in silent),
            tuple(evidence), ctx.at(stuck.first_timeout),
            (f"Find out what rank(s) {compress_ranks(silent)} did: the node's kernel log "
             "(OOM killer, Xid), the scheduler's record of the process, a py-spy dump if it is "
             "still alive; `rankwatch run` watches every rank live.",),
        )
    return None


def silent_file(ctx: Context) -> Finding | None:
    """A node's log, among several, whose ranks wrote no error while every other rank the logs
    name waits in one collective (or lost its peers there): those ranks went silent together
    (their node, or their processes and launcher with it) and are the suspects; the logs do not
    say why. Only where the ranks of the files are the whole set the logs name, and one file
    alone is silent."""
    files = [(i, s) for i, s in enumerate(ctx.scans) if s.fr_dump is None and s.lines]
    if len(files) < 2:
        return None
    failing = {e.file_index for e in ctx.located if e.event.level >= Level.ERROR}
    named = set().union(*(s.ranks for _, s in files))
    for stuck in ctx.picture.stuck:
        if stuck.stragglers or not stuck.waiting:
            continue
        silent = [(i, s) for i, s in files if s.ranks and i not in failing
                  and not s.ranks & set(stuck.waiting)]
        if len(silent) != 1 or named != set(stuck.waiting) | silent[0][1].ranks:
            continue
        _, scan = silent[0]
        ranks = tuple(sorted(scan.ranks))
        return Finding(
            Category.UNDETERMINED, ranks, tuple(f"rank {r} (did not report)" for r in ranks),
            (f"rank(s) {compress_ranks(stuck.waiting)} wait in or lost collective #{stuck.seq} "
             f"({stuck.op_type or 'op unknown'}); the log of rank(s) {compress_ranks(ranks)} "
             f"({scan.path}, {scan.lines} lines) holds no error and no launcher's report: "
             "those ranks went silent together, their node or their processes gone, and the "
             "logs do not say why",), ctx.at(stuck.first_timeout),
            (f"Check the node of rank(s) {compress_ranks(ranks)}: the scheduler's record of it "
             "(a node failure, a drain), its kernel log (OOM killer, Xid, a reboot).",),
        )
    return None


def one_group_desync(ctx: Context) -> Finding | None:
    """Two ranks timed out at one SeqNum in different collectives, one in the default group
    (its status line names PG 0) and one whose lines name no group at all, in logs that name
    no other group: most likely one group, its ranks in different collectives. Late among the
    rules (a guess of the group yields to any evidence of a cause) and never a culprit: the
    unnamed side may still be another group's collective at a coincident SeqNum."""
    stuck = ctx.picture.stuck
    named = {s.pg for s in stuck if s.pg is not None}
    if named != {"0"}:
        return None
    for unknown in (s for s in stuck if s.pg is None):
        if any(r in ctx.picture.statuses for r in unknown.waiting):
            continue  # a rank whose status line names its group is that group's
        for known in (s for s in stuck if s.pg == "0"):
            if unknown.seq == known.seq and unknown.op_type != known.op_type:
                return Finding(
                    Category.COLLECTIVE_DESYNC, (), (),
                    (f"collective #{known.seq}: rank(s) {compress_ranks(known.waiting)} in "
                     f"{known.op_type} (PG 0), rank(s) {compress_ranks(unknown.waiting)} in "
                     f"{unknown.op_type} (their lines name no group; the logs name no group "
                     "but PG 0): ranks of one group in different collectives, no single rank "
                     "to blame",), None,
                    ("Make every rank issue the same collectives in the same order; "
                     "TORCH_DISTRIBUTED_DEBUG=DETAIL names the first call that differs.",),
                )
    return None


def collective_hang(ctx: Context) -> Finding | None:
    world = ctx.world_size
    if world is None:
        return None
    for stuck in ctx.picture.stuck:
        if stuck.stragglers or len(stuck.waiting) < world:
            continue
        return Finding(
            Category.COLLECTIVE_HANG, (), (),
            (f"all {world} ranks entered collective #{stuck.seq} ({stuck.op_type}) and none "
             "completed it: the GPU or network side is stuck",), ctx.at(stuck.first_timeout),
            ("Check NCCL's own view (NCCL_DEBUG=INFO, the RAS port), the GPUs (Xid) and the "
             "network links of the job's nodes.",),
        )
    return None


def timeouts_alike(ctx: Context) -> Finding | None:
    """Every rank the logs name timed out inside one collective at the same count and none is
    behind, in logs that do not show the world's size: nothing here says which rank held it
    (a rank that skipped another group's collective, a GPU that never finished a kernel, a rank
    the logs do not show). Named so, rather than by the first failing line."""
    if ctx.world_size is not None:
        return None
    named = {i.rank for i in ctx.located if i.rank is not None and i.rank_origin in GLOBAL_ORIGINS}
    for stuck in ctx.picture.stuck:
        if stuck.stragglers or len(stuck.waiting) < 2 or named - set(stuck.waiting):
            continue
        # (the failure-family lexicon, the last rule, may still read a cause in the lines: a
        # GPU's or a switch's hardware report beside the timeouts)
        read = unrecognised_failure(ctx)
        if read is not None and read.category is not Category.UNDETERMINED:
            return None
        return Finding(
            Category.UNDETERMINED, (), (),
            (f"rank(s) {compress_ranks(stuck.waiting)}, every rank these logs name, time out in "
             f"collective #{stuck.seq} ({stuck.op_type or 'op unknown'}, PG {stuck.pg}) and none "
             "is behind: the logs cannot say which rank or what held it (another group's "
             "collective one rank skipped, a kernel that never finished, a rank they do not "
             "show)",), ctx.at(stuck.first_timeout),
            ("Read the ranks' flight-recorder dumps (TORCH_NCCL_DUMP_ON_TIMEOUT=1; `rankwatch "
             "triage` reads them beside the logs) or their stacks: they show each group's "
             "count and where each rank is.",),
        )
    return None


def ddp_mismatch(ctx: Context) -> Finding | None:
    """DDP's parameter check names the inconsistent rank; the rank that printed it is only the
    messenger."""
    items = ctx.of(EventKind.DDP_MISMATCH)
    if not items:
        return None
    first = items[0]
    bad = first.event.int_field("peer_rank")
    reporter = first.event.int_field("reporter_rank")
    unused = first.event.int_field("unused_rank")
    # Every rank compares itself with the others and reports the first that differs: the odd
    # rank reports rank 0, all the others report the odd one. The rank in every report is it.
    odd = _in_every_report([{i.event.int_field("reporter_rank"), i.event.int_field("peer_rank")}
                            for i in items if i.event.int_field("peer_rank") is not None])
    named = [i for i in items if odd is not None and i.event.int_field("peer_rank") == odd]
    if named:  # a report that names it, so its counts read the right way round
        first, bad = named[0], odd
        reporter = first.event.int_field("reporter_rank")
    if bad is not None and contradictory(i.event.fields for i in items):
        said = counts_said(i.event.fields for i in items)
        # one rank said to have two counts: reports from different groups, or interleaved
        # lines; no rank can be blamed from them
        return Finding(
            Category.SOFTWARE, (), (),
            (f"DDP's model check failed: the ranks built different models ({first.where}); "
             "the reports contradict each other on the counts "
             f"({'; '.join(f'rank {r}: {sorted(c)}' for r, c in sorted(said.items()))}), so no "
             "single rank can be named",), first,
            ("Compare how the ranks build the model (rank-dependent code, a missing adapter or "
             "checkpoint, a different config).",),
        )
    unused_ranks = sorted({r for r in (i.event.int_field("unused_rank") for i in items)
                           if r is not None})
    pairs = {frozenset((i.event.int_field("reporter_rank"), i.event.int_field("peer_rank")))
             for i in items if i.event.int_field("peer_rank") is not None}
    if (bad is None and len(unused_ranks) > 1) or (
            odd is None and len(pairs) == 1 and sum(
                i.event.int_field("peer_rank") is not None for i in items) > 1):
        # every rank reports its own unused parameters, or two ranks each name the other: the
        # model code, and no one rank is odd
        return Finding(
            Category.SOFTWARE, (), (),
            (f"DDP's checks on ranks {compress_ranks(unused_ranks)} each report their own "
             f"parameters ({first.where}): the model code, no single rank"
             if bad is None else
             f"DDP's model check: two ranks each name the other as inconsistent "
             f"({first.where}); with no third rank to break the tie, no single rank can be "
             "named",), first,
            ("Make every parameter take part in the loss on every rank (or construct DDP with "
             "find_unused_parameters=True), and build the same model on every rank.",),
        )
    if bad is None and unused is not None:
        return Finding(
            Category.SOFTWARE, (unused,), (f"rank {unused}",),
            (f"DDP's reducer: parameters of rank {unused} received no gradient in the previous "
             f"iteration ({first.where}); its forward did not use them",), first,
            ("Make every parameter take part in the loss on every rank, or construct DDP with "
             "find_unused_parameters=True; TORCH_DISTRIBUTED_DEBUG=DETAIL names the "
             "parameters.",),
        )
    if bad is None:
        return None
    return Finding(
        Category.SOFTWARE, (bad,), (f"rank {bad}",),
        (f"DDP's model check: rank {reporter} has {first.event.fields.get('count')} parameters "
         f"while rank {bad} has an inconsistent {first.event.fields.get('expected')} "
         f"({first.where}); rank {bad} built a different model, rank {reporter} only reported it",),
        first,
        (f"Compare how rank {bad} builds the model (rank-dependent code, a missing adapter or "
         "checkpoint, a different config or world-size setting) with the other ranks.",),
    )


# torch 1.10-1.11's check: each rank states only its own fingerprint (`Rank 3 is running
# inconsistent collective: CollectiveFingerPrint(OpType=BROADCAST, …)`)
_OWN_PRINT = re.compile(r"Rank (\d+) is running inconsistent collective: (CollectiveFingerPrint\(.*)")


def _own_prints(messages: Sequence[str]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """From one-sided reports: the ranks whose own fingerprint differs from the one a clear
    majority (two or more, more than the rest) states; None when no majority."""
    prints: dict[int, str] = {}
    for m in messages:
        if (o := _OWN_PRINT.search(m)) is not None and "but Rank" not in m:
            prints[int(o.group(1))] = o.group(2).strip().rstrip(".")
    if len(prints) < 3 or len(set(prints.values())) < 2:
        return None
    groups: dict[str, list[int]] = defaultdict(list)
    for rank, text in sorted(prints.items()):
        groups[text].append(rank)
    majority = max(groups.values(), key=len)
    odd = sorted(r for r in prints if r not in majority)
    if len(majority) < 2 or len(majority) <= len(odd):
        return None
    return tuple(odd), tuple(majority)


def _in_every_report(pairs: Sequence[set[int | None]]) -> int | None:
    """The one rank that every pairwise report (reporter and the rank it names, or the two
    sides of a mismatch) has in it, from two reports or more; None when there is no one."""
    if len(pairs) < 2:
        return None
    common = set.intersection(*pairs) - {None}
    return common.pop() if len(common) == 1 else None


def _agreeing_reporters(messages: Sequence[str], running: Sequence[Sequence[int]]
                        ) -> tuple[int, tuple[int, ...], tuple[str, str]] | None:
    """Torch's DETAIL check names, for the rank that reports, the first rank whose fingerprint
    differs from its own. Two reporters or more that run the same collective (as far as each
    report shows: a report cut after its own fingerprint still counts) and that name one and
    the same other rank disagree with that rank, not with each other: it is the odd one.
    `running`: the ranks each message says are running, the reporter first."""
    own: dict[int, tuple[str, str]] = {}
    named: set[int] = set()
    for message, ranks in zip(messages, running, strict=True):
        sides = _FINGERPRINT.findall(message)
        if not sides or not ranks or int(sides[0][0]) != ranks[0]:
            continue
        own[ranks[0]] = (sides[0][1], sides[0][2])
        named.update(ranks[1:])
    others = named - set(own)
    if len(own) < 2 or len(set(own.values())) != 1 or len(others) != 1 or named & set(own):
        return None
    return others.pop(), tuple(sorted(own)), next(iter(own.values()))


def monitored_barrier(ctx: Context) -> Finding | None:
    """gloo's monitored barrier: rank 0's report names the ranks that never arrived."""
    items = [i for i in ctx.of(EventKind.MONITORED_BARRIER) if i.event.fields.get("ranks")]
    if not items:
        return None
    first = items[0]
    # (every report's ranks: gloo logs one line per missing rank, its exception lists them all)
    ranks = tuple(sorted({int(r) for item in items
                          for r in str(item.event.fields.get("ranks", "")).replace(
                              " ", "").split(",") if r.isdigit()}))
    if not ranks:
        return None
    raised = {r for e in ctx.of(EventKind.PYTHON_TRACEBACK) if raised_of_its_own(e)
              for r in ctx.global_ranks([e])}
    if raised and raised <= set(ranks):
        return None  # the missing ranks raised their own errors instead: the rules after say
    # the ranks it names, each in its own words, reached the barrier and waited on its
    # coordinator (`Rank 1 successfully reached monitoredBarrier, but received errors while
    # waiting for send/recv from rank 0`): the coordinator came late, not they
    waited = _waited_on_coordinator(ctx)
    reached = {r for i in waited
               for r in (ctx.global_ranks([i]) or (i.event.int_field("reporter_rank"),))
               if r is not None}
    if waited and set(ranks) <= reached:
        coordinator = waited[0].event.fields.get("coordinator")
        return Finding(
            Category.COLLECTIVE_DESYNC, (), (),
            (f"the monitored barrier reports that rank(s) {compress_ranks(ranks)} did not reach "
             f"it ({first.where}), but each says it reached it and waited on rank "
             f"{coordinator}, which enforces it: rank {coordinator} came late, and why is not "
             "shown",), first,
            (f"Read what rank {coordinator} did before the barrier (a long checkpoint, an "
             "evaluation only it runs).",),
        )
    return Finding(
        Category.COLLECTIVE_DESYNC, ranks, tuple(f"rank {r}" for r in ranks),
        (f"the monitored barrier reports that rank(s) {compress_ranks(ranks)} did not reach it "
         f"({first.where})",), first,
        ("Look at what those ranks were doing instead (their last lines, their stacks); they "
         "took a different path or were stuck before the barrier.",),
    )


def _waited_on_coordinator(ctx: Context) -> list[Located]:
    """The reports of ranks that reached gloo's monitored barrier and waited on the rank that
    enforces it (`Rank 1 successfully reached monitoredBarrier, but received errors while
    waiting for send/recv from rank 0`)."""
    return [i for i in ctx.of(EventKind.MONITORED_BARRIER)
            if i.event.fields.get("coordinator") is not None]


def barrier_unanswered(ctx: Context) -> Finding | None:
    """Ranks that reached gloo's monitored barrier and got no answer from rank 0, with rank 0's
    report not among the logs: rank 0 alone enforces the timeout and names who did not
    arrive, so these reports blame no one (and rank 0's own failure, when shown, came first
    in the rules)."""
    items = _waited_on_coordinator(ctx)
    if not items:
        return None
    first = items[0]
    coordinator = first.event.fields.get("coordinator")
    reporters = ctx.global_ranks(items) or tuple(sorted(
        {r for i in items if (r := i.event.int_field("reporter_rank")) is not None}))
    return Finding(
        Category.COLLECTIVE_DESYNC, (), (),
        (f"rank(s) {compress_ranks(reporters) if reporters else '(not shown)'} reached the "
         f"monitored barrier and rank {coordinator} did not answer them ({first.where}): rank "
         f"{coordinator} enforces the barrier and names the rank that did not arrive; its "
         "report is not in these logs, so no culprit can be named",), first,
        (f"Read rank {coordinator}'s log: its 'failed to pass monitoredBarrier' line names the "
         f"missing rank, or it shows rank {coordinator} failing before the barrier.",),
    )


_RUNNING = re.compile(r"Rank (\d+) is running")


_FINGERPRINT = re.compile(r"Rank (\d+) is running (?:inconsistent )?collective: "
                          r"CollectiveFingerPrint\((?:SequenceNumber=(\d+),? ?)?OpType=(\w+)")


# TensorFlow's collective ops: a member's shape or group size differs from another's
_TF_MEMBERS = re.compile(r"Shape mismatch in the collective|Inconsistent output shapes|"
                         r"Collective Op\b.*? has group_size|is joining a group with size")


# MPI's wordings of a size mismatch (MPI_ERR_TRUNCATE, MPICH's collective check)
_MPI_SIZES = re.compile(r"Message from rank \d+ and tag \d+ truncated|message sizes do not match")
_FAILED_BEFORE = frozenset({*_CRASHED, EventKind.CUDA_ERROR, EventKind.PYTHON_TRACEBACK,
                            EventKind.CPP_EXCEPTION, EventKind.CUDA_OOM})


# The desync report's snapshot of what each rank last started (TraceUtils.h: `#880 started
# ranks:`, then `[3] started BROADCAST`, `[0, 1, 2] started ALLREDUCE`, one line per group)
_SNAPSHOT_HEAD = re.compile(r"#(\d+) started ranks:\s*$")
_SNAPSHOT_GROUP = re.compile(r"^\W*\[(\d+(?:, \d+)*)\] started (\w+)\s*$")


def desync_snapshot(ctx: Context) -> Finding | None:
    """The desync report's snapshot of one collective that the ranks started as different
    operations: a desync; the one rank whose operation no other rank started is the odd one
    out, where the others agree."""
    for scan in ctx.scans:
        tail = scan.tail
        for i, head in enumerate(tail):
            m = _SNAPSHOT_HEAD.search(head.text)
            if m is None:
                continue
            groups: dict[str, set[int]] = {}
            for line in tail[i + 1:i + 1 + 64]:
                g = _SNAPSHOT_GROUP.match(line.text)
                if g is None:
                    break
                groups.setdefault(g[2], set()).update(int(r) for r in g[1].split(", "))
            if len(groups) < 2:
                continue
            single = [ranks for ranks in groups.values() if len(ranks) == 1]
            culprits = tuple(sorted(single[0])) if len(single) == 1 and len(groups) == 2 else ()
            said = "; ".join(f"{op} on rank(s) {compress_ranks(sorted(ranks))}"
                             for op, ranks in sorted(groups.items(), key=lambda kv: min(kv[1])))
            return Finding(
                Category.COLLECTIVE_DESYNC, culprits, tuple(f"rank {r}" for r in culprits),
                (f"the desync report's snapshot of collective #{m[1]}: {said} "
                 f"({scan.path}:{head.line})"
                 + ("" if culprits else "; no single rank can be blamed"),),
                None,
                ("Make every rank issue the same collectives in the same order: the odd rank's "
                 "code took another path at that point.",),
            )
    return None


def collective_mismatch(ctx: Context) -> Finding | None:
    """Ranks reported in different collectives: a desync, and with a pairwise report no single
    rank can be blamed."""
    items = ctx.of(EventKind.COLLECTIVE_MISMATCH)
    if not items:
        return None
    first = items[0]
    if (_MPI_SIZES.match(str(first.event.fields.get("message", "")))
            # (or NCCL's socket transport on a message of another size than it expects: a
            # peer that died mid-transfer sends that too)
            or "message truncated" in first.event.text) and any(
            e.order() < first.order() for e in ctx.located
            if e.event.level >= Level.ERROR and e.kind in _FAILED_BEFORE
            # (a launcher's or backend's relay of another failure is not one before it)
            and not any(w in str(e.event.fields.get("exc_type") or "") for w in _COLLATERAL)):
        # MPI's own check only says two sides' sizes differed: after a process had already
        # failed (a CUDA error, a crash, an exception) that is its consequence
        return None
    sides = _FINGERPRINT.findall(str(first.event.fields.get("message", "")))
    detail = ""
    if len(sides) >= 2:
        (r1, s1, o1), (r2, s2, o2) = sides[0], sides[1]
        same_seq = s1 == s2 and s1 != ""
        if same_seq and o1 != o2:
            detail = (f": at the same sequence number {s1} rank {r1} runs {o1} and rank {r2} "
                      f"runs {o2}")
        elif same_seq:
            detail = f": ranks {r1} and {r2} run {o1} #{s1} with different tensors"
        else:
            detail = (f": rank {r1} is in {o1}" + (f" #{s1}" if s1 else "")
                      + f", rank {r2} in {o2}" + (f" #{s2}" if s2 else ""))
    # Each report pairs two ranks; when every report pairs the same rank with another, that
    # rank is the one that differs from all the others.
    # (a report cut short still names both ranks: "… but Rank 0 is running")
    messages = [str(i.event.fields.get("message", "")) for i in items]
    running = [[int(r) for r in _RUNNING.findall(m)] for m in messages]
    pairs: list[set[int | None]] = [set(r) for r in running if len(set(r)) == 2]
    odd = _in_every_report(pairs)
    if odd is not None:
        return Finding(
            Category.COLLECTIVE_DESYNC, (odd,), (f"rank {odd}",),
            (f"ranks called different collectives{detail} ({first.where}); rank {odd} is in "
             f"every mismatch report ({len(pairs)}), each with another rank: it is the one that "
             "differs",), first,
            (f"Find where rank {odd}'s code path or tensor shapes diverge from the others'.",),
        )
    own = _own_prints(messages)
    if own is not None:
        odd_ranks, agreeing = own
        return Finding(
            Category.COLLECTIVE_DESYNC, odd_ranks, tuple(f"rank {r}" for r in odd_ranks),
            (f"each rank reports its own collective ({first.where}); ranks "
             f"{compress_ranks(agreeing)} agree and {_ranks_text(list(odd_ranks))} "
             "differ: the odd ones out",), first,
            (f"Find where {_ranks_text(list(odd_ranks))} took another code path or shapes.",),
        )
    agreed = _agreeing_reporters(messages, running)
    if agreed is not None:
        odd, reporters, (seq, op) = agreed
        return Finding(
            Category.COLLECTIVE_DESYNC, (odd,), (f"rank {odd}",),
            (f"ranks {compress_ranks(reporters)} each report a mismatch while running the same "
             f"collective ({op}" + (f" #{seq}" if seq else "") + f"), and rank {odd} differs "
             f"from them ({first.where}): it is the odd one",), first,
            (f"Find where rank {odd}'s code path or tensor shapes diverge from the others'.",),
        )
    around = sorted({i.event.int_field("peer_rank") for i in items
                     if i.event.int_field("peer_rank") is not None})  # type: ignore[type-var]
    if around and not detail:
        detail = f": NCCL points at ranks around {compress_ranks(around)}"  # type: ignore[arg-type]
    message = str(first.event.fields.get("message", ""))
    said = ("the members of one collective disagree" if _TF_MEMBERS.match(message) else
            "ranks called different collectives")
    if said != "ranks called different collectives" and not detail:
        detail = f": '{message[:160]}'"
    return Finding(
        Category.COLLECTIVE_DESYNC, (), (),
        (f"{said}{detail} ({first.where}); no single rank can be "
         "blamed from this report: each side only sees the other disagree",), first,
        ("Find where the ranks' code paths diverge (rank-dependent branches, data-dependent "
         "shapes, a collective inside a condition); TORCH_DISTRIBUTED_DEBUG=DETAIL and the "
         "flight recorder show every rank's sequence of collectives.",),
    )


def fingerprint_outlier(ctx: Context) -> Finding | None:
    """TORCH_DISTRIBUTED_DEBUG=DETAIL logs every rank's collective (sequence number, op,
    shapes). The ranks whose last collective differs from what a clear majority last ran
    (behind it, or another op or shape at its number) are the ones that diverged; ranks only
    ahead of it are a log cut while the others caught up; with no majority no rank can be
    blamed."""
    last: dict[int, tuple[object, ...]] = {}
    last_line: dict[int, Located] = {}
    for item in ctx.of(EventKind.COLLECTIVE_FINGERPRINT):
        if item.rank is None or item.rank_origin == "local":
            continue
        f = item.event.fields
        last[item.rank] = (f.get("seq"), f.get("op"), f.get("shape"), f.get("dtype"))
        last_line[item.rank] = item
    if len(last) < 2 or len(set(last.values())) < 2:
        return None
    counts: dict[tuple[object, ...], list[int]] = defaultdict(list)
    for rank, print_ in sorted(last.items()):
        counts[print_].append(rank)
    majority, agreeing = max(counts.items(), key=lambda kv: len(kv[1]))
    outliers = sorted(r for r, p in last.items() if p != majority)
    seq = majority[0]
    if isinstance(seq, int) and all(isinstance(last[r][0], int) and int(str(last[r][0])) > seq
                                    for r in outliers):
        return None  # ahead of the others: the log was cut while they caught up
    item = last_line[outliers[0]] if outliers else next(iter(last_line.values()))
    shown = "; ".join(f"rank {r}: {last[r][1]} #{last[r][0]} {last[r][2] or ''}".rstrip()
                      for r in sorted(last))
    if len(agreeing) <= len(outliers) or len(agreeing) < 2:
        return Finding(
            Category.COLLECTIVE_DESYNC, (), (),
            (f"the ranks' last collectives differ ({shown}) and no majority agrees: no single "
             f"rank can be blamed ({item.where})",), item,
            ("Find where the ranks' code paths diverge (rank-dependent branches, data-dependent "
             "shapes).",),
        )
    return Finding(
        Category.COLLECTIVE_DESYNC, tuple(outliers), tuple(f"rank {r}" for r in outliers),
        (f"{_ranks_text(outliers)} ran a different last collective than ranks "
         f"{compress_ranks(agreeing)} ({shown}; {item.where}): the odd ones out diverged",), item,
        (f"Find where {_ranks_text(outliers)} took another code path (a rank-dependent branch, "
         "a data-dependent shape, a collective inside a condition).",),
    )
