"""The live log-event detector: output lines in, coalesced alerts with their analysis out."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

import pytest

from monitor.alerts import AlertPolicy
from monitor.detectors.log_events import LogEventsDetector
from monitor.incidents import contract_severity
from monitor.model import (
    Category,
    DetectorOutput,
    Health,
    OutputChunk,
    OutputLine,
    PhaseHint,
    Scope,
    Severity,
    SourceState,
    Suspicion,
    Transition,
)
from monitor.parse.envelope import line_rank
from monitor.parse.log_events import EventExtractor
from tests.logformats import (
    BASE,
    dump_signal_observed,
    failure_detected,
    megatron_iteration,
    nccl_info,
    nccl_init,
    watchdog_timeout,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "logs"
SEQ = 5000
AT = BASE + dt.timedelta(minutes=10)


def _chunk(lines: Sequence[str], at: float = 0.0, stream: str = "stderr",
           rank: int | None = None) -> OutputChunk:
    return OutputChunk(at, stream, tuple(
        OutputLine(rank if rank is not None else line_rank(t), t) for t in lines))


def _transitions(outputs: Sequence[DetectorOutput]) -> list[Transition]:
    return [o for o in outputs if isinstance(o, Transition)]


def _storm(ranks: int, straggler: int) -> list[str]:
    lines: list[str] = []
    for rank in range(ranks):
        at = AT + dt.timedelta(milliseconds=rank)
        if rank == straggler:
            lines += dump_signal_observed(rank, 0, SEQ - 1, SEQ - 1, at)
        else:
            lines += [watchdog_timeout(rank, SEQ, at),
                      failure_detected(rank, SEQ, SEQ, SEQ - 1, at)]
    return lines


def test_storm_from_512_ranks_is_one_alert_naming_the_straggler() -> None:
    """511 ranks report the same timeout; rank 300 never entered the collective. After the
    settle window exactly one alert fires, job-scoped, naming rank 300 with the analysis."""
    detector = LogEventsDetector(settle_seconds=2.0)
    lines = _storm(512, straggler=300)
    outputs: list[DetectorOutput] = []
    for i in range(0, len(lines), 1000):
        outputs += detector.observe(_chunk(lines[i:i + 1000]), 10.0)
    assert _transitions(outputs) == []
    outputs += detector.tick(11.0)
    assert _transitions(outputs) == []
    outputs += detector.tick(12.5)
    fired = _transitions(outputs)
    assert len(fired) == 1
    alert = fired[0]
    assert (alert.alertname, alert.severity, alert.category, alert.scope, alert.culprit_ranks) == (
        "NcclCollectiveTimeout", Severity.CRITICAL, Category.COLLECTIVE_DESYNC, Scope.JOB, (300,))
    assert alert.evidence["straggler_ranks"] == [300]
    assert alert.evidence["observer_ranks"] == [300]
    assert alert.evidence["rank_count"] == 512
    assert (alert.evidence["seq"], alert.evidence["op_type"], alert.evidence["pg"]) == (
        SEQ, "ALLREDUCE", "0")
    assert "rank(s) 300 never entered it" in alert.summary
    suspicions = [o for o in outputs if isinstance(o, Suspicion)]
    assert [s.ranks for s in suspicions] == [(300,)]
    policy = AlertPolicy("4242", "gpu017", "https://example.invalid/docs/alerts.md#")
    records = [r for t in fired if (r := policy.apply(t, 1_700_000_000.0)) is not None]
    assert len(records) == 1 and records[0].culprit_ranks == (300,)


def test_more_evidence_after_firing_updates_the_same_alert() -> None:
    """The alert first fires without a culprit; when the straggler's line arrives the same
    alert identity is updated (the policy re-sends it because the culprits changed)."""
    detector = LogEventsDetector(settle_seconds=0.0)
    first = _storm(4, straggler=3)[:6]  # ranks 0-2 only
    detector.observe(_chunk(first), 1.0)
    fired = _transitions(detector.tick(1.0))
    assert [(t.culprit_ranks, t.category) for t in fired] == [((), Category.UNDETERMINED)]
    detector.observe(_chunk(dump_signal_observed(3, 0, SEQ - 1, SEQ - 1, AT)), 2.0)
    updated = _transitions(detector.tick(2.0))
    assert [(t.alertname, t.culprit_ranks, t.category) for t in updated] == [
        ("NcclCollectiveTimeout", (3,), Category.COLLECTIVE_DESYNC)]
    assert _transitions(detector.tick(3.0)) == []
    policy = AlertPolicy("4242", "gpu017", "https://example.invalid/docs/alerts.md#")
    sent = [policy.apply(t, 1.0) for t in [*fired, *updated]]
    assert all(r is not None for r in sent)
    assert sent[0].fingerprint == sent[1].fingerprint  # type: ignore[union-attr]


def test_quiet_alert_resolves() -> None:
    """No new event for `resolve_after_seconds` resolves the alert."""
    detector = LogEventsDetector(settle_seconds=0.0, resolve_after_seconds=60.0)
    detector.observe(_chunk(["RuntimeError: CUDA error: device-side assert triggered",
                             "step 7"], 0.0, rank=2), 0.0)
    fired = _transitions(detector.tick(0.0))
    assert [(t.alertname, t.firing, t.culprit_ranks) for t in fired] == [("CudaError", True, (2,))]
    assert detector.health(0.0).health is Health.CRITICAL
    assert _transitions(detector.tick(59.0)) == []
    resolved = _transitions(detector.tick(61.0))
    assert [(t.alertname, t.firing) for t in resolved] == [("CudaError", False)]
    assert detector.health(61.0).health is Health.OK


def test_healthy_output_fires_nothing_and_is_ok() -> None:
    """Progress, NCCL chatter and recovering retries: no alert; health OK once output flows."""
    detector = LogEventsDetector(settle_seconds=0.0)
    assert detector.health(0.0).health is Health.UNKNOWN
    lines = [nccl_info("gpu1", 10, 0, "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC")] * 50
    lines += [megatron_iteration(i) for i in range(100)]
    lines += ["requesting https://huggingface.co/x. Retrying in 1s [Retry 1/5]."] * 3
    outputs = list(detector.observe(_chunk(lines), 1.0)) + list(detector.tick(100.0))
    assert _transitions(outputs) == []
    assert detector.health(100.0).health is Health.OK
    families = {f.name: f for f in detector.metric_families(100.0)}
    assert families["log_lines"].samples == (((), 153.0),)
    assert dict(families["log_retries"].samples)[("recovering",)] == 3.0


def test_stream_source_down_makes_the_detector_blind() -> None:
    """A down stream source means UNKNOWN (blind), never OK."""
    detector = LogEventsDetector(stream_sources=("stream",))
    detector.observe(_chunk(["hello"]), 0.0)
    detector.observe(SourceState(1.0, "stream", False, "pipe closed"), 1.0)
    health = detector.health(1.0)
    assert (health.health, health.reason) == (Health.UNKNOWN, "stream: pipe closed")
    detector.observe(SourceState(2.0, "stream", True, ""), 2.0)
    assert detector.health(2.0).health is Health.OK


def test_metrics_count_events_by_kind() -> None:
    """`log_events{kind}` counts every recognised event with a bounded label."""
    detector = LogEventsDetector()
    detector.observe(_chunk(_storm(3, straggler=9)), 0.0)
    samples = dict(next(f for f in detector.metric_families(0.0)
                        if f.name == "log_events").samples)
    assert samples == {("watchdog_timeout",): 3.0, ("pg_status",): 3.0}


def test_gpu_oom_from_a_real_excerpt_names_rank_0() -> None:
    """Excerpt 38 streamed from rank 0's pipe: GpuOutOfMemory, culprit rank 0, category oom."""
    detector = LogEventsDetector(settle_seconds=0.0)
    text = (DATA / "38-cuda-oom-fsdp-rank0-prefixed-traceback.log").read_text().splitlines()
    detector.observe(_chunk(text, rank=0), 0.0)
    fired = {t.alertname: t for t in _transitions(detector.tick(5.0))}
    assert (fired["GpuOutOfMemory"].category, fired["GpuOutOfMemory"].culprit_ranks) == (
        Category.OOM, (0,))


