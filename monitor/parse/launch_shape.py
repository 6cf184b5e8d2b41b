"""How many nodes a launcher was told to run, from the lines it leaves in a log.

On a job of one node a local rank is the global rank, so a launcher's `local_rank: 0` names
the rank. A log shows the node count in a command line a user pasted (`torchrun
--nproc_per_node 8 train.py` runs one node unless `--nnodes` says otherwise), in torchrun's
printed launch config (`max_nodes : 1`), in its agent's rendezvous result
(`group_world_size=1`) and in DeepSpeed's launcher (`nnodes=1, num_local_procs=8`,
`WORLD INFO DICT: {'localhost': [0, 1]}`). A value the line does not spell out
(`--nnodes=$NNODES`, an elastic range `1:4`) is unknown, never one node.
"""

from __future__ import annotations

import re

# torch's launchers run one node when --nnodes is absent; accelerate and DeepSpeed read a
# config or hostfile instead, so only their explicit flags count.
_TORCH_LAUNCHERS = ("torchrun", "torch.distributed.run", "torch.distributed.launch")
_NODES_FLAG = re.compile(r"--(?:nnodes|num[_-]machines|num[_-]nodes)(?:=|\s+)(\S+)")
_NODE_RANK_FLAG = re.compile(r"--(?:node[_-]rank|machine[_-]rank)(?:=|\s+)(\S+)")
# a node-count flag, whether or not its value can be read
_ANY_NODES_FLAG = re.compile(r"--(?:nnodes|num[_-]machines|num[_-]nodes|node[_-]rank)\b")
_NPROC_FLAG = re.compile(r"--nproc[_-]per[_-]node")
_CONFIG = re.compile(r"\bmax_nodes\s*:\s*(\d+)|\bgroup_world_size=(\d+)|\bnnodes=(\d+), "
                     r"num_local_procs=")
_WORLD_INFO = re.compile(r"WORLD INFO DICT: \{([^}]*)\}")
_WORLD_HOST = re.compile(r"['\"][^'\"]+['\"]\s*:\s*\[")


def _count(value: str) -> int | None:
    """`2` → 2, `1:1` → 1 (an elastic min:max: its max), anything else (a variable) → None."""
    high = value.strip("'\",;").rpartition(":")[2]
    return int(high) if high.isdigit() else None


def launch_nodes(payload: str) -> int | None:
    """The node count a launcher line states, or None when it states none."""
    m = _CONFIG.search(payload)
    if m is not None:
        return int(next(g for g in m.groups() if g is not None))
    world = _WORLD_INFO.search(payload)
    if world is not None:
        hosts = len(_WORLD_HOST.findall(world.group(1)))
        return hosts or None
    flag = _NODES_FLAG.search(payload)
    if flag is not None:
        return _count(flag.group(1))
    if "--standalone" in payload:
        return 1
    if any(name in payload for name in _TORCH_LAUNCHERS) and _NPROC_FLAG.search(payload):
        node_rank = _NODE_RANK_FLAG.search(payload)
        if node_rank is not None and node_rank.group(1) not in ("0", "'0'", '"0"'):
            return None  # a second node's command: more than one, how many unsaid
        return 1
    return None


def names_nodes_flag(payload: str) -> bool:
    """The line names a node-count flag, readable or not (`--nnodes=$NNODES`): evidence that
    the count was set, even when `launch_nodes` cannot say to what."""
    return _ANY_NODES_FLAG.search(payload) is not None
