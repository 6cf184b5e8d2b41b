"""Grafana dashboards: generated, well-formed, loadable by Grafana's typed model, valid PromQL."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from grafana_foundation_sdk.cog import plugins
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.dashboard import Dashboard

from dashboards import generate
from tests.deploy.dashboard_checks import structure_problems
from tests.deploy.promql import (
    DASHBOARDS_DIR,
    Query,
    dashboard_queries,
    load_dashboard,
    promtool_parse_errors,
    substitute,
)

NAMES = sorted(generate.DASHBOARDS)


@pytest.fixture(scope="module", params=NAMES)
def board(request: pytest.FixtureRequest) -> dict[str, Any]:
    return load_dashboard(DASHBOARDS_DIR / request.param)


@pytest.mark.parametrize("name", NAMES)
def test_committed_json_is_the_generators_output(name: str) -> None:
    """The JSON files are exactly what dashboards/generate.py writes (edit the generator)."""
    assert (DASHBOARDS_DIR / name).read_text(encoding="utf-8") == generate.render(name)


def test_structure(board: dict[str, Any]) -> None:
    """Unique integer panel ids, panels inside the 24-column grid and not overlapping, every
    target with expr and refId on the ${datasource} variable, variables defined."""
    assert structure_problems(board) == []


def test_variables(board: dict[str, Any]) -> None:
    """Datasource, job and node are variables; node allows several and all."""
    variables = {v["name"]: v for v in board["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["job_id"]["query"]["query"] == "label_values(rankwatch_job_info, job_id)"
    assert variables["node"]["multi"] and variables["node"]["includeAll"]


def test_structure_check_catches_broken_dashboards() -> None:
    """The checker reports an off-grid panel, a duplicate id, an overlap, a target without
    expr and a hard-coded datasource."""
    broken = copy.deepcopy(load_dashboard(DASHBOARDS_DIR / NAMES[0]))
    panels = [p for p in broken["panels"] if p["type"] != "row"]
    panels[0]["gridPos"]["x"] = 22  # w = 4: beyond column 24
    panels[1]["id"] = panels[2]["id"]
    panels[3]["gridPos"] = dict(panels[4]["gridPos"])
    del panels[5]["targets"][0]["expr"]
    panels[6]["datasource"] = {"type": "prometheus", "uid": "prod-prometheus"}
    text = "\n".join(structure_problems(broken))
    assert "outside the 24-column grid" in text
    assert "already used" in text
    assert "overlaps" in text
    assert "lacks expr or refId" in text
    assert "datasource is not the ${datasource} variable" in text


def test_round_trip_through_the_grafana_typed_model(board: dict[str, Any]) -> None:
    """Loading into grafana-foundation-sdk's Dashboard model and serialising back keeps
    every key and value we wrote (nothing unknown to Grafana's schema)."""
    plugins.register_default_plugins()
    typed = Dashboard.from_json(board)
    back = json.loads(json.dumps(typed, cls=JSONEncoder))
    assert _lost(board, back) == []
    assert typed.panels is not None and len(typed.panels) == len(board["panels"])


def _lost(original: Any, back: Any, path: str = "") -> list[str]:
    """Paths whose original value did not survive (defaults added by the SDK are fine)."""
    if isinstance(original, dict):
        if not isinstance(back, dict):
            return [f"{path}: became {type(back).__name__}"]
        lost = []
        for key, value in original.items():
            if key not in back:
                lost.append(f"{path}.{key}: dropped")
            else:
                lost.extend(_lost(value, back[key], f"{path}.{key}"))
        return lost
    if isinstance(original, list):
        if not isinstance(back, list) or len(back) != len(original):
            return [f"{path}: list changed"]
        return [
            m
            for i, (a, b) in enumerate(zip(original, back, strict=True))
            for m in _lost(a, b, f"{path}[{i}]")
        ]
    return [] if original == back else [f"{path}: {original!r} became {back!r}"]


def test_every_query_parses_with_promtool() -> None:
    """Every panel expression and variable selector, with template variables substituted,
    is valid PromQL to promtool."""
    queries = []
    for name in NAMES:
        board = load_dashboard(DASHBOARDS_DIR / name)
        queries.extend(Query(q.where, substitute(q.expr)) for q in dashboard_queries(board, name))
    assert len(queries) > 50
    assert promtool_parse_errors(queries) == ""


def test_promtool_parse_check_reports_errors() -> None:
    """The parse check fails on a broken expression (so the test above can fail)."""
    errors = promtool_parse_errors([Query("broken", "sum(rate(rankwatch_rank_step[1m])")])
    assert "parse" in errors or "unclosed" in errors


def test_substitute_grafana_variables() -> None:
    """Built-in intervals become durations; dashboard variables become values or `.*`."""
    expr = 'rate(x{job_id="$job_id", node=~"${node:regex}", c="[[comm]]"}[$__rate_interval])'
    assert substitute(expr, {"job_id": "42"}) == 'rate(x{job_id="42", node=~".*", c=".*"}[1m])'