def test_traceback_left_open_is_flushed_after_the_writer_goes_quiet() -> None:
    """A rank's traceback whose last line has not come yet is closed after
    `block_idle_seconds` of silence; its exception is then alerted."""
    detector = LogEventsDetector(settle_seconds=0.0, block_idle_seconds=1.0)
    detector.observe(_chunk(["[rank4]: Traceback (most recent call last):",
                             '[rank4]:   File "/app/train.py", line 3, in <module>',
                             "[rank4]: ValueError: bad shape"]), 0.0)
    assert _transitions(detector.tick(0.5)) == []
    fired = _transitions(detector.tick(1.5)) + _transitions(detector.tick(1.6))
    assert [(t.alertname, t.culprit_ranks, t.category) for t in fired] == [
        ("RankException", (4,), Category.SOFTWARE)]


def test_retry_exhaustion_alerts_and_escalation_warns() -> None:
    """Retries at 1/N are noise; 2/N..N-1/N repeated escalate (warning); N/N is exhausted."""
    detector = LogEventsDetector(settle_seconds=0.0, escalating_retries=3)
    line = "requesting GET https://s3.amazonaws.com/b/x. Retrying in 2s [Retry {}/5]."
    detector.observe(_chunk([line.format(2), line.format(3), line.format(4)], rank=1), 0.0)
    warn = _transitions(detector.tick(1.0))
    assert [(t.alertname, t.severity, t.category) for t in warn] == [
        ("RetriesEscalating", Severity.WARNING, Category.STORAGE_IO)]
    detector.observe(_chunk([line.format(5)], rank=1), 2.0)
    crit = _transitions(detector.tick(3.0))
    assert [(t.alertname, t.severity, t.category) for t in crit] == [
        ("RetriesExhausted", Severity.CRITICAL, Category.STORAGE_IO)]
    samples = dict(next(f for f in detector.metric_families(3.0)
                        if f.name == "log_retries").samples)
    assert samples == {("recovering",): 0.0, ("escalating",): 3.0, ("exhausted",): 1.0}


