"""The README stays true to the code: the generated settings reference is current, every
CLI option is documented, and every runbook anchor an alert links to exists."""

from __future__ import annotations

import re

from monitor.cli import build_parser
from monitor.settings import settings_reference
from tests.readme_settings import README, expected_block, split


def test_settings_reference_is_current() -> None:
    """Regenerate with `python -m tests.readme_settings --write` after changing a setting."""
    _head, body, _tail = split(README.read_text(encoding="utf-8"))
    assert body == expected_block()
    assert len(settings_reference()) > 50


def test_every_cli_option_is_documented() -> None:
    """Each subcommand and each long option of `rankwatch run` appears in the README."""
    text = README.read_text(encoding="utf-8")
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, subparser in sub.choices.items():  # type: ignore[union-attr]
        assert f"rankwatch {name}" in text, name
        for action in subparser._actions:
            for option in action.option_strings:
                if option.startswith("--") and option != "--help":
                    assert option in text, f"rankwatch {name} {option}"


def test_runbook_anchors_exist() -> None:
    """Alerts link to README.md#runbook-...; every such anchor in the code is in the README."""
    import pathlib

    text = README.read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([^"]+)"', text))
    root = README.parent
    used: set[str] = set()
    for folder in ("monitor", "exporters", "deploy"):
        for path in pathlib.Path(root, folder).rglob("*"):
            if path.suffix in (".py", ".yml", ".yaml", ".json") and path.is_file():
                used.update(re.findall(r"README\.md#(runbook-[a-z0-9-]+)", path.read_text()))
    assert used and used <= anchors, sorted(used - anchors)
