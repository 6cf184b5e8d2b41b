"""Labels of the alerts a sidecar posts to Alertmanager itself."""

from __future__ import annotations

from exporters.alertmanager import alert_labels
from monitor.model import Scope
from tests.delivery_support.records import job_record, stalled_record


def test_job_alerts_carry_job_id_and_no_reporting_node() -> None:
    """job_id (the rules' job label) is set from the record's job, so one Alertmanager route
    groups direct and rule alerts of a job; a job-level alert drops the reporting node so the
    same alert from several nodes is one alert."""
    record = job_record("gpu-a01")
    assert record.scope is Scope.JOB
    labels = alert_labels(record)
    assert labels["job_id"] == record.labels["job"] and labels["job"] == record.labels["job"]
    assert "node" not in labels
    assert labels["alertname"] == record.alertname
    assert alert_labels(job_record("gpu-a02")) == labels


def test_node_alerts_keep_their_node() -> None:
    """A node-level alert is about that node: the node label stays."""
    record = stalled_record()
    assert record.scope is Scope.NODE
    labels = alert_labels(record)
    assert labels["node"] == record.labels["node"]
    assert labels["job_id"] == record.labels["job"]
