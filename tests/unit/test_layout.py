"""The package layout keeps the architecture's arrows: read from the imports of the source files."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("monitor", "exporters")

# The core at the root of `monitor/`; everything else lives in a subpackage.
CORE = {
    "__init__",
    "__main__",
    "alerts",
    "cli",
    "clock",
    "daemon",
    "errors",
    "incidents",  # the job lifecycle and one incident per failure, between detectors and policy
    "log",
    "model",
    "runner",
    "session",
    "settings",
    "status",  # `rankwatch status`: a running sidecar's view and its recorded alerts
    "training",  # the helper that training scripts import (Yama opt-in)
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_imports(path: Path) -> set[str]:
    """The project modules `path` imports, relative imports resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
    return {m for m in found if m.split(".")[0] in PACKAGES}


def import_arrows() -> dict[str, set[str]]:
    return {
        module_name(path): project_imports(path)
        for package in PACKAGES
        for path in sorted((REPO / package).rglob("*.py"))
    }


def reaches(imported: str, package: str) -> bool:
    return imported == package or imported.startswith(package + ".")


def test_monitor_root_holds_only_the_core() -> None:
    root = {path.stem for path in (REPO / "monitor").glob("*.py")}
    assert root - CORE == set()


def test_exporters_do_not_import_the_daemon_or_its_drivers() -> None:
    upward = {"monitor.daemon", "monitor.session", "monitor.cli", "monitor.demo"}
    wrong = {
        (module, imported)
        for module, imports in import_arrows().items()
        if module.startswith("exporters")
        for imported in imports
        if any(reaches(imported, up) for up in upward)
    }
    assert wrong == set()


def test_only_the_cli_reaches_the_demo() -> None:
    wrong = {
        (module, imported)
        for module, imports in import_arrows().items()
        if module != "monitor.cli" and not reaches(module, "monitor.demo")
        for imported in imports
        if reaches(imported, "monitor.demo")
    }
    assert wrong == set()


def test_the_arrow_reader_sees_known_imports() -> None:
    """Guards the checks above against an arrow reader that finds nothing."""
    arrows = import_arrows()
    assert "monitor.demo.command" in arrows["monitor.cli"]
    assert "monitor.model" in arrows["exporters.prometheus"]