def test_nccl_init_gives_a_phase_hint() -> None:
    """NCCL init START holds the rank in a long phase; COMPLETE ends it."""
    detector = LogEventsDetector()
    outputs = detector.observe(_chunk([nccl_init("gpu1", 77, 3, 8, "START")], rank=3), 0.0)
    outputs = [*outputs, *detector.observe(_chunk([nccl_init("gpu1", 77, 3, 8)], rank=3), 1.0)]
    hints = [o for o in outputs if isinstance(o, PhaseHint)]
    assert [(h.rank, h.phase, h.hold_seconds) for h in hints] == [
        (3, "nccl_init", 600.0), (3, "nccl_init", 0.0)]


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.log")))
def test_live_and_triage_see_the_same_alert_worthy_events(name: str) -> None:
    """Streamed line by line through the live pre-filter, every excerpt yields the events
    triage finds, except those triage alone reads (kernel, init and counted-only lines)."""
    text = (DATA / name).read_text(encoding="utf-8").splitlines()
    detector = LogEventsDetector()
    for i in range(0, len(text), 3):
        detector.observe(_chunk(text[i:i + 3]), float(i))
    detector.tick(1e9)
    live = {k for (k,), v in next(f for f in detector.metric_families(0.0)
                                  if f.name == "log_events").samples if v}
    extractor = EventExtractor()
    full = set()
    prev = None
    for i, line in enumerate(text):
        full |= {e.kind.value for e in extractor.feed(line, i, prev=prev)}
        prev = line
    full |= {e.kind.value for e in extractor.flush()}
    triage_only = {"xid", "nccl_peer_closed", "connection_error", "progress", "launch_endpoint",
                   "collective_fingerprint", "ray_task_error", "mpi_peer_lost",
                   "nccl_connect_retry", "mpi_exit", "pod_evicted",
                   "exit_barrier", "launch_nodes"}
    assert live <= full
    assert full - live <= triage_only


# --- routes for the events triage already reasoned about: real lines from the corpus --------

CORPUS = DATA.parent / "corpus_public"


def _stream(name: str, *, rank: int | None = None, lines: slice = slice(None),
            extra: Sequence[str] = ()) -> dict[str, Transition]:
    """A corpus excerpt streamed three lines at a time; the alerts fired, by name."""
    folder = CORPUS if (CORPUS / name).exists() else DATA
    text = [*(folder / name).read_text(encoding="utf-8").splitlines()[lines], *extra]
    detector = LogEventsDetector(settle_seconds=0.0)
    for i in range(0, len(text), 3):
        detector.observe(_chunk(text[i:i + 3], rank=rank), 0.0)
    return {t.alertname: t for t in _transitions(detector.tick(5.0)) if t.firing}


def _verdict(t: Transition) -> tuple[str, Severity, Category, tuple[int, ...]]:
    return (t.alertname, t.severity, t.category, t.culprit_ranks)


