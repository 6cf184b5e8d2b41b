"""Reading py-spy dumps and classifying what a rank or a DataLoader worker is doing.

Pure: text in, typed values out. The classification is driven by two data tables of frame
patterns (`MAIN_PATTERNS`, `PHASE_PATTERNS`); adding a framework means adding rows, not code.

A rank's main thread is classified by its innermost frame that matches a row of
`MAIN_PATTERNS` (frames are innermost first, as py-spy prints them); its *phase* (checkpoint,
init, evaluation) by any frame matching `PHASE_PATTERNS`. A DataLoader worker is idle when it
waits for its index queue and busy otherwise, "busy in" its innermost frame outside the
standard library and torch (the user's dataset code).
"""

from __future__ import annotations

import enum
import hashlib
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from monitor.model import Observation, ProcRole, ProcState

# ---------------------------------------------------------------------------------------
# The dump


@dataclass(frozen=True, slots=True)
class Frame:
    function: str  # as py-spy names it: "Class.method" on Python >= 3.11, "method" before
    filename: str
    short_filename: str
    line: int

    @property
    def location(self) -> str:
        """`file:line function`, the form used in alerts."""
        return f"{self.short_filename}:{self.line} {self.function}"

    @property
    def is_native(self) -> bool:
        return self.line == 0 and not self.filename.endswith(".py")


@dataclass(frozen=True, slots=True)
class ThreadStack:
    os_thread_id: int
    name: str
    active: bool
    owns_gil: bool
    frames: tuple[Frame, ...]  # innermost first


@dataclass(frozen=True, slots=True)
class Dump:
    pid: int
    threads: tuple[ThreadStack, ...]

    def main_thread(self) -> ThreadStack | None:
        """The thread whose id is the pid (the process's first thread), else 'MainThread'."""
        for thread in self.threads:
            if thread.os_thread_id == self.pid:
                return thread
        for thread in self.threads:
            if thread.name == "MainThread":
                return thread
        return None


class StackParseError(ValueError):
    """py-spy's output was not the JSON dump we expect."""


