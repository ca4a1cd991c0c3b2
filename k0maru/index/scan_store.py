"""Scan history and the index's row counts, for `k0maru status`."""

from __future__ import annotations

from typing import Any

from k0maru.index.base_store import BaseStore


class ScanStore(BaseStore):
    """The `scans` table and counts over every table."""

    def record_scan(self, started_at: float, elapsed_ms: float, counts: dict[str, int]) -> None:
        self.conn.execute(
            "INSERT INTO scans(started_at, elapsed_ms, added, modified, unchanged, removed, skipped)"
            " VALUES (?,?,?,?,?,?,?)",
            (
                started_at,
                elapsed_ms,
                counts["added"],
                counts["modified"],
                counts["unchanged"],
                counts["removed"],
                counts["skipped"],
            ),
        )
        self.conn.execute("DELETE FROM scans WHERE id <= (SELECT max(id) - 100 FROM scans)")

    def last_scan(self) -> dict[str, Any] | None:
        """The latest scan that changed the index (a worker's or a server's look that found nothing
        new is not the scan a person asks about), else the latest scan."""
        row = self.conn.execute(
            "SELECT started_at, elapsed_ms, added, modified, unchanged, removed, skipped FROM scans"
            " ORDER BY added + modified + removed > 0 DESC, id DESC LIMIT 1"
        ).fetchone()
        if not row:
            return None
        keys = ("started_at", "elapsed_ms", "added", "modified", "unchanged", "removed", "skipped")
        return dict(zip(keys, row, strict=True))

    def counts(self) -> dict[str, int]:
        q = self.conn.execute
        return {
            "documents": q("SELECT count(*) FROM documents").fetchone()[0],
            "chunks": q("SELECT count(*) FROM chunks").fetchone()[0],
            "chunks_embedded": q("SELECT count(*) FROM chunks WHERE embedded = 1").fetchone()[0],
            "links": q("SELECT count(*) FROM links").fetchone()[0],
            "links_resolved": q("SELECT count(*) FROM links WHERE dst_id IS NOT NULL").fetchone()[
                0
            ],
            "offloads": q("SELECT count(*) FROM offloads").fetchone()[0],
        }
