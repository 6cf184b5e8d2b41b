"""Copy a gpu-lab run into this folder with the capturing machine's paths replaced.

usage: python scrub.py RUN_DIR NAME [PYSPY_GLOB ...]
Text files are rewritten line by line; flight-recorder pickles are read with rankwatch's
restricted unpickler (plain containers only), their strings rewritten, and written again with
pickle protocol 2 (what torch writes). Nothing but the paths changes.
"""

from __future__ import annotations

import fnmatch
import pickle
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from monitor.parse.flight_recorder import decode_dump

HERE = Path(__file__).resolve().parent
# Any absolute folder in front of these anchors is the capturing machine's; it goes.
REWRITES = (
    (re.compile(r"/[\w.+-]+(?:/[\w.+-]+)*?/site-packages/"), "site-packages/"),
    (re.compile(r"/[\w.+-]+(?:/[\w.+-]+)*?/(python3\.\d+)/"), r"\1/"),
    (re.compile(r"/[\w.+-]+(?:/[\w.+-]+)*/(?=(?:train_nccl|launch_noteardown|run_scenario|debug_job)\.py)"),
     "gpu-lab/"),
    (re.compile(r"/[\w.+-]+(?:/[\w.+-]+)*?/bin/(?=python3?\b|torchrun\b|py-spy\b)"), ""),
    (re.compile(r"/[\w.+-]+(?:/[\w.+-]+)*/(?=fault_(?:job|capture)\.py)"), "harness/"),
    (re.compile(r"/[\w.+-]+(?:/[\w.+-]+)*?/(?:hang|gpuhang|killnt|healthy|dlstall|stop|dbg)/"), ""),
    (re.compile(r"/[\w.+-]+(?:/[\w.+-]+)*?/fault_runs/[\w-]+/"), ""),
)
TEXT = ("job.out", "node0.out", "node1.out", "alerts.jsonl", "summary.json", "mark.jsonl", "metrics.txt",
        "exit.txt")


def scrub(text: str) -> str:
    for pattern, new in REWRITES:
        text = pattern.sub(new, text)
    return text


def scrub_value(value: Any) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {scrub_value(k): scrub_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(scrub_value(v) for v in value)
    return value


def main(run: Path, name: str, pyspy: list[str]) -> None:
    out = HERE / name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for f in TEXT:
        if (run / f).exists():
            (out / f).write_text(scrub((run / f).read_text(errors="replace")))
    for f in sorted(run.glob("fr_*")):
        data = decode_dump(f.read_bytes())
        (out / f.name).write_bytes(pickle.dumps(scrub_value(data), protocol=2))
    if (run / "ras").is_dir():
        (out / "ras").mkdir()
    for f in sorted((run / "ras").glob("*")):
        (out / "ras" / f.name).write_text(scrub(f.read_text(errors="replace")))
    if (run / "debug").is_dir():  # torch's debug servers' replies, verbatim but for paths
        (out / "debug").mkdir()
        for f in sorted((run / "debug").iterdir()):
            (out / "debug" / f.name).write_text(scrub(f.read_text(errors="replace")))
    dumps = sorted((run / "state" / "pyspy").glob("*.json"))
    chosen = [f for f in dumps if any(fnmatch.fnmatch(f.name, g) for g in pyspy)]
    if chosen:
        (out / "pyspy").mkdir()
    for f in chosen:
        (out / "pyspy" / f.name).write_text(scrub(f.read_text()))


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], sys.argv[3:])
