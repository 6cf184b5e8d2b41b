"""Diagnosis rules: each reads the evidence and either concludes (a Finding) or passes.

The first rule that concludes wins (see RULES for the order: direct evidence of a cause before
the symptoms it produces). A Finding names a category from the closed set, the culprit ranks
(global ranks only), human-readable culprits (which may be a GPU, a host pair or an
unlabelled process), the evidence sentences with file:line, the cause event and advice.

The rules live by the family of evidence they read (collectives, devices, the job, the
network, launchers, and the lexicon's last resort); this module holds their order.
"""

from __future__ import annotations

from monitor.triage.rules.base import (
    Context,
    Finding,
    Rule,
    nfs_answered_again,
    one_subject,
    stepped_past,
    table_entries,
)
from monitor.triage.rules.collectives import (
    absent_rank,
    barrier_unanswered,
    collective_hang,
    collective_mismatch,
    ddp_mismatch,
    desync_report,
    desync_snapshot,
    fingerprint_outlier,
    horovod_stalled,
    mismatch,
    monitored_barrier,
    one_group_desync,
    silent_file,
    stack_outlier,
    straggler,
    timeouts_alike,
)
from monitor.triage.rules.coordination import coordination_service
from monitor.triage.rules.devices import (
    cuda_software,
    gpu_fault,
    gpu_hardware,
    nccl_usage,
    out_of_memory,
)
from monitor.triage.rules.job import data_phase, dataloader, own_exception, storage_write
from monitor.triage.rules.launchers import (
    actor_died,
    exit_barrier,
    job_succeeded,
    launcher_exit,
    launcher_task_exit,
    mpi_daemon_lost,
    mpi_error,
    native_crash,
    ray_creation_task,
    restarted_then_finished,
    scheduler,
    signal_kill,
    trained_past_every_failure,
)
from monitor.triage.rules.network import (
    connects_to_the_end,
    ib_completion_flushed,
    init_timeout,
    mpi_peer_lost,
    native_network,
    nccl_connect_refused,
    nccl_init_trace,
    nccl_init_unfinished,
    nccl_unexplained,
    network,
    port_held_by_own_launch,
    rendezvous_lost,
    retries_exhausted,
    ssh_unreachable,
)
from monitor.triage.rules.unexplained import still_failing, unrecognised_failure

__all__ = [
    "RULES",
    "Context",
    "Finding",
    "Rule",
    "nfs_answered_again",
    "one_subject",
    "stepped_past",
    "still_failing",
    "table_entries",
]

RULES: tuple[Rule, ...] = (
    restarted_then_finished,
    trained_past_every_failure,
    job_succeeded,
    desync_report,
    desync_snapshot,
    horovod_stalled,
    gpu_hardware,
    gpu_fault,
    out_of_memory,
    ddp_mismatch,
    monitored_barrier,
    collective_mismatch,
    fingerprint_outlier,
    storage_write,
    actor_died,
    dataloader,
    mismatch,
    stack_outlier,
    straggler,
    data_phase,
    nccl_usage,
    nccl_init_unfinished,
    scheduler,
    mpi_daemon_lost,
    port_held_by_own_launch,
    network,
    rendezvous_lost,
    init_timeout,
    cuda_software,
    ssh_unreachable,
    own_exception,
    mpi_error,
    retries_exhausted,
    ib_completion_flushed,
    nccl_unexplained,
    ray_creation_task,
    coordination_service,
    native_network,
    native_crash,
    signal_kill,
    launcher_exit,
    launcher_task_exit,
    absent_rank,
    silent_file,
    barrier_unanswered,
    one_group_desync,
    collective_hang,
    timeouts_alike,
    mpi_peer_lost,
    nccl_connect_refused,
    nccl_init_trace,
    exit_barrier,
    unrecognised_failure,
    connects_to_the_end,
)