def parse_dump(text: str, pid: int) -> Dump:
    """Parse `py-spy dump --json` output (a list of threads, each with its frames)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StackParseError(f"not JSON: {exc}") from exc
    if not isinstance(data, list):
        raise StackParseError("expected a JSON list of threads")
    threads = []
    for raw in data:
        if not isinstance(raw, dict) or not isinstance(raw.get("frames"), list):
            raise StackParseError("thread without a frame list")
        threads.append(
            ThreadStack(
                os_thread_id=_int(raw.get("os_thread_id")),
                name=str(raw.get("thread_name") or ""),
                active=bool(raw.get("active")),
                owns_gil=bool(raw.get("owns_gil")),
                frames=tuple(_frame(f) for f in raw["frames"] if isinstance(f, dict)),
            )
        )
    return Dump(pid=pid, threads=tuple(threads))


def _frame(raw: dict[str, Any]) -> Frame:
    filename = str(raw.get("filename") or "").replace("\\", "/")
    return Frame(
        function=str(raw.get("name") or "?"),
        filename=filename,
        short_filename=str(raw.get("short_filename") or filename.rsplit("/", 1)[-1]),
        line=_int(raw.get("line")),
    )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# ---------------------------------------------------------------------------------------
# Classification tables


class MainState(str, enum.Enum):
    IN_COLLECTIVE = "in_collective"
    DATALOADER_WAIT = "dataloader_wait"
    IN_CHECKPOINT = "in_checkpoint"
    IN_INIT = "in_init"
    GPU_WAIT = "gpu_wait"  # the host waits for its GPU (synchronize, .item()): behind a kernel
    COMPUTE = "compute"
    UNKNOWN = "unknown"


class WorkerState(str, enum.Enum):
    IDLE = "idle"
    BUSY = "busy"
    UNKNOWN = "unknown"


class Phase(str, enum.Enum):
    """Known long phases: the progress detector widens its window for them."""

    CHECKPOINT = "checkpoint"
    INIT = "init"
    EVALUATION = "evaluation"


@dataclass(frozen=True)
class FramePattern:
    """One row of a table: a frame matches when both regexes match.

    `file` is searched in the frame's filename; `function` is matched in full against the
    function's last dotted component (py-spy qualifies names by class on Python >= 3.11) and
    against the whole name (C++ names from --native dumps contain `::`).
    `idle_state`: the state to assume instead when the process used no CPU between two dumps
    (DDP waits for the gradient all-reduce inside backward; only --native dumps show it).
    """

    name: str
    file: str
    function: str
    state: MainState
    idle_state: MainState | None = None

    def matches(self, frame: Frame) -> bool:
        return _matches(self.file, self.function, frame)


@dataclass(frozen=True)
class PhasePattern:
    name: str
    file: str
    function: str
    phase: Phase

    def matches(self, frame: Frame) -> bool:
        return _matches(self.file, self.function, frame)


def _matches(file_re: str, function_re: str, frame: Frame) -> bool:
    if not _compiled(file_re).search(frame.filename):
        return False
    pattern = _compiled(function_re)
    last = frame.function.rsplit(".", 1)[-1] if "::" not in frame.function else frame.function
    return bool(pattern.fullmatch(last) or pattern.fullmatch(frame.function))


_REGEX_CACHE: dict[str, re.Pattern[str]] = {}


def _compiled(regex: str) -> re.Pattern[str]:
    compiled = _REGEX_CACHE.get(regex)
    if compiled is None:
        compiled = _REGEX_CACHE[regex] = re.compile(regex)
    return compiled


_C10D = r"torch/distributed/distributed_c10d\.py$"
_INIT_FUNCTIONS = (
    r"init_process_group|_new_process_group_helper|new_group|new_subgroups\w*|"
    r"_store_based_barrier|_create_c10d_store|_get_default_store|init_device_mesh"
)
_DDP_SYNC_FUNCTIONS = (
    r"_sync_\w+|_verify_param_shape_across_processes|_check_and_sync_module_buffers|"
    r"_match_all_reduce_for_bwd_pass|_check_global_requires_backward_grad_sync|"
    r"_distributed_broadcast_coalesced"
)
_NATIVE_WAITS = (
    r"c10d::\w*(Work|ProcessGroup)\w*::(wait|synchronize|barrier|allreduce|allgather|"
    r"broadcast|reduce_scatter|alltoall|send|recv)\w*.*"
)
_SAVE_LOAD = r"_?save|_legacy_save|_?load|_legacy_load"
_CHECKPOINT_FUNCTIONS = (
    r"_?save_(checkpoint|ckpt|model|state|pretrained)\w*|_?checkpoint_save\w*|"
    r"_?(load|resume)_(from_)?checkpoint\w*"
)
_EVALUATION_FUNCTIONS = (
    r"_?(evaluate|evaluation_loop|eval_loop|run_eval\w*|validate|validation_loop|"
    r"validation_step|_run_validation\w*|_evaluation_loop\w*|prediction_loop|evaluation_step)"
)
_DEEPSPEED_INIT = r"init_distributed|init_deepspeed_backend"
_ANY = r".*"
_NATIVE = r"\.so(\.[\d.]+)?$"

_Row = FramePattern
_S = MainState

# Innermost matching frame wins. Order only matters between rows that match the same frame.
MAIN_PATTERNS: tuple[FramePattern, ...] = (
    # -- rendezvous, stores, process-group creation
    _Row("c10d_init", _C10D, _INIT_FUNCTIONS, _S.IN_INIT),
    _Row("rendezvous", r"torch/distributed/rendezvous\.py$", _ANY, _S.IN_INIT),
    _Row("elastic_rendezvous", r"torch/distributed/elastic/rendezvous/", _ANY, _S.IN_INIT),
    _Row(
        "device_mesh_init",
        r"torch/distributed/device_mesh\.py$",
        r"init_device_mesh|_init_process_groups|_get_or_create_default_group",
        _S.IN_INIT,
    ),
    _Row("deepspeed_init", r"deepspeed/comm/", _DEEPSPEED_INIT, _S.IN_INIT),
    _Row(
        "native_store",
        _NATIVE,
        r"c10d::(TCPStore|PrefixStore|FileStore|HashStore|Store)\w*::\w+.*",
        _S.IN_INIT,
    ),
    # -- collectives
    _Row("c10d_collective", _C10D, _ANY, _S.IN_COLLECTIVE),
    _Row(
        "functional_collectives",
        r"torch/distributed/_functional_collectives\w*\.py$",
        _ANY,
        _S.IN_COLLECTIVE,
    ),
    _Row("ddp_sync", r"torch/nn/parallel/distributed\.py$", _DDP_SYNC_FUNCTIONS, _S.IN_COLLECTIVE),
    _Row("deepspeed_comm", r"deepspeed/comm/", _ANY, _S.IN_COLLECTIVE),
    _Row(
        "native_reducer_wait",
        _NATIVE,
        r"c10d::Reducer::(finalize_backward|wait\w*|all_reduce\w*).*",
        _S.IN_COLLECTIVE,
    ),
    _Row("native_c10d_wait", _NATIVE, _NATIVE_WAITS, _S.IN_COLLECTIVE),
    _Row("native_gloo", _NATIVE, r"gloo::.*", _S.IN_COLLECTIVE),
    _Row("native_nccl", _NATIVE, r"nccl\w+", _S.IN_COLLECTIVE),
    # -- waiting for the GPU: on CUDA the host of a rank whose collective cannot finish waits
    # here, not inside the collective call
    _Row(
        "cuda_synchronize",
        r"torch/cuda/(__init__|streams)\.py$",
        r"synchronize|wait_stream|wait_event",
        _S.GPU_WAIT,
    ),
    _Row("named_device_synchronize", _ANY, r"(cuda_|device_|stream_)?synchronize", _S.GPU_WAIT),
    _Row(
        "native_cuda_synchronize",
        _NATIVE,
        r"(cuda\w*Synchronize|cu\w*Synchronize|at::native::_local_scalar_dense\w*|"
        r"c10::cuda::\w*[Ss]ynchron\w*|cudaMemcpy\w*).*",
        _S.GPU_WAIT,
    ),
    # -- waiting for a batch
    _Row("torch_dataloader", r"torch/utils/data/", _ANY, _S.DATALOADER_WAIT),
    _Row("torchdata", r"torchdata/", _ANY, _S.DATALOADER_WAIT),
    _Row("litdata", r"litdata/", _ANY, _S.DATALOADER_WAIT),
    _Row("mosaic_streaming", r"streaming/base/", _ANY, _S.DATALOADER_WAIT),
    _Row("dali", r"nvidia/dali/", _ANY, _S.DATALOADER_WAIT),
    # -- checkpoints
    _Row("torch_save_load", r"torch/serialization\.py$", _SAVE_LOAD, _S.IN_CHECKPOINT),
    _Row("distributed_checkpoint", r"torch/distributed/checkpoint/", _ANY, _S.IN_CHECKPOINT),
    _Row("safetensors", r"safetensors/", r"save\w*|load\w*|serialize\w*", _S.IN_CHECKPOINT),
    _Row("named_checkpoint_function", _ANY, _CHECKPOINT_FUNCTIONS, _S.IN_CHECKPOINT),
    # -- backward: compute, or (when the process is idle) DDP waiting for the all-reduce
    _Row(
        "autograd_backward",
        r"torch/autograd/",
        r"_engine_run_backward|backward|grad",
        _S.COMPUTE,
        _S.IN_COLLECTIVE,
    ),
)

_P = PhasePattern
PHASE_PATTERNS: tuple[PhasePattern, ...] = (
    _P("c10d_init", _C10D, _INIT_FUNCTIONS, Phase.INIT),
    _P("rendezvous", r"torch/distributed/(rendezvous\.py|elastic/rendezvous/)", _ANY, Phase.INIT),
    _P("deepspeed_init", r"deepspeed/comm/", _DEEPSPEED_INIT, Phase.INIT),
    _P("torch_save_load", r"torch/serialization\.py$", _SAVE_LOAD, Phase.CHECKPOINT),
    _P("distributed_checkpoint", r"torch/distributed/checkpoint/", _ANY, Phase.CHECKPOINT),
    _P("safetensors", r"safetensors/", r"save\w*|load\w*", Phase.CHECKPOINT),
    _P("named_checkpoint_function", _ANY, _CHECKPOINT_FUNCTIONS, Phase.CHECKPOINT),
    _P("named_evaluation_function", _ANY, _EVALUATION_FUNCTIONS, Phase.EVALUATION),
)

_WORKER_LOOP = FramePattern(
    "dataloader_worker_loop", r"torch/utils/data/_utils/worker\.py$", r"_worker_loop", _S.UNKNOWN
)
_QUEUE_GET = FramePattern("queue_get", r"(multiprocessing/queues|queue)\.py$", r"get", _S.UNKNOWN)

_STDLIB = frozenset(sys.stdlib_module_names)


def is_library_frame(frame: Frame) -> bool:
    """Standard library, torch itself, or native code: never the 'user frame' we report."""
    if frame.is_native or frame.filename.startswith("<frozen"):
        return True
    top = frame.short_filename.split("/", 1)[0].removesuffix(".py")
    return top in _STDLIB or top == "torch"


def user_frame(frames: Sequence[Frame]) -> Frame | None:
    """The innermost frame that is not standard library, torch or native code."""
    for frame in frames:
        if not is_library_frame(frame):
            return frame
    return None


def top_frames(frames: Sequence[Frame], limit: int = 6) -> tuple[str, ...]:
    return tuple(frame.location for frame in frames[:limit])


SIGNATURE_FRAMES = 24  # innermost frames that make a signature: deep enough, bounded


def stack_signature(frames: Sequence[Frame]) -> str:
    """A short stable name for a stack: file, line and function of its innermost frames.

    Ranks of one job blocked at the same place have the same signature (same code, same
    lines); addresses, thread ids and locals never enter it."""
    text = "\n".join(f"{f.short_filename}:{f.line}:{f.function}" for f in frames[:SIGNATURE_FRAMES])
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


@dataclass(frozen=True, slots=True)
class MainClass:
    """What a rank's main thread is doing, from one dump."""

    state: MainState
    idle_state: MainState  # the state to assume when the process used no CPU meanwhile
    phase: Phase | None
    rule: str  # name of the table row that decided (empty: none matched)
    frame: Frame | None  # the frame that decided, else the innermost
    user_frame: Frame | None
    top: tuple[str, ...]
    signature: str = ""  # stack_signature of the main thread: ranks stuck alike share it

    @property
    def where(self) -> str:
        """The frame that decided the state; for plain user code, the innermost user frame."""
        frame = self.frame if self.rule else (self.user_frame or self.frame)
        return frame.location if frame is not None else ""


