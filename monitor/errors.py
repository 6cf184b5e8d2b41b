"""rankwatch's exception tree. Errors are translated once, at the edge, into these."""

from __future__ import annotations


class RankwatchError(Exception):
    """Base of every error rankwatch raises on purpose."""


class SettingsError(RankwatchError):
    """Configuration is invalid; `problems` lists every bad key at once."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


class SourceError(RankwatchError):
    """A source could not read what it watches. `error_type` is a bounded label value."""

    def __init__(self, error_type: str, message: str, *, quiet: bool = False) -> None:
        self.error_type = error_type
        # quiet: an expected absence (no NCCL RAS port ever seen, no time reference set up):
        # still UNKNOWN in health and metrics, but logged at info so it does not clutter the
        # job's stderr in wrap mode.
        self.quiet = quiet
        super().__init__(message)


class SinkError(RankwatchError):
    """A sink could not deliver. `retryable` tells the delivery loop whether to try again."""

    def __init__(self, reason: str, message: str, *, retryable: bool) -> None:
        self.reason = reason
        self.retryable = retryable
        super().__init__(message)
