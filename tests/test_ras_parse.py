"""RAS report parsers: golden files over every reference sample, plus cases derived from the
protocol notes (every version's wording, truncation, damage, unknown lines).

Goldens live in tests/data/ras/goldens/ and are rewritten only when RANKWATCH_REGEN_GOLDENS=1.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from monitor.parse.ras_json import parse_json, parse_json_typed
from monitor.parse.ras_model import (
    LEGACY_OP,
    CommProblem,
    CommStatus,
    RasReport,
    ReportFormat,
    is_world,
    normalise_hash,
    parse_version,
    status_from_flags,
    to_plain,
    world_rank_map,
)
from monitor.parse.ras_text import parse_text
from tests.fake_ras import (
    Comm,
    JobState,
    Member,
    make_peers,
    render_json,
    render_text_chunks,
    world_comm,
)

DATA = Path(__file__).parent / "data" / "ras"
SAMPLES = DATA / "samples"
GOLDENS = DATA / "goldens"
REPORT_SAMPLES = sorted(
    p.name for p in SAMPLES.iterdir() if p.name[:2].isdigit() and int(p.name[:2]) <= 16
)
REGEN = os.environ.get("RANKWATCH_REGEN_GOLDENS") == "1"

TEXT_VERSIONS = ["2.24.3", "2.25.1", "2.26.2", "2.27.3", "2.27.7", "2.28.3", "2.28.7", "2.28.9",
                 "2.29.2", "2.29.7", "2.30.7", "2.31.2", "2.32.3"]
JSON_VERSIONS = [v for v in TEXT_VERSIONS if parse_version(v) >= (2, 28, 7)]  # type: ignore[operator]


def parse_sample(name: str) -> RasReport:
    data = (SAMPLES / name).read_bytes()
    return parse_json(data) if name.endswith(".json.txt") else parse_text(data)


@pytest.mark.parametrize("name", REPORT_SAMPLES)
def test_every_reference_sample_matches_its_golden(name: str) -> None:
    """Each reference STATUS reply parses to exactly the typed report recorded in its golden."""
    golden = GOLDENS / (name.split(".")[0] + ".json")
    actual = to_plain(parse_sample(name))
    if REGEN:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(json.dumps(actual, indent=1, sort_keys=True) + "\n")
    assert json.loads(golden.read_text()) == actual


@pytest.mark.parametrize("name", REPORT_SAMPLES)
def test_every_reference_sample_is_fully_understood(name: str) -> None:
    """No reference sample leaves an unrecognised line or a fault (the 2.28.9 comma aside)."""
    report = parse_sample(name)
    assert report.complete
    assert report.unknown_lines == 0, report.unknown_samples
    assert set(report.faults) <= {"json_comma_repaired"}


def test_samples_cover_the_test_data_folder() -> None:
    """Every report sample (01-16) is covered; the goldens folder holds nothing stale."""
    assert len(REPORT_SAMPLES) == 17  # 07a and 07b
    expected = {n.split(".")[0] + ".json" for n in REPORT_SAMPLES}
    stale = {p.name for p in GOLDENS.iterdir()} - expected
    assert stale == set()


# ----------------------------------------------------------------------------------------------
# Facts the samples must yield (independent of the goldens).


def test_dead_process_and_its_rank_are_named() -> None:
    """Sample 05: one DEAD process with its node, pid and GPU; its rank in the INCOMPLETE block."""
    report = parse_sample("05-dead-process-2x8.txt")
    assert report.dead_count == 1
    (dead,) = report.dead_processes
    assert (dead.host, dead.pid, dead.gpus) == ("10.0.12.8", 1877407, (5,))
    (comm,) = report.communicators
    assert comm.hash == "27a079b828ff1a75"
    assert comm.problems == {CommProblem.INCOMPLETE}
    assert [m.ref.rank for m in comm.missing] == [13]
    assert world_rank_map(report)[("10.0.12.8", 1877407, 5)] == 13


def test_unresponsive_process_and_timeouts() -> None:
    """Sample 04: the unresponsive process, the TIMEOUT count and the `%.3f` collection time."""
    report = parse_sample("04-incomplete-unresponsive-2x8.txt")
    assert report.unresponsive_count == 1
    assert report.unresponsive_processes[0].pid == 1877407
    assert report.timeouts == 2
    assert report.collection_seconds == pytest.approx(5.018)


def test_mismatch_lists_lower_group_members() -> None:
    """Sample 02: 8 ranks one AllReduce behind, listed with GPU, pid and node."""
    (comm,) = parse_sample("02-mismatch-counts-16x8.txt").communicators
    lead, lag = comm.count_groups
    assert (lead.op, lead.value, lead.size, lead.ranks) == ("AllReduce", 14303, 120, ())
    assert (lag.value, lag.size) == (14302, 8)
    assert [r.rank for r in lag.ranks] == list(range(40, 48))
    assert lag.ranks[0].host == "172.31.8.25"


def test_plain_status_hides_large_groups_that_verbose_lists() -> None:
    """Samples 07a/07b: 20 laggards are counted but not listed by STATUS, listed by VERBOSE."""
    plain = parse_sample("07a-mismatch-20-laggards-plain-16x8.txt").communicators[0]
    verbose = parse_sample("07b-mismatch-20-laggards-verbose-16x8.txt").communicators[0]
    assert plain.count_groups[1].size == verbose.count_groups[1].size == 20
    assert plain.count_groups[1].ranks == ()
    assert [r.rank for r in verbose.count_groups[1].ranks] == list(range(16, 36))


def test_status_only_mismatch_without_trailing_blank_line() -> None:
    """Sample 03 (2.26): a status-only MISMATCH block ending the report with no blank line."""
    report = parse_sample("03-transitional-init-finalize-4x8.txt")
    (comm,) = report.communicators
    assert [(g.status, g.size, len(g.ranks)) for g in comm.status_groups] == [
        (CommStatus.NOCOMM, 26, 0),
        (CommStatus.RUNNING, 4, 4),
        (CommStatus.FINALIZE, 2, 2),
    ]
    assert [row.status for row in report.groups] == [
        CommStatus.FINALIZE, CommStatus.RUNNING, CommStatus.INIT
    ]
    assert report.groups[0].ranks_per_node_min == 1 and report.groups[0].ranks_per_node_max == 2
    assert report.communicators_total == 9


def test_async_error_and_abort() -> None:
    """Sample 08: async `Remote process error` (code 6) on 2 ranks, ABORT status, both blocks."""
    (comm,) = parse_sample("08-async-error-abort-2x8.txt").communicators
    assert comm.status is CommStatus.ABORT
    assert comm.problems == {CommProblem.ERROR, CommProblem.MISMATCH}
    (error,) = comm.errors
    assert (error.kind, error.code, error.size) == ("async", 6, 2)
    assert [r.rank for r in error.ranks] == [9, 10]


def test_v224_wording() -> None:
    """Sample 09 (2.24): missing ranks by number, one aggregate counter, NVML ids, init error."""
    report = parse_sample("09-v224-incomplete-and-init-error-4x8.txt")
    world, small = report.communicators
    assert next(m.ref for m in world.missing).rank == 21
    assert world.missing[0].ref.host is None
    assert report.unresponsive_processes[0].nvml_gpus == (5,)
    (error,) = small.errors
    assert (error.kind, error.code, error.ranks[0].nvml_gpu) == ("init", 2, 3)
    assert small.status_groups[1].status is CommStatus.INIT
    assert report.collection_seconds == pytest.approx(2.05)


def test_uneven_nodes_and_no_communicators() -> None:
    """Sample 10: layout B job summary, the outlier node, and no communicator data."""
    report = parse_sample("10-uneven-nodes-no-comms-3nodes.txt")
    assert report.job is not None
    assert (report.job.nodes, report.job.processes, report.job.gpus) == (3, 20, 20)
    assert report.job.processes_per_node == ((2, 8), (1, 4))
    assert report.job.outlier_nodes == (("10.9.1.23", (81002, 81003, 81004, 81005)),)
    assert report.no_communicators and report.communicators == ()


def test_not_launched_counts_are_zero() -> None:
    """Sample 11: `have not launched any operations` is a count of 0."""
    (comm,) = parse_sample("11-not-launched-yet-1x8.txt").communicators
    assert [(g.op, g.value, g.size) for g in comm.count_groups] == [
        ("AllGather", 0, 6), ("AllGather", 1, 2)
    ]


def test_multi_gpu_process_dead() -> None:
    """Sample 12: a dead process managing 8 GPUs, its 8 ranks missing."""
    report = parse_sample("12-multigpu-process-dead-4x8.txt")
    assert report.dead_processes[0].gpus == tuple(range(8))
    assert report.job is not None and report.job.gpus == 32
    assert len(report.communicators[0].missing) == 8


def test_node_dead_at_scale() -> None:
    """Sample 13: 8 DEAD processes, world + 8 DP communicators INCOMPLETE, 127 TP rows."""
    report = parse_sample("13-node-dead-128x8.txt")
    assert report.dead_count == 8 and len(report.dead_processes) == 8
    assert len(report.communicators) == 9
    assert report.groups[2].comms == 127
    world = report.communicators[0]
    assert is_world(world, report)
    assert not is_world(report.communicators[1], report)


def test_json_derives_statuses_and_problems() -> None:
    """Sample 14 (JSON): statuses, MISMATCH/INCOMPLETE and missing ranks are derived."""
    report = parse_sample("14-json-status-v229plus-1x4.json.txt")
    assert report.format is ReportFormat.JSON
    assert report.nccl_version == "2.29.7" and report.timeouts == 1
    by_hash = {c.hash: c for c in report.communicators}
    assert by_hash["0b7d1e44c2a93f15"].problems == {CommProblem.INCOMPLETE}
    assert by_hash["63d2a9f0e15b7c48"].problems == set()
    big = by_hash["ae94423cfbb2ef4a"]
    assert big.status is CommStatus.RUNNING and big.ranks[0].counts == (1, 0, 402, 0, 12944)
    assert report.unresponsive_processes[0].pid == 1524347
    assert report.dead_count == 0


def test_json_comma_bug_is_repaired() -> None:
    """Sample 15 (2.28.9): invalid JSON, repaired; same communicators as the valid sample."""
    broken = parse_sample("15-json-status-v2289-invalid-1x4.json.txt")
    valid = parse_sample("14-json-status-v229plus-1x4.json.txt")
    assert "json_comma_repaired" in broken.faults and broken.complete
    assert broken.communicators == valid.communicators


# ----------------------------------------------------------------------------------------------
# Every version's wording, from one model rendered by the fake server.


def rich_job(version: str) -> JobState:
    """Unresponsive + dead processes, a count mismatch, a NOCOMM member, an async error."""
    peers = make_peers(4, 4, subnet="10.3.0.")
    world = world_comm(peers, 0xABCDEF, (1, 0, 40, 0, 500))
    for m in world.members:
        if m.rank in (2, 3):
            m.counts = (1, 0, 40, 0, 499)
    peers[9].state = "unresponsive"
    peers[14].state = "dead"
    pair = Comm(0x42, [Member(0, peers[0], 0, counts=(0, 0, 0, 0, 7)),
                       Member(1, peers[1], 1, counts=(0, 0, 0, 0, 7), async_error=6)])
    side = Comm(0x99, [Member(0, peers[4], 0, counts=(0, 0, 0, 0, 3)),
                       Member(1, peers[5], 1, nocomm=True)])
    return JobState(version=version, peers=peers, comms=[world, pair, side], timeouts=1)


@pytest.mark.parametrize("verbose", [False, True])
@pytest.mark.parametrize("version", TEXT_VERSIONS)
def test_text_of_every_version_parses_to_the_same_facts(version: str, verbose: bool) -> None:
    """The same job rendered as any NCCL version's text report yields the same facts."""
    state = rich_job(version)
    report = parse_text("".join(render_text_chunks(state, verbose=verbose, elapsed=0.0123)))
    assert report.complete and report.unknown_lines == 0, report.unknown_samples
    assert report.nccl_version == version
    assert (report.unresponsive_count, report.dead_count, report.timeouts) == (1, 1, 1)
    assert report.dead_processes[0].pid == state.peers[14].pid
    by_hash = {c.hash: c for c in report.communicators}
    world = by_hash[normalise_hash("0xabcdef")]
    legacy = parse_version(version) < (2, 26, 0)  # type: ignore[operator]
    op = LEGACY_OP if legacy else "AllReduce"
    lag = [g for g in world.count_groups if g.op == op and g.size == 2]
    assert lag and sorted(r.rank for r in lag[0].ranks) == [2, 3]
    assert sorted(m.ref.rank for m in world.missing) == [9, 14]
    assert by_hash[normalise_hash("0x42")].errors[0].code == 6
    nocomm = by_hash[normalise_hash("0x99")].status_groups
    assert any(g.status is CommStatus.NOCOMM for g in nocomm)
    expected_digits = 2 if parse_version(version) < (2, 28, 7) else 3  # type: ignore[operator]
    assert report.collection_seconds == pytest.approx(0.0123, abs=10**-expected_digits)


