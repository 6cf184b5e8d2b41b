"""A node's local ranks are the global ranks its torchrun agent said at its rendezvous."""

from __future__ import annotations

from pathlib import Path

from monitor.model import Category
from monitor.triage.analysis import Diagnosis, diagnose
from monitor.triage.reader import read_inputs

PROBE = (Path(__file__).resolve().parents[1] / "data" / "triage_probes"
         / "rv37_torchrun_rendezvous_maps_default1_to_rank9" / "gpu-node-02.log")
FIRST_NODE = """\
INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous complete for workers. Result:
  restart_count=0
  master_addr=gpu-node-01
  master_port=44127
  group_rank=0
  group_world_size=2
  local_ranks=[0, 1, 2, 3, 4, 5, 6, 7]
  role_ranks=[0, 1, 2, 3, 4, 5, 6, 7]
  global_ranks=[0, 1, 2, 3, 4, 5, 6, 7]
  role_world_sizes=[16, 16, 16, 16, 16, 16, 16, 16]
  global_world_sizes=[16, 16, 16, 16, 16, 16, 16, 16]
"""


def _triage(path: Path) -> Diagnosis:
    scans, problems, _ = read_inputs([str(path)])
    return diagnose(scans, problems)


def test_a_local_rank_is_the_global_rank_its_nodes_agent_said() -> None:
    diagnosis = _triage(PROBE)
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, (9,))


def test_two_agents_that_disagree_in_one_file_map_no_local_rank(tmp_path: Path) -> None:
    """Both nodes' agents in one file: a `[default1]:` line could be rank 1 or rank 9."""
    both = tmp_path / "both-nodes.log"
    both.write_text(FIRST_NODE + PROBE.read_text())
    diagnosis = _triage(both)
    assert diagnosis.category is Category.SOFTWARE
    assert diagnosis.culprit_ranks == ()
    assert not any(c.startswith("rank ") for c in diagnosis.culprits), diagnosis.culprits
