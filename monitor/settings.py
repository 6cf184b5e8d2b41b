"""Settings: defaults < TOML file < RANKWATCH_* environment < command line.

One frozen tree of sections, each a dataclass whose field names carry their units. Loading
validates everything in one pass and reports every bad key together (SettingsError).

Environment variables are `RANKWATCH_<SECTION>_<KEY>` (e.g. `RANKWATCH_PROGRESS_STALL_FLOOR_SECONDS`);
keys of the `general` section also answer to `RANKWATCH_<KEY>` (e.g. `RANKWATCH_JOB_ID`).
"""

from __future__ import annotations

import dataclasses
import os
import sys
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monitor.errors import SettingsError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


def _meta(
    doc: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    choices: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    return {"doc": doc, "min": minimum, "max": maximum, "choices": choices}


def setting(default: Any, doc: str, **limits: Any) -> Any:
    """A settings field with its documentation and limits (validation, docs/configuration.md)."""
    if isinstance(default, (list, tuple)):
        value = tuple(default)
        return field(default_factory=lambda: value, metadata=_meta(doc, **limits))
    return field(default=default, metadata=_meta(doc, **limits))


@dataclass(frozen=True)
class GeneralSettings:
    job_id: str = setting("", "Job identifier put on every alert and metric (SLURM job id).")
    node_name: str = setting("", "This node's name; defaults to the host name.")
    node_index: int = setting(
        -1,
        "This node's index in the job (0 polls RAS and speaks for the job, 1 is the RAS "
        "backup); -1: from SLURM (the node list, or SLURM_NODEID), else 0.",
        minimum=-1,
    )
    state_dir: str = setting(
        ".rankwatch-state", "Directory for dumps, the alert spool and other state."
    )
    alert_log: str = setting("", "Write alert records as JSON lines to this file.")
    metrics_addr: str = setting(
        "127.0.0.1:9824", "HOST:PORT of the Prometheus endpoint; empty disables it."
    )
    log_format: str = setting("auto", "Daemon log format.", choices=("auto", "json", "console"))
    log_level: str = setting(
        "warning",
        "Daemon log level (its own events; alerts always print).",
        choices=("debug", "info", "warning", "error"),
    )
    runbook_base_url: str = setting(
        "https://github.com/rankwatch/rankwatch/blob/main/docs/alerts.md#",
        "Alert runbook links are this prefix plus the runbook anchor.",
    )
    tick_seconds: float = setting(
        1.0,
        "How often detectors are ticked (time-based verdicts; observations are handled at once).",
        minimum=0.05,
        maximum=10,
    )
    queue_size: int = setting(
        20000, "Bound of the observation queue; overflow is dropped and counted.", minimum=100
    )
    shutdown_grace_seconds: float = setting(
        5.0, "Deadline for flushing sinks on shutdown.", minimum=0, maximum=120
    )


@dataclass(frozen=True)
class ProcessSettings:
    interval_seconds: float = setting(
        2.0,
        "Process probe interval (exits come at once from the exit-event connector).",
        minimum=0.1,
        maximum=60,
    )
    stopped_alert_seconds: float = setting(
        10.0, "A rank stopped (SIGSTOP, traced) this long raises RankStopped.", minimum=0
    )
    disk_sleep_alert_seconds: float = setting(
        120.0, "A rank in uninterruptible disk sleep this long raises RankDiskSleep.", minimum=1
    )
    oom_memory_fraction: float = setting(
        0.85,
        "A SIGKILL while node memory use was above this fraction says 'possible OOM kill'.",
        minimum=0,
        maximum=1,
    )
    exit_events: bool = setting(
        True, "Use the kernel's process-event connector (root) for exact exit statuses."
    )
    unknown_exit_hold_seconds: float = setting(
        5.0,
        "A rank whose exit status nobody could learn is reported after this long, unless the "
        "job ends with status 0 first (the ranks of a finished job exit just before it).",
        minimum=0,
        maximum=300,
    )


@dataclass(frozen=True)
class ProgressSettings:
    stall_floor_seconds: float = setting(
        20.0, "Never declare a stall sooner than this after the last step.", minimum=1
    )
    stall_multiplier: float = setting(
        5.0, "A stall is k times the learned p99 step interval (k).", minimum=1
    )
    stall_ceiling_seconds: float = setting(
        1800.0, "The learned stall window never exceeds this.", minimum=1
    )
    critical_after_multiplier: float = setting(
        2.0, "A stall window this many times over escalates to critical.", minimum=1
    )
    first_step_grace_seconds: float = setting(
        1800.0, "Time allowed before the first step (model load, compile).", minimum=1
    )
    checkpoint_grace_seconds: float = setting(
        1800.0, "Time allowed for a checkpoint save seen in the output.", minimum=1
    )
    evaluation_grace_seconds: float = setting(
        3600.0, "Time allowed for an evaluation phase seen in the output.", minimum=1
    )
    min_intervals: int = setting(
        3, "Step intervals needed before the learned window replaces the floor.", minimum=1
    )
    cpu_active_fraction: float = setting(
        0.02, "A rank using less CPU than this fraction of a core is idle.", minimum=0, maximum=1
    )


@dataclass(frozen=True)
class IncidentSettings:
    settle_seconds: float = setting(
        1.5,
        "Findings that arrive this close together are judged together, so the first cause "
        "(a SIGKILLed rank) leads and its peers' teardown becomes its evidence.",
        minimum=0,
        maximum=30,
    )
    stop_grace_seconds: float = setting(
        120.0,
        "After a stop was asked (a forwarded signal, scancel, the launcher shutting down), "
        "what happens for this long is recorded as info; a job still running after it is "
        "watched as usual again.",
        minimum=1,
    )


@dataclass(frozen=True)
class TorchDebugSettings:
    base_port: int = setting(
        0,
        "The job opted in to torch's debug servers at this port + local rank "
        "(torch.distributed.debug.start_debug_server); 0: it did not.",
        minimum=0,
        maximum=65535,
    )
    timeout_seconds: float = setting(5.0, "Deadline of one debug-server request.", minimum=0.5)
    min_gap_seconds: float = setting(
        15.0, "At most one query of the debug servers this often (on suspicion only).", minimum=1
    )


@dataclass(frozen=True)
class MemorySettings:
    available_warning_fraction: float = setting(
        0.10, "Warn when available node memory falls under this fraction.", minimum=0, maximum=1
    )
    horizon_seconds: float = setting(
        60.0, "Warn when memory is projected to run out within this horizon.", minimum=1
    )


@dataclass(frozen=True)
class StreamSettings:
    max_line_bytes: int = setting(
        1_048_576, "Longer lines are cut to this length (counted).", minimum=256
    )
    follow_poll_seconds: float = setting(
        0.25, "How often followed files are checked for new data.", minimum=0.01, maximum=10
    )
    srun_label_prefix: bool = setting(False, "Treat a leading 'N: ' as srun --label's task id.")
    host_prefix: bool = setting(False, "Strip a leading 'host: ' (pdsh, DeepSpeed runner).")


@dataclass(frozen=True)
class LogEventsSettings:
    enabled: bool = setting(True, "Recognise events (NCCL, PyTorch, CUDA, SLURM...) in the output.")
    settle_seconds: float = setting(
        2.0,
        "Wait this long after the first line of an incident before alerting, so the lines of "
        "other ranks join the same alert.",
        minimum=0,
        maximum=60,
    )
    resolve_after_seconds: float = setting(
        900.0, "A log alert resolves after this long without a new matching line.", minimum=10
    )
    block_idle_seconds: float = setting(
        1.0,
        "A traceback or multi-line dump is complete after this long without its next line.",
        minimum=0.05,
        maximum=30,
    )
    nccl_init_hold_seconds: float = setting(
        600.0,
        "While NCCL initialises (its init START line seen, COMPLETE not yet), the progress "
        "stall window extends up to this long: slow bootstrap is not a stall.",
        minimum=1,
    )
    escalating_retries: int = setting(
        3, "Escalating retries (attempt 2 and later) within the window that raise an alert.",
        minimum=1,
    )
    escalating_window_seconds: float = setting(
        300.0, "Window for counting escalating retries.", minimum=1
    )


@dataclass(frozen=True)
class RasSettings:
    enabled: bool = setting(True, "Poll NCCL's RAS port.")
    addr: str = setting("", "HOST:PORT of the RAS port; default NCCL_RAS_ADDR or localhost:28028.")
    interval_seconds: float = setting(10.0, "RAS poll interval.", minimum=5, maximum=3600)
    max_interval_seconds: float = setting(
        60.0, "The interval stretches up to this when replies are slow or time out.", minimum=5
    )
    slow_reply_factor: float = setting(
        10.0, "The interval is at least this many times the last reply's duration.", minimum=1
    )
    poll_nodes: int = setting(
        2, "How many nodes poll (node index 0 primary, 1 backup).", minimum=0
    )
    settle_seconds: float = setting(
        30.0,
        "Wait this long after the RAS port first answers before the first STATUS "
        "(communicators are being created then).",
        minimum=0,
    )
    prefer_json: bool = setting(
        True, "Ask for JSON (NCCL 2.28.7+); older servers fall back to text on their own."
    )
    connect_timeout_seconds: float = setting(2.0, "Connect deadline.", minimum=0.1)
    handshake_timeout_seconds: float = setting(
        1.0, "Deadline for the CLIENT PROTOCOL reply; one reconnect follows.", minimum=0.1
    )
    collection_timeout_seconds: int = setting(
        5, "TIMEOUT sent to the server: its job-wide collection limit.", minimum=1, maximum=60
    )
    reply_timeout_seconds: float = setting(
        12.0,
        "Overall deadline for one STATUS exchange; a reply cut by it is kept, marked partial.",
        minimum=0.5,
    )
    max_reply_bytes: int = setting(
        268_435_456, "Replies are cut (and marked partial) beyond this size.", minimum=65536
    )
    verbose: bool = setting(False, "Send VERBOSE STATUS (only to NCCL 2.29.2+, see #1762).")
    skip_versions: tuple[str, ...] = setting(
        ("2.24", "2.25", "2.26"),
        "NCCL versions never polled (prefix match, e.g. '2.26' or '2.28.9').",
    )
    stall_floor_seconds: float = setting(
        30.0, "Collective counts frozen at least this long are a stall.", minimum=5
    )
    stall_ceiling_seconds: float = setting(
        600.0, "Collective stall window never exceeds this.", minimum=5
    )
    paced_floor_seconds: float = setting(
        15.0,
        "Once a communicator's pace (operations per second) is known, counts frozen this long "
        "are a stall (at 40 ops/s, 15 s is 600 missing operations).",
        minimum=2,
    )
    stall_multiplier: float = setting(
        3.0,
        "Stall window: this many times the longest recent gap between count advances.",
        minimum=1,
    )
    missing_hold_seconds: float = setting(
        60.0, "Missing ranks this long escalate to critical.", minimum=0
    )


@dataclass(frozen=True)
class PyspySettings:
    enabled: bool = setting(True, "Take py-spy dumps on suspicion.")
    executable: str = setting("py-spy", "py-spy executable.")
    native: bool = setting(False, "Pass --native (slower; shows C++ frames).")
    nonblocking: bool = setting(True, "Pass --nonblocking (never pauses the ranks).")
    dump_timeout_seconds: float = setting(10.0, "Kill a dump that takes longer.", minimum=1)
    repeats: int = setting(3, "Dumps per suspicion round.", minimum=1, maximum=10)
    repeat_gap_seconds: float = setting(3.0, "Gap between repeated dumps.", minimum=0.1)
    background_interval_seconds: float = setting(
        300.0, "Background dump cadence; 0 disables.", minimum=0
    )
    min_round_gap_seconds: float = setting(
        15.0, "Rate limit: at least this long between dump rounds.", minimum=1
    )
    max_parallel_dumps: int = setting(
        4, "Dumps run at the same time within one pass.", minimum=1, maximum=64
    )
    max_dump_files: int = setting(
        500, "Full dumps kept in <state_dir>/pyspy (oldest deleted first).", minimum=1
    )
    suspect_idle_seconds: float = setting(
        10.0, "A rank using no CPU this long asks for stacks (suspicion).", minimum=1
    )
    recheck_seconds: float = setting(
        60.0, "While a rank stays idle, ask for fresh stacks this often.", minimum=5
    )
    straggler_alert_seconds: float = setting(
        30.0,
        "Ranks waiting in a collective this long while a local rank is elsewhere: "
        "RankNotInCollective.",
        minimum=1,
    )
    checkpoint_stall_seconds: float = setting(
        120.0,
        "A rank in a checkpoint save writing nothing and using no CPU this long: "
        "CheckpointStalled.",
        minimum=5,
    )


@dataclass(frozen=True)
class ClockSettings:
    enabled: bool = setting(True, "Watch clock health.")
    step_check_seconds: float = setting(
        1.0, "Cadence of the wall/monotonic comparison.", minimum=0.1
    )
    step_threshold_seconds: float = setting(
        0.05, "A wall-vs-monotonic jump larger than this is a step.", minimum=0.001
    )
    offset_interval_seconds: float = setting(60.0, "Offset measurement cadence.", minimum=1)
    offset_threshold_seconds: float = setting(0.1, "Offset beyond this raises an alert.", minimum=0)
    ntp_servers: tuple[str, ...] = setting((), "SNTP servers as host:port (port 123 default).")
    chronyc: str = setting("chronyc", "chronyc executable; empty disables asking chronyd.")
    chronyc_host: str = setting(
        "", "chronyc -h value (command socket path or host); empty uses chronyc's default."
    )
    chronyc_timeout_seconds: float = setting(
        2.0, "Kill a chronyc call that takes longer.", minimum=0.1, maximum=60
    )
    sntp_samples: int = setting(
        4, "SNTP exchanges per server per measurement; the least delayed one counts.",
        minimum=1, maximum=16,
    )
    sntp_sample_gap_seconds: float = setting(
        0.25, "Pause between the SNTP exchanges of one measurement.", minimum=0, maximum=10
    )
    sntp_timeout_seconds: float = setting(
        1.0, "Wait this long for one SNTP reply.", minimum=0.01, maximum=30
    )
    kernel_status: bool = setting(True, "Read the kernel's synchronisation status (adjtimex).")
    step_alert_hold_seconds: float = setting(
        600.0, "ClockSteppedBackwards resolves after this long without another backwards step.",
        minimum=1,
    )
    periodic_min_steps: int = setting(
        3, "Backwards steps at a steady interval needed to call them periodic.", minimum=2
    )
    unsynchronised_grace_seconds: float = setting(
        300.0, "ClockUnsynchronised fires after the clock is unsynchronised this long.", minimum=0
    )
    slew_window_seconds: float = setting(
        60.0, "Window over which the kernel's frequency adjustment is measured.", minimum=1
    )
    slew_threshold_ppm: float = setting(
        500.0, "A frequency adjustment beyond this (ppm) is an unusual slew.", minimum=1
    )


@dataclass(frozen=True)
class DeliverySettings:
    notify_nodes: str = setting(
        "auto",
        "Which nodes send job-level alerts: auto (reporting node), all.",
        choices=("auto", "all"),
    )
    warning_sinks: tuple[str, ...] = setting(
        ("slack", "alertmanager", "webhook"), "Sinks that receive warnings."
    )
    critical_sinks: tuple[str, ...] = setting(
        ("slack", "pagerduty", "alertmanager", "webhook"), "Sinks that receive critical alerts."
    )
    slack_webhook_url_file: str = setting("", "File holding the Slack incoming-webhook URL.")
    pagerduty_routing_key_file: str = setting("", "File holding the PagerDuty routing key.")
    pagerduty_url: str = setting(
        "https://events.pagerduty.com/v2/enqueue", "PagerDuty Events API v2 endpoint."
    )
    alertmanager_url: str = setting("", "Alertmanager base URL, e.g. http://am:9093.")
    webhook_url_file: str = setting("", "File holding a generic JSON webhook URL.")
    max_attempts_seconds: float = setting(
        3600.0, "Give up delivering an alert after this long.", minimum=1
    )
    alertmanager_resend_seconds: float = setting(
        60.0,
        "Re-send firing alerts to Alertmanager this often; keep well below its resolve_timeout.",
        minimum=1,
        maximum=3600,
    )
    generator_url: str = setting(
        "", "Dashboard URL sent as Alertmanager's generatorURL; empty: the alert's runbook."
    )
    coalesce_seconds: float = setting(
        30.0,
        "At most one message per alert per sink in this interval (escalations do not wait).",
        minimum=0,
    )
    queue_size: int = setting(
        1000, "Alerts waiting per sink; beyond this new alerts are dropped and counted.", minimum=1
    )
    request_timeout_seconds: float = setting(
        10.0, "Deadline of one HTTP request to a sink.", minimum=0.1, maximum=300
    )
    retry_initial_backoff_seconds: float = setting(
        1.0, "First retry delay; doubles per attempt, with jitter.", minimum=0.01
    )
    retry_max_backoff_seconds: float = setting(
        60.0, "Longest delay between two retries.", minimum=0.01
    )
    retry_after_max_seconds: float = setting(
        600.0, "A sink's Retry-After is honoured up to this long.", minimum=0
    )
    slack_min_interval_seconds: float = setting(
        1.0, "At least this long between two Slack messages (Slack allows ~1/s).", minimum=0
    )


@dataclass(frozen=True)
class SlurmSettings:
    # The Prometheus file_sd registration is written by deploy/slurm/prolog.sh, not here: it
    # must exist even when the daemon fails to start (that is what RankwatchSidecarDown sees).
    scontrol: str = setting("scontrol", "scontrol executable.")
    scontrol_timeout_seconds: float = setting(
        10.0, "Deadline for one scontrol call.", minimum=1, maximum=120
    )
    listpids_interval_seconds: float = setting(
        5.0,
        "How often `scontrol listpids` (local slurmstepd only, never slurmctld) is asked for "
        "processes of new job steps.",
        minimum=1,
    )
    follow_shared_output: bool = setting(
        False,
        "On nodes other than the batch host, also follow the batch script's output file when "
        "it is visible there (shared file system); it holds every rank's lines.",
    )
    teardown_grace_seconds: float = setting(
        10.0,
        "A rank killed by SIGTERM or SIGKILL is reported as dead only if the epilog has not "
        "stopped rankwatch within this time (scancel, time limit, preemption).",
        minimum=0,
    )


@dataclass(frozen=True)
class Settings:
    general: GeneralSettings = field(default_factory=GeneralSettings)
    process: ProcessSettings = field(default_factory=ProcessSettings)
    progress: ProgressSettings = field(default_factory=ProgressSettings)
    incidents: IncidentSettings = field(default_factory=IncidentSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    stream: StreamSettings = field(default_factory=StreamSettings)
    log_events: LogEventsSettings = field(default_factory=LogEventsSettings)
    ras: RasSettings = field(default_factory=RasSettings)
    pyspy: PyspySettings = field(default_factory=PyspySettings)
    torch_debug: TorchDebugSettings = field(default_factory=TorchDebugSettings)
    clock: ClockSettings = field(default_factory=ClockSettings)
    delivery: DeliverySettings = field(default_factory=DeliverySettings)
    slurm: SlurmSettings = field(default_factory=SlurmSettings)


_SECTION_TYPES: dict[str, type[Any]] = typing.get_type_hints(Settings)


def section_fields(section: str) -> dict[str, tuple[Any, dataclasses.Field[Any]]]:
    cls = _SECTION_TYPES[section]
    hints = typing.get_type_hints(cls)
    return {f.name: (hints[f.name], f) for f in dataclasses.fields(cls)}


def load_settings(
    config_file: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build the frozen settings tree; raise SettingsError listing every problem at once.

    `overrides` are command-line values keyed "section.key" (already typed by argparse).
    """
    problems: list[str] = []
    layers: dict[str, dict[str, tuple[Any, str]]] = {name: {} for name in _SECTION_TYPES}

    if config_file is not None:
        _layer_toml(Path(config_file), layers, problems)
    _layer_env(os.environ if env is None else env, layers, problems)
    for dotted, value in (overrides or {}).items():
        section, _, key = dotted.partition(".")
        _put(layers, problems, section, key, value, "command line")

    sections: dict[str, Any] = {}
    for name, values in layers.items():
        fields = section_fields(name)
        kwargs: dict[str, Any] = {}
        for key, (raw, origin) in values.items():
            hint, fld = fields[key]
            converted = _convert(raw, hint, f"{name}.{key}", origin, problems)
            if converted is _INVALID:
                continue
            _check_limits(converted, fld, f"{name}.{key}", origin, problems)
            kwargs[key] = converted
        sections[name] = _SECTION_TYPES[name](**kwargs)
    if problems:
        raise SettingsError(problems)
    return Settings(**sections)


def _layer_toml(
    path: Path, layers: dict[str, dict[str, tuple[Any, str]]], problems: list[str]
) -> None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        problems.append(f"{path}: cannot read config file: {exc.strerror or exc}")
        return
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        problems.append(f"{path}: not valid TOML: {exc}")
        return
    for section, table in data.items():
        if section not in layers:
            problems.append(f"{path}: unknown section [{section}]")
            continue
        if not isinstance(table, dict):
            problems.append(f"{path}: [{section}] must be a table")
            continue
        for key, value in table.items():
            _put(layers, problems, section, key, value, str(path))


def _layer_env(
    env: Mapping[str, str], layers: dict[str, dict[str, tuple[Any, str]]], problems: list[str]
) -> None:
    for var, value in env.items():
        if not var.startswith("RANKWATCH_"):
            continue
        rest = var[len("RANKWATCH_") :].lower()
        # Section names may hold underscores (log_events): the longest matching one wins.
        section = next(
            (name for name in sorted(layers, key=len, reverse=True) if rest.startswith(name + "_")),
            "",
        )
        key = rest[len(section) + 1 :] if section else ""
        if section and key in section_fields(section):
            _put(layers, problems, section, key, value, var)
        elif rest in section_fields("general"):
            _put(layers, problems, "general", rest, value, var)
        else:
            problems.append(f"{var}: unknown setting")


def _put(
    layers: dict[str, dict[str, tuple[Any, str]]],
    problems: list[str],
    section: str,
    key: str,
    value: Any,
    origin: str,
) -> None:
    if section not in layers:
        problems.append(f"{origin}: unknown section {section!r}")
    elif key not in section_fields(section):
        problems.append(f"{origin}: unknown key {section}.{key}")
    else:
        layers[section][key] = (value, origin)


_INVALID = object()


def _convert(raw: Any, hint: Any, name: str, origin: str, problems: list[str]) -> Any:
    """Coerce a TOML value or an environment string to the field's type."""
    optional = False
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        optional, hint = True, args[0]
    if optional and (raw is None or raw == ""):
        return None
    try:
        if hint is bool:
            return _to_bool(raw)
        if hint is int:
            if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
                raise ValueError
            return int(raw)
        if hint is float:
            if isinstance(raw, bool):
                raise ValueError
            return float(raw)
        if hint is str:
            if not isinstance(raw, str):
                raise ValueError
            return raw
        if typing.get_origin(hint) is tuple:
            if isinstance(raw, str):
                items = [part.strip() for part in raw.split(",") if part.strip()]
            elif isinstance(raw, (list, tuple)):
                items = list(raw)
            else:
                raise ValueError
            if not all(isinstance(item, str) for item in items):
                raise ValueError
            return tuple(items)
    except (TypeError, ValueError):
        pass
    problems.append(f"{origin}: {name} must be {_type_name(hint)}, got {raw!r}")
    return _INVALID


def _to_bool(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.lower() in {"1", "true", "yes", "on"}:
        return True
    if isinstance(raw, str) and raw.lower() in {"0", "false", "no", "off"}:
        return False
    raise ValueError


def _type_name(hint: Any) -> str:
    if typing.get_origin(hint) is tuple:
        return "a list of strings"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}.get(
        hint, str(hint)
    )


def _check_limits(
    value: Any, fld: dataclasses.Field[Any], name: str, origin: str, problems: list[str]
) -> None:
    meta = fld.metadata
    if meta.get("min") is not None and value < meta["min"]:
        problems.append(f"{origin}: {name} must be >= {meta['min']}, got {value!r}")
    if meta.get("max") is not None and value > meta["max"]:
        problems.append(f"{origin}: {name} must be <= {meta['max']}, got {value!r}")
    if meta.get("choices") and value not in meta["choices"]:
        problems.append(
            f"{origin}: {name} must be one of {', '.join(meta['choices'])}, got {value!r}"
        )


def settings_reference() -> list[tuple[str, str, str]]:
    """(key, default, doc) rows for every setting, used to generate docs/configuration.md."""
    rows = []
    for section in _SECTION_TYPES:
        for key, (_hint, fld) in section_fields(section).items():
            if fld.default is not dataclasses.MISSING:
                default: Any = fld.default
            else:
                default = fld.default_factory()  # type: ignore[operator]
            rows.append((f"{section}.{key}", repr(default), fld.metadata["doc"]))
    return rows


def render_settings_reference() -> str:
    """docs/configuration.md's tables, one per section, from the settings' own docs."""
    out: list[str] = []
    current = ""
    for key, default, doc in settings_reference():
        section, name = key.split(".", 1)
        if section != current:
            current = section
            out += ["", f"**[{section}]**", "", "| key | default | meaning |", "|---|---|---|"]
        cell = doc.replace("|", "\\|")
        out.append(f"| `{name}` | `{default}` | {cell} |")
    return "\n".join(out[1:]) + "\n"
