"""Parser for NCCL RAS text STATUS replies, NCCL 2.24 to 2.32 (plain and VERBOSE).

A line-by-line state machine: section (header, job summary, communicators, errors, warnings)
-> block (`INCOMPLETE`, `DEAD`, `TIMEOUT`, `#g-c (hash) KIND`) -> detail line. Lines it does not
recognise are counted and sampled, never fatal; a reply cut short still yields what it held, with
`complete=False`. Version differences handled: `UNKNOWN` (2.24/2.25) and `NOCOMM`; the single
collective counter (2.24/2.25) and per-type counters; both missing-rank formats; `%.2f`/`%.3f`
timings; status-only MISMATCH blocks without a trailing blank line (2.26+).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from monitor.parse.ras_model import (
    ERROR_CODES,
    LEGACY_OP,
    CommGroupRow,
    CommProblem,
    CommStatus,
    Communicator,
    CountGroup,
    ErrorGroup,
    JobSummary,
    MissingRank,
    ProcessRef,
    RankRef,
    RasReport,
    ReportFormat,
    StatusGroup,
    normalise_hash,
)

MAX_UNKNOWN_SAMPLES = 5
MAX_SAMPLE_CHARS = 120

_STATUS_WORDS = "NOCOMM|UNKNOWN|INIT|RUNNING|FINALIZE|ABORT"

RE_VERSION = re.compile(r"^NCCL version ((\d+)\.(\d+)\.(\d+)(\S*)) compiled with CUDA (\d+\.\d+)$")
RE_CUDA = re.compile(r"^CUDA runtime version (\d+), driver version (\d+)$")
RE_COMMS_HEADING = re.compile(r"^Communicators\.\.\.(?: \(([0-9.]+)s\))?$")
RE_ROW = re.compile(
    r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)(?:-(\d+))?\s+(\d+)\s+(\d+)\s+"
    rf"({_STATUS_WORDS})\s+(OK|[A-Z,]+)$"
)
RE_COMM_BLOCK = re.compile(r"^#(\d+)-(\d+) \(([0-9a-f]{1,16})\) (INCOMPLETE|ERROR|MISMATCH)$")
RE_MISSING_FROM = re.compile(
    r"^  Missing communicator data from (\d+) (job process(?:es)?|ranks?)$"
)
RE_DEAD_COUNT = re.compile(
    r"^  (\d+) job process(?:es are| is) considered dead \(unreachable via the RAS network\)$"
)
RE_TIMEOUTS = re.compile(
    r"^  Encountered (\d+) communication timeouts? while gathering communicator data$"
)
RE_PROCESS = re.compile(
    r"^  Process (\d+) on node (\S+) managing GPUs? ([\d,]+)(?: \(NVML ([\d,]+)\))?$"
)
RE_UNLISTED = re.compile(r"^  \[could not find information on (\d+) process(?:es)?\]$")
RE_RANK = re.compile(
    r"^  Rank (\d+)(?: (?:has status (\w+)|has launched up to operation (\d+)"
    r"|(has not launched any operations)|reported (.+?)))? -- "
    r"(?:GPU (\d+)(?: \(NVML (\d+)\))? managed by process (\d+) on node (\S+)"
    r"|\[process information not found\])$"
)
RE_GROUP = re.compile(
    r"^  (\d+) ranks have (?:launched up to operation (\d+)|(not launched any operations)"
    r"|status (\w+))$"
)
RE_DIFFERENT = re.compile(
    r"^  Communicator ranks have different (?:(\w+) operation counts|(status))$"
)
RE_ERROR_HEAD = re.compile(r"^  (Initialization|Asynchronous) errors? on (\d+) ranks?$")
RE_REPORTED = re.compile(r"^  (\d+) ranks reported (.+)$")
RE_RANK_LIST = re.compile(r"^  The (missing|unknown) ranks?: ([\d,]+)$")
RE_LEGACY_SINGLE_STATUS = re.compile(r"^  Rank (\d+) has status (\w+)$")
RE_OUTLIER_NODE = re.compile(r"^  Node (\S+) running process(?:es)? ([\d,]+)$")
RE_OUTLIER_HEAD = re.compile(r"^The outlier nodes?:$")
RE_INTS = re.compile(r"^[\d\s]+$")

# Fixed lines of the job summary and table headings: recognised, carry no data.
_JOB_HEADINGS = {
    "  Nodes  Processes         GPUs  Processes     GPUs": "A",
    "(total)   per node  per process    (total)  (total)": "A",
    "  Nodes  Processes         GPUs": "B",
    "          per node  per process": "B",
    "(total)    (total)      (total)": "TOTALS",
    "  Nodes  Processes": "C",
    "          per node": "C",
    "         Processes         GPUs": "C_GPUS",
    "                    per process": "C_GPUS",
}
_TABLE_HEADINGS = {
    "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors",
    "    #  in group  per comm  per node  per comm  in group",
}


def _always_listed(count: int, total: int | None) -> bool:
    """Whether even plain STATUS lists a group's members (so an empty list means a cut)."""
    if total is None:
        return count <= 10
    return count <= 10 and count <= 0.25 * total


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(",") if part)


