"""What a scan reports, apart from the other result types (models.py re-exports it). A scan with
nothing to do sends the same shape as a plain dict (`operations.unchanged_scan`), so it imports no
result type at all, nor dataclasses (#62)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from k0maru.wire import Result


@dataclass(kw_only=True)
class MovedIndex(Result):
    path: str  # where a rebuild moved the old index file
    why: str  # "healthy ..." or "corrupt: ..."


@dataclass(kw_only=True)
class ScanReport(Result):
    """What a scan did. payload() is the shape `scan --json` sends: the counts and `walk_only`."""

    added: int
    modified: int
    unchanged: int
    removed: int
    skipped: int
    symlinks: int
    elapsed_ms: float
    touched: int
    files_read: int
    embedded: int
    warnings: list[str] = field(default_factory=list)
    walk_only: bool = False  # known unchanged from the walk snapshot, nothing read
    pending_embedding: int = 0  # chunks left for the embedding worker
    moved_aside: MovedIndex | None = None  # with a rebuild

    def counts(self) -> dict[str, Any]:
        """The counts and the time, as the embedding worker takes them over."""
        return {f: getattr(self, f) for f in SCAN_COUNTS}

    def payload(self) -> dict[str, Any]:
        return {**self.counts(), "walk_only": self.walk_only}


SCAN_COUNTS = (
    "added",
    "modified",
    "unchanged",
    "removed",
    "skipped",
    "symlinks",
    "elapsed_ms",
    "touched",
    "files_read",
    "embedded",
)
