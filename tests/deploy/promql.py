"""PromQL found in deploy/prometheus rules and dashboards/: extraction, template variable
substitution, offline parsing with promtool, and the list of metric names it uses.

Regenerate the committed list with `python -m tests.deploy.promql --write`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
RULES_DIR = REPO / "deploy" / "prometheus"
DASHBOARDS_DIR = REPO / "dashboards"
USED_METRICS = REPO / "tests" / "data" / "deploy" / "used_metrics.txt"

# Series Prometheus makes itself; the exporter does not emit them.
BUILTIN_SERIES = frozenset({"up", "ALERTS", "ALERTS_FOR_STATE", "scrape_duration_seconds"})
KEYWORDS = frozenset(
    {
        "and",
        "or",
        "unless",
        "by",
        "without",
        "on",
        "ignoring",
        "group_left",
        "group_right",
        "offset",
        "bool",
        "inf",
        "nan",
        "atan2",
        "topk",
        "bottomk",
    }
)


@dataclass(frozen=True)
class Query:
    where: str  # file and panel/rule, for messages
    expr: str


def rule_files() -> list[Path]:
    return sorted(RULES_DIR.glob("*_rules.yml"))


def dashboard_files() -> list[Path]:
    return sorted(DASHBOARDS_DIR.glob("*.json"))


def load_dashboard(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def rules(path: Path) -> Iterator[dict[str, Any]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for group in data.get("groups", []):
        yield from group.get("rules", [])


def rule_queries() -> list[Query]:
    found = []
    for path in rule_files():
        for rule in rules(path):
            name = rule.get("alert") or rule.get("record")
            found.append(Query(f"{path.name}:{name}", str(rule["expr"])))
    return found


def recorded_names() -> set[str]:
    return {rule["record"] for path in rule_files() for rule in rules(path) if "record" in rule}


def iter_panels(panels: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every panel, including those nested in collapsed rows."""
    for panel in panels:
        yield panel
        yield from iter_panels(panel.get("panels", []))


_LABEL_VALUES = re.compile(r"^\s*label_values\((.*),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$", re.S)


def dashboard_queries(board: dict[str, Any], name: str) -> list[Query]:
    """Panel target expressions, and the PromQL selector inside each label_values() variable
    (label_values itself is Grafana's, not PromQL)."""
    found = []
    for panel in iter_panels(board.get("panels", [])):
        for tgt in panel.get("targets", []):
            found.append(Query(f"{name}:{panel.get('title')}:{tgt.get('refId')}", tgt["expr"]))
    for variable in board.get("templating", {}).get("list", []):
        if variable.get("type") != "query":
            continue
        query = variable["query"]
        text = query["query"] if isinstance(query, dict) else query
        match = _LABEL_VALUES.match(text)
        if match:
            found.append(Query(f"{name}:${variable['name']}", match.group(1)))
    return found


def all_dashboard_queries() -> list[Query]:
    found = []
    for path in dashboard_files():
        found.extend(dashboard_queries(load_dashboard(path), path.name))
    return found


GRAFANA_BUILTINS = {
    "$__rate_interval": "1m",
    "$__interval_ms": "60000",
    "$__interval": "1m",
    "$__range_s": "3600",
    "$__range_ms": "3600000",
    "$__range": "1h",
}


def substitute(expr: str, values: dict[str, str] | None = None) -> str:
    """Replace Grafana's variables: built-ins by fixed durations, `$var`, `${var}`,
    `${var:format}` and `[[var]]` by the given value, else `.*`."""
    values = values or {}
    for name, value in GRAFANA_BUILTINS.items():
        expr = expr.replace(name, value)

    def repl(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2) or match.group(3)
        return values.get(name, ".*")

    return re.sub(
        r"\$\{([A-Za-z_]\w*)(?::[^}]*)?\}|\$([A-Za-z_]\w*)|\[\[([A-Za-z_]\w*)\]\]", repl, expr
    )


def promtool_parse_errors(queries: list[Query]) -> str:
    """Parse every expression with promtool (as recording rules); '' when all parse."""
    rules_doc = {
        "groups": [
            {
                "name": "parse-check",
                "rules": [
                    {"record": f"parse_check_{i}", "expr": q.expr} for i, q in enumerate(queries)
                ],
            }
        ]
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "parse_rules.yml"
        path.write_text(json.dumps(rules_doc), encoding="utf-8")  # JSON is valid YAML
        done = subprocess.run(
            ["promtool", "check", "rules", "--lint=none", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode == 0:
        return ""
    return done.stdout + done.stderr


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_BRACES = re.compile(r"\{[^{}]*\}")
_RANGE = re.compile(r"\[[^\[\]]*\]")
_LABEL_LIST = re.compile(
    r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)", re.IGNORECASE
)
_IDENT = re.compile(r"(?<![\w:.$])([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?")


def metric_names(expr: str) -> set[str]:
    """Metric names an expression selects (functions, keywords and labels left out)."""
    text = _STRING.sub('""', expr)
    text = _BRACES.sub("", text)
    text = _RANGE.sub("", text)
    text = _LABEL_LIST.sub("", text)
    names = set()
    for match in _IDENT.finditer(text):
        word, call = match.group(1), match.group(2)
        if call or word.lower() in KEYWORDS:
            continue
        names.add(word)
    return names


def exporter_metrics_used() -> list[str]:
    """The exporter's metric names used by the rules and dashboards (sorted, exposition names:
    `rankwatch_` prefix, counters with `_total`)."""
    recorded = recorded_names()
    names: set[str] = set()
    for query in [*rule_queries(), *all_dashboard_queries()]:
        names |= metric_names(query.expr)
    return sorted(n for n in names if n not in recorded and n not in BUILTIN_SERIES)


def render_used_metrics() -> str:
    header = (
        "# Metric names used by deploy/prometheus/*_rules.yml and dashboards/*.json.\n"
        "# Generated by `python -m tests.deploy.promql --write`; one exposition name per line.\n"
    )
    return header + "".join(f"{name}\n" for name in exporter_metrics_used())


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        USED_METRICS.write_text(render_used_metrics(), encoding="utf-8")
        print(f"wrote {USED_METRICS}")
    else:
        sys.stdout.write(render_used_metrics())
