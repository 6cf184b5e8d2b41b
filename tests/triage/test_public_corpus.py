"""The public corpus (tests/data/corpus_public): real excerpts from public issue threads, scored
on both halves. The held-out half was never looked at while rules were changed; its floor
below is the score measured, not a target (the target is 85 %; docs/triage-corpus.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from monitor.model import Category
from tests.triage.public_corpus import (
    CORPUS,
    Entry,
    entries,
    judge,
    judge_files,
    majority_entries,
    names,
    score,
)

# Measured floors (right / total). Raise them when the rules improve; never lower them to pass.
HELDOUT_FLOOR = 856
TUNING_FLOOR = 1047
MAJORITY_FLOOR = 867


def test_index_lists_every_file_once_and_splits_half_and_half() -> None:
    listed = [f for e in entries() for f in e.files]
    on_disk = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.log"))
    assert sorted(listed) == on_disk
    assert len(set(listed)) == len(listed)
    assert len(entries()) >= 40
    raw = json.loads((CORPUS / "index.json").read_text(encoding="utf-8"))
    for batch in {e["batch"] for e in raw["entries"]}:  # each batch was split in halves
        splits = [e["split"] for e in raw["entries"] if e["batch"] == batch]
        assert abs(splits.count("tuning") - splits.count("heldout")) <= 1, batch
    for entry in raw["entries"]:
        assert entry["url"].startswith("https://"), entry["id"]  # an issue or forum thread
        assert entry["why"], entry["id"]


@pytest.mark.parametrize("culprit,needle,named", [
    ("local_rank 1 (pid 75)", "local_rank: 1", True),
    ("the rendezvous endpoint 127.0.0.1:1222", "127.0.0.1, 1222", True),
    ("pid 3599", "03599", True),
    ("rank 12 (node-3:4411)", "node-3", True),
    ("rank 12", "rank 1", False),
    ("pid 87310", "8731", False),
    ("the link to 10.0.0.12", "10.0.0.1", False),
    ("rank 3", "", False),
])
def test_a_culprit_names_a_label_word_for_word(culprit: str, needle: str, named: bool) -> None:
    assert names(culprit, needle) is named


@pytest.mark.parametrize(("category", "ranks", "right"), [
    (Category.UNDETERMINED, (), True),  # neither names a cause
    (Category.UNDETERMINED, (3,), False),  # the label names a rank triage does not
    (Category.NETWORK, (), False),  # the label names a cause triage does not
])
def test_triage_finding_no_failure_matches_only_a_label_that_names_no_cause(
        tmp_path: Path, category: Category, ranks: tuple[int, ...], right: bool) -> None:
    log = tmp_path / "quiet.log"
    log.write_text("epoch 1 step 10 loss 2.31\nepoch 1 step 20 loss 2.17\n", encoding="utf-8")
    entry = Entry("quiet", "", ("quiet.log",), ranks, (), category, "tuning")
    outcome = judge_files(entry, [str(log)])
    assert outcome.diagnosis.category is Category.NONE
    assert outcome.right is right


@pytest.mark.parametrize("split,floor", [("heldout", HELDOUT_FLOOR), ("tuning", TUNING_FLOOR)])
def test_score_holds_its_floor(split: str, floor: int, capsys: pytest.CaptureFixture[str]) -> None:
    right, total, _outcomes = score(split)
    with capsys.disabled():
        print(f"\npublic corpus {split}: {right}/{total} = {100 * right / total:.0f} %")
    assert right >= floor


def test_a_confident_wrong_culprit_never_comes_from_an_undetermined_excerpt() -> None:
    """Where the excerpt does not show the cause, triage may name suspects' processes but no
    culprit rank. Checked on the tuning halves: a held-out entry is only ever scored, so that
    no rule is changed to pass it."""
    for entry in entries():
        if entry.split == "tuning" and entry.category.value == "undetermined" \
                and not entry.culprit_ranks:
            outcome = judge(entry)
            assert outcome.diagnosis.culprit_ranks == (), (entry.id, outcome.reason)


def test_the_shared_corpus_stays_at_or_above_92_percent(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """The shared corpus (tests/data/logs), scored the same way: category and culprit ranks."""
    from tests.triage.test_corpus_golden import FILES, TABLE, _category, _run

    right = 0
    for name in FILES:
        diagnosis, _ = _run(name)
        cell = TABLE[name][0]
        m = re.match(r"\*{0,2}rank (\d+)", cell)
        ranks = (int(m.group(1)),) if m else ()
        right += diagnosis.category is _category(TABLE[name][1]) and \
            diagnosis.culprit_ranks == ranks
    with capsys.disabled():
        print(f"\nshared corpus: {right}/{len(FILES)} = {100 * right / len(FILES):.0f} %")
    assert right / len(FILES) >= 0.92


def test_a_second_labeller_agrees_with_the_held_out_labels(capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    """second_labels.json: every held-out half labelled again, blind (by the
    written policy alone, never seeing the first labels, the rules or triage's answers). How
    often two labellers agree bounds what any triage can score against one of them."""
    raw = json.loads((CORPUS / "second_labels.json").read_text(encoding="utf-8"))
    second = {e["id"]: e for e in raw["entries"]}
    first = {e.id: e for e in entries() if e.split == "heldout" and e.id in second}
    assert len(first) == len(second), "every second label is of a held-out entry"
    same_category = sum(second[i]["category"] == e.category.value for i, e in first.items())
    same_both = sum(second[i]["category"] == e.category.value
                    and sorted(second[i]["culprit_ranks"]) == sorted(e.culprit_ranks)
                    for i, e in first.items())
    # Judged as triage is: the first label's culprit texts named by the second's, word for word.
    same_all = sum(second[i]["category"] == e.category.value
                   and sorted(second[i]["culprit_ranks"]) == sorted(e.culprit_ranks)
                   and all(names(" ; ".join(second[i]["culprit_text"]), text)
                           for text in e.culprit_text)
                   for i, e in first.items())
    with capsys.disabled():
        print(f"\nsecond labeller agrees on {len(first)} held-out entries: category "
              f"{100 * same_category / len(first):.0f} %, category and culprit ranks "
              f"{100 * same_both / len(first):.0f} %, all three as triage is scored "
              f"{same_all}/{len(first)} = {100 * same_all / len(first):.0f} %")
    assert same_category > len(first) // 2  # a file mix-up would make them disagree at random


def test_a_third_labeller_settles_the_first_twos_disagreements(capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    """third_labels.json: the held-out entries where the first two labels disagree, labelled
    a third time, blind. Triage scored against the label two of three gave shows whether the
    first labels' slips are what keeps its score down."""
    raw = json.loads((CORPUS / "third_labels.json").read_text(encoding="utf-8"))
    second = {e["id"]: e for e in json.loads(
        (CORPUS / "second_labels.json").read_text(encoding="utf-8"))["entries"]}
    first = {e.id: e for e in entries() if e.split == "heldout"}
    for label in raw["entries"]:
        e, s = first[label["id"]], second[label["id"]]  # a held-out entry, labelled twice
        assert (s["category"] != e.category.value
                or sorted(s["culprit_ranks"]) != sorted(e.culprit_ranks)
                or not all(names(" ; ".join(s["culprit_text"]), t) for t in e.culprit_text))
    majority = majority_entries()
    changed = sum(m.category is not first[m.id].category
                  or m.culprit_ranks != first[m.id].culprit_ranks for m in majority)
    right = sum(judge(m).right for m in majority)
    with capsys.disabled():
        print(f"\nheld-out under the label two of three labellers gave ({changed} labels "
              f"changed): {right}/{len(majority)} = {100 * right / len(majority):.0f} %")
    assert len(majority) == len(first) and changed > 0
    assert right >= MAJORITY_FLOOR