@pytest.mark.parametrize("version", JSON_VERSIONS)
def test_json_of_every_version_parses_to_the_same_facts(version: str) -> None:
    """The same job as JSON from 2.28.7 on; the comma bug is repaired only where it exists."""
    report = parse_json(render_json(rich_job(version), elapsed=0.01))
    assert report.complete and report.nccl_version == version
    assert ("json_comma_repaired" in report.faults) == version.startswith("2.28")
    assert (report.unresponsive_count, report.dead_count) == (1, 1)
    by_hash = {c.hash: c for c in report.communicators}
    world = by_hash[normalise_hash("0xabcdef")]
    assert CommProblem.MISMATCH in world.problems and CommProblem.INCOMPLETE in world.problems
    assert by_hash[normalise_hash("0x42")].async_error_ranks == 1
    assert CommProblem.MISMATCH in by_hash[normalise_hash("0x99")].problems


# ----------------------------------------------------------------------------------------------
# Damage: truncation, unknown lines, garbage, odd line endings.


@pytest.mark.parametrize("name", [n for n in REPORT_SAMPLES if not n.endswith(".json.txt")])
def test_text_cut_anywhere_never_raises_and_is_marked(name: str) -> None:
    """A text report cut at any byte parses without error and says it is incomplete.

    The text protocol has no end marker, so two cuts leave a well-formed report and cannot be
    seen: just before a trailing TIMEOUT block, and just before a counter sub-block that follows
    a status sub-block (2.26+ puts no blank line between them)."""
    data = (SAMPLES / name).read_bytes()
    for cut in range(0, len(data) - 1):
        report = parse_text(data[:cut])
        if report.complete:
            rest = data[cut:]
            timeout_block = rest.startswith(b"TIMEOUT\n") and rest.count(b"\n\n") == 1
            counters = rest.startswith(b"  Communicator ranks have different")
            assert timeout_block or counters, rest[:60]
            continue
        assert "truncated" in report.faults


