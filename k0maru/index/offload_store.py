"""Offload records: one row per log `k0maru offload` summarised."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from k0maru.index import integrity_store
from k0maru.index.base_store import BaseStore


class OffloadStore(BaseStore):
    """The `offloads` table."""

    def insert_offload(self, columns: Sequence[str], values: Sequence[Any]) -> None:
        with self.transaction():
            self.conn.execute(
                f"INSERT INTO offloads({','.join(columns)}) VALUES ({','.join('?' * len(columns))})",
                list(values),
            )

    def offloads(self, columns: Sequence[str], limit: int) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = self.conn.execute(
            f"SELECT {','.join(columns)} FROM offloads ORDER BY created_at DESC LIMIT ?", (limit,)
        ).fetchall()
        return rows

    def offload(self, columns: Sequence[str], node_id: str) -> tuple[Any, ...] | None:
        row: tuple[Any, ...] | None = self.conn.execute(
            f"SELECT {','.join(columns)} FROM offloads WHERE node_id = ?", (node_id,)
        ).fetchone()
        return row

    def offload_bytes(self, columns: Sequence[str], node_id: str) -> tuple[Any, ...] | None:
        """One record with its text columns as the bytes stored (a damaged row still reads)."""
        cast = ",".join(
            f"CASE WHEN typeof({c}) = 'text' THEN CAST({c} AS BLOB) ELSE {c} END" for c in columns
        )
        row: tuple[Any, ...] | None = self.conn.execute(
            f"SELECT {cast} FROM offloads WHERE node_id = ?", (node_id,)
        ).fetchone()
        return row

    def delete_offloads(self, node_ids: Sequence[str]) -> None:
        with self.transaction():
            self.conn.executemany(
                "DELETE FROM offloads WHERE node_id = ?", [(n,) for n in node_ids]
            )

    def offload_totals(self) -> tuple[int, int, int]:
        """(raw tokens, summary tokens, count) over every offload."""
        totals: tuple[int, int, int] = self.conn.execute(
            "SELECT coalesce(sum(raw_tokens), 0), coalesce(sum(summary_tokens), 0), count(*) FROM offloads"
        ).fetchone()
        return totals

    def offload_gaps(self) -> tuple[list[str], list[str]]:
        """`integrity_store.offload_gaps`: (node ids of kept logs without a row, of rows without
        their log)."""
        return integrity_store.offload_gaps(self.conn, self.vault)
