"""Scoring of tests/data/corpus_public: real excerpts from public issue threads, each with the
culprit and category its own lines support (index.json), split once into a tuning half and a
held-out half before any rule was changed against them.

An entry is right when the category matches (triage's `none` matches a label's `undetermined`:
see `_no_cause_either`), the culprit ranks are exactly the expected ones, and every expected
culprit text (a pid, a PCI address, a node) appears in a named culprit, word for word (see
`names`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monitor.model import Category
from monitor.triage.analysis import Diagnosis, diagnose
from monitor.triage.reader import read_inputs

CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus_public"


@dataclass(frozen=True)
class Entry:
    id: str
    url: str
    files: tuple[str, ...]
    culprit_ranks: tuple[int, ...]
    culprit_text: tuple[str, ...]
    category: Category
    split: str


@dataclass(frozen=True)
class Outcome:
    entry: Entry
    diagnosis: Diagnosis
    right: bool
    reason: str


_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    return [w.lstrip("0") or "0" for w in _WORD.findall(text.lower())]


def names(culprit: str, needle: str) -> bool:
    """Whether `culprit` names `needle`: its words, in order, among the culprit's words. A label
    quotes its log ("local_rank: 1", "127.0.0.1, 1222", pid "03599") where triage writes the same
    thing its own way ("local_rank 1", "127.0.0.1:1222", "pid 3599"); whole words keep "rank 1"
    from matching "rank 12" and pid "873" from matching "8731"."""
    have, want = _words(culprit), _words(needle)
    return bool(want) and any(have[i:i + len(want)] == want
                              for i in range(len(have) - len(want) + 1))


def entries() -> list[Entry]:
    raw: dict[str, Any] = json.loads((CORPUS / "index.json").read_text(encoding="utf-8"))
    return [Entry(e["id"], e["url"], tuple(e["files"]), tuple(e["culprit_ranks"]),
                  tuple(e["culprit_text"]), Category(e["category"]), e["split"])
            for e in raw["entries"]]


def judge(entry: Entry) -> Outcome:
    return judge_files(entry, [str(CORPUS / f) for f in entry.files])


def judge_files(entry: Entry, paths: list[str]) -> Outcome:
    """The entry's expectations checked against a triage of `paths` (its files, or copies
    of them in another shape)."""
    scans, problems, _ = read_inputs(paths)
    diagnosis = diagnose(scans, problems)
    reasons = []
    if diagnosis.category is not entry.category and not _no_cause_either(entry, diagnosis):
        reasons.append(f"category {diagnosis.category.value} != {entry.category.value}")
    if tuple(sorted(diagnosis.culprit_ranks)) != tuple(sorted(entry.culprit_ranks)):
        reasons.append(f"culprit ranks {diagnosis.culprit_ranks} != {entry.culprit_ranks}")
    for needle in entry.culprit_text:
        if not any(names(c, needle) for c in diagnosis.culprits):
            reasons.append(f"no culprit names {needle!r} (culprits: {diagnosis.culprits})")
    return Outcome(entry, diagnosis, not reasons, "; ".join(reasons))


def _no_cause_either(entry: Entry, diagnosis: Diagnosis) -> bool:
    """The labels have no `none`: the policy gives an excerpt that shows no failure
    `undetermined` ("the excerpt does not show the cause"). Triage's `none` ("no error,
    timeout or crash in these logs") says the same of such an excerpt: neither names a cause.
    A label that names a cause, or culprit ranks, still needs triage to name them."""
    return entry.category is Category.UNDETERMINED and diagnosis.category is Category.NONE


def score(split: str) -> tuple[int, int, list[Outcome]]:
    outcomes = [judge(e) for e in entries() if e.split == split]
    return sum(o.right for o in outcomes), len(outcomes), outcomes


def majority_entries() -> list[Entry]:
    """The held-out entries under the label two of three blind labellers gave. A third
    labeller (third_labels.json) labelled, blind, the held-out entries where the first two
    disagree; where the third agrees with the second on category and culprit ranks and the first
    does not, the second's label (with its culprit texts) stands; otherwise the first's."""
    second = {e["id"]: e for e in json.loads(
        (CORPUS / "second_labels.json").read_text(encoding="utf-8"))["entries"]}
    third = {e["id"]: e for e in json.loads(
        (CORPUS / "third_labels.json").read_text(encoding="utf-8"))["entries"]}
    out = []
    for entry in entries():
        if entry.split != "heldout":
            continue
        if entry.id in third:
            s, t = second[entry.id], third[entry.id]
            first_key = (entry.category.value, tuple(sorted(entry.culprit_ranks)))
            second_key = (s["category"], tuple(sorted(s["culprit_ranks"])))
            if (t["category"], tuple(sorted(t["culprit_ranks"]))) == second_key != first_key:
                entry = Entry(entry.id, entry.url, entry.files, tuple(s["culprit_ranks"]),
                              tuple(s["culprit_text"]), Category(s["category"]), entry.split)
        out.append(entry)
    return out