def test_text_cut_mid_line_keeps_what_came_before() -> None:
    """A reply cut in the middle of the `Communicators...` line keeps the version and job."""
    data = (SAMPLES / "05-dead-process-2x8.txt").read_text()
    head = data[: data.index("Communicators...") + len("Communicators...")]
    report = parse_text(head)
    assert report.nccl_version == "2.29.7" and report.job is not None
    assert report.job.gpus == 16 and not report.complete


def test_unknown_lines_are_counted_not_fatal() -> None:
    """Foreign lines are counted and sampled; every known fact is still extracted."""
    data = (SAMPLES / "05-dead-process-2x8.txt").read_text()
    noisy = data.replace("DEAD\n", "DEAD\n  a line from a future NCCL\n", 1)
    noisy = noisy.replace("Warnings\n", "something odd\nWarnings\n", 1)
    report = parse_text(noisy)
    assert report.unknown_lines == 2
    assert report.unknown_samples == ("  a line from a future NCCL", "something odd")
    assert report.dead_processes == parse_text(data).dead_processes
    assert report.complete


def test_crlf_line_endings_are_tolerated() -> None:
    """A report whose lines end in CR LF parses like the original."""
    data = (SAMPLES / "08-async-error-abort-2x8.txt").read_text()
    assert to_plain(parse_text(data.replace("\n", "\r\n"))) == to_plain(parse_text(data))


