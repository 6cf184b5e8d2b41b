"""Structure checks for Grafana dashboards, without a Grafana server."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.deploy.promql import GRAFANA_BUILTINS, iter_panels

GRID_COLUMNS = 24
_VARIABLE = re.compile(r"\$\{([A-Za-z_]\w*)(?::[^}]*)?\}|\$([A-Za-z_]\w*)|\[\[([A-Za-z_]\w*)\]\]")


def referenced_variables(text: str) -> set[str]:
    names = set()
    for match in _VARIABLE.finditer(text):
        name = match.group(1) or match.group(2) or match.group(3)
        if f"${name}" not in GRAFANA_BUILTINS:
            names.add(name)
    return names


def structure_problems(board: dict[str, Any]) -> list[str]:
    """Every problem found, as readable lines (empty when the dashboard is sound)."""
    problems: list[str] = []
    for key in ("uid", "title", "schemaVersion", "panels", "templating"):
        if key not in board:
            problems.append(f"missing top-level key {key!r}")
    if problems:
        return problems

    variables = {v["name"]: v for v in board["templating"].get("list", [])}
    source = variables.get("datasource")
    if not source or source.get("type") != "datasource" or source.get("query") != "prometheus":
        problems.append("no datasource variable of type 'datasource' for prometheus")

    seen_ids: dict[int, str] = {}
    boxes: list[tuple[str, int, int, int, int]] = []
    for panel in iter_panels(board["panels"]):
        title = str(panel.get("title"))
        panel_id = panel.get("id")
        if not isinstance(panel_id, int):
            problems.append(f"panel {title!r}: id {panel_id!r} is not an integer")
        elif panel_id in seen_ids:
            problems.append(
                f"panel {title!r}: id {panel_id} already used by {seen_ids[panel_id]!r}"
            )
        else:
            seen_ids[panel_id] = title
        pos = panel.get("gridPos") or {}
        x, y, w, h = (pos.get(k) for k in ("x", "y", "w", "h"))
        if not all(isinstance(v, int) for v in (x, y, w, h)):
            problems.append(f"panel {title!r}: incomplete gridPos {pos}")
            continue
        assert isinstance(x, int) and isinstance(y, int) and isinstance(w, int)
        assert isinstance(h, int)
        if x < 0 or y < 0 or w <= 0 or h <= 0 or x + w > GRID_COLUMNS:
            problems.append(f"panel {title!r}: gridPos {pos} outside the 24-column grid")
        for other, ox, oy, ow, oh in boxes:
            if x < ox + ow and ox < x + w and y < oy + oh and oy < y + h:
                problems.append(f"panel {title!r} overlaps panel {other!r}")
        boxes.append((title, x, y, w, h))
        if panel.get("type") == "row":
            continue
        if (panel.get("datasource") or {}).get("uid") != "${datasource}":
            problems.append(f"panel {title!r}: datasource is not the ${{datasource}} variable")
        targets = panel.get("targets") or []
        if not targets:
            problems.append(f"panel {title!r}: no targets")
        refs = [t.get("refId") for t in targets]
        if len(set(refs)) != len(refs):
            problems.append(f"panel {title!r}: duplicate refId in {refs}")
        for tgt in targets:
            if not tgt.get("expr") or not tgt.get("refId"):
                problems.append(f"panel {title!r}: a target lacks expr or refId: {tgt}")
            if (tgt.get("datasource") or {}).get("uid") != "${datasource}":
                problems.append(
                    f"panel {title!r}: target {tgt.get('refId')} has another datasource"
                )
            for name in referenced_variables(str(tgt.get("expr", ""))):
                if name not in variables:
                    problems.append(f"panel {title!r}: ${name} is not a dashboard variable")
    for name, variable in variables.items():
        if variable.get("type") == "query":
            query_text = json.dumps(variable.get("query"))
            if (variable.get("datasource") or {}).get("uid") != "${datasource}":
                problems.append(f"variable ${name}: datasource is not ${{datasource}}")
            for ref in referenced_variables(query_text):
                if ref not in variables:
                    problems.append(f"variable ${name}: uses undefined ${ref}")
    return problems
