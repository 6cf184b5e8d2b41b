"""When a local rank the logs give is the job's global rank: on a job of one node.

A local rank (torchrun's `[default3]:`, its failure line's `local_rank: 3`, the legacy
launcher's `--local_rank=3`) is the global rank only when the job ran one node. The logs say
so in a launcher's own lines (see parse/launch_shape.py) or they do not: without their word a
local rank stays local. srun's task ids are left as tasks: srun may have started one launcher
per node, and a pasted excerpt rarely shows enough to rule that out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from monitor.parse.log_events import EventKind
from monitor.triage.evidence import ONE_NODE, Located

__all__ = ["ONE_NODE", "Topology", "promoted", "read_topology"]


@dataclass(frozen=True)
class Topology:
    """What the logs say of how ranks map onto nodes."""

    one_node: str = ""  # where a line shows a job of one node; "" when none does


def read_topology(located: Sequence[Located]) -> Topology:
    said = [i for i in located if i.kind is EventKind.LAUNCH_NODES]
    if not said or any(i.event.fields.get("nodes") != 1 for i in said):
        return Topology()
    # lines from two hosts are two nodes, whatever a command line said
    hosts = {str(h) for i in located for h in (i.event.host, i.event.fields.get("host")) if h}
    return Topology(said[0].where if len(hosts) <= 1 else "")


def promoted(located: Sequence[Located], topology: Topology) -> list[Located]:
    """The events, with local ranks counted as the global ranks they are on one node."""
    if not topology.one_node:
        return list(located)
    return [replace(item, rank_origin=ONE_NODE)
            if item.rank is not None and item.rank_origin == "local" else item
            for item in located]
