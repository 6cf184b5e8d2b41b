"""The tools a job's script runs around training, failing in their own words: pyxis's copy of
enroot's log under a container that could not start, pip's index that could not be reached,
and a setup step the script went around before the job trained to its end."""

from __future__ import annotations

from pathlib import Path

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


def test_pips_index_is_the_endpoint_it_could_not_reach(tmp_path: Path) -> None:
    retry = ("WARNING: Retrying (Retry(total={n}, connect=None, read=None, redirect=None, "
             "status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3"
             ".connection.HTTPSConnection object at 0x7fa7>: Failed to establish a new "
             "connection: [Errno -2] Name or service not known')': /simple/sentencepiece/\n")
    d = triage_texts(tmp_path, (
        "+ pip install --retries 2 sentencepiece==0.2.0\n"
        "Looking in indexes: https://pypi.internal.corp.example/simple\n"
        + retry.format(n=1) + retry.format(n=0)
        + "ERROR: Could not find a version that satisfies the requirement sentencepiece==0.2.0 "
        "(from versions: none)\n"
        "ERROR: No matching distribution found for sentencepiece==0.2.0\n"))
    assert d.category is Category.NETWORK
    assert any("pypi.internal.corp.example" in c for c in d.culprits), d.culprits
    assert not any("rendezvous" in c for c in d.culprits)


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
