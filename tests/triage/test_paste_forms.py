"""A log reaches triage in the shape its reporter gave it: quoted in markdown or fenced,
indented, with Windows line ends, double-spaced, or cut at a terminal's width. Every tuning
excerpt the rules read right must still be read right in each of those shapes (a metamorphic
check: the same lines, another envelope), and the shapes' own detectors must not fire on plain
logs."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from monitor.triage.reader import file_margin, paste_sections, unwrap_terminal
from tests.triage.public_corpus import CORPUS, Entry, entries, judge, judge_files


def _quoted(text: str) -> str:
    return "\n".join("> " + line for line in text.split("\n"))


def _indented(text: str) -> str:
    return "\n".join("    " + line for line in text.split("\n"))


def _tabbed(text: str) -> str:
    return "\n".join("\t" + line for line in text.split("\n"))


def _crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def _double_spaced(text: str) -> str:
    return text.replace("\n", "\n\n")


def _trailing_blanks(text: str) -> str:
    return "\n".join(line + "   " for line in text.split("\n"))


def _terminal_cut(text: str, width: int = 150) -> str:
    return "\n".join("\n".join(line[i:i + width] for i in range(0, len(line), width)) or line
                     for line in text.split("\n"))


def _terminal_cut_stripped(text: str, width: int = 150) -> str:
    """A terminal's cut, pasted where trailing blanks are stripped: a line cut at a space is
    one short of the width."""
    return "\n".join(line.rstrip(" ") for line in _terminal_cut(text, width).split("\n"))


def _coloured(text: str) -> str:
    return "\n".join(f"\x1b[31m{line}\x1b[0m" if "rror" in line else line
                     for line in text.split("\n"))


def _each(prefix: str) -> Callable[[str], str]:
    return lambda text: "\n".join(prefix + line if line else line for line in text.split("\n"))


SHAPES: dict[str, Callable[[str], str]] = {
    "markdown quote": _quoted, "indented": _indented, "tab-indented": _tabbed, "crlf": _crlf,
    "double-spaced": _double_spaced, "trailing blanks": _trailing_blanks,
    "container runtime log": _each("2024-05-01T12:00:00.123456789Z stderr F "),
    "docker compose": _each("trainer-1  | "),
    "kubectl --prefix": _each("[pod/train-worker-0/pytorch] "),
    "glog stamps": _each("I0501 12:00:00.123456 12345 train.py:42] "),
    "shipper stamps": _each("2024-05-01T12:00:00.123Z "),
    "bracketed stamps": _each("[2024-05-01 12:00:00,123] "),
    "coloured errors": _coloured,
    "markdown fence": lambda text: "```text\n" + text.rstrip("\n") + "\n```\n",
}


def _right_in_shape(entry: Entry, shape: Callable[[str], str], tmp: Path) -> bool:
    paths = []
    for name in entry.files:
        target = tmp / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(shape((CORPUS / name).read_text(encoding="utf-8", errors="replace")),
                          encoding="utf-8")
        paths.append(str(target))
    return judge_files(entry, paths).right


@cache  # (judged once per test process, not once per shape: a few seconds each time)
def _read_right() -> tuple[Entry, ...]:
    """Tuning excerpts the rules read right, as raw logs: one already pasted inside a quote
    would put the shapes' stamps and colours outside the quote, an order no paste has."""
    return tuple(e for e in entries() if e.split == "tuning" and judge(e).right
                 and not any(file_margin((CORPUS / n).read_bytes()[:8192]) for n in e.files))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_tuning_excerpt_read_right_stays_right_in_another_paste_shape(
        shape: str, tmp_path: Path) -> None:
    wrong = [e.id for i, e in enumerate(_read_right())
             if not _right_in_shape(e, SHAPES[shape], tmp_path / str(i))]
    assert not wrong, f"{shape}: {wrong}"


def test_lines_cut_at_a_terminal_width_are_joined_again(tmp_path: Path) -> None:
    """Where the cut leaves its signature (three full-width lines, two cut inside a word), the
    excerpt reads as before. A cut that leaves fewer is not recognised (a plain log's longest
    lines can repeat); most excerpts still read right then, as their key lines are short. The
    ones that do not carry their key (a Ray task's pid and rank, a peer's address) at the end
    of their only long line, which a cut leaves no signature for: 12 of 83 in the tuning
    halves of seven batches."""
    wrong: list[str] = []
    unrecognised_wrong: list[str] = []
    touched = 0
    for i, entry in enumerate(_read_right()):
        texts = [(CORPUS / n).read_text(encoding="utf-8", errors="replace") for n in entry.files]
        if not any(len(line) > 150 for text in texts for line in text.splitlines()):
            continue
        touched += 1
        recognised = any(unwrap_terminal(_terminal_cut(t).encode())[1] for t in texts)
        if not _right_in_shape(entry, _terminal_cut, tmp_path / str(i)):
            (wrong if recognised else unrecognised_wrong).append(entry.id)
    assert not wrong
    assert len(unrecognised_wrong) <= 0.15 * touched, (unrecognised_wrong, touched)


