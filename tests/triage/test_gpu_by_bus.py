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


# The job's own failure, stamped: rank 3's CUDA out of memory at 02:13, the torchrun table after.
OWN_FAILURE = """\
[default0]:[2024-08-08 02:10:03] epoch 2 step 88080 loss 0.6695
[default3]:[rank3]: Traceback (most recent call last):
[default3]:[rank3]:   File "/home/user/train.py", line 211, in <module>
[default3]:[rank3]:     loss.backward()
[default3]:[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 \
has a total capacity of 79.10 GiB of which 1.31 GiB is free.
E0808 02:13:52.031000 3101 torch/distributed/elastic/multiprocessing/api.py:833] failed \
(exitcode: 1) local_rank: 3 (pid: 3117) of binary: /opt/conda/bin/python
"""


def _xid_at(stamp: str, host: str = "") -> str:
    where = f"{stamp} {host} kernel:" if host else f"[{stamp}]"
    return f"{where} NVRM: Xid (PCI:0000:b1:00): 79, pid='<unknown>', name=<unknown>, GPU has " \
           "fallen off the bus.\n"


def test_an_xid_a_day_before_the_job_is_not_its_failure(tmp_path: Path) -> None:
    # a node's dmesg keeps yesterday's fault (the GPU was reset since): farther from the job's
    # own lines than any two time zones are apart
    diagnosis = triage_named(tmp_path, {
        "dmesg.log": _xid_at("Wed Aug  7 09:41:02 2024"),
        "console.log": _inits(("dgx-b07",)) + OWN_FAILURE})
    assert diagnosis.category is Category.OOM, diagnosis.summary
    assert diagnosis.culprit_ranks == (3,)


def test_an_xid_hours_from_the_job_may_be_a_zone_apart_and_is_kept(tmp_path: Path) -> None:
    # 10 hours before the job's lines: a dmesg in local time beside a log in UTC can be that
    # far apart for one moment
    diagnosis = triage_named(tmp_path, {
        "dmesg.log": _xid_at("Wed Aug  7 16:13:49 2024"),
        "console.log": _inits(("dgx-b07",)) + OWN_FAILURE})
    assert diagnosis.category is Category.GPU_CUDA, diagnosis.summary


def test_an_xid_on_another_host_than_the_whole_world_is_not_its_failure(tmp_path: Path) -> None:
    console = _inits(("dgx-b07",)) + OWN_FAILURE
    other = triage_named(tmp_path / "other", {"kern.log": _xid_at("Aug  8 02:13:49", "dgx-b11"),
                                              "console.log": console})
    assert other.category is Category.OOM, other.summary
    same = triage_named(tmp_path / "same", {"kern.log": _xid_at("Aug  8 02:13:49", "dgx-b07"),
                                            "console.log": console})
    assert same.category is Category.GPU_CUDA, same.summary
    assert same.culprit_ranks == (6,)
