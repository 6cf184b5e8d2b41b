"""The stack classifier over real py-spy dumps captured from a 2-rank torch DDP job.

The dumps live in tests/data/pyspy/ (see README.md there for how they were captured).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitor.parse.stacks import (
    MAIN_PATTERNS,
    DumpResult,
    Frame,
    MainClass,
    MainState,
    Phase,
    StackParseError,
    WorkerState,
    classify_error,
    classify_main,
    classify_worker,
    error_headline,
    is_library_frame,
    parse_dump,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "pyspy"


def load(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def main_of(name: str) -> MainClass:
    return classify_main(parse_dump(load(name), pid=_pid_of(name)))


def _pid_of(name: str) -> int:
    """The dumped pid: the first thread's `pid` field."""
    return int(json.loads(load(name))[0]["pid"])


@pytest.mark.parametrize(
    ("dump", "state", "idle_state", "phase", "frame"),
    [
        # DDP waiting for the gradient all-reduce: only CPU idleness tells it from compute.
        (
            "stall-rank0-main.json",
            MainState.COMPUTE,
            MainState.IN_COLLECTIVE,
            None,
            "torch/autograd/graph.py:979 _engine_run_backward",
        ),
        (
            "stall-rank1-main.json",
            MainState.DATALOADER_WAIT,
            MainState.DATALOADER_WAIT,
            None,
            "torch/utils/data/dataloader.py:1291 _MultiProcessingDataLoaderIter._try_get_data",
        ),
        (
            "checkpoint-rank0-save.json",
            MainState.IN_CHECKPOINT,
            MainState.IN_CHECKPOINT,
            Phase.CHECKPOINT,
            "torch/serialization.py:1312 _save",
        ),
        (
            "checkpoint-rank1-barrier.json",
            MainState.IN_COLLECTIVE,
            MainState.IN_COLLECTIVE,
            None,
            "torch/distributed/distributed_c10d.py:5356 barrier",
        ),
        (
            "init-rank0-rendezvous.json",
            MainState.IN_INIT,
            MainState.IN_INIT,
            Phase.INIT,
            "torch/distributed/distributed_c10d.py:2169 _new_process_group_helper",
        ),
        (
            "busy-rank1-user-loop.json",
            MainState.COMPUTE,
            MainState.COMPUTE,
            None,
            "tests/e2e/torch_job.py:159 spin_in_user_code",
        ),
        (
            "busy-rank0-backward.json",
            MainState.COMPUTE,
            MainState.IN_COLLECTIVE,
            None,
            "torch/autograd/graph.py:979 _engine_run_backward",
        ),
        (
            "healthy-rank0-b.json",
            MainState.COMPUTE,
            MainState.COMPUTE,
            None,
            "torch/nn/parallel/distributed.py:1781 DistributedDataParallel._pre_forward",
        ),
        (
            "healthy-rank1-a.json",
            MainState.DATALOADER_WAIT,
            MainState.DATALOADER_WAIT,
            None,
            "torch/utils/data/dataloader.py:1291 _MultiProcessingDataLoaderIter._try_get_data",
        ),
    ],
)
def test_main_thread_states_of_real_dumps(
    dump: str, state: MainState, idle_state: MainState, phase: Phase | None, frame: str
) -> None:
    """Each captured rank dump gets the state, idle state, phase and deciding frame expected."""
    got = main_of(dump)
    assert (state, idle_state, phase, frame) == (
        got.state,
        got.idle_state,
        got.phase,
        got.frame.location if got.frame else None,
    )


def test_native_dump_shows_ddp_reducer_waiting() -> None:
    """With --native, DDP's wait for the all-reduce is visible: the rank is in a collective."""
    got = main_of("stall-rank0-main-native.json")
    assert got.state is MainState.IN_COLLECTIVE
    assert got.rule == "native_reducer_wait"
    assert got.frame is not None and "c10d::Reducer::finalize_backward" in got.frame.function


