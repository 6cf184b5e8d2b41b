"""The documentation (README.md and docs/) stays true to the code: the generated settings
reference is current, every CLI option is documented, every alert has a runbook anchor that the
alerts' links reach, every documented metric exists, and every relative link resolves."""

from __future__ import annotations

import json
import re
from pathlib import Path

from exporters.console import format_alert_line
from monitor.alerts import runbook_anchor
from monitor.cli import build_parser
from monitor.detectors.log_events import ALERTS as LOG_EVENT_ALERTS
from monitor.settings import GeneralSettings, settings_reference
from tests.delivery_support.records import stalled_record
from tests.docs_settings import CONFIGURATION_DOC, expected_block, split

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = REPO / "docs"
USAGE_DOC = DOCS / "usage.md"
ALERTS_DOC = DOCS / "alerts.md"
METRICS_DOC = DOCS / "metrics.md"
USED_METRICS = REPO / "tests" / "data" / "deploy" / "used_metrics.txt"
DETECTORS = REPO / "monitor" / "detectors"


def _documents() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def _slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(text: str) -> set[str]:
    """Heading anchors (with GitHub's -1, -2 suffixes for repeats) and explicit <a id>s,
    ignoring fenced code blocks."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = re.match(r"#{1,6} (.*)", line)
        if heading:
            slug = _slug(heading.group(1))
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
        found.update(re.findall(r'<a id="([^"]+)"', line))
    return found


def _links(text: str) -> list[str]:
    """Targets of inline Markdown links outside fenced code blocks."""
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.findall(r"\]\(([^)\s]+)\)", prose)


def test_settings_reference_is_current() -> None:
    """Regenerate with `python -m tests.docs_settings --write` after changing a setting."""
    _head, body, _tail = split(CONFIGURATION_DOC.read_text(encoding="utf-8"))
    assert body == expected_block()
    assert len(settings_reference()) > 50


def test_every_cli_option_is_documented() -> None:
    """Each subcommand and each long option of every subcommand appears in docs/usage.md."""
    text = USAGE_DOC.read_text(encoding="utf-8")
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, subparser in sub.choices.items():  # type: ignore[union-attr]
        assert f"rankwatch {name}" in text, name
        for action in subparser._actions:
            for option in action.option_strings:
                if option.startswith("--") and option != "--help":
                    assert option in text, f"rankwatch {name} {option}"


def test_runbook_anchors_exist() -> None:
    """Alerts link to docs/alerts.md#runbook-...; every such anchor in the code, the Prometheus
    rules and their tests is in docs/alerts.md."""
    anchors = set(re.findall(r'<a id="([^"]+)"', ALERTS_DOC.read_text(encoding="utf-8")))
    used: set[str] = set()
    for folder in ("monitor", "exporters", "deploy"):
        for path in (REPO / folder).rglob("*"):
            if path.suffix in (".py", ".yml", ".yaml", ".json") and path.is_file():
                used.update(re.findall(r"docs/alerts\.md#(runbook-[a-z0-9-]+)", path.read_text()))
    assert used and used <= anchors, sorted(used - anchors)


def test_default_runbook_base_is_the_alerts_document() -> None:
    """The default `general.runbook_base_url` ends in the path of the runbook document, so an
    alert's link is that document plus its anchor."""
    base = GeneralSettings().runbook_base_url
    assert base.endswith("/" + ALERTS_DOC.relative_to(REPO).as_posix() + "#"), base
    assert ALERTS_DOC.is_file()


DETECTOR_FILES = {"clock": "time_sync"}


def _detector_alert_names() -> set[str]:
    """Alert names the detectors raise: `alertname="..."` arguments, the log-events alert
    table, and the clock detector's names (passed positionally)."""
    names = set(LOG_EVENT_ALERTS)
    for path in DETECTORS.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        names.update(re.findall(r'alertname="([A-Za-z]+)"', text))
    names.update(re.findall(r'"(Clock[A-Z][A-Za-z]+)"', (DETECTORS / "time_sync.py").read_text()))
    return names


def _alert_index() -> dict[str, str]:
    """Alert name -> 'raised by' column of the index table in docs/alerts.md."""
    rows = re.findall(
        r"^\|[^|]*\| \[(\w+)\]\(#runbook-[a-z0-9-]+\) \| ([^|]+) \|",
        ALERTS_DOC.read_text(encoding="utf-8"),
        flags=re.M,
    )
    return {name: raised_by.strip() for name, raised_by in rows}


