"""Fixtures starting real services on loopback (SLURM, Prometheus, Alertmanager)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator

import pytest

from tests.e2e.slurm_cluster import SlurmCluster, missing_tools, start_cluster


@pytest.fixture(scope="session")
def slurm_cluster() -> Iterator[SlurmCluster]:
    """A real slurmctld + slurmd + munged on loopback, with the repo's Prolog and Epilog."""
    missing = missing_tools()
    if missing:
        pytest.fail(
            f"missing {', '.join(missing)}: install the Debian packages slurm-wlm and munge",
            pytrace=False,
        )
    cluster = start_cluster()
    try:
        yield cluster
    finally:
        _cancel_all(cluster)
        cluster.stop()
        shutil.rmtree(cluster.root, ignore_errors=True)


def _cancel_all(cluster: SlurmCluster, timeout: float = 30.0) -> None:
    """Cancel leftover jobs and wait for them to leave, so that their epilogs run."""
    jobs = cluster.run("squeue", "-h", "-o", "%i", check=False).split()
    for job in jobs:
        cluster.run("scancel", job, check=False)
    deadline = time.monotonic() + timeout
    while jobs and time.monotonic() < deadline:
        states = {cluster.job_state(job) for job in jobs}
        if states <= {"CANCELLED", "COMPLETED", "FAILED", "TIMEOUT", ""}:
            break
        time.sleep(0.2)
