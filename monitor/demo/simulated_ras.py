"""A SIMULATED NCCL RAS endpoint: it speaks the RAS client protocol but no NCCL is involved.

`rankwatch demo` starts one on loopback so that a first-time user sees the RAS path work without
a GPU job, and the test suite's fake server (tests/fake_ras.py) builds its scripted scenarios and
broken-server modes on it. Nothing in rankwatch's watch path uses this module.

It follows the RAS client protocol as NCCL 2.24-2.32 implement it:

* silent until spoken to; lines end in `\\n` (a `\\r` before it is dropped); a line that fills the
  1024-byte buffer without a newline closes the connection silently;
* keywords match without regard to case and nothing is trimmed; one-line replies to
  `CLIENT PROTOCOL`, `TIMEOUT`, `SET FORMAT`, `MONITOR`, `CONTROL`; `ERROR: Unknown command <line>`
  for anything else, including the commands the emulated version does not know yet;
* `STATUS` / `VERBOSE STATUS`: a text report in two chunks (the first ends in the middle of the
  `Communicators...` line, the rest follows after the collection delay), or a JSON document; the
  server closes after the report;
* version-specific formats (UNKNOWN/NOCOMM, one counter or five, missing-rank formats, `%.2f` or
  `%.3f`, blank-line rules, the 2.28.7/2.28.9 JSON comma bug).

Not emulated: lines pipelined after STATUS in the same write (NCCL still parses them), MONITOR
events (only the `OK`), and the content of DIAGNOSTICS.

Reports are rendered from a small model of a job (`JobState`: processes, communicators, counts)
that a state function produces per STATUS query, so the simulated job can change over time.
"""

from __future__ import annotations

import contextlib
import math
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

OPS = ("Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce")
STATUS_WORDS = ("NOCOMM", "INIT", "RUNNING", "FINALIZE", "ABORT")
ERROR_TEXTS = {
    1: "Unhandled CUDA error",
    2: "System error",
    3: "Internal error",
    4: "Invalid argument",
    5: "Invalid usage",
    6: "Remote process error",
}
LINE_BUFFER_BYTES = 1024

# --------------------------------------------------------------------------------------------
# The model of a job, as RAS sees it.


@dataclass
class Peer:
    """One NCCL process. `state`: alive (answers), unresponsive (stopped), dead."""

    host: str
    pid: int
    gpus: tuple[int, ...]
    nvml: tuple[int, ...] | None = None  # None: same as gpus
    port: int = 0
    state: str = "alive"

    @property
    def nvml_gpus(self) -> tuple[int, ...]:
        return self.nvml if self.nvml is not None else self.gpus


@dataclass
class Member:
    """One rank of a communicator."""

    rank: int
    peer: Peer
    gpu: int
    nvml: int | None = None
    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    init_state: int = 0
    async_error: int = 0
    finalize_called: bool = False
    destroy_flag: bool = False
    abort_flag: bool = False
    nocomm: bool = False  # the process answered without this communicator

    @property
    def nvml_gpu(self) -> int:
        return self.nvml if self.nvml is not None else self.gpu

    @property
    def status(self) -> int:
        if self.nocomm:
            return 0
        if self.abort_flag:
            return 4
        if self.finalize_called or self.destroy_flag:
            return 3
        return 2 if self.init_state == 0 else 1

    @property
    def answered(self) -> bool:
        return self.peer.state == "alive" and not self.nocomm

    @property
    def missing(self) -> bool:
        return self.peer.state != "alive"


@dataclass
class Comm:
    hash: int
    members: list[Member]
    host_hash: int = 0x1111111111111111
    pid_hash: int = 0x2222222222222222


@dataclass
class JobState:
    version: str = "2.29.7"
    cuda: str = "13.0"
    cuda_runtime: int = 13000
    cuda_driver: int = 13000
    peers: list[Peer] = field(default_factory=list)
    comms: list[Comm] = field(default_factory=list)
    timeouts: int = 0
    collection_seconds: float | None = None  # None: report the real delay
    collection_delay_seconds: float = 0.005
    timestamp: str = ""  # JSON; "" means the local time now
    zero_comm: bool = False  # add a zero-filled JSON entry (NCCL issue #2346)


