"""A GPU the kernel names by its PCI address is a rank's where NCCL's init lines, on the job's
one node, say which rank ran on that bus."""

from __future__ import annotations

from pathlib import Path

from monitor.model import Category
from tests.triage.texts import triage_named

BUSES = ("18000", "2a000", "3a000", "5d000", "9a000", "ab000", "b1000", "db000")
DMESG = """\
[Thu Aug  8 01:02:03 2024] NVRM: GPU at PCI:0000:b1:00: GPU-5e1d6c1a-2b53-0b8e-7d1f-5a8b0c9e4f21
[Thu Aug  8 02:13:49 2024] NVRM: Xid (PCI:0000:b1:00): 79, GPU has fallen off the bus.
"""


def _inits(hosts: tuple[str, ...]) -> str:
    return "".join(
        f"[default{r}]:{hosts[r % len(hosts)]}:{3114 + r}:{3385 + r} [{r}] NCCL INFO comm "
        f"0x55{r:012x} rank {r} nranks 8 cudaDev {r} nvmlDev {r} busId {bus} commId "
        "0x91e0d0c4a7b26f13 - Init COMPLETE\n" for r, bus in enumerate(BUSES))


def test_the_rank_on_the_failed_gpus_bus_is_named(tmp_path: Path) -> None:
    diagnosis = triage_named(tmp_path, {"dmesg.log": DMESG,
                                        "console.log": _inits(("dgx-b07",))})
    assert diagnosis.category is Category.GPU_CUDA
    assert diagnosis.culprit_ranks == (6,)
    assert "GPU 0000:b1:00 (Xid 79)" in diagnosis.culprits


def test_buses_of_two_nodes_name_no_rank(tmp_path: Path) -> None:
    # every node has the same buses: which node's GPU failed, the lines do not say
    diagnosis = triage_named(tmp_path, {"dmesg.log": DMESG,
                                        "console.log": _inits(("dgx-b07", "dgx-b08"))})
    assert diagnosis.category is Category.GPU_CUDA
    assert diagnosis.culprit_ranks == ()