def test_user_frame_of_a_rank_in_user_code() -> None:
    """The reported user frame is the innermost frame of the job's own code."""
    got = main_of("checkpoint-rank0-save.json")
    assert got.user_frame is not None
    assert got.user_frame.location == "tests/e2e/torch_job.py:134 ThrottledFile.write"


def test_busy_worker_names_the_getitem_frame() -> None:
    """A worker blocked inside __getitem__ is busy there (file:line function), not in threading."""
    got = classify_worker(
        parse_dump(load("stall-rank1-worker0-busy.json"), _pid_of("stall-rank1-worker0-busy.json"))
    )
    assert got.state is WorkerState.BUSY
    assert got.frame is not None
    assert got.frame.location == "tests/e2e/torch_job.py:96 SyntheticDataset.__getitem__"


def test_idle_worker_waits_for_its_index_queue() -> None:
    """A worker with nothing to do waits in its index queue's get: idle."""
    got = classify_worker(
        parse_dump(load("stall-rank1-worker1-idle.json"), _pid_of("stall-rank1-worker1-idle.json"))
    )
    assert got.state is WorkerState.IDLE


def test_every_captured_rank_dump_has_a_main_thread() -> None:
    """The main thread is found in every dump (by thread id = pid)."""
    for path in sorted(DATA.glob("*.json")):
        dump = parse_dump(path.read_text(), _pid_of(path.name))
        thread = dump.main_thread()
        assert thread is not None and thread.frames, path.name


def test_top_frames_are_short_and_innermost_first() -> None:
    """Evidence keeps a handful of frames, innermost first, as file:line function."""
    got = main_of("stall-rank1-main.json")
    assert len(got.top) == 6
    assert got.top[0] == "selectors.py:415 _PollLikeSelector.select"


def test_parse_rejects_non_json_and_wrong_shape() -> None:
    """Output that is not py-spy's JSON list raises StackParseError."""
    with pytest.raises(StackParseError):
        parse_dump("Process 12: python\nThread 12 (idle)", 12)
    with pytest.raises(StackParseError):
        parse_dump('{"frames": []}', 12)


def test_empty_dump_is_unknown() -> None:
    """No threads (or no frames): the state is unknown, never compute."""
    assert classify_main(parse_dump("[]", 5)).state is MainState.UNKNOWN
    assert classify_worker(parse_dump("[]", 5)).state is WorkerState.UNKNOWN


def test_python_310_unqualified_names_match_too() -> None:
    """Before Python 3.11 py-spy prints bare function names; the table still matches."""
    frame = {
        "name": "_try_get_data",
        "filename": "/x/site-packages/torch/utils/data/dataloader.py",
        "short_filename": "torch/utils/data/dataloader.py",
        "line": 1,
    }
    text = _dump_text([frame])
    assert classify_main(parse_dump(text, 7)).state is MainState.DATALOADER_WAIT


def test_named_checkpoint_function_in_user_code() -> None:
    """A user function called save_checkpoint writing with plain file I/O is a checkpoint."""
    frames = [
        {
            "name": "BufferedWriter.write",
            "filename": "/usr/lib/python3.11/io.py",
            "short_filename": "io.py",
            "line": 3,
        },
        {
            "name": "Trainer.save_checkpoint",
            "filename": "/job/train.py",
            "short_filename": "train.py",
            "line": 40,
        },
    ]
    text = _dump_text(frames)
    got = classify_main(parse_dump(text, 7))
    assert (got.state, got.phase) == (MainState.IN_CHECKPOINT, Phase.CHECKPOINT)


def test_evaluation_phase_from_function_names() -> None:
    """A loop called evaluate() puts the rank in the evaluation phase (state from inner frames)."""
    frames = [
        {
            "name": "Model.forward",
            "filename": "/job/model.py",
            "short_filename": "model.py",
            "line": 9,
        },
        {
            "name": "Trainer.evaluate",
            "filename": "/job/train.py",
            "short_filename": "train.py",
            "line": 80,
        },
    ]
    text = _dump_text(frames)
    got = classify_main(parse_dump(text, 7))
    assert (got.state, got.phase) == (MainState.COMPUTE, Phase.EVALUATION)