def version_tuple(version: str) -> tuple[int, int, int]:
    major, minor, patch = version.split(".")[:3]
    digits = "".join(ch for ch in patch if ch.isdigit()) or "0"
    return int(major), int(minor), int(digits)


# --------------------------------------------------------------------------------------------
# Building jobs.


def make_peers(
    nodes: int, gpus_per_node: int, *, subnet: str = "10.0.0.", first_host: int = 11,
    first_pid: int = 4100
) -> list[Peer]:
    """One process per GPU; node n is `subnet + (first_host + n)`; pids count up per node."""
    peers = []
    for node in range(nodes):
        host = f"{subnet}{first_host + node}"
        for local in range(gpus_per_node):
            pid = first_pid + node * 1000 + local
            peers.append(Peer(host, pid, (local,), port=40000 + local))
    return peers


def world_comm(peers: Sequence[Peer], hash_value: int, counts: tuple[int, ...]) -> Comm:
    members = [
        Member(rank, peer, peer.gpus[0], counts=five_counts(counts)) for rank, peer in enumerate(peers)
    ]
    return Comm(hash_value, members, pid_hash=hash_value ^ 0x5A5A5A5A5A5A5A5A)


def five_counts(counts: Sequence[int]) -> tuple[int, int, int, int, int]:
    values = list(counts) + [0] * (5 - len(counts))
    return values[0], values[1], values[2], values[3], values[4]


# --------------------------------------------------------------------------------------------
# Text rendering (§3 of the protocol notes).


def _is_outlier(count: int, total: int | None, verbose: bool) -> bool:
    if count == 1:
        return True
    if verbose:
        return total is None or count < 0.5 * total
    return count <= 10 and (total is None or count <= 0.25 * total)


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return word if n == 1 else (plural or word + "s")


def _gpu_text(member: Member) -> str:
    text = str(member.gpu)
    if member.nvml_gpu != member.gpu:
        text += f" (NVML {member.nvml_gpu})"
    return text


def _process_gpus(peer: Peer) -> str:
    text = f"{_plural(len(peer.gpus), 'GPU')} {','.join(str(g) for g in peer.gpus)}"
    if peer.nvml_gpus != peer.gpus:
        text += f" (NVML {','.join(str(g) for g in peer.nvml_gpus)})"
    return text


def _where(member: Member) -> str:
    peer = member.peer
    return f"GPU {_gpu_text(member)} managed by process {peer.pid} on node {peer.host}"


def _ip_key(host: str) -> tuple[int, ...]:
    try:
        return tuple(socket.inet_pton(socket.AF_INET6 if ":" in host else socket.AF_INET, host))
    except OSError:
        return (255,) * 16


_INCOMPLETE, _ERROR, _MISMATCH = 4, 2, 1


@dataclass
class _CommView:
    comm: Comm
    answered: list[Member]
    nocomm: list[Member]
    missing: list[Member]
    nodes: int
    status: int
    errors: int


def _view(comm: Comm) -> _CommView:
    answered = [m for m in comm.members if m.answered]
    nocomm = [m for m in comm.members if m.peer.state == "alive" and m.nocomm]
    missing = [m for m in comm.members if m.missing]
    errors = 0
    if missing:
        errors |= _INCOMPLETE
    if any(m.init_state not in (0, 7) or m.async_error not in (0, 7) for m in answered):
        errors |= _ERROR
    if nocomm or len({(m.counts, m.status) for m in answered}) > 1:
        errors |= _MISMATCH
    return _CommView(
        comm,
        answered,
        nocomm,
        missing,
        len({m.peer.host for m in answered}),
        max((m.status for m in answered), default=0),
        errors,
    )


def _error_word(bits: int) -> str:
    words = [w for b, w in ((_INCOMPLETE, "INCOMPLETE"), (_ERROR, "ERROR"), (_MISMATCH, "MISMATCH"))
             if bits & b]
    return ",".join(words) or "OK"


