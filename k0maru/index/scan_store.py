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
        """Counts the index answers from its b-trees: what is pending or unresolved is read through
        the partial indexes `chunks_pending` and `links_dst`, never by scanning every row."""
        q = self.conn.execute
        chunks = q("SELECT count(*) FROM chunks").fetchone()[0]
        links = q("SELECT count(*) FROM links").fetchone()[0]
        pending = q("SELECT count(*) FROM chunks WHERE embedded = 0").fetchone()[0]
        dangling = q("SELECT count(*) FROM links WHERE dst_id IS NULL").fetchone()[0]
        return {
            "documents": q("SELECT count(*) FROM documents").fetchone()[0],
            "chunks": chunks,
            "chunks_embedded": chunks - pending,
            "links": links,
            "links_resolved": links - dangling,
            "offloads": q("SELECT count(*) FROM offloads").fetchone()[0],
        }
