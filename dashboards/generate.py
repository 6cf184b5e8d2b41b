"""Generate the Grafana dashboards in this directory: `python dashboards/generate.py`.

Plain dictionaries, no Grafana SDK needed: panels are laid out on the 24-column grid row by
row, ids are assigned in order, every query uses the `${datasource}` variable. The tests check
that the committed JSON equals this script's output, its structure, a round trip through the
typed model of grafana-foundation-sdk, and every query against a real Prometheus.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GRID_COLUMNS = 24
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
JOB = 'job_id="$job_id"'
JOB_NODE = 'job_id="$job_id", node=~"$node"'
SCHEMA_VERSION = 39

PROCESS_STATES = ("running", "sleeping", "disk_sleep", "stopped", "zombie", "gone", "other")
STATE_COLORS = ("green", "blue", "orange", "purple", "red", "dark-red", "yellow")


# --- building blocks ------------------------------------------------------------------------


def target(expr: str, legend: str = "", *, instant: bool = False, ref: str = "A") -> dict[str, Any]:
    return {
        "datasource": DATASOURCE,
        "refId": ref,
        "expr": expr,
        "legendFormat": legend or "__auto",
        "instant": instant,
        "range": not instant,
        **({"format": "table"} if instant else {}),
    }


def value_mappings(texts: dict[int, tuple[str, str]]) -> list[dict[str, Any]]:
    return [
        {
            "type": "value",
            "options": {
                str(value): {"text": text, "color": color, "index": index}
                for index, (value, (text, color)) in enumerate(sorted(texts.items()))
            },
        }
    ]


def thresholds(*steps: tuple[float | None, str]) -> dict[str, Any]:
    return {
        "mode": "absolute",
        "steps": [{"value": value, "color": color} for value, color in steps],
    }


@dataclass
class Panel:
    type: str
    title: str
    description: str
    targets: list[dict[str, Any]]
    width: int
    height: int = 8
    unit: str = ""
    mappings: list[dict[str, Any]] = field(default_factory=list)
    steps: dict[str, Any] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    custom: dict[str, Any] = field(default_factory=dict)
    transformations: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self, panel_id: int, x: int, y: int) -> dict[str, Any]:
        defaults: dict[str, Any] = {}
        if self.unit:
            defaults["unit"] = self.unit
        if self.mappings:
            defaults["mappings"] = self.mappings
        if self.steps:
            defaults["thresholds"] = self.steps
            defaults["color"] = {"mode": "thresholds"}
        if self.custom:
            defaults["custom"] = self.custom
        refs = iter("ABCDEFGHIJ")
        body: dict[str, Any] = {
            "id": panel_id,
            "type": self.type,
            "title": self.title,
            "description": self.description,
            "datasource": DATASOURCE,
            "gridPos": {"x": x, "y": y, "w": self.width, "h": self.height},
            "targets": [{**t, "refId": next(refs)} for t in self.targets],
            "fieldConfig": {"defaults": defaults, "overrides": []},
            "options": self.options,
        }
        if self.transformations:
            body["transformations"] = self.transformations
        return body


def row(title: str) -> str:
    return title


def layout(items: list[Panel | str]) -> list[dict[str, Any]]:
    """Place panels left to right, wrapping at 24 columns; a string starts a new row panel."""
    panels: list[dict[str, Any]] = []
    x = y = row_height = 0
    next_id = 1
    for item in items:
        if isinstance(item, str):
            y += row_height
            x = row_height = 0
            panels.append(
                {
                    "id": next_id,
                    "type": "row",
                    "title": item,
                    "collapsed": False,
                    "gridPos": {"x": 0, "y": y, "w": GRID_COLUMNS, "h": 1},
                    "panels": [],
                }
            )
            next_id += 1
            y += 1
            continue
        if x + item.width > GRID_COLUMNS:
            y += row_height
            x = row_height = 0
        panels.append(item.to_json(next_id, x, y))
        next_id += 1
        x += item.width
        row_height = max(row_height, item.height)
    return panels


def datasource_variable() -> dict[str, Any]:
    return {
        "name": "datasource",
        "label": "Data source",
        "type": "datasource",
        "query": "prometheus",
        "hide": 0,
        "refresh": 1,
        "regex": "",
        "skipUrlSync": False,
        "multi": False,
        "includeAll": False,
        "options": [],
        "current": {},
    }


def query_variable(
    name: str, label: str, query: str, *, multi: bool, include_all: bool
) -> dict[str, Any]:
    variable: dict[str, Any] = {
        "name": name,
        "label": label,
        "type": "query",
        "datasource": DATASOURCE,
        "query": {"query": query, "refId": f"{name}-variable"},
        "hide": 0,
        "refresh": 2,  # on time range change: jobs come and go
        "regex": "",
        "sort": 3,  # numerical ascending
        "skipUrlSync": False,
        "multi": multi,
        "includeAll": include_all,
        "options": [],
        "current": {},
    }
    if include_all:
        variable["allValue"] = ".*"
    return variable


def dashboard(
    uid: str,
    title: str,
    description: str,
    variables: list[dict[str, Any]],
    items: list[Panel | str],
) -> dict[str, Any]:
    return {
        "uid": uid,
        "title": title,
        "description": description,
        "tags": ["rankwatch"],
        "timezone": "browser",
        "editable": True,
        "graphTooltip": 1,
        "refresh": "30s",
        "time": {"from": "now-3h", "to": "now"},
        "schemaVersion": SCHEMA_VERSION,
        "version": 1,
        "links": [
            {
                "title": "rankwatch",
                "type": "dashboards",
                "tags": ["rankwatch"],
                "asDropdown": True,
                "includeVars": True,
                "keepTime": True,
                "targetBlank": False,
                "icon": "external link",
                "tooltip": "",
                "url": "",
            }
        ],
        "templating": {"list": [datasource_variable(), *variables]},
        "panels": layout(items),
    }


JOB_VARIABLES = [
    query_variable(
        "job_id", "Job", "label_values(rankwatch_job_info, job_id)", multi=False, include_all=False
    ),
    query_variable(
        "node",
        "Node",
        'label_values(rankwatch_job_info{job_id="$job_id"}, node)',
        multi=True,
        include_all=True,
    ),
]


def state_code_expr() -> str:
    """One number per rank for its process state (0 running … 6 other), for a state timeline.

    Built from `== 1` filters joined with `or`, so it works whether or not the exporter also
    emits the non-current states as 0."""
    terms = [
        f'(max by (rank) (rankwatch_rank_state{{{JOB_NODE}, state="{state}"}} == 1) * 0 + {code})'
        for code, state in enumerate(PROCESS_STATES)
    ]
    return " or ".join(terms)


def timeline(
    title: str,
    description: str,
    expr: str,
    legend: str,
    texts: dict[int, tuple[str, str]],
    width: int = 12,
    height: int = 8,
) -> Panel:
    return Panel(
        "state-timeline",
        title,
        description,
        [target(expr, legend)],
        width,
        height,
        mappings=value_mappings(texts),
        options={"showValue": "never", "mergeValues": True, "rowHeight": 0.9},
        custom={"fillOpacity": 80, "lineWidth": 0},
    )


def timeseries(
    title: str,
    description: str,
    targets: list[dict[str, Any]],
    unit: str = "",
    width: int = 12,
    height: int = 8,
    **custom: Any,
) -> Panel:
    return Panel(
        "timeseries",
        title,
        description,
        targets,
        width,
        height,
        unit=unit,
        custom={"lineWidth": 1, "fillOpacity": 0, "showPoints": "never", **custom},
        options={
            "legend": {
                "displayMode": "table",
                "placement": "right",
                "showLegend": True,
                "calcs": ["lastNotNull"],
            },
            "tooltip": {"mode": "multi", "sort": "desc"},
        },
    )


def stat(
    title: str,
    description: str,
    expr: str,
    *,
    width: int = 4,
    unit: str = "",
    texts: dict[int, tuple[str, str]] | None = None,
    steps: dict[str, Any] | None = None,
    legend: str = "",
) -> Panel:
    return Panel(
        "stat",
        title,
        description,
        [target(expr, legend)],
        width,
        4,
        unit=unit,
        mappings=value_mappings(texts) if texts else [],
        steps=steps,
        options={
            "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
            "colorMode": "background",
            "graphMode": "none",
            "textMode": "value_and_name",
        },
    )


def table(
    title: str,
    description: str,
    expr: str,
    *,
    width: int = 12,
    height: int = 8,
    exclude: tuple[str, ...] = ("Time", "__name__", "job", "instance", "user"),
) -> Panel:
    return Panel(
        "table",
        title,
        description,
        [target(expr, instant=True)],
        width,
        height,
        transformations=[
            {"id": "organize", "options": {"excludeByName": {name: True for name in exclude}}}
        ],
        options={"showHeader": True, "cellHeight": "sm"},
    )


# --- the dashboards ------------------------------------------------------------------------


def job_overview() -> dict[str, Any]:
    items: list[Panel | str] = [
        row("Job status"),
        stat(
            "Job progress",
            "Whether any node of the job reports that its ranks stopped stepping "
            "(rankwatch_job_stalled, joined over nodes by the recording rule).",
            f"max(job_id:rankwatch_job_stalled:max{{{JOB}}})",
            texts={0: ("progressing", "green"), 1: ("STALLED", "red")},
        ),
        stat(
            "Culprit ranks",
            "Ranks holding the stalled job up: not waiting in a collective, or exited.",
            f"count(rank:rankwatch_stall_culprit:bool{{{JOB}}}) or vector(0)",
            steps=thresholds((None, "green"), (1, "red")),
        ),
        stat(
            "Furthest step",
            "The highest step any rank has reached.",
            f"max(job_id:rankwatch_rank_step:max{{{JOB}}})",
            steps=thresholds((None, "blue")),
        ),
        stat(
            "Ranks watched",
            "Ranks the sidecars of this job know about.",
            f"sum(job_id:rankwatch_ranks:count{{{JOB}}})",
            steps=thresholds((None, "blue")),
        ),
        stat(
            "Ranks in a collective",
            "Ranks whose main thread waits inside a collective (from py-spy stacks).",
            f"sum(job_id:rankwatch_ranks_in_collective:sum{{{JOB}}})",
            steps=thresholds((None, "blue")),
        ),
        stat(
            "Sidecars up",
            "Nodes whose sidecar Prometheus can scrape, out of the nodes registered by the "
            "SLURM prolog.",
            f'sum(up{{job="rankwatch", {JOB}}}) / count(up{{job="rankwatch", {JOB}}})',
            unit="percentunit",
            steps=thresholds((None, "red"), (0.999, "green")),
        ),
        table(
            "Culprit ranks (while stalled)",
            "rank:rankwatch_stall_culprit:bool — the ranks that did not arrive in the collective "
            "the others wait in.",
            f"rank:rankwatch_stall_culprit:bool{{{JOB}}}",
            width=8,
        ),
        table(
            "Alerts firing (Prometheus rules)",
            "The job's Prometheus alerts (deploy/prometheus/rankwatch_rules.yml).",
            f'ALERTS{{{JOB}, alertstate="firing"}}',
            width=8,
            exclude=("Time", "__name__", "job", "instance", "Value", "alertstate"),
        ),
        table(
            "Alerts firing (sidecars)",
            "Alerts the sidecars raised themselves, by node (rankwatch_alerts_firing).",
            f"sum by (node, alertname, severity) (rankwatch_alerts_firing{{{JOB_NODE}}} > 0)",
            width=8,
        ),
        row("Progress per rank"),
        timeseries(
            "Step per rank",
            "The last training step each rank reported in its output.",
            [target(f"max by (rank) (rankwatch_rank_step{{{JOB_NODE}}})", "rank {{rank}}")],
        ),
        timeseries(
            "Time since last step",
            "Seconds since each rank's last step, against its learned stall window (dashed).",
            [
                target(
                    f"max by (rank) (rankwatch_rank_last_step_age_seconds{{{JOB_NODE}}})",
                    "rank {{rank}}",
                ),
                target(
                    f"max by (rank) (rankwatch_rank_stall_window_seconds{{{JOB_NODE}}})",
                    "window rank {{rank}}",
                ),
            ],
            unit="s",
        ),
        timeline(
            "Stalled ranks",
            "Per rank: progressing or stalled (rankwatch_rank_stalled).",
            f"max by (rank) (rankwatch_rank_stalled{{{JOB_NODE}}})",
            "rank {{rank}}",
            {0: ("progressing", "green"), 1: ("stalled", "red")},
        ),
        timeline(
            "Waiting in a collective",
            "Per rank: whether the main thread waits inside a collective (py-spy).",
            f"max by (rank) (rankwatch_rank_in_collective{{{JOB_NODE}}})",
            "rank {{rank}}",
            {0: ("outside", "yellow"), 1: ("in collective", "blue")},
        ),
        row("Processes per rank"),
        timeline(
            "Process state",
            "Per rank: the process state seen by the sidecar (rankwatch_rank_state).",
            state_code_expr(),
            "rank {{rank}}",
            {code: (state, STATE_COLORS[code]) for code, state in enumerate(PROCESS_STATES)},
        ),
        timeline(
            "DataLoader stalled",
            "Per rank: main thread waiting for data while its workers make no progress.",
            f"max by (rank) (rankwatch_dataloader_stalled{{{JOB_NODE}}})",
            "rank {{rank}}",
            {0: ("ok", "green"), 1: ("stalled", "red")},
        ),
        timeseries(
            "CPU per rank",
            "CPU time used per second by each rank's process.",
            [
                target(
                    "sum by (rank) (rate(rankwatch_rank_cpu_seconds_total"
                    f"{{{JOB_NODE}}}[$__rate_interval]))",
                    "rank {{rank}}",
                )
            ],
            unit="percentunit",
            width=8,
        ),
        timeseries(
            "Resident memory per rank",
            "RSS of each rank's process.",
            [target(f"max by (rank) (rankwatch_rank_rss_bytes{{{JOB_NODE}}})", "rank {{rank}}")],
            unit="bytes",
            width=8,
        ),
        timeseries(
            "Threads and DataLoader workers",
            "Threads of each rank and its live DataLoader worker processes.",
            [
                target(f"max by (rank) (rankwatch_rank_threads{{{JOB_NODE}}})", "threads {{rank}}"),
                target(f"max by (rank) (rankwatch_rank_workers{{{JOB_NODE}}})", "workers {{rank}}"),
            ],
            width=8,
        ),
        table(
            "Stack state per rank",
            "What each rank's main thread was doing in the last py-spy dump.",
            f"max by (node, rank, state) (rankwatch_rank_stack_state{{{JOB_NODE}}} == 1)",
            width=8,
        ),
        table(
            "Exited ranks",
            "Ranks whose process has exited.",
            f"max by (node, rank) (rankwatch_rank_exited{{{JOB_NODE}}} == 1)",
            width=8,
        ),
        timeseries(
            "Output lines per second",
            "Lines read from the job's output streams (truncated lines dashed).",
            [
                target(
                    "sum by (node, stream) (rate(rankwatch_output_lines_total"
                    f"{{{JOB_NODE}}}[$__rate_interval]))",
                    "{{node}} {{stream}}",
                ),
                target(
                    "sum by (node, stream) (rate(rankwatch_output_lines_truncated_total"
                    f"{{{JOB_NODE}}}[$__rate_interval]))",
                    "truncated {{node}} {{stream}}",
                ),
            ],
            unit="short",
            width=8,
        ),
    ]
    return dashboard(
        "rankwatch-job-overview",
        "rankwatch / Job overview",
        "Per-rank progress and state of one SLURM job, its stall status and culprit ranks, and "
        "the alerts firing for it.",
        JOB_VARIABLES,
        items,
    )


def nccl_ras() -> dict[str, Any]:
    comm_variable = query_variable(
        "comm",
        "Communicator",
        'label_values(rankwatch_ras_collective_ops{job_id="$job_id"}, comm)',
        multi=True,
        include_all=True,
    )
    ops = f'rankwatch_ras_collective_ops{{{JOB}, comm=~"$comm"}}'
    items: list[Panel | str] = [
        row("NCCL RAS"),
        stat(
            "RAS reachable",
            "Whether the polling sidecars (node index 0 and 1) reach NCCL's RAS port.",
            f"max(rankwatch_ras_up{{{JOB}}})",
            texts={0: ("unreachable", "orange"), 1: ("reachable", "green")},
        ),
        stat(
            "Missing ranks",
            "Ranks NCCL's RAS could not reach in its last status.",
            f"max(rankwatch_ras_missing_ranks{{{JOB}}})",
            steps=thresholds((None, "green"), (1, "red")),
        ),
        stat(
            "Dead processes",
            "Processes NCCL's RAS reports as dead.",
            f"max(rankwatch_ras_dead_processes{{{JOB}}})",
            steps=thresholds((None, "green"), (1, "red")),
        ),
        Panel(
            "bargauge",
            "Communicators by status",
            "NCCL communicators of the job, by the status RAS reports.",
            [target(f"max by (status) (rankwatch_ras_communicators{{{JOB}}})", "{{status}}")],
            12,
            4,
            options={
                "orientation": "horizontal",
                "displayMode": "basic",
                "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
            },
        ),
        timeseries(
            "Collective operations per rank",
            "Operation counts per rank and communicator: a rank whose count stops while the "
            "others go on is the one holding the collective up.",
            [target(f"max by (comm, rank, op) ({ops})", "{{comm}} rank {{rank}} {{op}}")],
            width=24,
        ),
        timeseries(
            "Operation count spread per communicator",
            "Highest minus lowest operation count across the ranks of a communicator; it "
            "grows when one rank falls behind.",
            [
                target(
                    f"max by (comm, op) ({ops}) - min by (comm, op) ({ops})",
                    "{{comm}} {{op}}",
                )
            ],
        ),
        timeseries(
            "Operations in the last 5 minutes",
            "Per rank and communicator: zero while the job is stuck in a collective.",
            [target(f"max by (comm, rank) (delta({ops}[5m]))", "{{comm}} rank {{rank}}")],
        ),
        timeseries(
            "RAS poll duration",
            "How long each STATUS exchange with NCCL's RAS took.",
            [
                target(
                    "max by (node) (rankwatch_source_poll_duration_seconds{"
                    f'{JOB}, source="nccl_ras"}})',
                    "{{node}}",
                )
            ],
            unit="s",
        ),
        timeseries(
            "RAS errors",
            "Errors polling NCCL's RAS, by type.",
            [
                target(
                    "sum by (node, error_type) (rate(rankwatch_source_errors_total{"
                    f'{JOB}, source="nccl_ras"}}[$__rate_interval]))',
                    "{{node}} {{error_type}}",
                )
            ],
            unit="reqps",
        ),
    ]
    return dashboard(
        "rankwatch-nccl-ras",
        "rankwatch / NCCL RAS",
        "NCCL's own view of the job from its RAS subsystem: communicators, missing ranks, dead "
        "processes and collective operation counts per rank.",
        [*JOB_VARIABLES, comm_variable],
        items,
    )


def node_health() -> dict[str, Any]:
    items: list[Panel | str] = [
        row("Clocks"),
        timeseries(
            "Clock offset",
            "Each node's clock offset from its time reference.",
            [target(f"max by (node) (rankwatch_clock_offset_seconds{{{JOB_NODE}}})", "{{node}}")],
            unit="s",
        ),
        timeseries(
            "Offset against the job median",
            "Each node's offset minus the median offset of the job's nodes: what cross-node "
            "timeouts and log timelines feel.",
            [
                target(
                    f"max by (node) (rankwatch_clock_offset_seconds{{{JOB_NODE}}})"
                    " - on () group_left () "
                    f"quantile(0.5, rankwatch_clock_offset_seconds{{{JOB}}})",
                    "{{node}}",
                )
            ],
            unit="s",
        ),
        timeline(
            "Clock synchronised",
            "Whether the node's clock is synchronised to its time source.",
            f"max by (node) (rankwatch_clock_synchronised{{{JOB_NODE}}})",
            "{{node}}",
            {0: ("unsynchronised", "red"), 1: ("synchronised", "green")},
            width=24,
            height=6,
        ),
        row("Memory"),
        timeseries(
            "Available memory",
            "Share of each node's memory still available.",
            [
                target(
                    f"max by (node) (rankwatch_node_memory_available_bytes{{{JOB_NODE}}}"
                    f" / rankwatch_node_memory_total_bytes{{{JOB_NODE}}})",
                    "{{node}}",
                )
            ],
            unit="percentunit",
        ),
        timeseries(
            "Memory of the ranks per node",
            "Sum of the ranks' RSS per node against the node's total memory.",
            [
                target(f"sum by (node) (rankwatch_rank_rss_bytes{{{JOB_NODE}}})", "ranks {{node}}"),
                target(
                    f"max by (node) (rankwatch_node_memory_total_bytes{{{JOB_NODE}}})",
                    "total {{node}}",
                ),
            ],
            unit="bytes",
        ),
        row("Sidecars"),
        timeline(
            "Sidecar scraped",
            "Whether Prometheus can scrape each node's sidecar (up).",
            f'max by (node) (up{{job="rankwatch", {JOB_NODE}}})',
            "{{node}}",
            {0: ("down", "red"), 1: ("up", "green")},
        ),
        timeline(
            "Sources up",
            "Each source of each sidecar: seeing (1) or blind (0).",
            f"max by (node, source) (rankwatch_source_up{{{JOB_NODE}}})",
            "{{node}} {{source}}",
            {0: ("blind", "orange"), 1: ("up", "green")},
        ),
        table(
            "Health by concern",
            "The sidecars' own verdict per concern (unknown means blind, never OK).",
            f"max by (node, concern, state) (rankwatch_health{{{JOB_NODE}}} == 1)",
            width=8,
        ),
        table(
            "Sidecar versions",
            "Version and mode of each node's sidecar, and its uptime.",
            f"max by (node, exported_node, mode, version) (rankwatch_job_info{{{JOB_NODE}}})"
            f" * on (node) group_left () max by (node) "
            f"(time() - rankwatch_start_time_seconds{{{JOB_NODE}}})",
            width=8,
        ),
        timeseries(
            "Source poll duration",
            "Time each poll of each source took.",
            [
                target(
                    f"max by (node, source) (rankwatch_source_poll_duration_seconds{{{JOB_NODE}}})",
                    "{{node}} {{source}}",
                )
            ],
            unit="s",
            width=8,
        ),
        timeseries(
            "Source errors",
            "Errors per second by source and type.",
            [
                target(
                    "sum by (node, source, error_type) (rate(rankwatch_source_errors_total"
                    f"{{{JOB_NODE}}}[$__rate_interval]))",
                    "{{node}} {{source}} {{error_type}}",
                )
            ],
            unit="reqps",
            width=8,
        ),
        timeseries(
            "Dropped observations and detector errors",
            "Observations dropped on a full queue, and exceptions inside detectors (bugs).",
            [
                target(
                    "sum by (node, source) (rate(rankwatch_observations_dropped_total"
                    f"{{{JOB_NODE}}}[$__rate_interval]))",
                    "dropped {{node}} {{source}}",
                ),
                target(
                    "sum by (node, detector) (rate(rankwatch_detector_errors_total"
                    f"{{{JOB_NODE}}}[$__rate_interval]))",
                    "detector {{node}} {{detector}}",
                ),
            ],
            unit="reqps",
            width=8,
        ),
        timeseries(
            "Alert deliveries",
            "Alerts delivered per sink, failed deliveries by reason, and alert records emitted.",
            [
                target(
                    "sum by (sink) (rate(rankwatch_alerts_delivered_total"
                    f"{{{JOB_NODE}}}[$__rate_interval]))",
                    "delivered {{sink}}",
                ),
                target(
                    "sum by (sink, reason) (rate(rankwatch_alerts_delivery_failed_total"
                    f"{{{JOB_NODE}}}[$__rate_interval]))",
                    "failed {{sink}} {{reason}}",
                ),
                target(
                    "sum by (alertname, status) (rate(rankwatch_alerts_total"
                    f"{{{JOB_NODE}}}[$__rate_interval]))",
                    "{{alertname}} {{status}}",
                ),
            ],
            unit="reqps",
            width=8,
        ),
        timeseries(
            "Output bytes per second",
            "Bytes read from the job's output streams per node.",
            [
                target(
                    "sum by (node, stream) (rate(rankwatch_output_bytes_total"
                    f"{{{JOB_NODE}}}[$__rate_interval]))",
                    "{{node}} {{stream}}",
                )
            ],
            unit="Bps",
            width=8,
        ),
    ]
    return dashboard(
        "rankwatch-node-health",
        "rankwatch / Node health",
        "Clocks, memory and the sidecars' own health on the nodes of a job.",
        JOB_VARIABLES,
        items,
    )


DASHBOARDS = {
    "rankwatch-job-overview.json": job_overview,
    "rankwatch-nccl-ras.json": nccl_ras,
    "rankwatch-node-health.json": node_health,
}


def render(name: str) -> str:
    return json.dumps(DASHBOARDS[name](), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    out_dir = Path(argv[1]) if len(argv) > 1 else HERE
    for name in DASHBOARDS:
        (out_dir / name).write_text(render(name), encoding="utf-8")
        print(f"wrote {out_dir / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
