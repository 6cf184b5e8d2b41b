"""Flight-recorder dumps: the restricted loader, the typed form and the analysis.

The fixtures in tests/data/flight_recorder were written by a real torch 2.13 gloo job
(tests/triage/fr_gloo_job.py; see the README there); the variants below are those dumps
changed field by field, the way a different fault would have changed them.
"""

from __future__ import annotations

import copy
import gc
import json
import os
import pickle
import pickletools
import time
from pathlib import Path
from typing import Any

import pytest

from monitor.parse import flight_recorder as fr
from monitor.parse.flight_recorder import (
    DumpError,
    DumpRefused,
    analyse,
    decode_dump,
    load_dump,
    looks_like_dump,
    rank_from_name,
)
from monitor.triage import reader
from monitor.triage.reader import read_inputs

DATA = Path(__file__).resolve().parent.parent / "data" / "flight_recorder" / "gloo-skip-allreduce"


def _raw(rank: int, suffix: str = "") -> bytes:
    return (DATA / f"fr_rank_{rank}{suffix}").read_bytes()


def _dumps(suffix: str = "") -> list[fr.RankDump]:
    return [load_dump(_raw(r, suffix), source=f"fr_rank_{r}{suffix}") for r in range(3)]


def test_the_real_dumps_load_as_pickle_and_as_json_alike() -> None:
    for suffix in ("", ".json"):
        dumps = _dumps(suffix)
        assert [d.rank for d in dumps] == [0, 1, 2]
        assert [len(d.entries) for d in dumps] == [5, 4, 5]
        assert dumps[0].pg_ranks["0"] == (0, 1, 2)
        last = dumps[0].entries[-1]
        assert (last.seq, last.op, last.backend, last.input_sizes) == (5, "all_reduce", "gloo",
                                                                       ((256,),))
        assert dumps[1].entries[-1].op == "broadcast"
    assert looks_like_dump(_raw(0)) == "pickle"
    assert looks_like_dump(_raw(0, ".json")) == "json"


def test_the_rank_that_skipped_the_all_reduce_is_named() -> None:
    result = analyse(_dumps())
    v = result.primary
    assert v is not None
    assert (v.verdict, v.seq, v.op) == ("never_entered", 5, "all_reduce")
    assert v.never_entered == (1,) and v.blamed == (1,) and v.waiting == (0, 2)
    states = {s.rank: s.last_enqueued for s in v.states}
    assert states == {0: 5, 1: 4, 2: 5}


def test_a_missing_dump_makes_a_suspect_not_a_culprit() -> None:
    result = analyse([d for d in _dumps() if d.rank != 1])
    v = result.primary
    assert v is not None and v.verdict == "absent"
    assert v.no_dump == (1,) and v.blamed == ()


def _mutated(change: Any) -> list[fr.RankDump]:
    out = []
    for rank in range(3):
        raw = pickle.loads(_raw(rank))  # the committed fixture: trusted here
        change(rank, raw)
        out.append(load_dump(pickle.dumps(raw), source=f"fr_rank_{rank}"))
    return out


def test_same_sequence_number_different_op_types_blames_no_single_rank_of_two() -> None:
    def change(rank: int, raw: dict[str, Any]) -> None:
        if rank == 1:
            entry = copy.deepcopy(raw["entries"][-1])
            entry["collective_seq_id"] = 5
            entry["profiling_name"] = "gloo:all_gather"
            raw["entries"].append(entry)
        if rank == 2:
            raw["entries"].pop()
    result = analyse([d for d in _mutated(change) if d.rank != 2])
    v = result.primary
    assert v is not None and v.verdict == "op_mismatch" and v.seq == 5
    assert v.blamed == ()
    assert any("no single rank can be blamed" in s for s in v.sentences)


def test_one_rank_against_two_that_agree_is_the_odd_one_out() -> None:
    def change(rank: int, raw: dict[str, Any]) -> None:
        if rank == 1:
            entry = copy.deepcopy(raw["entries"][-1])
            entry["collective_seq_id"] = 5
            entry["profiling_name"] = "gloo:broadcast"
            raw["entries"].append(entry)
    v = analyse(_mutated(change)).primary
    assert v is not None and v.verdict == "op_mismatch" and v.blamed == (1,)