def test_every_alert_has_a_runbook() -> None:
    """Every alert a detector raises is in the index of docs/alerts.md and has its
    `### Runbook: <AlertName>` entry under the anchor its runbook_url points to."""
    text = ALERTS_DOC.read_text(encoding="utf-8")
    index = _alert_index()
    raised = _detector_alert_names()
    assert len(raised) >= 30, sorted(raised)
    assert raised <= set(index), sorted(raised - set(index))
    for name in index:
        assert f'<a id="{runbook_anchor(name)}"></a>\n### Runbook: {name}\n' in text, name


def test_every_documented_alert_is_raised() -> None:
    """Every alert in the index is raised by the detectors it names, or is a Prometheus rule
    in deploy/prometheus/."""
    rule_text = "".join(
        p.read_text() for p in (REPO / "deploy" / "prometheus").glob("*_rules.yml")
    )
    for name, raised_by in _alert_index().items():
        if raised_by == "rule":
            assert f"alert: {name}\n" in rule_text, name
            continue
        for detector in (d.strip() for d in raised_by.split(",")):
            # The clock detector (its name in alerts) lives in detectors/time_sync.py.
            module = DETECTOR_FILES.get(detector, detector)
            source = (DETECTORS / f"{module}.py").read_text(encoding="utf-8")
            assert f'"{name}"' in source, f"{name} is not raised by detectors/{detector}.py"


def test_every_documented_metric_exists() -> None:
    """Each metric in docs/metrics.md is named in the code (without its `rankwatch_` prefix and
    `_total` suffix), and each metric the rules and dashboards use is documented."""
    documented = set(
        re.findall(r"^\| `(rankwatch_[a-z0-9_]+)`", METRICS_DOC.read_text(), flags=re.M)
    )
    assert len(documented) > 50
    source = "\n".join(
        path.read_text(encoding="utf-8")
        for folder in ("monitor", "exporters")
        for path in (REPO / folder).rglob("*.py")
    )
    literals = set(re.findall(r"[\"']([a-z0-9_]+)[\"']", source))
    for metric in documented:
        base = metric.removeprefix("rankwatch_")
        assert {base, base.removesuffix("_total")} & literals, metric
    used = {n for n in USED_METRICS.read_text().splitlines() if n and not n.startswith("#")}
    assert used <= documented, sorted(used - documented)


def test_every_relative_link_resolves() -> None:
    """Every relative link in README.md and docs/*.md names an existing file and, with a
    `#anchor`, a heading or <a id> of that file."""
    anchors = {path: _anchors(path.read_text(encoding="utf-8")) for path in _documents()}
    checked = 0
    for document in _documents():
        for link in _links(document.read_text(encoding="utf-8")):
            if re.match(r"[a-z][a-z0-9+.-]*:", link):
                continue  # http(s), mailto: not a file of this repository
            path_part, _, anchor = link.partition("#")
            target = (document.parent / path_part).resolve() if path_part else document
            assert target.exists(), f"{document.name}: {link}"
            if anchor:
                assert target.suffix == ".md", f"{document.name}: {link}"
                known = anchors.get(target) or _anchors(target.read_text(encoding="utf-8"))
                assert anchor in known, f"{document.name}: {link}"
            checked += 1
    assert checked > 100


def test_readme_is_the_front_door() -> None:
    """README.md stays short, links every document in docs/, and shows the exact test command
    that CI runs."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    for path in DOCS.glob("*.md"):
        assert f"](docs/{path.name})" in text, path.name
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    command = ci.split("# The README's test command:\n", 1)[1].splitlines()[0]
    assert f"\n{command}\n" in text, command


def test_readme_example_page_is_what_the_sinks_send() -> None:
    """The README's example page is the sinks' own rendering of the golden record: the console
    line verbatim, and the Slack message's header, summary, fields and evidence."""
    text = README.read_text(encoding="utf-8")
    record = stalled_record()
    assert f"\n{format_alert_line(record)}\n" in text
    slack = json.loads((REPO / "tests" / "data" / "delivery" / "slack_firing.json").read_text())
    header = slack["blocks"][0]["text"]["text"].replace(":rotating_light:", "🚨")
    assert f"\n{header}\n{record.summary}\n" in text
    lines = text.splitlines()
    for field in slack["blocks"][2]["fields"]:
        label, value = field["text"].strip("*").split("*\n")
        # a field is its label with its value right under it, as Slack lays out fields
        assert any(
            label in line and lines[i + 1][line.index(label) :].startswith(value)
            for i, line in enumerate(lines[:-1])
        ), label
    assert f"\n{record.description}\n" in text
    evidence = slack["blocks"][4]["text"]["text"].removeprefix("*Evidence*\n").strip("`")
    assert f"\nEvidence\n{evidence}\n" in text