def render_text_chunks(state: JobState, *, verbose: bool, elapsed: float) -> tuple[str, str]:
    """The two chunks of a text STATUS reply: up to `Communicators...`, then the rest."""
    ver = version_tuple(state.version)
    modern = ver >= (2, 26, 0)
    first = [
        f"NCCL version {state.version} compiled with CUDA {state.cuda}\n",
        f"CUDA runtime version {state.cuda_runtime}, driver version {state.cuda_driver}\n\n",
        "Job summary\n===========\n\n",
        _job_summary(state, verbose),
        "\nCommunicators...",
    ]
    seconds = state.collection_seconds if state.collection_seconds is not None else elapsed
    timing = f"{seconds:.3f}" if ver >= (2, 28, 7) else f"{seconds:.2f}"
    rest = [f" ({timing}s)\n=============\n\n"]
    views = [v for v in (_view(c) for c in state.comms) if v.answered or v.nocomm]
    views.sort(key=lambda v: (-v.comm.members.__len__(), -v.nodes, -v.status, -v.errors,
                              len(v.answered)))
    groups: list[list[_CommView]] = []
    for view in views:
        key = (len(view.comm.members), view.nodes, view.status, view.errors)
        if groups and key == _group_key(groups[-1][0]):
            groups[-1].append(view)
        else:
            groups.append([view])
    header = (
        "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
        "    #  in group  per comm  per node  per comm  in group\n"
    )
    if groups or not modern:
        rest.append(header)
    if not groups:
        rest.append("No communicator data collected!\n")
    words = STATUS_WORDS if modern else ("UNKNOWN", *STATUS_WORDS[1:])
    for index, group in enumerate(groups):
        per_node: list[int] = []
        for view in group:
            hosts: dict[str, int] = {}
            for m in view.answered:
                hosts[m.peer.host] = hosts.get(m.peer.host, 0) + 1
            per_node.extend(hosts.values())
        low, high = (min(per_node), max(per_node)) if per_node else (0, 0)
        per_node_text = str(low) if low == high else f"{low}-{high}"
        distinct = {(m.peer.pid, m.nvml_gpu) for v in group for m in v.answered}
        first_view = group[0]
        rest.append(
            f"{index:5d}  {len(group):8d}  {first_view.nodes:8d}  {per_node_text:>8s}  "
            f"{len(first_view.comm.members):8d}  {len(distinct):8d}  "
            f"{words[first_view.status]:>8s}  {_error_word(first_view.errors):>6s}\n"
        )
    ids = {id(v): f"#{g}-{c}" for g, group in enumerate(groups) for c, v in enumerate(group)}
    ordered = [v for group in groups for v in group]
    rest.append("\nErrors\n======\n\n")
    rest.append(_errors_section(state, ordered, ids, verbose, modern))
    rest.append("Warnings\n========\n\n")
    rest.append(_warnings_section(state, ordered, ids, verbose, modern, words))
    return "".join(first), "".join(rest)


def _group_key(view: _CommView) -> tuple[int, int, int, int]:
    return (len(view.comm.members), view.nodes, view.status, view.errors)