@dataclass(frozen=True, slots=True)
class WorkerClass:
    state: WorkerState
    frame: Frame | None  # busy: where (user frame, else innermost); idle: the queue wait
    top: tuple[str, ...]


def classify_main(dump: Dump) -> MainClass:
    thread = dump.main_thread()
    if thread is None or not thread.frames:
        return MainClass(MainState.UNKNOWN, MainState.UNKNOWN, None, "", None, None, ())
    frames = thread.frames
    phase = _phase(frames)
    for frame in frames:
        for pattern in MAIN_PATTERNS:
            if pattern.matches(frame):
                return MainClass(
                    state=pattern.state,
                    idle_state=pattern.idle_state or pattern.state,
                    phase=phase or _phase_of_state(pattern.state),
                    rule=pattern.name,
                    frame=frame,
                    user_frame=user_frame(frames),
                    top=top_frames(frames),
                    signature=stack_signature(frames),
                )
    return MainClass(
        MainState.COMPUTE,
        MainState.COMPUTE,
        phase,
        "",
        frames[0],
        user_frame(frames),
        top_frames(frames),
        stack_signature(frames),
    )


def _phase(frames: Sequence[Frame]) -> Phase | None:
    """The long phase the frames show. Code running because a module is being imported is
    start-up, whatever its functions are called (logging's `PercentStyle.validate` while
    `import torch` runs is no evaluation), and so is a standard-library function that
    happens to bear a phase's name: only the frames outside the outermost import, and not
    the standard library's, are read by name."""
    importing = [i for i, f in enumerate(frames)
                 if f.filename.startswith("<frozen importlib") and f.function == "_find_and_load"]
    outside = frames[importing[-1] + 1:] if importing else frames
    for frame in outside:
        for pattern in PHASE_PATTERNS:
            if pattern.matches(frame) and not (pattern.file == _ANY and _is_stdlib(frame)):
                return pattern.phase
    return None


