"""Failures that name their cause by a code or a class name: MPI's error class and the rank its
handler names, NCCL's `invalid usage` with its reason in a WARN above, zipfile's word for a file
that is no zip, the same error chained on one rank and pasted bare on another, and JAX's poller
that could not ask for a preemption notice after the job finished (no preemption)."""

from __future__ import annotations

from pathlib import Path

from monitor.model import Category
from tests.triage.texts import triage_texts


def test_the_rank_mpis_error_handler_names_beats_the_files_only_rank_tag(tmp_path: Path) -> None:
    d = triage_texts(tmp_path, (
        "[1,0]<stdout>:epoch 2 batch 400 loss 0.7710\n"
        "[gpu-f01:30512] *** An error occurred in MPI_Recv\n"
        "[gpu-f01:30512] *** reported by process [2088763393,3]\n"
        "[gpu-f01:30512] *** on communicator MPI_COMM_WORLD\n"
        "[gpu-f01:30512] *** MPI_ERR_TRUNCATE: message truncated\n"
        "[gpu-f01:30512] *** MPI_ERRORS_ARE_FATAL (processes in this communicator will now "
        "abort,\n"))
    assert (d.category, d.culprit_ranks) == (Category.SOFTWARE, (3,))


def test_ncclss_invalid_usage_takes_its_reason_from_the_warn_above(tmp_path: Path) -> None:
    d = triage_texts(tmp_path, (
        "[1,7]<stderr>:gpu-e02:7711:7711 [3] init.cc:1742 NCCL WARN Invalid rank requested : "
        "8/8\n"
        "[1,7]<stderr>:gpu-e02:7711:7711 [3] NCCL INFO init.cc:1804 -> 4\n"
        "[1,7]<stderr>:Failed: NCCL error bench.cu:64 'invalid usage (run with "
        "NCCL_DEBUG=WARN for details)'\n"))
    assert d.category is Category.SOFTWARE
    assert any("Invalid rank requested" in f for f in d.findings)


def test_a_cuda_failure_in_the_warn_above_is_no_reason_of_usage(tmp_path: Path) -> None:
    d = triage_texts(tmp_path, (
        "[1,2]<stderr>:n1:801:801 [2] transport/nvls.cc:158 NCCL WARN Cuda failure 'invalid "
        "argument'\n"
        "[1,2]<stderr>:Failed: NCCL error test.cu:41 'invalid argument (run with "
        "NCCL_DEBUG=WARN for details)'\n"))
    assert d.category is not Category.SOFTWARE


def test_a_file_that_is_no_zip_is_corrupt_data(tmp_path: Path) -> None:
    d = triage_texts(tmp_path, (
        "[rank7]: Traceback (most recent call last):\n"
        '[rank7]:   File "/usr/lib/python3.11/zipfile/__init__.py", line 1341, in '
        "_RealGetContents\n"
        "[rank7]:     raise BadZipFile(\"File is not a zip file\")\n"
        "[rank7]: zipfile.BadZipFile: File is not a zip file\n"))
    assert (d.category, d.culprit_ranks) == (Category.DATA, (7,))


def test_one_ranks_chain_and_anothers_bare_last_error_are_the_same_failure(
        tmp_path: Path) -> None:
    bare = ("OSError: org/model is not a local folder and is not a valid model identifier "
            "listed on 'https://huggingface.co/models'\n")
    d = triage_texts(tmp_path, (
        "[rank0]: huggingface_hub.errors.RepositoryNotFoundError: 404 Client Error.\n"
        "[rank0]: \n"
        "[rank0]: Repository Not Found for url: https://huggingface.co/org/model/resolve/main/"
        "config.json.\n"
        "[rank0]: \n"
        "[rank0]: The above exception was the direct cause of the following exception:\n"
        f"[rank0]: {bare}"
        f"[rank1]: {bare}"))
    assert d.category is Category.SOFTWARE and d.culprit_ranks == ()


def test_a_poller_that_could_not_ask_for_a_preemption_notice_is_no_preemption(
        tmp_path: Path) -> None:
    d = triage_texts(tmp_path, (
        "I0131 10:21:34.903114 140551 train.py:320] [process 0] training complete\n"
        "2024-01-31 10:21:35.025511: W external/tsl/tsl/distributed_runtime/preemption/"
        "preemption_sync_manager.cc:170] Failed to retrieve preemption notice from coordination "
        "service: UNAVAILABLE: Socket closed\n"))
    assert d.category is not Category.INFRASTRUCTURE


def test_a_parsers_error_that_datasets_relayed_is_corrupt_data(tmp_path: Path) -> None:
    """A paste that kept `DatasetGenerationError` without its own traceback's header: the
    parser's error above it is what failed, on a data file."""
    d = triage_texts(tmp_path, (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/opt/conda/lib/python3.11/site-packages/datasets/packaged_modules/'
        'json/json.py", line 160, in _generate_tables\n'
        "[rank0]:     pa_table = paj.read_json(\n"
        "[rank0]: pyarrow.lib.ArrowInvalid: JSON parse error: Missing a closing quotation mark "
        "in string. in row 3571\n"
        "[rank0]: \n"
        "[rank0]: The above exception was the direct cause of the following exception:\n"
        "[rank0]: \n"
        "[rank0]: datasets.exceptions.DatasetGenerationError: An error occurred while "
        "generating the dataset\n"))
    assert (d.category, d.culprit_ranks) == (Category.DATA, (0,))
