"""Secrets: read from files only; known secrets and secret-looking tokens are masked."""

from __future__ import annotations

from pathlib import Path

import pytest

from exporters.secrets import (
    MASK,
    Scrubber,
    SecretFileError,
    read_secret_file,
    scrub_text,
    secret_file_is_shared,
)
from tests.delivery_support.records import stalled_record


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('curl -H "Authorization: Bearer abcdEFGH12345678" https://x', "abcdEFGH12345678"),
        ("got token Bearer eyXabcdefgh1234", "eyXabcdefgh1234"),
        ("connecting to postgres://trainer:hunter2pass@db:5432/runs", "hunter2pass"),
        ("WANDB_API_KEY=0123456789abcdef0123", "0123456789abcdef0123"),
        ("password: correcthorsebattery", "correcthorsebattery"),
        ("env HF_TOKEN=hf_abcdefghijklmnopqrstuvwx", "hf_abcdefghijklmnopqrstuvwx"),
        ("GET /download?sig=abc123def456&x=1", "abc123def456"),
        ("url https://hooks.slack.com/services/T00/B00/ZZZsecret", "T00/B00/ZZZsecret"),
        ("slack token xoxb-1234-5678-abcdefgh", "xoxb-1234-5678-abcdefgh"),
        ("aws AKIAABCDEFGHIJKLMNOP used", "AKIAABCDEFGHIJKLMNOP"),
        ("gh ghp_abcdefghijklmnopqrstuvwxyz0123 push", "ghp_abcdefghijklmnopqrstuvwxyz0123"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "MIIEow"),
    ],
)
def test_secret_looking_tokens_are_masked(text: str, secret: str) -> None:
    """Bearer tokens, keys, passwords in URLs and known token shapes are masked."""
    scrubbed = scrub_text(text)
    assert secret not in scrubbed
    assert MASK in scrubbed


@pytest.mark.parametrize(
    "text",
    [
        "num_tokens=4096 loss=1.234 lr=3e-4",
        "author: Jane, step 1200/5000",
        "token embeddings resized to 50304",
        "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1275, unhandled system error",
        "https://example.org/runbook#runbook-rank-stopped",
    ],
)
def test_ordinary_log_text_is_left_alone(text: str) -> None:
    """Training-log text without secrets passes through unchanged."""
    assert scrub_text(text) == text


def test_known_secret_is_masked_anywhere() -> None:
    """A configured secret is masked wherever it appears, even inside other words."""
    scrubber = Scrubber(["s3cr3tvalue"])
    assert scrubber.text("prefix-s3cr3tvalue-suffix") == f"prefix-{MASK}-suffix"


def test_record_text_evidence_and_labels_are_scrubbed() -> None:
    """Scrubbing a record covers summary, description, nested evidence and labels, and keeps
    its identity (fingerprint, alertname) unchanged."""
    record = stalled_record(
        summary="failed with Authorization: Bearer abcdefgh12345678",
        description="password=hunter2hunter2",
        evidence={
            "lines": ["HF_TOKEN=hf_abcdefghijklmnopqrstuvwx"],
            "nested": {"k": "xoxb-12345678-x"},
        },
        labels={"job": "4242", "node": "gpu017", "rank": "13"},
    )
    clean = Scrubber().record(record)
    text = repr(clean)
    for secret in ("abcdefgh12345678", "hunter2hunter2", "hf_abcdef", "xoxb-12345678"):
        assert secret not in text
    assert (clean.fingerprint, clean.alertname) == (record.fingerprint, record.alertname)
    assert clean.labels == record.labels


def test_secret_file_first_non_empty_line_stripped(tmp_path: Path) -> None:
    """The secret is the first non-empty line of its file, whitespace stripped."""
    path = tmp_path / "hook"
    path.write_text("\n  https://hooks.example/abc  \nignored\n")
    assert read_secret_file(str(path), "delivery.x") == "https://hooks.example/abc"


def test_secret_file_errors_name_the_file_never_the_content(tmp_path: Path) -> None:
    """Missing and empty files raise SecretFileError naming the setting and the path."""
    with pytest.raises(SecretFileError, match=r"delivery\.x: cannot read .*missing"):
        read_secret_file(str(tmp_path / "missing"), "delivery.x")
    empty = tmp_path / "empty"
    empty.write_text("  \n")
    with pytest.raises(SecretFileError, match="is empty"):
        read_secret_file(str(empty), "delivery.x")


def test_world_readable_secret_file_is_detected(tmp_path: Path) -> None:
    """A secret file others can read is reported (the factory logs a warning)."""
    path = tmp_path / "key"
    path.write_text("k")
    path.chmod(0o600)
    assert not secret_file_is_shared(str(path))
    path.chmod(0o644)
    assert secret_file_is_shared(str(path))