def test_sizes_that_differ_at_one_collective_are_a_desync() -> None:
    def change(rank: int, raw: dict[str, Any]) -> None:
        if rank == 1:
            entry = copy.deepcopy(raw["entries"][-1])
            entry.update(collective_seq_id=5, profiling_name="gloo:all_reduce",
                         input_sizes=[[128]])
            raw["entries"].append(entry)
    v = analyse(_mutated(change)).primary
    assert v is not None and v.verdict == "size_mismatch" and v.blamed == (1,)


def test_a_dtype_one_rank_differs_in_is_the_odd_one_out_and_a_dump_without_dtypes_no_side() -> None:
    def change(rank: int, raw: dict[str, Any]) -> None:
        entry = copy.deepcopy(raw["entries"][-1])
        entry.update(collective_seq_id=5, profiling_name="gloo:all_reduce")
        entry["input_dtypes"] = ["Half"] if rank == 1 else ["Float"]
        raw["entries"].append(entry)
    v = analyse(_mutated(change)).primary
    assert v is not None and (v.verdict, v.seq, v.blamed) == ("dtype_mismatch", 5, (1,))

    def without(rank: int, raw: dict[str, Any]) -> None:
        change(rank, raw)
        if rank == 2:
            del raw["entries"][-1]["input_dtypes"]  # an older torch's entry: no side
    v = analyse(_mutated(without)).primary
    assert v is not None and v.verdict == "dtype_mismatch" and v.blamed == ()
    assert not any("rank(s) 2:" in s for s in v.sentences)


def test_dtypes_are_read_as_strings_only() -> None:
    shared = list(range(100_000))  # one object every entry points at: never turned into text
    def change(rank: int, raw: dict[str, Any]) -> None:
        for entry in raw["entries"]:
            entry["input_dtypes"] = [shared, "Float", 7]
    dumps = _mutated(change)
    assert {e.input_dtypes for d in dumps for e in d.entries} == {("Float",)}


def _grouped(lists: dict[int, str]) -> list[fr.RankDump]:
    """The fixture's three dumps, each also listing group `1` with the members given, and
    recording one completed all_reduce in it."""
    def change(rank: int, raw: dict[str, Any]) -> None:
        raw["pg_config"]["1"] = {"name": "1", "desc": "undefined", "ranks": lists[rank]}
        entry = copy.deepcopy(raw["entries"][-1])
        entry.update(process_group=("1", "undefined"), collective_seq_id=1, state="completed")
        raw["entries"].append(entry)
    return _mutated(change)


def test_a_group_its_ranks_list_with_different_overlapping_members_is_a_member_mismatch() -> None:
    result = analyse(_grouped({0: "[0, 1, 2]", 1: "[0, 1, 2]", 2: "[0, 2]"}))
    v = next(g for g in result.groups if g.pg == "1")
    assert (v.verdict, v.blamed, v.seq) == ("member_mismatch", (2,), None)


def test_disjoint_lists_under_one_id_are_two_groups_as_a_mesh_names_them() -> None:
    """torch names a mesh's subgroups in order on each rank: group `1` may be [0] on one rank
    and [1, 2] on the others, both healthy."""
    result = analyse(_grouped({0: "[0]", 1: "[1, 2]", 2: "[1, 2]"}))
    assert all(g.verdict != "member_mismatch" for g in result.groups)


def test_every_rank_started_none_completed_is_a_hang() -> None:
    def change(rank: int, raw: dict[str, Any]) -> None:
        if rank == 1:
            entry = copy.deepcopy(raw["entries"][-1])
            entry.update(collective_seq_id=5, profiling_name="gloo:all_reduce")
            raw["entries"].append(entry)
        for entry in raw["entries"]:
            entry["state"] = "completed"
        raw["entries"][-1]["state"] = "started"
    v = analyse(_mutated(change)).primary
    assert v is not None and (v.verdict, v.seq) == ("all_entered", 5)