def test_binary_garbage_is_unrecognised_but_counted() -> None:
    """Random bytes give a report that is not recognised, with its lines counted."""
    garbage = bytes(range(256)) * 40
    report = parse_text(garbage)
    assert not report.recognised and not report.complete
    assert report.unknown_lines > 0
    json_report = parse_json(garbage)
    assert not json_report.recognised and not json_report.complete


def test_unexpected_error_code_and_missing_process_information() -> None:
    """Forms the samples lack: `[process information not found]`, unlisted processes, an
    `Unexpected error` text, and the 2.24 single unknown rank."""
    text = (
        "NCCL version 2.30.7 compiled with CUDA 13.0\n"
        "Errors\n======\n\n"
        "INCOMPLETE\n  Missing communicator data from 3 job processes\n"
        "  [could not find information on 3 processes]\n\n"
        "#0-0 (00000000000000ab) INCOMPLETE\n  Missing communicator data from 1 rank\n"
        "  Rank 4 -- [process information not found]\n\n"
        "#0-0 (00000000000000ab) ERROR\n  Asynchronous errors on 2 ranks\n"
        "  2 ranks reported Unexpected error\n\n"
        "Warnings\n========\n\n"
        "#0-0 (00000000000000ab) MISMATCH\n  Communicator ranks have different status\n"
        "  Rank 7 has status UNKNOWN\n"
    )
    report = parse_text(text)
    assert report.unknown_lines == 0, report.unknown_samples
    assert report.unlisted_processes == 3 and report.unresponsive_count == 3
    (comm,) = report.communicators
    assert comm.missing[0].ref.host is None and comm.missing[0].ref.rank == 4
    assert (comm.errors[0].code, comm.errors[0].size) == (None, 2)
    assert comm.status_groups[0].status is CommStatus.NOCOMM
    assert comm.status_groups[0].ranks[0].rank == 7


