"""Progress extraction over real line formats (reference log-patterns §10 and the corpus)."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.parse.progress import Phase, match_phase, match_progress

CORPUS = Path(__file__).resolve().parents[1] / "data" / "logs"

CASES = [
    (
        " iteration       10/ 1000000 | consumed samples:          640 | elapsed time per iteration (ms): 3612.4 |",
        "megatron",
        10,
        1000000,
    ),
    (
        " [2024-01-01 10:00:00] iteration      200/    5000 | consumed samples: 12800 | elapsed time per iteration (ms): 812.3 | learning rate: 1.0E-04 |",
        "megatron",
        200,
        5000,
    ),
    (
        "Training epoch 0, iteration 9/249 | lr: 1.961e-06 | global_batch_size: 8 | global_step: 9 | reduced_train_loss: 1.315",
        "megatron",
        9,
        249,
    ),
    (
        "[2022-03-11 02:06:58,985] [INFO] [logging.py:69:log_dist] [Rank 0] step=40, skipped=2, lr=[5e-05], mom=[[0.9, 0.999]]",
        "deepspeed",
        40,
        None,
    ),
    (
        "epoch=0/micro_step=40/global_step=10, RunningAvgSamplesPerSec=25.02, CurrSamplesPerSec=25.70",
        "deepspeed",
        10,
        None,
    ),
    (" 1%|          | 10/1752 [00:29<1:22:01,  2.83s/it]", "tqdm", 10, 1752),
    (
        "Epoch 0:   6%|██  | 32040/500150 [6:28:43<94:39:17,  1.37it/s, loss=2.6, v_num=95nc]",
        "tqdm",
        32040,
        500150,
    ),
    (
        "Epoch 34/49 ━━━━━━━╸━━━━ 491/1351 0:01:21 • 0:02:21 6.13it/s v_num: avhu",
        "lightning_rich",
        491,
        1351,
    ),
    (
        "{'loss': 0.9225, 'grad_norm': 1.41, 'learning_rate': 6.5e-06, 'epoch': 0.03}",
        "hf_trainer",
        None,
        None,
    ),
    ("step 12 loss 0.5", "plain", 12, None),
    ("Step: 7/100 lr=0.1", "plain", 7, 100),
    ("[rank3]: iter 41", "plain", 41, None),
]


@pytest.mark.parametrize(("line", "framework", "step", "total"), CASES)
def test_progress_formats(line: str, framework: str, step: int | None, total: int | None) -> None:
    """Each framework's progress line yields its counter."""
    found = match_progress(line)
    assert found is not None
    assert (found.framework, found.step, found.total) == (framework, step, total)


@pytest.mark.parametrize(
    "line",
    [
        "host:123:456 [0] NCCL INFO Channel 00/02 :    0   1",
        "[rank0]:[E1016 03:31:38.928019586 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9141, OpType=_ALLGATHER_BASE)",
        "{'eval_loss': 1.87, 'eval_runtime': 14.4}",
        "Epoch 0:   6%|██  | 32040/500150 without bracket",
        "stepping into function 3.5",
    ],
)
def test_non_progress_lines(line: str) -> None:
    """Noise, errors and evaluation dicts are not steps."""
    assert match_progress(line) is None


def test_megatron_corpus_lines_advance() -> None:
    """The real Megatron excerpt in the corpus yields increasing iterations."""
    text = (CORPUS / "34-megatron-iteration-progress-slow-healthy.log").read_text(errors="replace")
    steps = [
        m.step
        for line in text.splitlines()
        if (m := match_progress(line)) and m.framework == "megatron"
    ]
    assert len(steps) >= 2
    assert steps == sorted(steps)


def test_phases() -> None:
    """Checkpoint saves and evaluations are recognised as long phases."""
    assert match_phase("Saving checkpoint to /ckpt/step_1000") is Phase.CHECKPOINT
    assert match_phase("saving checkpoint at iteration     200 to checkpoints") is Phase.CHECKPOINT
    assert match_phase("***** Running Evaluation *****") is Phase.EVALUATION
    assert match_phase("step 12 loss 0.5") is None
