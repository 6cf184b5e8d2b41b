"""Rendering a Diagnosis: text for a terminal, Markdown for a ticket, JSON for tools.

The JSON's top-level keys are the triage contract: `category`, `culprit_ranks`,
`initiator_ranks`, `observer_ranks`, `ranks`, `first_error`, `timeline`, `events`, `summary`,
`recommendations`; the others are additions. `clock` says how the clocks of the nodes were
reconciled: each clock domain's correction (given, measured or inferred, with the range the
evidence allows and the file:line evidence), the order violations that remain, and whether
the report flags a disagreement.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from monitor.parse.flight_recorder import FrAnalysis, user_frame
from monitor.triage.analysis import Diagnosis, FileLine, RankRow, StuckSummary, TimelineEntry
from monitor.triage.clocks import ClockReport, DomainClock
from monitor.triage.evidence import compress_ranks

TEXT_TIMELINE_LINES = 40


def to_json_dict(d: Diagnosis) -> dict[str, Any]:
    return {
        "category": d.category.value,
        "culprit_ranks": list(d.culprit_ranks),
        "initiator_ranks": list(d.initiator_ranks),
        "observer_ranks": list(d.observer_ranks),
        "ranks": [_row_dict(r) for r in d.ranks],
        "first_error": _file_line(d.first_error),
        "timeline": [_timeline_dict(t) for t in d.timeline],
        "events": dict(d.events),
        "summary": d.summary,
        "recommendations": list(d.recommendations),
        "culprits": list(d.culprits),
        "findings": list(d.findings),
        "first_detector_ranks": list(d.first_detectors),
        "stuck_collectives": [_stuck_dict(s) for s in d.stuck],
        "causal_chain": [
            {"time": c.time, "what": c.what, "file": c.file, "line": c.line,
             "location": f"{c.file}:{c.line}", "order_uncertain": c.order_uncertain,
             "clock_correction_seconds": c.clock_correction} for c in d.causal_chain
        ],
        "key_files": list(d.key_files),
        "silent_ranks": list(d.silent_ranks),
        "world_size": d.world_size,
        "retries": {k: dict(v) for k, v in d.retries.items()},
        "timeline_total": d.timeline_total,
        "inputs": {"files": d.inputs.files, "lines": d.inputs.lines, "bytes": d.inputs.bytes,
                   "seconds": round(d.inputs.seconds, 3)},
        "problems": [{"path": p.path, "problem": p.problem, "skipped": p.skipped}
                     for p in d.problems],
        "clock": _clock_dict(d.clock),
        "flight_recorder": _fr_dict(d.flight_recorder),
    }


def _fr_dict(fr: FrAnalysis | None) -> dict[str, Any] | None:
    if fr is None:
        return None
    return {
        "dumps": fr.dumps,
        "ranks": list(fr.ranks),
        "groups": [{
            "pg": g.pg, "name": g.name, "members": list(g.members), "verdict": g.verdict,
            "seq": g.seq, "op": g.op, "waiting_ranks": list(g.waiting),
            "never_entered_ranks": list(g.never_entered), "blamed_ranks": list(g.blamed),
            "no_dump_ranks": list(g.no_dump), "sentences": list(g.sentences),
            "ranks": [{"rank": r.rank, "last_enqueued": r.last_enqueued,
                       "last_started": r.last_started, "last_completed": r.last_completed,
                       "last_op": r.last_op, "last_input_sizes": [list(x) for x in r.last_sizes],
                       "called_from": user_frame(r.last_frames),
                       "stack": list(r.last_frames)} for r in g.states],
        } for g in fr.groups],
    }


def _fr_lines(fr: FrAnalysis) -> list[str]:
    out: list[str] = []
    for g in fr.groups:
        out.append(f"{g.name or g.pg}: {g.verdict}"
                   + (f" at #{g.seq} ({g.op})" if g.seq is not None else ""))
        out.extend(f"  {s}" for s in g.sentences)
        for r in g.states:
            frame = user_frame(r.last_frames)
            out.append(f"  rank {r.rank}: last enqueued {_value(r.last_enqueued)}, started "
                       f"{_value(r.last_started)}, completed {_value(r.last_completed)}, last op "
                       f"{_value(r.last_op)} {_shapes(r.last_sizes)}"
                       + (f" from {frame}" if frame else ""))
    return out


def _shapes(sizes: tuple[tuple[int, ...], ...]) -> str:
    return "[" + ", ".join("x".join(map(str, s)) or "scalar" for s in sizes) + "]"


def _clock_dict(clock: ClockReport | None) -> dict[str, Any] | None:
    if clock is None:
        return None
    return {
        "flagged": clock.flagged,
        "corrected": clock.applied,
        "threshold_seconds": clock.threshold_seconds,
        "notes": list(clock.notes),
        "domains": [_domain_dict(c) for c in clock.domains],
        "violations": [
            {"cause": v.cause, "effect": v.effect, "cause_domain": v.cause_domain,
             "effect_domain": v.effect_domain, "seconds": v.seconds, "text": v.text}
            for v in clock.violations
        ],
        "uncertain_entries": clock.uncertain_entries,
    }


def _domain_dict(c: DomainClock) -> dict[str, Any]:
    return {
        "domain": c.domain,
        "kind": c.kind,
        "basis": c.basis,
        "correction_seconds": c.correction_seconds,
        "clock_offset_seconds": -c.correction_seconds if c.correction_seconds else 0.0,
        "range_seconds": [c.low_seconds, c.high_seconds],
        "relative_to": list(c.relative_to),
        "events": c.events,
        "source": c.source,
        "evidence": [{"kind": e.kind, "text": e.text, "locations": list(e.locations)}
                     for e in c.evidence],
        "evidence_lines": c.evidence_total,
        "proven": c.proven,
    }


def render_json(d: Diagnosis) -> str:
    return json.dumps(to_json_dict(d), indent=2, ensure_ascii=False) + "\n"


def _file_line(value: FileLine | None) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"file": value.file, "line": value.line, "text": value.text}


def _row_dict(row: RankRow) -> dict[str, Any]:
    return {
        "rank": row.rank,
        "rank_source": row.rank_origin,
        "pg": row.pg,
        "seq": row.seq,
        "op_type": row.op_type,
        "numel_in": row.numel_in,
        "numel_out": row.numel_out,
        "timeout_ms": row.timeout_ms,
        "ran_ms": row.ran_ms,
        "last_enqueued": row.last_enqueued,
        "last_started": row.last_started,
        "last_completed": row.last_completed,
        "role": row.role or None,
        "state": row.state or None,
        "first_error": _file_line(row.first_error),
        "events": row.events,
        "files": list(row.files),
    }


def _stuck_dict(s: StuckSummary) -> dict[str, Any]:
    return {
        "pg": s.pg, "seq": s.seq, "op_type": s.op_type, "timeout_ms": s.timeout_ms,
        "ran_ms": s.ran_ms, "started_at": s.started_at, "timed_out_at": s.timed_out_at,
        "waiting_ranks": list(s.waiting_ranks), "straggler_ranks": list(s.stragglers),
        "ahead_ranks": list(s.ahead_ranks), "watchdog_late_seconds": s.watchdog_late_seconds,
    }


def _timeline_dict(t: TimelineEntry) -> dict[str, Any]:
    return {"time": t.time, "file": t.file, "line": t.line, "location": f"{t.file}:{t.line}",
            "rank": t.rank, "kind": t.kind, "level": t.level, "text": t.text, "repeat": t.repeat,
            "stamp": t.stamp, "clock_domain": t.clock_domain,
            "clock_correction_seconds": t.clock_correction,
            "order_uncertain": t.order_uncertain}


# --- text -------------------------------------------------------------------------------

UNCERTAIN_MARK = "~"


def _clock_shown(clock: ClockReport | None) -> bool:
    return clock is not None and bool(clock.flagged or clock.applied or clock.notes
                                      or clock.uncertain_entries)


def _clock_lines(clock: ClockReport) -> list[str]:
    """The clock section's lines (without indentation or bullets)."""
    out = list(clock.notes)
    for c in clock.domains:
        if c.basis == "inferred":
            low = "open" if c.low_seconds is None else f"{c.low_seconds:+.3f}"
            high = "open" if c.high_seconds is None else f"{c.high_seconds:+.3f}"
            where = ", ".join(dict.fromkeys(loc for e in c.evidence for loc in e.locations))
            out.append(f"{c.domain}: {c.correction_seconds:+.3f} s applied (inferred, allowed "
                       f"{low} .. {high} s" + ("" if c.proven else ", or no skew at all")
                       + f"); evidence at {where}")
    if clock.uncertain_entries:
        out.append(f"{clock.uncertain_entries} timeline entr"
                   f"{'y' if clock.uncertain_entries == 1 else 'ies'} marked "
                   f"{UNCERTAIN_MARK}: the clocks cannot tell their order against another "
                   "node's entries")
    return out