def test_nvidia_smi_losing_a_gpu_pages_as_a_node_fault_naming_the_gpu() -> None:
    """nvidia-smi cannot reach a GPU: GpuHardwareError, critical without a rank but with the
    reason (the line names a GPU, not a rank), the GPU's PCI address in summary and evidence."""
    fired = _stream("nvsmi-gpu-is-lost-owod.log")
    alert = fired["GpuHardwareError"]
    assert _verdict(alert) == ("GpuHardwareError", Severity.CRITICAL, Category.GPU_CUDA, ())
    assert "GPU 0000:02:00.0" in alert.summary
    assert alert.evidence["gpus"] == ["0000:02:00.0"]
    assert alert.no_culprit_reason and alert.evidence["no_culprit_reason"]
    assert contract_severity(alert) is Severity.CRITICAL


def test_corrected_pcie_errors_alone_fire_nothing() -> None:
    """The kernel's corrected PCIe AER lines (the hardware fixed them) are counted, not
    alerted: the nvidia-smi line before them is what pages."""
    assert _stream("nvidia-smi-unknown-error-pcie-aer.log", lines=slice(2, None)) == {}
    fired = _stream("nvidia-smi-unknown-error-pcie-aer.log")
    assert list(fired) == ["GpuHardwareError"]
    assert "GPU 0000:03:00.0" in fired["GpuHardwareError"].summary


def test_failed_checkpoint_write_names_the_writing_rank() -> None:
    """torch.save's writer failed on rank 0: StorageWriteFailed, critical, storage_io, rank 0;
    the traceback is not also a RankException."""
    fired = _stream("ckpt-streamwriter-rank0-prefixed.log")
    assert list(fired) == ["StorageWriteFailed"]
    assert _verdict(fired["StorageWriteFailed"]) == (
        "StorageWriteFailed", Severity.CRITICAL, Category.STORAGE_IO, (0,))


def test_full_disk_without_a_rank_pages_with_the_reason() -> None:
    """ENOSPC inside torch.save, no rank on the line: critical, storage_io, no culprit, and
    the reason says the file system refused the write."""
    alert = _stream("ckpt-enospc-torch-save-metaflow.log")["StorageWriteFailed"]
    assert _verdict(alert) == ("StorageWriteFailed", Severity.CRITICAL, Category.STORAGE_IO, ())
    assert "No space left on device" in alert.summary
    assert contract_severity(alert) is Severity.CRITICAL


def test_failed_write_that_is_retried_is_recorded_only() -> None:
    """A full disk while the program retries (a retry line right after it) may still succeed:
    recorded (info), never a page; the retry alerts page if the retries do not succeed."""
    retry = "requesting GET https://s3.amazonaws.com/b/x. Retrying in 2s [Retry 1/5]."
    alert = _stream("ckpt-enospc-torch-save-metaflow.log", extra=[retry])["StorageWriteFailed"]
    assert _verdict(alert) == ("StorageWriteFailed", Severity.INFO, Category.STORAGE_IO, ())
    assert alert.evidence["handled"] is True


def test_ddp_model_mismatch_blames_the_inconsistent_rank_not_the_reporter() -> None:
    """"Rank 5 has 110 params, while rank 0 has inconsistent 0 params", printed by rank 5:
    the culprit is rank 0."""
    alert = _stream("ddp-param-mismatch-baby-llama2.log", rank=5)["DdpModelMismatch"]
    assert _verdict(alert) == ("DdpModelMismatch", Severity.CRITICAL, Category.SOFTWARE, (0,))
    assert (alert.evidence["reporter_rank"], alert.evidence["inconsistent_rank"]) == (5, 0)


def test_monitored_barrier_names_the_ranks_that_never_arrived() -> None:
    """gloo's monitoredBarrier on rank 0 names ranks 4-7: they are the culprits."""
    alert = _stream("monitored-barrier-ranks-4-7-failed.log")["MonitoredBarrierFailed"]
    assert _verdict(alert) == ("MonitoredBarrierFailed", Severity.CRITICAL,
                               Category.COLLECTIVE_DESYNC, (4, 5, 6, 7))


def test_collective_mismatch_pages_without_blaming_a_rank() -> None:
    """Same SeqNum, different shapes: collective_desync, critical, no culprit, and the reason
    (each side only sees the other disagree)."""
    fired = _stream("desync-same-seq-allreduce-shape.log")
    alert = fired["CollectiveMismatch"]
    assert _verdict(alert) == ("CollectiveMismatch", Severity.CRITICAL,
                               Category.COLLECTIVE_DESYNC, ())
    assert "#3104" in alert.summary
    assert "no single rank" in alert.no_culprit_reason
    assert contract_severity(alert) is Severity.CRITICAL
    assert "RankException" not in fired


