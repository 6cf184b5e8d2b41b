"""Secrets: read them from files only, and keep them (and look-alikes) out of everything we send.

Two jobs, both pure apart from `read_secret_file`:
- the configured secrets (webhook URLs, routing keys) are known values; `Scrubber` replaces them
  wherever they appear, so they cannot leak into a log line, an error or an alert;
- alert text is built from the job's own log lines, which carry whatever the job printed:
  bearer tokens, API keys, passwords in URLs. `scrub_text` masks the usual shapes of those.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from monitor.model import AlertRecord

MASK = "***"

# (pattern, replacement). Order matters: whole-token shapes first, then key=value forms.
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # PEM private keys, whole block.
    (
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
            re.DOTALL,
        ),
        "-----PRIVATE KEY " + MASK + "-----",
    ),
    # Slack incoming-webhook URLs: the path is the credential.
    (
        re.compile(r"(hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/)[\w/-]+"),
        r"\1" + MASK,
    ),
    # Passwords in URLs: scheme://user:password@host
    (re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]*://)[^\s/:@]+:[^\s/@]+@"), r"\1" + MASK + "@"),
    # Well-known token shapes.
    (re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{8,}"), MASK),  # Slack tokens
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"), MASK),  # GitHub tokens
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), MASK),
    (re.compile(r"\bhf_[A-Za-z0-9]{20,}"), MASK),  # Hugging Face tokens
    (re.compile(r"\bsk-[A-Za-z0-9_-]{20,}"), MASK),  # API keys in the sk- style
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), MASK),  # AWS access key ids
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), MASK),  # JWTs
    # Authorization headers (any scheme) and bare bearer tokens.
    (
        re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?)(?:[A-Za-z]+\s+)?[^\s\"',;]+"),
        r"\1" + MASK,
    ),
    (re.compile(r"(?i)\b(bearer)(\s+)(?!\*\*\*)[A-Za-z0-9._~+/=-]{8,}"), r"\1\2" + MASK),
    # Secret-looking query parameters.
    (
        re.compile(
            r"(?i)([?&](?:access_token|token|api_?key|key|password|passwd|pwd|secret|"
            r"signature|sig|auth|code|routing_key)=)[^&\s#\"']+"
        ),
        r"\1" + MASK,
    ),
    # key=value / key: value where the key names a secret (WANDB_API_KEY=…, password: …).
    (
        re.compile(
            r"(?i)\b([A-Za-z0-9_.-]*(?:password|passwd|secret|token|api_?key|access_?key|"
            r"private_?key|routing_?key|credentials?|auth))(\s*[:=]\s*)([\"']?)(?!\*\*\*)"
            r"[^\s\"',;]{4,}\3"
        ),
        r"\1\2\3" + MASK + r"\3",
    ),
)


def scrub_text(text: str, known_secrets: Iterable[str] = ()) -> str:
    """Mask known secret values and secret-looking tokens in free text."""
    for secret in known_secrets:
        if secret:
            text = text.replace(secret, MASK)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class Scrubber:
    """Masks the configured secrets plus secret-looking tokens. Cheap to call, safe to share."""

    def __init__(self, known_secrets: Iterable[str] = ()) -> None:
        # Longest first, so a secret that contains another is masked whole.
        self._known = tuple(sorted({s for s in known_secrets if s}, key=len, reverse=True))

    def with_secret(self, secret: str) -> Scrubber:
        return Scrubber((*self._known, secret))

    def text(self, text: str) -> str:
        return scrub_text(text, self._known)

    def value(self, value: Any) -> Any:
        """Scrub strings inside JSON-like data (dicts, lists), leaving other values as they are."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value

    def record(self, record: AlertRecord) -> AlertRecord:
        """The record with its human text, evidence and labels scrubbed (identity fields kept)."""
        return replace(
            record,
            summary=self.text(record.summary),
            description=self.text(record.description),
            evidence=self.value(dict(record.evidence)),
            labels={k: self.text(v) for k, v in record.labels.items()},
        )


class SecretFileError(Exception):
    """A secret file could not be used. The message names the file, never its content."""


def read_secret_file(path: str, what: str) -> str:
    """Read one secret (a URL or key) from a file: first non-empty line, whitespace stripped."""
    try:
        with open(path, encoding="utf-8") as handle:
            content = handle.read(65536)
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise SecretFileError(f"{what}: cannot read {path}: {why}") from None
    except UnicodeDecodeError:
        raise SecretFileError(f"{what}: {path} is not UTF-8 text") from None
    for line in content.splitlines():
        if line.strip():
            return line.strip()
    raise SecretFileError(f"{what}: {path} is empty")


def secret_file_is_shared(path: str) -> bool:
    """True when others than the owner and group may read the file (worth a warning)."""
    try:
        return bool(os.stat(path).st_mode & 0o004)
    except OSError:
        return False