def test_json_acknowledgement_lines_before_the_document() -> None:
    """Stray `OK` lines before the JSON document are skipped, and said so."""
    data = "OK\nOK\n" + (SAMPLES / "16-json-status-no-comms.json.txt").read_text()
    report = parse_json(data)
    assert report.complete and report.nccl_version == "2.30.7"
    assert "preamble_lines_skipped" in report.faults


def test_truncated_json_salvages_whole_communicators() -> None:
    """A JSON document cut half-way keeps its header and every communicator before the cut."""
    data = (SAMPLES / "14-json-status-v229plus-1x4.json.txt").read_text()
    cut = data.index('"hash": "0xae94423cfbb2ef4a"')
    report = parse_json(data[:cut])
    assert not report.complete
    assert report.nccl_version == "2.29.7"
    assert [c.hash for c in report.communicators] == ["0b7d1e44c2a93f15", "63d2a9f0e15b7c48"]
    assert any(f.startswith("invalid_json") for f in report.faults)


def test_zero_filled_json_communicator_is_dropped_and_counted() -> None:
    """NCCL #2346 leaves zero-filled entries (hash 0x0, size 0): dropped, counted as a fault."""
    state = rich_job("2.29.7")
    state.zero_comm = True
    report = parse_json(render_json(state, elapsed=0.0))
    assert "zero_size_communicators: 1" in report.faults
    assert all(c.size for c in report.communicators) and len(report.communicators) == 3


def test_json_of_the_wrong_shape_is_a_fault() -> None:
    """A JSON value that is not a report object is incomplete, not an exception."""
    bad_rank = '{"communicators": [{"ranks": [{"rank": "x"}]}]}'
    for doc in ("[1, 2]", '{"communicators": 5}', bad_rank):
        report = parse_json(doc)
        assert not report.complete or report.faults


def mutations(seed: int, count: int) -> list[bytes]:
    """Reference replies with random bytes flipped, lines dropped, duplicated or spliced."""
    rng = random.Random(seed)
    sources = [(SAMPLES / name).read_bytes() for name in REPORT_SAMPLES]
    out = []
    for _ in range(count):
        lines = rng.choice(sources).split(b"\n")
        for _edit in range(rng.randint(1, 6)):
            i = rng.randrange(len(lines))
            action = rng.randrange(4)
            if action == 0:
                del lines[i]
            elif action == 1:
                lines.insert(i, lines[rng.randrange(len(lines))])
            elif action == 2 and lines[i]:
                j = rng.randrange(len(lines[i]))
                lines[i] = lines[i][:j] + bytes([rng.randrange(256)]) + lines[i][j + 1 :]
            else:
                lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        out.append(b"\n".join(lines))
    return out


def test_text_parser_never_raises_on_mangled_replies() -> None:
    """Hundreds of mangled reports (text and JSON fed to the text parser): no exception, and
    every unrecognised line is counted, the first five sampled."""
    for data in mutations(seed=1, count=400):
        report = parse_text(data)
        assert len(report.unknown_samples) == min(report.unknown_lines, 5)


