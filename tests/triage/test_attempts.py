"""A restarted job's logs, each attempt in its own folder (torchrun's `--log-dir` tree,
`attempt_N/<local_rank>/stderr.log`) or file: the last attempt is what ended the job, and the
earlier attempts' files are set aside, and said to be."""

from __future__ import annotations

from pathlib import Path

from monitor.model import Category
from tests.triage.texts import triage_named

EIO = ("[rank3]: Traceback (most recent call last):\n"
       '[rank3]:   File "/job/train.py", line 88, in <module>\n'
       "[rank3]: OSError: [Errno 5] Input/output error: '/data/shard-0007.bin'\n")


def _steps(rank: int, first: int, last: int) -> str:
    return "".join(f"rank {rank} step {n} loss 0.{n:04d}\n" for n in range(first, last + 1))


def test_an_attempt_that_trained_to_its_end_closes_the_one_before(tmp_path: Path) -> None:
    d = triage_named(tmp_path, {
        "logs/attempt_0/3/stderr.log": EIO,
        "logs/attempt_0/3/stdout.log": _steps(3, 0, 40),
        "logs/attempt_1/3/stdout.log": "Resuming from checkpoint step 40\n" + _steps(3, 41, 60)
        + "Training finished\n",
        "logs/attempt_1/3/stderr.log": "",
    })
    assert d.category is Category.NONE
    assert any("attempt 1" in p.problem and p.path.endswith("attempt_0")
               for p in d.problems)


def test_the_last_attempts_own_failure_is_the_story(tmp_path: Path) -> None:
    d = triage_named(tmp_path, {
        "attempt-0.log": "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to "
                         "allocate 2.00 GiB. GPU 1 has a total capacity of 79.15 GiB\n",
        "attempt-1.log": "[rank0]: OSError: [Errno 28] No space left on device: "
                         "'/ckpt/step_900/model.pt'\n",
    })
    assert (d.category, d.culprit_ranks) == (Category.STORAGE_IO, (0,))


def test_a_last_attempt_that_wrote_nothing_sets_nothing_aside(tmp_path: Path) -> None:
    d = triage_named(tmp_path, {
        "logs/attempt_0/3/stderr.log": EIO,
        "logs/attempt_1/3/stderr.log": "",
    })
    assert (d.category, d.culprit_ranks) == (Category.STORAGE_IO, (3,))
    assert not any("set aside" in p.problem for p in d.problems)