def _job_summary(state: JobState, verbose: bool) -> str:
    peers = sorted(state.peers, key=lambda p: (_ip_key(p.host), p.port))
    if not peers:
        return ""
    by_node: dict[str, list[Peer]] = {}
    for peer in peers:
        by_node.setdefault(peer.host, []).append(peer)
    per_node = [len(v) for v in by_node.values()]
    per_process = [len(p.gpus) for p in peers]
    total_gpus = sum(per_process)
    if len(set(per_node)) == 1 and len(set(per_process)) == 1:
        return (
            "  Nodes  Processes         GPUs  Processes     GPUs\n"
            "(total)   per node  per process    (total)  (total)\n"
            f"{len(by_node):7d}  {per_node[0]:9d}  {per_process[0]:11d}  {len(peers):9d}  "
            f"{total_gpus:7d}\n"
        )
    node_rows = _value_rows(per_node)
    out = []
    if len(set(per_process)) == 1:
        out.append("  Nodes  Processes         GPUs\n          per node  per process\n")
        out.extend(f"{n:7d}  {v:9d}  {per_process[0]:11d}\n" for n, v in node_rows)
    else:
        out.append("  Nodes  Processes\n          per node\n")
        out.extend(f"{n:7d}  {v:9d}\n" for n, v in node_rows)
        out.append("\n         Processes         GPUs\n                    per process\n")
        out.extend(f"         {n:9d}  {v:11d}\n" for n, v in _value_rows(per_process))
    out.append(
        "\n  Nodes  Processes         GPUs\n(total)    (total)      (total)\n"
        f"{len(by_node):7d}  {len(peers):9d}  {total_gpus:11d}\n"
    )
    if len(set(per_process)) == 1:
        # Quirk of every version: the pids come from the start of the peer array (ordered by
        # processes per node here), not from the outlier node itself.
        quirky = sorted(peers, key=lambda p: (len(by_node[p.host]), _ip_key(p.host), p.port))
        for count_nodes, value in node_rows[1:]:
            if not _is_outlier(count_nodes, len(by_node), verbose):
                continue
            hosts = [h for h, v in by_node.items() if len(v) == value]
            out.append(f"\nThe outlier {_plural(len(hosts), 'node')}:\n")
            for host in hosts:
                pids = ",".join(str(p.pid) for p in quirky[:value])
                noun = _plural(value, "process", "processes")
                out.append(f"  Node {host} running {noun} {pids}\n")
    return "".join(out)