def _clock_title(clock: ClockReport) -> str:
    return "CLOCK SKEW: node timestamps disagree" if clock.flagged else "CLOCKS"


def _mark(uncertain: bool) -> str:
    return UNCERTAIN_MARK if uncertain else " "


def _ranks(ranks: Sequence[int]) -> str:
    return compress_ranks(list(ranks)) if ranks else "-"


def _value(value: object) -> str:
    return "-" if value is None or value == "" else str(value)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [len(h) for h in header]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = min(max(widths[i], len(cell)), 60)
    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(c[:60].ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()
    return [fmt(header), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)]


def _rank_rows(d: Diagnosis) -> list[list[str]]:
    out = []
    for r in d.ranks:
        first = f"{r.first_error.file.rsplit('/', 1)[-1]}:{r.first_error.line}" \
            if r.first_error else "-"
        out.append([str(r.rank), _value(r.pg), _value(r.seq), _value(r.op_type),
                    _value(r.numel_in), _value(r.last_enqueued), _value(r.last_started),
                    _value(r.last_completed), _value(r.role), _value(r.state), first])
    return out


_RANK_HEADER = ["rank", "pg", "seq", "op", "numel_in", "enqueued", "started", "completed",
                "role", "state", "first error"]


def render_text(d: Diagnosis, timeline_lines: int = TEXT_TIMELINE_LINES) -> str:
    lines: list[str] = []
    add = lines.append
    stats = d.inputs
    add(f"rankwatch triage: {stats.files} file(s), {stats.lines:,} lines, "
        f"{_size(stats.bytes)} in {stats.seconds:.2f} s")
    add("")
    culprit = ", ".join(d.culprits) if d.culprits else "undetermined"
    add(f"CATEGORY   {d.category.value}")
    add(f"CULPRIT    {culprit}")
    if d.culprit_ranks:
        add(f"RANKS      {_ranks(d.culprit_ranks)}")
    add("")
    add(d.summary)
    if d.findings:
        add("")
        add("FINDINGS")
        lines.extend(f"  - {f}" for f in d.findings)
    if d.clock is not None and _clock_shown(d.clock):
        add("")
        add(_clock_title(d.clock))
        lines.extend(f"  - {line}" for line in _clock_lines(d.clock))
    if d.flight_recorder is not None:
        add("")
        add(f"FLIGHT RECORDER ({d.flight_recorder.dumps} dump(s), read alone: FINDINGS joins them "
            "with the logs)")
        lines.extend(f"  {line}" for line in _fr_lines(d.flight_recorder))
    if d.stuck:
        add("")
        add("STUCK COLLECTIVES")
        for s in d.stuck:
            add(f"  #{s.seq} {s.op_type or '?'} PG {_value(s.pg)}: started {_value(s.started_at)}, "
                f"timed out {_value(s.timed_out_at)} (timeout {_ms(s.timeout_ms)}, ran "
                f"{_ms(s.ran_ms)}); waiting {_ranks(s.waiting_ranks)}; stragglers "
                f"{_ranks(s.stragglers)}" + (f"; ahead {_ranks(s.ahead_ranks)}"
                                             if s.ahead_ranks else ""))
    if d.initiator_ranks or d.observer_ranks:  # (only where a watchdog or a peer spoke)
        add("")
        add(f"INITIATORS {_ranks(d.initiator_ranks)}   (their own watchdog fired)")
        add(f"OBSERVERS  {_ranks(d.observer_ranks)}   (notified by another rank)")
    if d.first_detectors:
        add(f"FIRST DETECTOR (flight recorder) {_ranks(d.first_detectors)}")
    if d.ranks:
        add("")
        add("RANKS")
        lines.extend("  " + line for line in _table(_RANK_HEADER, _rank_rows(d)))
    if d.causal_chain:
        add("")
        add("CAUSAL CHAIN")
        for i, step in enumerate(d.causal_chain, 1):
            note = "  (order across nodes uncertain: clock skew)" \
                if step.order_uncertain else ""
            add(f"  {i}.{_mark(step.order_uncertain)}{_value(step.time)}  {step.what}  "
                f"[{step.file}:{step.line}]{note}")
    if d.first_error is not None:
        add("")
        add(f"FIRST ERROR  {d.first_error.file}:{d.first_error.line}")
        add(f"  {d.first_error.text.strip()[:200]}")
    if d.timeline:
        add("")
        shown = d.timeline[:timeline_lines]
        add(f"TIMELINE ({len(shown)} of {d.timeline_total} entries; --format json has "
            f"{len(d.timeline)})")
        for t in shown:
            repeat = f" (x{t.repeat})" if t.repeat > 1 else ""
            moved = f" [{t.clock_domain} {t.clock_correction:+.3f} s]" if t.clock_correction \
                else ""
            add(f" {_mark(t.order_uncertain)}{_value(t.time):<26} {t.file}:{t.line}  {t.text}"
                f"{repeat}{moved}")
    if d.key_files:
        add("")
        add("KEY FILES")
        lines.extend(f"  {f}" for f in d.key_files)
    if d.retries:
        add("")
        add("RETRIES")
        for context, c in sorted(d.retries.items()):
            add(f"  {context}: {c['recovering']} recovering (1/N), {c['escalating']} escalating, "
                f"{c['exhausted']} exhausted")
    if d.events:
        add("")
        add("EVENTS  " + ", ".join(f"{k} {v}" for k, v in d.events.items()))
    if d.problems:
        add("")
        add("INPUT PROBLEMS")
        for p in d.problems:
            add(f"  {p.path}: {p.problem}")
    if d.recommendations:
        add("")
        add("RECOMMENDATIONS")
        lines.extend(f"  - {r}" for r in d.recommendations)
    return "\n".join(lines) + "\n"


