"""Training-progress lines (pure): which framework printed a step, and its counter.

A data table of patterns, each behind a cheap substring pre-filter so that the common line
(NCCL INFO noise, user prints) costs a few `in` checks and no regular expression.
Formats follow reference/log-patterns.md §10 (Megatron, NeMo, HF Trainer, tqdm, Lightning,
DeepSpeed, plain `step N` / `iter N`).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ProgressMatch:
    framework: str
    step: int | None  # None: a step happened but the line carries no counter (HF loss dicts)
    total: int | None


class Phase(str, enum.Enum):
    CHECKPOINT = "checkpoint"
    EVALUATION = "evaluation"


@dataclass(frozen=True, slots=True)
class _Pattern:
    framework: str
    needles: tuple[str, ...]  # any of these substrings must be present before the regex runs
    regex: re.Pattern[str]
    step_group: str | None
    total_group: str | None


_PATTERNS: tuple[_Pattern, ...] = (
    # Megatron-LM / Megatron-core / NeMo 2.x ProgressPrinter: "iteration       10/ 1000000 |"
    _Pattern(
        "megatron",
        ("iteration",),
        re.compile(r"iteration\s+(?P<step>\d+)\s*/\s*(?P<total>\d+)\s*\|"),
        "step",
        "total",
    ),
    # DeepSpeed log_dist "[Rank 0] step=40, skipped=2" and timers "global_step=10"
    _Pattern(
        "deepspeed",
        ("step=",),
        re.compile(r"(?:\[Rank \d+\] |global_)step=(?P<step>\d+)(?![.\de])"),
        "step",
        None,
    ),
    # tqdm bars, also Lightning/NeMo 1.x and HF Trainer bars: " 10/1752 [00:29<1:22:01,  2.83s/it]"
    _Pattern(
        "tqdm",
        ("%|",),
        re.compile(r"\d+%\|[^|]*\|\s*(?P<step>\d+)/(?P<total>\d+|\?)\s*\["),
        "step",
        "total",
    ),
    # Lightning RichProgressBar: "Epoch 34/49 ━━━━━━━╸━━━━ 491/1351 0:01:21 • 0:02:21 6.13it/s"
    _Pattern(
        "lightning_rich",
        ("\u2501",),
        re.compile(r"[\u2501\u2578\u257a ]+\s(?P<step>\d+)/(?P<total>\d+)\s"),
        "step",
        "total",
    ),
    # HF Trainer logging dicts: {'loss': 0.9225, 'grad_norm': 1.41, ..., 'epoch': 0.03}
    _Pattern(
        "hf_trainer",
        ("'loss':",),
        re.compile(r"\{'loss': [-+\d.eE]+,.*'epoch': [\d.]+"),
        None,
        None,
    ),
    # Plain "step 12", "Step: 12/100", "iter 7", "iteration=3"
    _Pattern(
        "plain",
        ("step", "Step", "STEP", "iter", "Iter"),
        re.compile(
            r"\b(?:[Ss]tep|STEP|[Ii]ter(?:ation)?)\s*[:=#]?\s*(?P<step>\d+)(?:\s*/\s*(?P<total>\d+))?\b(?![.,]\d)"
        ),
        "step",
        "total",
    ),
)


# Every needle above contains one of these; a handful of C-speed `in` checks reject the
# common line (NCCL noise, user prints) before any pattern is tried.
_QUICK = ("tep", "TEP", "ter", "%|", "\u2501", "'loss'")
assert all(any(q in n for q in _QUICK) for p in _PATTERNS for n in p.needles)


def match_progress(line: str) -> ProgressMatch | None:
    """Return the progress step a line reports, or None when it is not a progress line."""
    if not (
        _QUICK[0] in line
        or _QUICK[2] in line
        or _QUICK[3] in line
        or _QUICK[1] in line
        or _QUICK[4] in line
        or _QUICK[5] in line
    ):
        return None
    for pattern in _PATTERNS:
        for needle in pattern.needles:
            if needle in line:
                break
        else:
            continue
        found = pattern.regex.search(line)
        if found is None:
            continue
        step = int(found.group(pattern.step_group)) if pattern.step_group else None
        total_text = found.group(pattern.total_group) if pattern.total_group else None
        total = int(total_text) if total_text and total_text.isdigit() else None
        return ProgressMatch(pattern.framework, step, total)
    return None


_PHASES: tuple[tuple[Phase, tuple[str, ...], re.Pattern[str]], ...] = (
    (
        Phase.CHECKPOINT,
        ("heckpoint", "torch.save", "aving model", "aving state"),
        re.compile(
            r"(?i)(sav(?:e|ing)\s+(?:the\s+)?(?:model\s+|distributed\s+)?checkpoint"
            r"|checkpoint\s+sav|torch\.save|saving model|saving state)"
        ),
    ),
    (
        Phase.EVALUATION,
        ("val", "Val", "Eval", "eval", "EVAL"),
        re.compile(
            r"(?i)(\*+\s*running evaluation|^\s*evaluat(?:e|ing)\b|validation\s+(?:step|loop|epoch)|"
            r"start(?:ing)?\s+(?:evaluation|validation)|running\s+validation)"
        ),
    ),
)


def match_phase(line: str) -> Phase | None:
    """A line announcing a known long phase (a checkpoint save, an evaluation)."""
    for phase, needles, regex in _PHASES:
        if any(n in line for n in needles) and regex.search(line):
            return phase
    return None
