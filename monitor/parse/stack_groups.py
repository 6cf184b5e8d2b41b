"""The odd one out: group ranks by the signature of their main thread's stack.

At scale the ranks that wait for a peer all show the same stack (the same collective, the same
GPU wait, the same line of the training loop), whatever library they wait in; the rank that
holds them up shows another. When the job has stopped and one group holds more than half of
the ranks, that group is the waiting majority and the ranks outside it are the suspects. This
works where no frame is recognised as a wait (a vendor's communication library, a custom
barrier), which is why it complements the state table in `monitor/parse/stacks.py`. The
signatures come from `stack_signature` there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StackGroup:
    signature: str
    ranks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class OddOnesOut:
    majority: StackGroup
    outliers: tuple[int, ...]
    groups: tuple[StackGroup, ...]  # largest first


def group_stacks(signatures: Mapping[int, str]) -> tuple[StackGroup, ...]:
    """Ranks by signature, the largest group first (ties: lowest rank first)."""
    by_signature: dict[str, list[int]] = {}
    for rank, signature in signatures.items():
        by_signature.setdefault(signature, []).append(rank)
    groups = [StackGroup(sig, tuple(sorted(ranks))) for sig, ranks in by_signature.items()]
    return tuple(sorted(groups, key=lambda g: (-len(g.ranks), g.ranks)))


def odd_ones_out(signatures: Mapping[int, str], *, min_ranks: int = 3) -> OddOnesOut | None:
    """The waiting majority and the ranks outside it, or None when no group is a clear
    majority (more than half of at least `min_ranks` ranks, and at least two of them)."""
    if len(signatures) < min_ranks:
        return None
    groups = group_stacks(signatures)
    majority = groups[0]
    if len(majority.ranks) < 2 or 2 * len(majority.ranks) <= len(signatures):
        return None
    outliers = tuple(sorted(r for g in groups[1:] for r in g.ranks))
    if not outliers:
        return None
    return OddOnesOut(majority, outliers, groups)