def _value_rows(values: list[int]) -> list[tuple[int, int]]:
    counts: dict[int, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return sorted(((n, v) for v, n in counts.items()), key=lambda nv: (-nv[0], -nv[1]))


def _process_lines(peers: list[Peer]) -> str:
    ordered = sorted(peers, key=lambda p: (_ip_key(p.host), p.pid))
    return "".join(
        f"  Process {p.pid} on node {p.host} managing {_process_gpus(p)}\n" for p in ordered
    )


def _errors_section(
    state: JobState, views: list[_CommView], ids: dict[int, str], verbose: bool, modern: bool
) -> str:
    out = []
    unresponsive = [p for p in state.peers if p.state == "unresponsive"]
    dead = [p for p in state.peers if p.state == "dead"]
    if unresponsive:
        n = len(unresponsive)
        out.append(f"INCOMPLETE\n  Missing communicator data from {n} job "
                   f"{_plural(n, 'process', 'processes')}\n")
        if _is_outlier(n, None, verbose):
            out.append(_process_lines(unresponsive))
        out.append("\n")
    if dead:
        n = len(dead)
        verb = "job process is" if n == 1 else "job processes are"
        out.append(f"DEAD\n  {n} {verb} considered dead (unreachable via the RAS network)\n")
        if _is_outlier(n, None, verbose):
            out.append(_process_lines(dead))
        out.append("\n")
    for view in views:
        cid = f"{ids[id(view)]} ({view.comm.hash:016x})"
        if view.errors & _INCOMPLETE:
            missing = sorted(view.missing, key=lambda m: m.rank)
            if modern:
                n = len(missing)
                out.append(f"{cid} INCOMPLETE\n  Missing communicator data from {n} "
                           f"{_plural(n, 'rank')}\n")
                if _is_outlier(n, None, verbose):
                    out.extend(f"  Rank {m.rank} -- {_where(m)}\n" for m in missing)
            else:
                n = len(view.comm.members) - len(view.answered)
                out.append(f"{cid} INCOMPLETE\n  Missing communicator data from {n} "
                           f"{_plural(n, 'rank')}\n")
                if _is_outlier(n, None, verbose):
                    out.append(f"  The missing {_plural(len(missing), 'rank')}: "
                               f"{','.join(str(m.rank) for m in missing)}\n")
            out.append("\n")
        if view.errors & _ERROR:
            out.append(f"{cid} ERROR\n")
            for label, attr in (("Initialization", "init_state"), ("Asynchronous", "async_error")):
                failing = [m for m in view.answered if getattr(m, attr) not in (0, 7)]
                if not failing:
                    continue
                n = len(failing)
                out.append(f"  {label} {_plural(n, 'error')} on {n} {_plural(n, 'rank')}\n")
                remaining = [m for m in failing if 1 <= getattr(m, attr) <= 6]
                while remaining:
                    codes: dict[int, list[Member]] = {}
                    for m in remaining:
                        codes.setdefault(getattr(m, attr), []).append(m)
                    code, members = sorted(codes.items(), key=lambda kv: (-len(kv[1]), kv[0]))[0]
                    members.sort(key=lambda m: m.rank)
                    if len(members) > 1:
                        out.append(f"  {len(members)} ranks reported {ERROR_TEXTS[code]}\n")
                        if _is_outlier(len(members), None, verbose):
                            out.extend(f"  Rank {m.rank} -- {_where(m)}\n" for m in members)
                    else:
                        m = members[0]
                        out.append(f"  Rank {m.rank} reported {ERROR_TEXTS[code]} -- {_where(m)}\n")
                    remaining = [m for m in remaining if getattr(m, attr) != code]
            out.append("\n")
    return "".join(out)


def _warnings_section(
    state: JobState,
    views: list[_CommView],
    ids: dict[int, str],
    verbose: bool,
    modern: bool,
    words: tuple[str, ...],
) -> str:
    out = []
    if state.timeouts:
        n = state.timeouts
        out.append(f"TIMEOUT\n  Encountered {n} communication {_plural(n, 'timeout')} "
                   "while gathering communicator data\n\n")
    for view in views:
        if not view.errors & _MISMATCH:
            continue
        size = len(view.comm.members)
        out.append(f"{ids[id(view)]} ({view.comm.hash:016x}) MISMATCH\n")
        statuses = {m.status for m in view.answered}
        if view.nocomm or len(statuses) > 1:
            out.append("  Communicator ranks have different status\n")
            by_status: dict[int, list[Member]] = {}
            for m in [*view.answered, *view.nocomm]:
                by_status.setdefault(m.status, []).append(m)
            for status, members in sorted(by_status.items(), key=lambda kv: (-len(kv[1]), -kv[0])):
                members.sort(key=lambda m: m.rank)
                if status == 0 and not modern:
                    if len(members) == 1:
                        out.append(f"  Rank {members[0].rank} has status {words[0]}\n")
                    else:
                        listed = ",".join(str(m.rank) for m in members)
                        out.append(f"  The unknown ranks: {listed}\n")
                elif len(members) == 1:
                    m = members[0]
                    out.append(f"  Rank {m.rank} has status {words[status]} -- {_where(m)}\n")
                else:
                    out.append(f"  {len(members)} ranks have status {words[status]}\n")
                    if _is_outlier(len(members), size, verbose):
                        out.extend(f"  Rank {m.rank} -- {_where(m)}\n" for m in members)
        counters = list(enumerate(OPS)) if modern else [(-1, "collective")]
        for index, op in counters:
            by_value: dict[int, list[Member]] = {}
            for m in view.answered:
                value = sum(m.counts) if index < 0 else m.counts[index]
                by_value.setdefault(value, []).append(m)
            if len(by_value) < 2:
                continue
            out.append(f"  Communicator ranks have different {op} operation counts\n")
            for value, members in sorted(by_value.items(), key=lambda kv: (-len(kv[1]), -kv[0])):
                members.sort(key=lambda m: m.rank)
                if len(members) == 1:
                    m = members[0]
                    what = ("has not launched any operations" if modern and value == 0
                            else f"has launched up to operation {value}")
                    out.append(f"  Rank {m.rank} {what} -- {_where(m)}\n")
                    continue
                if modern and value == 0:
                    out.append(f"  {len(members)} ranks have not launched any operations\n")
                else:
                    out.append(f"  {len(members)} ranks have launched up to operation {value}\n")
                if _is_outlier(len(members), size, verbose):
                    out.extend(f"  Rank {m.rank} -- {_where(m)}\n" for m in members)
            if modern:
                out.append("\n")
        if not modern:
            out.append("\n")
    return "".join(out)


# --------------------------------------------------------------------------------------------
# JSON rendering (§4): fixed layout, 2-space indent, the comma bug on 2.28.7/2.28.9.


def render_json(state: JobState, *, elapsed: float) -> str:
    ver = version_tuple(state.version)
    comma_bug = (2, 28, 7) <= ver < (2, 29, 0)
    views = [v for v in (_view(c) for c in state.comms) if v.answered or v.nocomm]
    views.sort(key=lambda v: (v.comm.hash, v.comm.host_hash, v.comm.pid_hash))
    stamp = state.timestamp or time.strftime("%Y-%m-%d %H:%M:%S")
    out = [
        "{\n",
        f'  "nccl_version": "{state.version}",\n',
        f'  "cuda_runtime_version": {state.cuda_runtime},\n',
        f'  "cuda_driver_version": {state.cuda_driver},\n',
        f'  "timestamp": "{stamp}",\n',
        f'  "communicators_count": {len(views) + (1 if state.zero_comm else 0)},\n',
        '  "communicators": [\n',
    ]
    entries = [_json_comm(v, comma_bug) for v in views]
    if state.zero_comm:
        entries.insert(0, _json_zero_comm())
    out.append(",\n".join(entries) + "\n" if entries else "\n")
    seconds = state.collection_seconds if state.collection_seconds is not None else elapsed
    out.append(
        "  ],\n"
        '  "ras": {\n'
        f'    "collection_time_sec": {seconds:.3f},\n'
        f'    "timeouts_count": {state.timeouts}\n'
        "  }\n"
        "}\n"
    )
    return "".join(out)


def _json_bool(value: bool) -> str:
    return "true" if value else "false"


def _json_comm(view: _CommView, comma_bug: bool) -> str:
    comm = view.comm
    ranks = sorted(view.answered, key=lambda m: m.rank)
    missing = sorted([*view.missing, *view.nocomm], key=lambda m: m.rank)
    lines = [
        "    {\n",
        f'      "hash": "0x{comm.hash:x}",\n',
        f'      "secondary_hash": "0x{comm.host_hash:x}:0x{comm.pid_hash:x}",\n',
        f'      "size": {len(comm.members)},\n',
        f'      "ranks_count": {len(ranks)},\n',
        f'      "missing_ranks_count": {len(missing)},\n',
        '      "ranks": [\n',
    ]
    rank_entries = []
    for m in ranks:
        c = m.counts
        rank_entries.append(
            "        {\n"
            f'          "rank": {m.rank},\n'
            f'          "host": "{m.peer.host}",\n'
            f'          "pid": {m.peer.pid},\n'
            f'          "cuda_dev": {m.gpu},\n'
            f'          "nvml_dev": {m.nvml_gpu},\n'
            '          "status": {\n'
            f'            "init_state": {m.init_state},\n'
            f'            "async_error": {m.async_error},\n'
            f'            "finalize_called": {_json_bool(m.finalize_called)},\n'
            f'            "destroy_flag": {_json_bool(m.destroy_flag)},\n'
            f'            "abort_flag": {_json_bool(m.abort_flag)}\n'
            "          },\n"
            '          "collective_counts": {\n'
            f'            "Broadcast": {c[0]},\n'
            f'            "Reduce": {c[1]},\n'
            f'            "AllGather": {c[2]},\n'
            f'            "ReduceScatter": {c[3]},\n'
            f'            "AllReduce": {c[4]}\n'
            "          }\n"
            "        }"
        )
    lines.append(",\n".join(rank_entries) + "\n" if rank_entries else "\n")
    lines.append("      ],\n")
    lines.append('      "missing_ranks": [\n')
    missing_entries = []
    nvml_end = "\n" if comma_bug else ",\n"
    for m in missing:
        missing_entries.append(
            "        {\n"
            f'          "rank": {m.rank},\n'
            f'          "host": "{m.peer.host}",\n'
            f'          "pid": {m.peer.pid},\n'
            f'          "cuda_dev": {m.gpu},\n'
            f'          "nvml_dev": {m.nvml_gpu}{nvml_end}'
            '          "status": {\n'
            f'            "unresponsive": {_json_bool(m.missing)},\n'
            f'            "considered_dead": {_json_bool(m.peer.state == "dead")}\n'
            "          }\n"
            "        }"
        )
    lines.append(",\n".join(missing_entries) + "\n" if missing_entries else "\n")
    lines.append("      ]\n    }")
    return "".join(lines)


def _json_zero_comm() -> str:
    return (
        "    {\n"
        '      "hash": "0x0",\n'
        '      "secondary_hash": "0x0:0x0",\n'
        '      "size": 0,\n'
        '      "ranks_count": 0,\n'
        '      "missing_ranks_count": 0,\n'
        '      "ranks": [\n\n      ],\n'
        '      "missing_ranks": [\n\n      ]\n'
        "    }"
    )




# --------------------------------------------------------------------------------------------
# The server.

# The job as RAS sees it at a STATUS query: (query index from 0, seconds since the server started).
StateFn = Callable[[int, float], JobState]


@dataclass
class ServerStats:
    connections: int = 0
    status_queries: int = 0
    commands: list[str] = field(default_factory=list)


class SimulatedRasServer:
    """A threaded simulated RAS endpoint. Use as a context manager; `.port` is the bound port.

    Subclasses may override `_silent`, `_intercept`, `_report` and `_send` to misbehave."""

    def __init__(
        self,
        state_fn: StateFn,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        version: str | None = None,
    ) -> None:
        self.state_fn = state_fn
        self.host = host
        self.version_override = version
        self.stats = ServerStats()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._started = time.monotonic()
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._listener = socket.socket(family, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, port))
        self._listener.listen(64)
        self._listener.settimeout(0.2)
        self.port: int = self._listener.getsockname()[1]
        self._threads: list[threading.Thread] = []
        self._conns: list[socket.socket] = []

    @property
    def address(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def __enter__(self) -> SimulatedRasServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        thread = threading.Thread(target=self._accept_loop, name="simulated-ras-accept",
                                  daemon=True)
        thread.start()
        self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            _close(conn)
        for thread in self._threads:
            thread.join(timeout=5)
        self._listener.close()

    def sent_control(self) -> bool:
        with self._lock:
            return any(c.lower().startswith("control") for c in self.stats.commands)

    def current_state(self) -> JobState:
        """The state the next query would see (for assertions)."""
        return self.state_fn(self.stats.status_queries, time.monotonic() - self._started)

    # -- hooks for misbehaving subclasses -------------------------------------------------------
    def _silent(self, index: int) -> bool:
        """Whether connection `index` (from 1) reads but never answers."""
        return False

    def _intercept(self, conn: socket.socket) -> bool:
        """Called with the first bytes of every read; True ends the conversation."""
        return False

    # -- connections -----------------------------------------------------------------------
    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _addr = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self.stats.connections += 1
                index = self.stats.connections
                self._conns.append(conn)
            thread = threading.Thread(
                target=self._serve, args=(conn, index), name=f"simulated-ras-{index}",
                daemon=True
            )
            thread.start()
            self._threads.append(thread)

    def _version(self, state: JobState | None = None) -> str:
        if self.version_override:
            return self.version_override
        return (state or self.current_state()).version

    def _serve(self, conn: socket.socket, index: int) -> None:
        try:
            self._conversation(conn, index)
        except OSError:
            pass
        finally:
            _close(conn)
            with self._lock:
                if conn in self._conns:
                    self._conns.remove(conn)

    def _conversation(self, conn: socket.socket, index: int) -> None:
        conn.settimeout(0.2)
        silent = self._silent(index)
        buffer = b""
        fmt = "text"
        while not self._stop.is_set():
            try:
                data = conn.recv(4096)
            except TimeoutError:
                continue
            if not data:
                return
            if silent:
                continue
            if self._intercept(conn):
                return
            buffer += data
            while b"\n" in buffer:
                raw, buffer = buffer.split(b"\n", 1)
                line = raw.decode("utf-8", errors="replace")
                if line.endswith("\r"):
                    line = line[:-1]
                with self._lock:
                    self.stats.commands.append(line)
                outcome = self._command(conn, line, fmt)
                if outcome == "close":
                    return
                if outcome in ("text", "json"):
                    fmt = outcome
            if len(buffer) >= LINE_BUFFER_BYTES:
                return  # a line that fills the buffer closes the connection silently

    def _command(self, conn: socket.socket, line: str, fmt: str) -> str:
        """Answer one command line. Returns "close", a new format, or ""."""
        lower = line.lower()
        ver = version_tuple(self._version())
        if lower.startswith("client protocol "):
            conn.sendall(b"SERVER PROTOCOL 2\n")
            return ""
        if lower.startswith("timeout "):
            value = line[len("timeout "):]
            conn.sendall(b"OK\n" if _timeout_ok(value, ver) else
                         f"ERROR: Invalid timeout value {value}\n".encode())
            return ""
        if lower.startswith("set format ") and ver >= (2, 28, 7):
            value = line[len("set format "):]
            if value.lower() in ("text", "json"):
                conn.sendall(b"OK\n")
                return value.lower()
            conn.sendall(f"ERROR: Invalid format {value}\n".encode())
            return ""
        if lower in ("status", "verbose status"):
            self._report(conn, verbose=lower.startswith("verbose"), fmt=fmt)
            return "close"
        if (lower == "monitor" or lower.startswith("monitor ")) and ver >= (2, 29, 2):
            groups = [g for g in line[len("monitor "):].split(",") if g] if " " in line else []
            bad = [g for g in groups if g.lower() not in ("lifecycle", "trace", "all")]
            conn.sendall(f"ERROR: Invalid event group '{bad[0]}'\n".encode() if bad else b"OK\n")
            return ""
        if lower == "diagnostics" and ver >= (2, 31, 2):
            if fmt == "json":
                conn.sendall(b"ERROR: diagnostics only supports text output\n")
            else:
                conn.sendall(b"127.0.0.1:1 NCCL DIAG === RAS Diagnostics ===\n"
                             b"127.0.0.1:1 NCCL DIAG RAS diagnostics completed in 1 ms across "
                             b"1 RAS peers\n")
            return "close"
        if lower.startswith("control ") and ver >= (2, 31, 2):
            rest = line[len("control "):]
            if rest.lower().startswith("profiler_mask "):
                conn.sendall(b"OK\n")
            else:
                conn.sendall(f"ERROR: Unknown CONTROL subcommand '{rest}'\n".encode())
            return ""
        conn.sendall(f"ERROR: Unknown command {line}\n".encode())
        return ""

    def _next_state(self) -> JobState:
        """The job for the next STATUS query (counts the query)."""
        with self._lock:
            query = self.stats.status_queries
            self.stats.status_queries += 1
        state = self.state_fn(query, time.monotonic() - self._started)
        if self.version_override:
            state = replace(state, version=self.version_override)
        return state

    def _report(self, conn: socket.socket, *, verbose: bool, fmt: str) -> None:
        state = self._next_state()
        started = time.monotonic()
        if fmt == "json":
            self._pause(state.collection_delay_seconds)
            self._send(conn, render_json(state, elapsed=time.monotonic() - started))
            return
        head, _ = render_text_chunks(state, verbose=verbose, elapsed=0.0)
        self._send(conn, head)
        self._pause(state.collection_delay_seconds)
        _, tail = render_text_chunks(state, verbose=verbose, elapsed=time.monotonic() - started)
        self._send(conn, tail)

    def _pause(self, seconds: float) -> None:
        self._stop.wait(max(0.0, seconds))

    def _send(self, conn: socket.socket, text: str) -> None:
        conn.sendall(text.encode())


def _timeout_ok(value: str, ver: tuple[int, int, int]) -> bool:
    if value == "":
        return True  # parses as 0
    if ver >= (2, 31, 0):
        try:
            number = float(value)
        except ValueError:
            return False
        return math.isfinite(number) and number >= 0
    return value.isdigit()


def _close(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)
    conn.close()