def test_rank_comes_from_the_file_name() -> None:
    assert rank_from_name("/x/nccl_trace_rank_12") == 12
    assert rank_from_name("fr_rank_3.json") == 3
    assert rank_from_name("dump") is None
    with pytest.raises(DumpError, match="rank"):
        load_dump(_raw(0), source="dump")


# --- untrusted input ---------------------------------------------------------------------------


class _Evil:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


def test_a_pickle_that_would_run_a_command_is_refused_without_running_it(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    payload = pickle.dumps({"version": "2.10", "entries": [_Evil(str(marker))]}, protocol=2)
    ops = {op.name for op, _arg, _pos in pickletools.genops(payload)}
    assert {"GLOBAL", "REDUCE"} <= ops
    with pytest.raises(DumpRefused, match=r"import (posix|os)\.system"):
        decode_dump(payload)
    assert not marker.exists()
    payload4 = pickle.dumps({"entries": [_Evil(str(marker))]}, protocol=4)
    assert "STACK_GLOBAL" in {op.name for op, _a, _p in pickletools.genops(payload4)}
    with pytest.raises(DumpRefused):
        decode_dump(payload4)
    assert not marker.exists()


def test_reduce_without_an_importable_callable_is_refused() -> None:
    # PROTO 2, EMPTY_DICT, SHORT_BINUNICODE 'a', EMPTY_TUPLE, REDUCE, STOP: calls a str.
    payload = b"\x80\x02}\x8c\x01a)R."
    with pytest.raises(DumpRefused, match="call or build"):
        decode_dump(payload)


def test_persistent_ids_are_refused() -> None:
    payload = b"\x80\x02X\x01\x00\x00\x00aQ."  # BINUNICODE 'a', BINPERSID
    with pytest.raises(DumpRefused, match="persistent"):
        decode_dump(payload)


def test_a_memo_bomb_is_read_in_bounded_time_not_expanded() -> None:
    """A small pickle whose sizes name one list 10**7 times: only a bounded part is read."""
    layer: Any = [7] * 10
    for _ in range(6):
        layer = [layer] * 10
    raw = pickle.loads(_raw(0))
    raw["entries"][-1]["input_sizes"] = layer
    raw["entries"][-1]["frames"] = [{"filename": "f", "line": 1, "name": "n"}] * 10**5
    payload = pickle.dumps(raw)
    assert len(payload) < 400_000  # small input, 10**7 sizes and 10**5 frames by reference
    started = time.perf_counter()
    dump = load_dump(payload, source="fr_rank_0")
    assert time.perf_counter() - started < 5  # unbounded work would take hours, not seconds
    last = dump.entries[-1]
    assert len(last.input_sizes) <= fr.MAX_TENSORS and len(last.frames) <= fr.MAX_FRAMES


def test_too_many_entries_and_oversize_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = pickle.loads(_raw(0))
    raw["entries"] = raw["entries"] * 30
    monkeypatch.setattr(fr, "MAX_ENTRIES", 100)
    with pytest.raises(DumpRefused, match="entries"):
        load_dump(pickle.dumps(raw), source="fr_rank_0")
    monkeypatch.setattr(fr, "MAX_DUMP_BYTES", 100)
    with pytest.raises(DumpRefused, match="limit"):
        decode_dump(_raw(0))


def test_deep_nesting_is_no_crash() -> None:
    depth = 100_000  # written by hand: pickle.dumps itself recurses
    payload = (b"\x80\x02}\x8c\x07entries]}\x8c\x0binput_sizes" + b"]" * depth
               + b"a" * (depth - 1) + b"sas.")
    dump = load_dump(payload, source="fr_rank_0")
    assert dump.entries[0].input_sizes == ((),)


def test_an_empty_buffer_is_an_unknown_side_not_a_rank_that_entered_nothing() -> None:
    """Rank 0's recorder came back empty (torch's empty JSON): it is not blamed for the
    collectives it holds none of; the others' buffers still name rank 1, and the report says
    that rank 0's side is unknown."""
    empty = load_dump(b'{"pg_config": {}, "pg_status": {}, "version": "2.10"}',
                      source="fr_rank_0.json")
    dumps = [empty, *_dumps()[1:]]
    result = analyse(dumps)
    v = result.primary
    assert v is not None and v.blamed == (1,) and 0 not in v.never_entered
    assert result.ranks == (1, 2)
    assert any("rank(s) 0: the flight recorder holds no collectives" in p
               for p in result.problems)


def test_garbage_and_other_json_are_errors_not_crashes() -> None:
    with pytest.raises(DumpError):
        decode_dump(b"\x80\x04\x95garbage")
    with pytest.raises(DumpError):
        decode_dump(b'{"loss": 1.0, "version": "2.10"}')  # no entries and no group table
    # torch's own empty buffer leaves the entries out (a real reply of torch 2.11's server)
    empty = (b'{"comm_lib_version":"","nccl_comm_state":{},"pg_config":{},"pg_status":{},'
             b'"version":"2.10"}')
    assert decode_dump(empty)["entries"] == []
    with pytest.raises(DumpError):
        decode_dump(b"plain text")
    assert looks_like_dump(b'{"loss": 1.0}') is None


def test_triage_reads_dumps_beside_logs_and_lists_a_refused_one(tmp_path: Path) -> None:
    for rank in range(3):
        (tmp_path / f"fr_rank_{rank}").write_bytes(_raw(rank))
    (tmp_path / "fr_rank_9").write_bytes(pickle.dumps({"entries": [_Evil("x")]}))
    (tmp_path / "rank0.log").write_text("[rank0]: step 3\n")
    scans, problems, _ = read_inputs([str(tmp_path)])
    assert sorted(s.fr_dump.rank for s in scans if s.fr_dump is not None) == [0, 1, 2]
    refused = [p for p in problems if p.path.endswith("fr_rank_9")]
    assert refused and "refused" in refused[0].problem and refused[0].skipped


def test_json_dump_round_trip_matches_pickle() -> None:
    as_json = json.loads(_raw(2, ".json"))
    as_pickle = pickle.loads(_raw(2))
    assert [e["collective_seq_id"] for e in as_json["entries"]] == [
        e["collective_seq_id"] for e in as_pickle["entries"]]


def test_a_group_id_that_is_not_text_is_read_not_a_crash() -> None:
    raw = pickle.loads(_raw(0))
    for entry in raw["entries"]:
        entry["process_group"] = [["0"], "default_pg"]
    dump = load_dump(pickle.dumps(raw), source="fr_rank_0")
    assert {e.pg for e in dump.entries} == {"['0']"}
    assert dump.pg_names["['0']"] == "default_pg"


def test_the_collector_is_back_on_after_a_dump_read_or_refused() -> None:
    load_dump(_raw(0), source="fr_rank_0")
    assert gc.isenabled()
    with pytest.raises(DumpRefused):
        load_dump(pickle.dumps({"entries": [_Evil("x")]}), source="fr_rank_0")
    assert gc.isenabled()


def test_dumps_read_by_worker_processes_are_the_dumps_read_in_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same typed dumps, same order, whether the files are read in one process or several."""
    monkeypatch.setattr(reader, "POOL_MIN_BYTES", 0)
    for rank in range(3):
        (tmp_path / f"fr_rank_{rank}").write_bytes(_raw(rank))
        (tmp_path / f"fr_rank_{rank}.json").write_bytes(_raw(rank, ".json"))
    one, _, _ = read_inputs([str(tmp_path)], jobs=1)
    several, _, _ = read_inputs([str(tmp_path)], jobs=2)
    assert [s.path for s in several] == [s.path for s in one]
    assert [s.fr_dump for s in several] == [s.fr_dump for s in one]
    assert all(s.fr_dump is not None and s.fr_dump.entries for s in one)