def _phase_of_state(state: MainState) -> Phase | None:
    return {MainState.IN_CHECKPOINT: Phase.CHECKPOINT, MainState.IN_INIT: Phase.INIT}.get(state)


def classify_worker(dump: Dump) -> WorkerClass:
    """A DataLoader worker: idle in its index-queue wait, or busy (in the user's code)."""
    thread = dump.main_thread()
    if thread is None or not thread.frames:
        return WorkerClass(WorkerState.UNKNOWN, None, ())
    frames = thread.frames
    loop_at = next((i for i, f in enumerate(frames) if _WORKER_LOOP.matches(f)), None)
    inner = frames if loop_at is None else frames[:loop_at]
    top = top_frames(frames)
    if loop_at is not None and inner and all(_is_stdlib(f) for f in inner):
        waits = [f for f in inner if _QUEUE_GET.matches(f)]
        if waits:
            return WorkerClass(WorkerState.IDLE, waits[0], top)
    if loop_at is None:
        return WorkerClass(WorkerState.UNKNOWN, user_frame(frames) or frames[0], top)
    return WorkerClass(WorkerState.BUSY, user_frame(inner) or (inner[0] if inner else None), top)


def _is_stdlib(frame: Frame) -> bool:
    top = frame.short_filename.split("/", 1)[0].removesuffix(".py")
    return top in _STDLIB