def test_json_parser_never_raises_on_mangled_replies() -> None:
    """Hundreds of mangled reports given to the JSON parser: a report, never an exception."""
    for data in mutations(seed=2, count=400):
        parse_json(data)
    rng = random.Random(3)
    for _ in range(200):
        parse_json(b'{"communicators": [' + rng.randbytes(rng.randrange(2000)))


# ----------------------------------------------------------------------------------------------
# Helpers.


def test_version_and_hash_helpers() -> None:
    """Versions parse with suffixes; JSON and text hashes normalise to one key."""
    assert parse_version("2.27.3a0") == (2, 27, 3)
    assert parse_version("garbage") is None
    assert normalise_hash("0xb7d1e44c2a93f15") == "0b7d1e44c2a93f15"
    assert normalise_hash("9C3E7710AB52F4E6") == "9c3e7710ab52f4e6"


def test_status_from_json_flags_follows_nccl_order() -> None:
    """abort > finalize/destroy > initialised > init."""
    assert status_from_flags(0, True, False, True) is CommStatus.ABORT
    assert status_from_flags(0, False, True, False) is CommStatus.FINALIZE
    assert status_from_flags(0, False, False, False) is CommStatus.RUNNING
    assert status_from_flags(7, False, False, False) is CommStatus.INIT


def test_comma_repair_also_applies_when_the_header_does_not_say_2_28() -> None:
    """The repair is tried whenever a document fails to parse, not only for 2.28 headers."""
    data = (SAMPLES / "15-json-status-v2289-invalid-1x4.json.txt").read_text()
    report = parse_json(data.replace('"2.28.9"', '"2.28.10-custom"'.replace("2.28", "9.99")))
    assert report.complete and "json_comma_repaired" in report.faults
    assert len(report.communicators) == 3


def test_large_json_parse_leaves_the_garbage_collector_as_it_found_it() -> None:
    """The collector pause for large replies is undone, and never turns a disabled GC on."""
    import gc

    state = JobState(peers=make_peers(64, 8), comms=[world_comm(make_peers(64, 8), 1, (0,) * 5)])
    big = render_json(state, elapsed=0.0) + " " * (1 << 20)
    assert gc.isenabled()
    assert parse_json(big).complete
    assert gc.isenabled()
    gc.disable()
    try:
        parse_json(big)
        assert not gc.isenabled()
    finally:
        gc.enable()


# ----------------------------------------------------------------------------------------------
# The typed path (msgspec, extra `fast`) against the standard library path.


def json_corpus() -> list[str | bytes]:
    """Every JSON reply the tests know: samples, rendered jobs of every version (healthy,
    dead, missing, errors, zero-filled, 2.28's missing comma), wrong shapes, mangled ones."""
    docs: list[str | bytes] = [(SAMPLES / n).read_bytes() for n in REPORT_SAMPLES if ".json" in n]
    docs += [render_json(rich_job(version), elapsed=0.01) for version in JSON_VERSIONS]
    docs += ["[1, 2]", '{"communicators": 5}', '{"communicators": [{"ranks": [{"rank": "x"}]}]}']
    docs += mutations(seed=4, count=300)
    return docs


def test_typed_and_standard_library_paths_give_identical_reports() -> None:
    """parse_json with msgspec and without it: the same report for every reply, and the
    typed path does serve NCCL's own documents (it does not decline them all)."""
    served = 0
    for doc in json_corpus():
        assert parse_json(doc, fast=True) == parse_json(doc, fast=False)
        typed = parse_json_typed(doc)
        if typed is not None:
            served += 1
            assert typed == parse_json(doc, fast=False)
    for version in JSON_VERSIONS:
        assert parse_json_typed(render_json(rich_job(version), elapsed=0.01)) is not None
    assert served >= len(JSON_VERSIONS)


def test_typed_path_declines_what_it_does_not_know() -> None:
    """A bool where NCCL writes an int, a missing field, a cut document: declined (None), and
    the standard library path reads them."""
    good = render_json(rich_job(JSON_VERSIONS[-1]), elapsed=0.01)
    assert parse_json_typed(good) is not None
    for bad in (
        good.replace('"pid": ', '"pid": true, "was": ', 1),
        good.replace('"cuda_dev": ', '"old_cuda_dev": ', 1),
        good[: len(good) // 2],
    ):
        assert parse_json_typed(bad) is None
        assert parse_json(bad) == parse_json(bad, fast=False)
