"""DDP's model check (`Rank A has N params, while rank B has inconsistent M params`): what its
reports say of each rank's parameter count. Pure: the reports' fields in, a judgement out;
shared by the live detector and triage so that both blame the same rank, or none."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from monitor.parse.log_patterns import FieldValue


def counts_said(reports: Iterable[Mapping[str, FieldValue]]) -> dict[int, set[str]]:
    """Each rank → the parameter counts the reports give it (its own as a reporter, the one
    another rank saw as the inconsistent side)."""
    said: dict[int, set[str]] = defaultdict(set)
    for fields in reports:
        for rank_field, count_field in (("reporter_rank", "count"), ("peer_rank", "expected")):
            rank, count = fields.get(rank_field), fields.get(count_field)
            if rank is not None and count is not None and str(rank).isdigit():
                said[int(str(rank))].add(str(count))
    return dict(said)


def contradictory(reports: Iterable[Mapping[str, FieldValue]]) -> dict[int, set[str]]:
    """The ranks given two different counts: reports from different process groups, or lines
    interleaved by two ranks. Empty when the reports agree; then the rank they share can be
    blamed."""
    return {rank: counts for rank, counts in counts_said(reports).items() if len(counts) > 1}
