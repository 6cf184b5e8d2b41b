"""When a local rank the logs give is the job's global rank: on a job of one node.

A local rank (torchrun's `[default3]:`, its failure line's `local_rank: 3`, the legacy
launcher's `--local_rank=3`) is the global rank only when the job ran one node. The logs say
so in a launcher's own lines (see parse/launch_shape.py) or they do not: without their word a
local rank stays local.

An srun task id is SLURM_PROCID: the job's rank when srun started the ranks itself, the node's
index when it started one launcher per node (torchrun under srun). The logs rule the second
out when srun reports two tasks or more on one node, or was asked for them
(`--ntasks-per-node=4`), and no per-node launcher speaks (torchrun's agent or failure table, a
local rank, a launcher's node count); only then are tasks ranks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from monitor.parse.log_events import EventKind
from monitor.triage.evidence import ONE_NODE, RDZV_RANK, SRUN_RANK, Located

__all__ = ["ONE_NODE", "SRUN_RANK", "Topology", "promoted", "read_topology", "task_ranks"]


@dataclass(frozen=True)
class Topology:
    """What the logs say of how ranks map onto nodes."""

    one_node: str = ""  # where a line shows a job of one node; "" when none does
    srun_ranks: str = ""  # where srun shows it started the ranks itself; "" when nothing does
    # file index → local rank → global rank, as each file's torchrun agent said at its rendezvous
    local_to_global: Mapping[int, Mapping[int, int]] = field(default_factory=dict)


# A per-node launcher's own words: its tasks are nodes, not ranks.
_PER_NODE_LAUNCHER = frozenset({
    EventKind.AGENT_WORKER_FAILED, EventKind.AGENT_SIGTERM, EventKind.AGENT_DEATH_SIGNAL,
    EventKind.CHILD_FAILED_SUMMARY, EventKind.EXIT_BARRIER, EventKind.LAUNCH_NODES,
})


def read_topology(located: Sequence[Located]) -> Topology:
    return Topology(_one_node(located), _srun_ranks(located), _rendezvous_maps(located))


def _one_node(located: Sequence[Located]) -> str:
    said = [i for i in located if i.kind is EventKind.LAUNCH_NODES]
    if not said or any(i.event.fields.get("nodes") != 1 for i in said):
        return ""
    # lines from two hosts are two nodes, whatever a command line said
    hosts = {str(h) for i in located for h in (i.event.host, i.event.fields.get("host")) if h}
    return said[0].where if len(hosts) <= 1 else ""


def _srun_ranks(located: Sequence[Located]) -> str:
    if any(i.kind in _PER_NODE_LAUNCHER or i.rank_origin == "local" for i in located):
        return ""
    for item in located:
        if item.kind is EventKind.SLURM_TASK_EXIT:
            tasks = item.event.fields.get("tasks")
            if isinstance(tasks, tuple) and len(set(tasks)) >= 2:
                return item.where
        # (or the job asked srun for two tasks or more on each node: `--ntasks-per-node=4`)
        if item.kind is EventKind.SRUN_TASKS and (item.event.int_field("per_node") or 0) >= 2:
            return item.where
    return ""


def promoted(located: Sequence[Located], topology: Topology) -> list[Located]:
    """The events, with local ranks counted as the global ranks they are on one node, srun's
    task labels as the ranks they are when srun started the ranks, and a node's local ranks as
    the global ranks its torchrun agent said they are."""
    out = list(located)
    if topology.one_node:
        out = [replace(item, rank_origin=ONE_NODE)
               if item.rank is not None and item.rank_origin == "local" else item
               for item in out]
    if topology.srun_ranks:
        out = [replace(item, rank_origin=SRUN_RANK)
               if item.rank is not None and item.rank_origin == "task" else item
               for item in out]
    maps = topology.local_to_global
    return [replace(item, rank=mapped, rank_origin=RDZV_RANK)
            if (local := _local_rank(item)) is not None
            and (mapped := maps.get(item.file_index, {}).get(local)) is not None
            else item for item in out]


def _local_rank(item: Located) -> int | None:
    """The local rank a line is of: its tag's, or the one torchrun's agent names in its line
    on a worker that failed (`failed (exitcode: -9) local_rank: 1 (pid: 7791)`)."""
    if item.rank_origin == "local":
        return item.rank
    if item.rank is None and item.kind is EventKind.AGENT_WORKER_FAILED:
        return item.event.int_field("local_rank")
    return None


_RESULT_LINES = 8  # torchrun's rendezvous result: `local_ranks=` a few fields above `global_ranks=`


def _rendezvous_maps(located: Sequence[Located]) -> dict[int, dict[int, int]]:
    """File index → local rank → global rank, from torchrun's agent's word on the rendezvous
    it completed (`local_ranks=[0, 1]` … `global_ranks=[2, 3]`), where every such word in the
    file agrees (several nodes' agents in one file, or a restart that moved the node, do not)."""
    said: dict[int, list[Located]] = {}
    for item in located:
        if item.kind is EventKind.RDZV_RANKS:
            said.setdefault(item.file_index, []).append(item)
    maps: dict[int, dict[int, int]] = {}
    for index, items in said.items():
        found: set[tuple[tuple[int, int], ...]] = set()
        for item in items:
            if item.event.fields.get("which") != "global_ranks":
                continue
            ranks = _ranks(item)
            local = next((_ranks(i) for i in reversed(items)
                          if i.event.fields.get("which") == "local_ranks"
                          and 0 < item.event.line - i.event.line <= _RESULT_LINES), None)
            if local is None or len(local) != len(ranks):
                local = tuple(range(len(ranks)))  # (torchrun numbers its workers from 0)
            found.add(tuple(zip(local, ranks, strict=True)))
        if len(found) == 1:
            maps[index] = dict(found.pop())
    return maps


def _ranks(item: Located) -> tuple[int, ...]:
    return tuple(int(r) for r in str(item.event.fields.get("ranks", "")).split(", ") if r)


def task_ranks(topology: Topology, tasks: Sequence[int]) -> tuple[int, ...]:
    """The ranks srun's task ids are, when they are ranks; () otherwise."""
    return tuple(sorted(set(tasks))) if topology.srun_ranks else ()
