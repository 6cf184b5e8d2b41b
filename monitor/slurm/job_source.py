"""The job's processes and output files on this node, under SLURM.

A PolledSource that asks the local slurmstepds (`scontrol listpids`, never slurmctld) every
few seconds which processes belong to the job, picks the ranks among them, and finds the
output files to follow as job steps start. It feeds two consumers through callbacks: the
process probe reads `rank_pids` as its roots, and `on_new_file` is told once per new output
file (the session starts a follower for it).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from monitor.errors import SourceError
from monitor.model import MetricFamilyData, Observation, counter, gauge
from monitor.slurm.context import (
    JobDetails,
    JobProcesses,
    NodeView,
    OutputFile,
    SlurmContext,
    SlurmError,
    node_view,
    task_output_files,
)

NAME = "slurm_job"


@dataclass
class SlurmJobStats:
    listpids_calls: int = 0
    ranks: int = 0
    files: int = 0


class SlurmJobSource:
    name = NAME

    def __init__(
        self,
        context: SlurmContext,
        details: JobDetails | None,
        processes: JobProcesses,
        *,
        on_new_file: Callable[[OutputFile], None],
        follow_shared_output: bool = False,
        readlink: Callable[[str], str] = os.readlink,
        task_files: Callable[[int], dict[int, str]] = task_output_files,
    ) -> None:
        self.interval_seconds = processes.interval_seconds
        self._context = context
        self._details = details
        self._processes = processes
        self._on_new_file = on_new_file
        self._follow_shared = follow_shared_output
        self._readlink = readlink
        self._task_files = task_files
        self._lock = threading.Lock()
        self._rank_pids: list[int] = []
        self._files: dict[str, OutputFile] = {}
        self.stats = SlurmJobStats()

    @property
    def rank_pids(self) -> list[int]:
        """The job's rank processes on this node (the process probe's roots)."""
        with self._lock:
            return list(self._rank_pids)

    @property
    def files(self) -> list[OutputFile]:
        with self._lock:
            return list(self._files.values())

    def poll(self, now: float) -> Sequence[Observation]:
        try:
            self._processes.refresh(now, force=True)
        except SlurmError as exc:
            raise SourceError(exc.reason, str(exc)) from exc
        self.stats.listpids_calls += 1
        view: NodeView = node_view(
            self._context,
            self._details,
            self._processes.rows,
            follow_shared_output=self._follow_shared,
            readlink=self._readlink,
            task_files=self._task_files,
        )
        fresh: list[OutputFile] = []
        with self._lock:
            self._rank_pids = [row.pid for row in view.ranks]
            for found in view.files:
                if found.path not in self._files:
                    self._files[found.path] = found
                    fresh.append(found)
        self.stats.ranks = len(view.ranks)
        self.stats.files = len(self._files)
        for found in fresh:
            self._on_new_file(found)
        return ()

    def metric_families(self) -> Sequence[MetricFamilyData]:
        return [
            counter(
                "slurm_listpids_calls",
                "`scontrol listpids` calls (local slurmstepd only).",
                (),
                self.stats.listpids_calls,
            ),
            gauge(
                "slurm_job_ranks",
                "Rank processes of the job found on this node.",
                (),
                self.stats.ranks,
            ),
            gauge(
                "slurm_output_files",
                "Output files of the job followed on this node.",
                (),
                self.stats.files,
            ),
        ]
