"""What a scan reports, and the `meta` keys the scanner keeps between scans: a light module, so a
command that finds nothing to scan never imports the scanner and its parser."""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from k0maru.index.walker import Folder

ProgressFn = Callable[[int, int], None]
SKIPPED = "skipped_files"  # JSON: path -> [mtime_ns, size, why] of the files the scans skipped
WALK_SKIPS = "walk_skips"  # JSON: [[path, why]] the last whole walk did not follow or list
REBUILDING = "rebuild_unfinished"  # "1" from a rebuild's start until a whole scan completes


@dataclass(slots=True)
class ScanResult:
    added: int = 0
    modified: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: int = 0
    touched: int = 0  # mtime changed, content identical: counted in unchanged, not re-parsed
    files_read: int = 0
    bytes_read: int = 0
    new_chunks: int = 0
    symlinks: int = 0  # links to notes inside the vault, indexed once at their target
    deferred: int = 0  # new or changed files beyond the scan's `limit`, left for the next scan
    elapsed_ms: float = 0.0
    warnings: list[str] = field(default_factory=list)
    walked: str | None = None  # fingerprint of a whole-vault walk (snapshot.py), None if partial
    folders: list[Folder] = field(default_factory=list)  # the folders of that walk (snapshot.py)
    signatures: array[int] = field(default_factory=lambda: array("q"))  # ... and its files' stats
    corpus_version: int | None = None  # the version this scan left, read under its last write lock

    @property
    def changed(self) -> bool:
        return bool(self.added or self.modified or self.removed)

    def counts(self) -> dict[str, int]:
        return {
            "added": self.added,
            "modified": self.modified,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "skipped": self.skipped,
        }