def render_markdown(d: Diagnosis, timeline_lines: int = 100) -> str:
    lines: list[str] = []
    add = lines.append
    add("# rankwatch triage")
    add("")
    add(f"**Category:** `{d.category.value}`  ")
    add(f"**Culprit:** {', '.join(d.culprits) if d.culprits else 'undetermined'}  ")
    add(f"**Culprit ranks:** {_ranks(d.culprit_ranks)}")
    add("")
    add(d.summary)
    if d.findings:
        add("")
        add("## Findings")
        add("")
        lines.extend(f"- {f}" for f in d.findings)
    if d.clock is not None and _clock_shown(d.clock):
        add("")
        add(f"## {'Clock skew: node timestamps disagree' if d.clock.flagged else 'Clocks'}")
        add("")
        lines.extend(f"- {line}" for line in _clock_lines(d.clock))
    if d.flight_recorder is not None:
        add("")
        add(f"## Flight recorder ({d.flight_recorder.dumps} dump(s))")
        add("")
        lines.extend(f"- {line.strip()}" for line in _fr_lines(d.flight_recorder))
    if d.stuck:
        add("")
        add("## Stuck collectives")
        add("")
        add("| SeqNum | op | PG | started | timed out | waiting | stragglers |")
        add("|---|---|---|---|---|---|---|")
        for s in d.stuck:
            add(f"| {s.seq} | {_value(s.op_type)} | {_value(s.pg)} | {_value(s.started_at)} | "
                f"{_value(s.timed_out_at)} | {_ranks(s.waiting_ranks)} | {_ranks(s.stragglers)} |")
    if d.initiator_ranks or d.observer_ranks:
        add("")
        add(f"**Initiators** (own watchdog fired): {_ranks(d.initiator_ranks)}  ")
        add(f"**Observers** (notified by another rank): {_ranks(d.observer_ranks)}")
    if d.ranks:
        add("")
        add("## Ranks")
        add("")
        add("| " + " | ".join(_RANK_HEADER) + " |")
        add("|" + "---|" * len(_RANK_HEADER))
        for row in _rank_rows(d):
            add("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
    if d.causal_chain:
        add("")
        add("## Causal chain")
        add("")
        for i, step in enumerate(d.causal_chain, 1):
            note = " *(order across nodes uncertain: clock skew)*" \
                if step.order_uncertain else ""
            add(f"{i}. {UNCERTAIN_MARK if step.order_uncertain else ''}{_value(step.time)} — "
                f"{step.what} (`{step.file}:{step.line}`){note}")
    if d.first_error is not None:
        add("")
        add(f"**First error:** `{d.first_error.file}:{d.first_error.line}`")
        add("")
        add("```")
        add(d.first_error.text.strip()[:300])
        add("```")
    if d.timeline:
        add("")
        add(f"## Timeline ({min(len(d.timeline), timeline_lines)} of {d.timeline_total})")
        add("")
        add("| time | where | rank | event |")
        add("|---|---|---|---|")
        for t in d.timeline[:timeline_lines]:
            when = f"{UNCERTAIN_MARK if t.order_uncertain else ''}{_value(t.time)}"
            if t.clock_correction:
                when += f" ({t.clock_domain} {t.clock_correction:+.3f} s)"
            add(f"| {when} | `{t.file}:{t.line}` | {_value(t.rank)} | "
                f"{t.text.replace('|', '/')}{f' (x{t.repeat})' if t.repeat > 1 else ''} |")
    if d.key_files:
        add("")
        add("## Key files")
        add("")
        lines.extend(f"- `{f}`" for f in d.key_files)
    if d.problems:
        add("")
        add("## Input problems")
        add("")
        lines.extend(f"- `{p.path}`: {p.problem}" for p in d.problems)
    if d.recommendations:
        add("")
        add("## Recommendations")
        add("")
        lines.extend(f"- {r}" for r in d.recommendations)
    add("")
    add(f"*{d.inputs.files} file(s), {d.inputs.lines:,} lines, {_size(d.inputs.bytes)}; events: "
        + ", ".join(f"{k} {v}" for k, v in d.events.items()) + "*")
    return "\n".join(lines) + "\n"


def _ms(value: int | None) -> str:
    return "-" if value is None else f"{value / 1000:.1f} s"


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json}