def _rank_ref(match: re.Match[str]) -> RankRef:
    """A RankRef from a RE_RANK match (no process fields: `[process information not found]`)."""
    if match.group(9) is None:
        return RankRef(int(match.group(1)))
    nvml = match.group(7)
    return RankRef(
        int(match.group(1)),
        match.group(9),
        int(match.group(8)),
        int(match.group(6)),
        int(nvml) if nvml is not None else None,
    )


@dataclass
class _Group:
    op: str  # a collective name, LEGACY_OP, or "" for a status group
    value: int
    status: CommStatus | None
    size: int
    ranks: list[RankRef] = field(default_factory=list)


@dataclass
class _ErrGroup:
    kind: str
    code: int | None
    text: str
    size: int
    ranks: list[RankRef] = field(default_factory=list)


@dataclass
class _Comm:
    hash: str
    text_id: str
    group: int
    missing_count: int = 0
    missing: list[MissingRank] = field(default_factory=list)
    count_groups: list[_Group] = field(default_factory=list)
    status_groups: list[_Group] = field(default_factory=list)
    errors: list[_ErrGroup] = field(default_factory=list)
    init_error_ranks: int = 0
    async_error_ranks: int = 0


class _TextParser:
    def __init__(self) -> None:
        self.section = "start"
        self.block = ""  # INCOMPLETE, DEAD, TIMEOUT, comm:INCOMPLETE, comm:ERROR, comm:MISMATCH
        self.job_table = ""
        self.version_text: str | None = None
        self.version: tuple[int, int, int] | None = None
        self.cuda_version: str | None = None
        self.cuda_runtime: int | None = None
        self.cuda_driver: int | None = None
        self.collection_seconds: float | None = None
        self.job_nodes: int | None = None
        self.job_processes: int | None = None
        self.job_gpus: int | None = None
        self.per_node: list[tuple[int, int]] = []
        self.per_process: list[tuple[int, int]] = []
        self.outlier_nodes: list[tuple[str, tuple[int, ...]]] = []
        self.saw_job = False
        self.rows: list[CommGroupRow] = []
        self.no_comms = False
        self.comms: dict[str, _Comm] = {}
        self.comm: _Comm | None = None
        self.sub = ""  # inside a MISMATCH block: the counter op, or "status"
        self.error_kind = ""
        self.members: list[RankRef] | None = None  # where listed "Rank N -- ..." lines go
        self.unresponsive_count = 0
        self.unresponsive: list[ProcessRef] = []
        self.dead_count = 0
        self.dead: list[ProcessRef] = []
        self.unlisted = 0
        self.timeouts = 0
        self.unknown = 0
        self.samples: list[str] = []
        self.saw_warnings = False
        self.blocks: set[tuple[int, str, str]] = set()  # (group, kind, hash) seen
        self.last_block_kind = ""

    # -- driving ---------------------------------------------------------------------------
    def feed(self, line: str) -> None:
        if not line.strip():
            return
        if not self._dispatch(line):
            self.unknown += 1
            if len(self.samples) < MAX_UNKNOWN_SAMPLES:
                self.samples.append(line[:MAX_SAMPLE_CHARS])

    def _dispatch(self, line: str) -> bool:
        # Section headings can appear wherever a truncated or odd reply puts them.
        if line in ("Job summary", "Errors", "Warnings"):
            self.section = {"Job summary": "job", "Errors": "errors", "Warnings": "warnings"}[line]
            self.saw_warnings = self.saw_warnings or line == "Warnings"
            self.saw_job = self.saw_job or line == "Job summary"
            self._end_block()
            return True
        if line in ("===========", "======", "========", "============="):
            return True
        match = RE_COMMS_HEADING.match(line)
        if match:
            self.section = "comms"
            if match.group(1):
                self.collection_seconds = float(match.group(1))
            return True
        if self.section == "start":
            return self._header(line)
        if self.section == "job":
            return self._job(line)
        if self.section == "comms":
            return self._table(line)
        return self._blocks(line)

    # -- sections --------------------------------------------------------------------------
    def _header(self, line: str) -> bool:
        match = RE_VERSION.match(line)
        if match:
            self.version_text = match.group(1)
            self.version = (int(match.group(2)), int(match.group(3)), int(match.group(4)))
            self.cuda_version = match.group(6)
            return True
        match = RE_CUDA.match(line)
        if match:
            self.cuda_runtime, self.cuda_driver = int(match.group(1)), int(match.group(2))
            return True
        return False

    def _job(self, line: str) -> bool:
        heading = _JOB_HEADINGS.get(line)
        if heading is not None:
            self.job_table = heading
            return True
        if RE_OUTLIER_HEAD.match(line):
            self.job_table = "OUTLIERS"
            return True
        match = RE_OUTLIER_NODE.match(line)
        if match and self.job_table == "OUTLIERS":
            self.outlier_nodes.append((match.group(1), _ints(match.group(2))))
            return True
        if not RE_INTS.match(line):
            return False
        values = tuple(int(v) for v in line.split())
        if self.job_table == "A" and len(values) == 5:
            self.job_nodes, per_node, per_process, self.job_processes, self.job_gpus = values
            self.per_node.append((values[0], per_node))
            self.per_process.append((values[3], per_process))
            return True
        if self.job_table == "B" and len(values) == 3:
            self.per_node.append((values[0], values[1]))
            self.per_process.append((values[0] * values[1], values[2]))
            return True
        if self.job_table == "TOTALS" and len(values) == 3:
            self.job_nodes, self.job_processes, self.job_gpus = values
            return True
        if self.job_table == "C" and len(values) == 2:
            self.per_node.append((values[0], values[1]))
            return True
        if self.job_table == "C_GPUS" and len(values) == 2:
            self.per_process.append((values[0], values[1]))
            return True
        return False

    def _table(self, line: str) -> bool:
        if line in _TABLE_HEADINGS:
            return True
        if line == "No communicator data collected!":
            self.no_comms = True
            return True
        match = RE_ROW.match(line)
        if not match:
            return False
        low = int(match.group(4))
        high = int(match.group(5)) if match.group(5) else low
        try:
            problems = CommProblem.parse_word(match.group(9))
        except ValueError:
            return False
        self.rows.append(
            CommGroupRow(
                group=int(match.group(1)),
                comms=int(match.group(2)),
                nodes=int(match.group(3)),
                ranks_per_node_min=low,
                ranks_per_node_max=high,
                size=int(match.group(6)),
                ranks_in_group=int(match.group(7)),
                status=CommStatus.from_word(match.group(8)),
                problems=problems,
            )
        )
        return True

    def _end_block(self) -> None:
        self.block = ""
        self.comm = None
        self.sub = ""
        self.error_kind = ""
        self.members = None

    def _blocks(self, line: str) -> bool:
        if line in ("INCOMPLETE", "DEAD", "TIMEOUT"):
            self._end_block()
            self.block = line
            self.last_block_kind = line
            return True
        match = RE_COMM_BLOCK.match(line)
        if match:
            self._end_block()
            group, index, raw_hash, kind = match.groups()
            key = normalise_hash(raw_hash)
            comm = self.comms.get(key)
            if comm is None:
                comm = _Comm(key, f"#{group}-{index}", int(group))
                self.comms[key] = comm
            self.comm = comm
            self.block = f"comm:{kind}"
            self.blocks.add((int(group), kind, key))
            self.last_block_kind = kind
            return True
        if self.block == "INCOMPLETE":
            return self._process_block(line, dead=False)
        if self.block == "DEAD":
            return self._process_block(line, dead=True)
        if self.block == "TIMEOUT":
            match = RE_TIMEOUTS.match(line)
            if match:
                self.timeouts += int(match.group(1))
                return True
            return False
        if self.comm is None:
            return False
        if self.block == "comm:INCOMPLETE":
            return self._comm_incomplete(self.comm, line)
        if self.block == "comm:ERROR":
            return self._comm_error(self.comm, line)
        if self.block == "comm:MISMATCH":
            return self._comm_mismatch(self.comm, line)
        return False

    # -- blocks ----------------------------------------------------------------------------
    def _process_block(self, line: str, *, dead: bool) -> bool:
        match = RE_PROCESS.match(line)
        if match:
            nvml = match.group(4)
            proc = ProcessRef(
                match.group(2),
                int(match.group(1)),
                _ints(match.group(3)),
                _ints(nvml) if nvml else (),
            )
            (self.dead if dead else self.unresponsive).append(proc)
            return True
        match = RE_UNLISTED.match(line)
        if match:
            self.unlisted += int(match.group(1))
            return True
        if dead:
            match = RE_DEAD_COUNT.match(line)
            if match:
                self.dead_count += int(match.group(1))
                return True
            return False
        match = RE_MISSING_FROM.match(line)
        if match and match.group(2).startswith("job"):
            self.unresponsive_count += int(match.group(1))
            return True
        return False

    def _comm_incomplete(self, comm: _Comm, line: str) -> bool:
        match = RE_MISSING_FROM.match(line)
        if match and match.group(2).startswith("rank"):
            comm.missing_count = int(match.group(1))
            return True
        match = RE_RANK.match(line)
        if match and match.group(2, 3, 4, 5) == (None, None, None, None):
            comm.missing.append(MissingRank(_rank_ref(match), True, None))
            return True
        match = RE_RANK_LIST.match(line)
        if match and match.group(1) == "missing":
            comm.missing.extend(
                MissingRank(RankRef(rank), True, None) for rank in _ints(match.group(2))
            )
            return True
        return False

    def _comm_error(self, comm: _Comm, line: str) -> bool:
        match = RE_ERROR_HEAD.match(line)
        if match:
            self.error_kind = "init" if match.group(1) == "Initialization" else "async"
            if self.error_kind == "init":
                comm.init_error_ranks += int(match.group(2))
            else:
                comm.async_error_ranks += int(match.group(2))
            self.members = None
            return True
        if not self.error_kind:
            return False
        match = RE_REPORTED.match(line)
        if match:
            text = match.group(2)
            group = _ErrGroup(self.error_kind, ERROR_CODES.get(text), text, int(match.group(1)))
            comm.errors.append(group)
            self.members = group.ranks
            return True
        match = RE_RANK.match(line)
        if not match:
            return False
        text = match.group(5)
        if text is not None:  # "Rank R reported X -- ...": a one-rank error group
            single = _ErrGroup(self.error_kind, ERROR_CODES.get(text), text, 1, [_rank_ref(match)])
            comm.errors.append(single)
            self.members = None
            return True
        if match.group(2, 3, 4) == (None, None, None) and self.members is not None:
            self.members.append(_rank_ref(match))
            return True
        return False

    def _comm_mismatch(self, comm: _Comm, line: str) -> bool:
        match = RE_DIFFERENT.match(line)
        if match:
            op = match.group(1)
            self.sub = "status" if match.group(2) else (LEGACY_OP if op == "collective" else op)
            self.members = None
            return True
        if not self.sub:
            return False
        match = RE_GROUP.match(line)
        if match:
            group = self._new_group(
                comm,
                value=int(match.group(2)) if match.group(2) else 0,
                status_word=match.group(4),
                size=int(match.group(1)),
            )
            if group is None:
                return False
            self.members = group.ranks
            return True
        match = RE_RANK.match(line)
        if match:
            status_word, launched, not_launched, reported = match.group(2, 3, 4, 5)
            if reported is not None:
                return False
            if status_word is None and launched is None and not_launched is None:
                if self.members is None:
                    return False
                self.members.append(_rank_ref(match))
                return True
            single = self._new_group(
                comm,
                value=int(launched) if launched else 0,
                status_word=status_word,
                size=1,
            )
            if single is None:
                return False
            single.ranks.append(_rank_ref(match))
            self.members = None
            return True
        match = RE_RANK_LIST.match(line)  # 2.24/2.25: "The unknown ranks: 1,2,3"
        if match and match.group(1) == "unknown" and self.sub == "status":
            ranks = _ints(match.group(2))
            group = _Group("", 0, CommStatus.NOCOMM, len(ranks), [RankRef(r) for r in ranks])
            comm.status_groups.append(group)
            self.members = None
            return True
        match = RE_LEGACY_SINGLE_STATUS.match(line)
        if match and self.sub == "status":
            single = self._new_group(comm, value=0, status_word=match.group(2), size=1)
            if single is None:
                return False
            single.ranks.append(RankRef(int(match.group(1))))
            self.members = None
            return True
        return False

    def _new_group(
        self, comm: _Comm, *, value: int, status_word: str | None, size: int
    ) -> _Group | None:
        if self.sub == "status":
            if status_word is None:
                return None
            try:
                status = CommStatus.from_word(status_word)
            except ValueError:
                return None
            group = _Group("", 0, status, size)
            comm.status_groups.append(group)
            return group
        if status_word is not None:
            return None
        group = _Group(self.sub, value, None, size)
        comm.count_groups.append(group)
        return group

    # -- completeness ----------------------------------------------------------------------
    def _complete(self, text: str) -> bool:
        """Whether the reply reached its end. A report has no end marker, so check its shape:
        the Warnings section was reached; every table row's problem bits have their blocks; no
        listed group was cut half-way; and the reply ends in a blank line, except after a
        status-only MISMATCH block (2.26+), which must then add up to the communicator size."""
        if not self.saw_warnings or not text.endswith("\n"):
            return False
        for row in self.rows:
            for problem in row.problems:
                found = sum(1 for g, kind, _h in self.blocks if g == row.group and kind == problem)
                if found != row.comms:
                    return False
        sizes = {row.group: row.size for row in self.rows}
        for each in self.comms.values():
            size = sizes.get(each.group)
            listed: list[tuple[int, int, int | None]] = [
                (g.size, len(g.ranks), size) for g in [*each.count_groups, *each.status_groups]
            ]
            listed += [(e.size, len(e.ranks), None) for e in each.errors]
            for count, members, total in listed:
                if members and members != count:
                    return False  # listing is all or nothing: this one was cut
                if not members and _always_listed(count, total):
                    return False
        if text.endswith("\n\n"):
            return True
        last = self.comm
        if self.last_block_kind != "MISMATCH" or last is None or self.sub != "status":
            return False
        if last.count_groups or last.group not in sizes:
            return False
        total_ranks = sum(g.size for g in last.status_groups) + last.missing_count
        return total_ranks == sizes[last.group]

    # -- result ----------------------------------------------------------------------------
    def report(self, text: str) -> RasReport:
        rows_by_group = {row.group: row for row in self.rows}
        comms = []
        for comm in self.comms.values():
            row = rows_by_group.get(comm.group)
            comms.append(
                Communicator(
                    hash=comm.hash,
                    size=row.size if row else None,
                    status=row.status if row else None,
                    problems=row.problems if row else frozenset(),
                    text_id=comm.text_id,
                    missing=tuple(comm.missing),
                    missing_count=comm.missing_count,
                    count_groups=tuple(
                        CountGroup(g.op, g.value, g.size, tuple(g.ranks)) for g in comm.count_groups
                    ),
                    status_groups=tuple(
                        StatusGroup(g.status or CommStatus.NOCOMM, g.size, tuple(g.ranks))
                        for g in comm.status_groups
                    ),
                    init_error_ranks=comm.init_error_ranks,
                    async_error_ranks=comm.async_error_ranks,
                    errors=tuple(
                        ErrorGroup(e.kind, e.code, e.text, e.size, tuple(e.ranks))
                        for e in comm.errors
                    ),
                )
            )
        complete = self._complete(text)
        faults = () if complete else ("truncated",)
        job = None
        if self.saw_job:
            job = JobSummary(
                nodes=self.job_nodes,
                processes=self.job_processes,
                gpus=self.job_gpus,
                processes_per_node=tuple(self.per_node),
                gpus_per_process=tuple(self.per_process),
                outlier_nodes=tuple(self.outlier_nodes),
            )
        return RasReport(
            format=ReportFormat.TEXT,
            complete=complete,
            nccl_version=self.version_text,
            version=self.version,
            cuda_version=self.cuda_version,
            cuda_runtime=self.cuda_runtime,
            cuda_driver=self.cuda_driver,
            job=job,
            collection_seconds=self.collection_seconds,
            groups=tuple(self.rows),
            communicators=tuple(comms),
            communicators_total=sum(row.comms for row in self.rows),
            no_communicators=self.no_comms,
            unresponsive_count=self.unresponsive_count,
            unresponsive_processes=tuple(self.unresponsive),
            dead_count=self.dead_count,
            dead_processes=tuple(self.dead),
            unlisted_processes=self.unlisted,
            timeouts=self.timeouts,
            unknown_lines=self.unknown,
            unknown_samples=tuple(self.samples),
            faults=faults,
        )


def parse_text(data: str | bytes) -> RasReport:
    """Parse a text STATUS reply (the bytes after the acknowledgement lines). Never raises."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    parser = _TextParser()
    for line in text.split("\n"):
        parser.feed(line[:-1] if line.endswith("\r") else line)
    return parser.report(text.replace("\r\n", "\n"))