def test_dead_ray_actor_names_its_pid() -> None:
    """ActorDiedError: RankCrashed, critical, undetermined, naming the worker's pid (the
    incident layer turns a rank's pid into its rank)."""
    fired = _stream("ray-actor-died-openrlhf-box.log")
    alert = fired["RankCrashed"]
    assert _verdict(alert) == ("RankCrashed", Severity.CRITICAL, Category.UNDETERMINED, ())
    assert alert.evidence["pid"] == 5226 and "pid 5226" in alert.summary
    assert contract_severity(alert) is Severity.CRITICAL
    assert "RankException" not in fired


def test_raylet_worker_death_only_warns() -> None:
    """raylet's "A worker died or was killed": Ray retries the task, so a warning."""
    alert = _stream("ray-raylet-worker-died-search-r1.log")["RankCrashed"]
    assert _verdict(alert) == ("RankCrashed", Severity.WARNING, Category.UNDETERMINED, ())
    assert alert.evidence["pid"] == 4018933


def test_gloo_transport_timeout_is_a_collective_timeout_not_a_store_failure() -> None:
    """gloo's "Timed out waiting 1800000ms for recv operation": GlooCollectiveTimeout,
    undetermined, no culprit with the reason; neither StoreTimeout nor RankException."""
    fired = _stream("gloo-recv-timeout-pipedream39.log")
    assert list(fired) == ["GlooCollectiveTimeout"]
    alert = fired["GlooCollectiveTimeout"]
    assert _verdict(alert) == ("GlooCollectiveTimeout", Severity.CRITICAL,
                               Category.UNDETERMINED, ())
    assert alert.evidence["timeout_ms"] == 1800000 and alert.no_culprit_reason


def test_healthy_megatron_run_fires_nothing() -> None:
    """A slow but healthy Megatron run: none of the routes fires."""
    assert _stream("34-megatron-iteration-progress-slow-healthy.log") == {}


_REACHED_BARRIER = (
    "Traceback (most recent call last):",
    '  File "train.py", line 88, in <module>',
    "    dist.monitored_barrier(timeout=timedelta(seconds=30))",
    "RuntimeError: Rank {r} successfully reached monitoredBarrier, but received errors while "
    "waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.",
)


def test_ranks_that_reached_the_monitored_barrier_do_not_blame_rank_0_or_themselves() -> None:
    """Non-root ranks only know that rank 0, which enforces the barrier, did not answer: a
    warning naming no culprit, with the reason (rank 0's own report names the missing rank);
    their tracebacks are not also pages of their own."""
    lines = [line.format(r=r) for r in (1, 2, 3) for line in _REACHED_BARRIER]
    detector = LogEventsDetector(settle_seconds=0.0)
    for r in (1, 2, 3):
        detector.observe(_chunk(lines[(r - 1) * 4:r * 4], rank=r), 0.0)
    fired = {t.alertname: t for t in _transitions(detector.tick(5.0)) if t.firing}
    alert = fired["MonitoredBarrierFailed"]
    assert _verdict(alert) == ("MonitoredBarrierFailed", Severity.WARNING,
                               Category.COLLECTIVE_DESYNC, ())
    assert "rank 0" in alert.no_culprit_reason and "1-3" in alert.summary
    assert "RankException" not in fired


def test_a_barrier_the_program_catches_to_join_uneven_ranks_never_pages() -> None:
    """WeNet and CosyVoice catch the barrier's error on purpose ("Detected uneven workload
    distribution … manually join all workers") and go on: no page."""
    fired = _stream("desync-cosyvoice-1727-monitored-barrier-join.log")
    assert "MonitoredBarrierFailed" not in fired and "RankException" not in fired


def test_ddp_reports_that_contradict_each_other_page_without_a_culprit() -> None:
    alert = _stream("transformers-26724-ddp-param-mismatch.log")["DdpModelMismatch"]
    assert _verdict(alert) == ("DdpModelMismatch", Severity.CRITICAL, Category.SOFTWARE, ())
    assert "contradict" in alert.no_culprit_reason
    assert contract_severity(alert) is Severity.CRITICAL