def test_a_stack_caught_while_importing_is_in_no_phase() -> None:
    """Caught during `import torch` (seen in a real run's start-up pass): logging's
    `PercentStyle.validate` under importlib's frames is no evaluation. A phase would have held
    every RAS freeze back for the evaluation grace (an hour), so a real hang went unpaged. A
    job function called evaluate() that imports something lazily is still evaluating."""
    def f(name: str, filename: str, short: str, line: int) -> dict[str, object]:
        return {"name": name, "filename": filename, "short_filename": short, "line": line}

    importing = [
        f("_find_and_load", "<frozen importlib._bootstrap>", "<frozen importlib._bootstrap>",
          1176),
        f("_call_with_frames_removed", "<frozen importlib._bootstrap>",
          "<frozen importlib._bootstrap>", 241),
    ]
    validate = f("PercentStyle.validate", "/usr/lib/python3.11/logging/__init__.py",
                 "logging/__init__.py", 437)
    module = f("<module>", "/job/site-packages/torch/fx/passes/utils/matcher_utils.py",
               "torch/fx/passes/utils/matcher_utils.py", 32)
    script = f("<module>", "/job/train.py", "train.py", 26)
    at_start = [validate, module, *importing, script]
    got = classify_main(parse_dump(_dump_text(at_start), 7))
    assert got.phase is None
    evaluating = [validate, module, *importing, f("Trainer.evaluate", "/job/train.py",
                                                  "train.py", 80), script]
    assert classify_main(parse_dump(_dump_text(evaluating), 7)).phase is Phase.EVALUATION
    # a standard-library function named like a phase is not one, imports or not
    alone = [validate, f("main", "/job/train.py", "train.py", 12)]
    assert classify_main(parse_dump(_dump_text(alone), 7)).phase is None


def test_library_frames() -> None:
    """stdlib, torch and native frames are library frames; the job's files are not."""

    def frame(short: str, filename: str = "/x", line: int = 1) -> Frame:
        return Frame("f", filename, short, line)

    assert is_library_frame(frame("threading.py"))
    assert is_library_frame(frame("multiprocessing/queues.py"))
    assert is_library_frame(frame("torch/utils/data/_utils/fetch.py"))
    assert is_library_frame(frame("libc.so.6", "/usr/lib/libc.so.6", 0))
    assert not is_library_frame(frame("torch_job.py"))
    assert not is_library_frame(frame("mydata/loader.py"))


def test_pattern_names_are_unique() -> None:
    """Every row of the main table has its own name (it is reported as the rule)."""
    names = [p.name for p in MAIN_PATTERNS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize(
    ("file", "result"),
    [
        ("error-permission-denied.txt", DumpResult.PERMISSION_DENIED),
        ("error-not-python.txt", DumpResult.NOT_PYTHON),
        ("error-no-such-process.txt", DumpResult.GONE),
    ],
)
def test_real_pyspy_errors_are_told_apart(file: str, result: DumpResult) -> None:
    """py-spy's real error texts map to the right result."""
    assert result is classify_error(load(file))


def test_native_with_nonblocking_is_a_bad_option() -> None:
    """py-spy's refusal of --native with --nonblocking is recognised."""
    text = "Can't get native stack traces with the --nonblocking option.\n"
    assert classify_error(text) is DumpResult.BAD_OPTIONS
    assert DumpResult.BAD_OPTIONS.blinds


def test_error_headline_drops_the_backtrace() -> None:
    """The one-line message is py-spy's first line, not its Rust backtrace."""
    assert error_headline(load("error-not-python.txt")) == (
        "Error: Failed to find python version from target process"
    )


def _dump_text(frames: list[dict[str, object]]) -> str:
    """A one-thread dump in py-spy's JSON shape (thread id 7 = the pid used by the tests)."""
    return json.dumps([{"os_thread_id": 7, "thread_name": "MainThread", "frames": frames}])