# ---------------------------------------------------------------------------------------
# py-spy's failures


class DumpResult(str, enum.Enum):
    """Outcome of one dump; the values are the `result` label of pyspy_dumps_total."""

    OK = "ok"
    PERMISSION_DENIED = "permission_denied"
    NOT_PYTHON = "not_python"
    GONE = "gone"
    TIMEOUT = "timeout"
    MISSING = "pyspy_missing"
    BAD_OPTIONS = "bad_options"
    BAD_OUTPUT = "bad_output"
    FAILED = "failed"

    @property
    def blinds(self) -> bool:
        """Failures that say py-spy cannot read any rank, not just this one."""
        return self in (DumpResult.PERMISSION_DENIED, DumpResult.MISSING, DumpResult.BAD_OPTIONS)


# First match wins; searched in py-spy's stderr.
ERROR_PATTERNS: tuple[tuple[str, DumpResult], ...] = (
    (
        r"Permission Denied|Operation not permitted|os error 1\b|os error 13\b",
        DumpResult.PERMISSION_DENIED,
    ),
    (r"Can't get native stack traces with the --nonblocking", DumpResult.BAD_OPTIONS),
    (
        r"Failed to find python version|doesn't appear to be a python|"
        r"Failed to find a python interpreter",
        DumpResult.NOT_PYTHON,
    ),
    (
        r"Failed to get process executable name|No such process|os error 3\b|process .* not found",
        DumpResult.GONE,
    ),
)


def classify_error(stderr: str) -> DumpResult:
    for regex, result in ERROR_PATTERNS:
        if re.search(regex, stderr, re.IGNORECASE):
            return result
    return DumpResult.FAILED


def error_headline(stderr: str) -> str:
    """py-spy's one-line error, without its Rust backtrace."""
    for line in stderr.splitlines():
        text = line.strip()
        if text and not text.startswith(("Stack backtrace", "Caused by")):
            return text[:300]
    return "no error text"


# ---------------------------------------------------------------------------------------
# Observations produced by the sampler


@dataclass(frozen=True, slots=True)
class ProcReading:
    """What /proc said about the process when it was dumped."""

    state: ProcState
    wchan: str
    cpu_seconds: float
    written_bytes: int | None  # /proc/PID/io wchar: bytes passed to write(), any target


@dataclass(frozen=True, slots=True)
class StackSample(Observation):
    """One py-spy dump of one process, classified, with its /proc reading."""

    pid: int
    role: ProcRole
    rank: int | None
    rank_pid: int | None
    round_id: int
    pass_index: int
    result: DumpResult
    message: str  # py-spy's error line when result is not OK
    main: MainClass | None  # ranks
    worker: WorkerClass | None  # DataLoader workers
    proc: ProcReading | None
    dump_path: str  # full dump in the state directory; "" when none was written
    duration_seconds: float


@dataclass(frozen=True, slots=True)
class StackPass(Observation):
    """Sent after the samples of one pass over the targets: verdicts are drawn on it."""

    round_id: int
    pass_index: int
    passes: int  # passes planned for this round
    trigger: str  # "background" or "suspicion: <detector>: <reason>"
    pids: tuple[int, ...]
