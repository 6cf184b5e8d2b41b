"""The generated configuration reference in docs/configuration.md: check it, or rewrite it with
`python -m tests.docs_settings --write`."""

from __future__ import annotations

import sys
from pathlib import Path

from monitor.settings import render_settings_reference

CONFIGURATION_DOC = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"
BEGIN = "<!-- BEGIN settings reference"
END = "<!-- END settings reference -->"


def split(text: str) -> tuple[str, str, str]:
    start = text.index(BEGIN)
    body_start = text.index("\n", start) + 1
    end = text.index(END)
    return text[:body_start], text[body_start:end], text[end:]


def expected_block() -> str:
    return "\n" + render_settings_reference() + "\n"


if __name__ == "__main__":
    head, _body, tail = split(CONFIGURATION_DOC.read_text(encoding="utf-8"))
    if "--write" in sys.argv:
        CONFIGURATION_DOC.write_text(head + expected_block() + tail, encoding="utf-8")
        print(f"rewrote the settings reference in docs/{CONFIGURATION_DOC.name}")
    else:
        sys.stdout.write(expected_block())
