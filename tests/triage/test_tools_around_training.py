"""The tools a job's script runs around training, failing in their own words: pyxis's copy of
enroot's log under a container that could not start, pip's index that could not be reached,
and a setup step the script went around before the job trained to its end."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.model import Category
from tests.triage.texts import triage_texts

PYXIS = (
    "pyxis: importing docker image: nvcr.io#nvidia/pytorch:24.05-py3\n"
    "slurmstepd: error: pyxis: child 30165 failed with error code: 1\n"
    "slurmstepd: error: pyxis: failed to import docker image\n"
    "slurmstepd: error: pyxis: printing enroot log file:\n"
    "slurmstepd: error: pyxis:     [INFO] Querying registry for permission grant\n"
    "slurmstepd: error: pyxis:     {inner}\n"
    "slurmstepd: error: pyxis: couldn't start container\n"
    "slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1\n"
    "slurmstepd: error: Failed to invoke spank plugin stack\n"
    "srun: error: cnode014: task 0: Exited with exit code 1\n")


def test_a_registry_enroot_could_not_reach_is_the_network_not_the_node(tmp_path: Path) -> None:
    d = triage_texts(tmp_path, PYXIS.format(inner="curl: (6) Could not resolve host: nvcr.io"))
    assert d.category is Category.NETWORK
    assert any("nvcr.io" in c for c in d.culprits), d.culprits


def test_a_container_that_could_not_start_for_no_shown_reason_is_the_nodes(
        tmp_path: Path) -> None:
    d = triage_texts(tmp_path, PYXIS.format(inner="[INFO] Fetching image manifest list"))
    assert (d.category, d.culprits) == (Category.INFRASTRUCTURE, ("node cnode014",))


@pytest.mark.parametrize("inner", [
    "curl: (56) Recv failure: Connection reset by peer",
    "curl: (28) Failed to connect to nvcr.io port 443 after 30001 ms: Timeout was reached",
])
def test_a_registry_that_cut_or_timed_out_the_import_is_the_network(tmp_path: Path,
                                                                    inner: str) -> None:
    """However long enroot's log is, and where curl names no host, the image's registry."""
    long_log = PYXIS.replace(
        "slurmstepd: error: pyxis:     {inner}\n",
        "slurmstepd: error: pyxis:     [INFO] Fetching image manifest list\n" * 9
        + "slurmstepd: error: pyxis:     {inner}\n")
    d = triage_texts(tmp_path, long_log.format(inner=inner))
    assert d.category is Category.NETWORK
    assert any("nvcr.io" in c for c in d.culprits), d.culprits


def test_pips_index_is_the_endpoint_it_could_not_reach(tmp_path: Path) -> None:
    retry = ("WARNING: Retrying (Retry(total={n}, connect=None, read=None, redirect=None, "
             "status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3"
             ".connection.HTTPSConnection object at 0x7fa7>: Failed to establish a new "
             "connection: [Errno -2] Name or service not known')': /simple/sentencepiece/\n")
    d = triage_texts(tmp_path, (
        "+ pip install --retries 2 sentencepiece==0.2.0\n"
        "Looking in indexes: https://build-bot:****@pypi.internal.corp.example/simple\n"
        + retry.format(n=1) + retry.format(n=0)
        + "ERROR: Could not find a version that satisfies the requirement sentencepiece==0.2.0 "
        "(from versions: none)\n"
        "ERROR: No matching distribution found for sentencepiece==0.2.0\n"))
    assert d.category is Category.NETWORK
    assert any("pypi.internal.corp.example" in c for c in d.culprits), d.culprits
    assert not any("rendezvous" in c or "build-bot" in c for c in d.culprits)


def test_pips_index_is_not_blamed_for_another_commands_failure(tmp_path: Path) -> None:
    d = triage_texts(tmp_path, (
        "Looking in indexes: https://pypi.internal.corp.example/simple\n"
        "Successfully installed sentencepiece-0.2.0\n"
        "+ python fetch_shards.py\n"
        "WARNING:urllib3.connectionpool:Retrying (Retry(total=0, connect=None, read=None, "
        "redirect=None, status=None)) after connection broken by 'NewConnectionError('<urllib3."
        "connection.HTTPConnection object at 0x7f>: Failed to establish a new connection: "
        "[Errno 111] Connection refused')': /shards/00001.tar\n"))
    assert not any("pypi" in c for c in d.culprits), d.culprits


def test_a_setup_step_the_script_went_around_before_training_to_its_end_is_no_failure(
        tmp_path: Path) -> None:
    """Megatron's iteration lines pad their numbers; the job trained on past the failed
    install in the same file, with nothing failing after."""
    d = triage_texts(tmp_path, (
        "+ pip install wandb==0.17.0 || echo 'WARN: wandb unavailable'\n"
        "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) "
        "after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection."
        "HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno -2] Name "
        "or service not known')': /simple/wandb/\n"
        "ERROR: No matching distribution found for wandb==0.17.0\n"
        "WARN: wandb unavailable\n"
        "+ torchrun --nproc_per_node 8 pretrain_gpt.py\n"
        "[2024-06-11 09:14:31] iteration        1/     500 | lm loss: 1.083452E+01 |\n"
        "[2024-06-11 09:14:33] iteration        2/     500 | lm loss: 1.079810E+01 |\n"
        "[2024-06-11 09:31:04] iteration      500/     500 | lm loss: 3.109873E+00 |\n"
        "[after training is done] datetime: 2024-06-11 09:31:20\n"))
    assert (d.category, d.culprits) == (Category.NONE, ())


def test_a_failure_after_which_the_steps_stop_still_counts(tmp_path: Path) -> None:
    d = triage_texts(tmp_path, (
        "[2024-06-11 09:14:31] iteration        1/     500 | lm loss: 1.083452E+01 |\n"
        "[2024-06-11 09:14:33] iteration        2/     500 | lm loss: 1.079810E+01 |\n"
        "OSError: [Errno 28] No space left on device: '/ckpt/iter_0000002'\n"))
    assert d.category is Category.STORAGE_IO


@pytest.mark.parametrize("line", [
    "[E ProcessGroupNCCL.cpp:828] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=41, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
    "600012 milliseconds before timing out.",
    "NVRM: Xid (PCI:0000:3b:00): 79, pid=2211, GPU has fallen off the bus.",
    "srun: error: node07: task 13: Killed",
    "RuntimeError: CUDA error: uncorrectable ECC error encountered",
    "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
    "shared memory (shm).",
])
def test_a_failure_between_one_processs_steps_is_not_gone_around(tmp_path: Path,
                                                                 line: str) -> None:
    """Another process's steps may go on for a moment after one died or hung: only a setup step
    before training, in the job's script, is gone around."""
    d = triage_texts(tmp_path, (
        "[2024-06-11 09:14:31] iteration      100/   50000 | lm loss: 3.08E+00 |\n"
        "[2024-06-11 09:14:32] iteration      101/   50000 | lm loss: 3.08E+00 |\n"
        f"{line}\n"
        "[2024-06-11 09:14:35] iteration      102/   50000 | lm loss: 3.08E+00 |\n"
        "[2024-06-11 09:14:36] iteration      103/   50000 | lm loss: 3.08E+00 |\n"))
    assert d.category is not Category.NONE