def test_a_cut_whose_trailing_blanks_were_stripped_is_joined_with_the_blank(
        tmp_path: Path) -> None:
    """Every excerpt whose cut is recognised with its blanks kept reads the same once the
    paste has stripped them (the lines cut at a space are then one byte short)."""
    wrong: list[str] = []
    for i, entry in enumerate(_read_right()):
        texts = [(CORPUS / n).read_text(encoding="utf-8", errors="replace") for n in entry.files]
        if not any(unwrap_terminal(_terminal_cut(t).encode())[1] for t in texts):
            continue
        if not _right_in_shape(entry, _terminal_cut_stripped, tmp_path / str(i)):
            wrong.append(entry.id)
    assert not wrong


def _margin(head: bytes) -> bytes | None:
    margin = file_margin(head)
    return None if margin is None else margin.pattern


def test_margin_is_a_quote_or_the_indentation_every_line_shares() -> None:
    assert _margin(b"> a\n> b\n>\n> c\n") == b"> ?"
    assert _margin(b"    a\n      b\n    c\n") == b"\\ \\ \\ \\ "
    assert _margin(b"Traceback (most recent call last):\n  File x\nValueError: y\n") is None
    assert _margin(b"> only\nplain\nplain\nplain\n") is None
    assert _margin(b"web-1  | a\nweb-1  | b\nother line\n") is None  # not on nearly all
    # a markdown fence around a quote is no part of the paste's margin
    assert _margin(b"```\n> a\n> b\n> c\n```\n") == b"> ?"
    # a quote inside an indentation: both are stripped
    assert _margin(b"    > a\n    > b\n    >\n    > c\n") == b"\\ \\ \\ \\ > ?"


def test_a_plain_log_with_repeated_longest_lines_is_not_unwrapped() -> None:
    nccl = (b"gpu1:123:456 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7   8"
            b"   9  10  11  12  13  14  15\n")
    text = nccl * 4 + b"gpu1:123:456 [0] NCCL INFO Connected all rings\n"
    assert unwrap_terminal(text) == (text, None)


def test_unwrap_joins_only_full_width_lines() -> None:
    line = "RuntimeError: NCCL communicator was aborted on rank 3. Original reason for failure " \
           "was: [Rank 3] Watchdog caught collective operation timeout " * 3
    cut = _terminal_cut(line.strip(), 97) + "\nnext line\n"
    joined, width = unwrap_terminal(cut.encode())
    assert width == 97
    assert joined.decode() == line.strip() + "\nnext line\n"
    stripped = "\n".join(part.rstrip(" ") for part in cut.split("\n"))
    assert stripped != cut  # some cut fell on a blank
    assert unwrap_terminal(stripped.encode()) == (joined, 97)


def test_records_of_two_processes_of_one_host_are_not_a_terminals_wrap() -> None:
    """NCCL's identical warnings from two pids of one host are as long as each other and end
    and start inside a word (`…reregistration` / `gpu1:1329:…`): two records, not one line cut
    at a width. A continuation never starts with the cut line's first word."""
    lines = [f"gpu1:{pid}:1677 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : "
             "client reregistration" for pid in (1334, 1329, 1330, 1331)]
    text = ("\n".join(lines) + "\n").encode()
    assert unwrap_terminal(text) == (text, None)


@pytest.mark.parametrize(("text", "sections"), [
    (b"$ kubectl logs -n ml --tail=50 pod/w-1 -c trainer\nx\nroot@h:~# kubectl logs w-2\ny\n",
     [(1, "pod w-1"), (3, "pod w-2")]),
    (b"==> logs/rank0.log <==\na\nb\n==> logs/rank1.log <==\nc\n",
     [(1, "file logs/rank0.log"), (4, "file logs/rank1.log")]),
    (b"$ docker logs trainer-3\nx\n$ docker logs trainer-3 --tail 5\ny\n", []),  # one process
    (b"step 10 loss 2.1\nthe kubectl logs of w-1 showed nothing\n", []),  # a sentence
])
def test_a_paste_of_several_processes_outputs_is_cut_at_the_commands_that_printed_them(
        text: bytes, sections: list[tuple[int, str]]) -> None:
    assert paste_sections(text) == sections


def test_a_host_tag_on_every_line_keeps_nearly_every_reading(tmp_path: Path) -> None:
    """pdsh's and DeepSpeed's runner's `host: ` on every line (a tag the reader strips, from the
    events and from the file's last lines alike). The host it adds may name the process where
    the line named only a pid: a few excerpts read differently, no more (8 of about 900 when
    measured; 19 before the last lines were stripped of the tag too)."""
    tagged = _each("gpu-node-3: ")
    wrong = [e.id for i, e in enumerate(_read_right())
             if not _right_in_shape(e, tagged, tmp_path / str(i))]
    assert len(wrong) <= 10, wrong
