"""Offload records in the index (table `offloads`), shared by the CLI, MCP server and console."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k0maru.errors import NotFoundError
from k0maru.index.store import Store
from k0maru.limits import echo

COLUMNS = (
    "node_id",
    "task_id",
    "created_at",
    "command",
    "exit_code",
    "log_path",
    "raw_lines",
    "raw_bytes",
    "raw_tokens",
    "summary_tokens",
    "estimator",
    "stack",
    "error_codes",
    "first_location",
    "failures",
    "mermaid",
    "summary",
)


@dataclass(slots=True)
class OffloadRecord:
    node_id: str
    task_id: str
    created_at: float
    command: str
    exit_code: int | None
    log_path: str  # relative to the vault
    raw_lines: int
    raw_bytes: int
    raw_tokens: int
    summary_tokens: int
    estimator: str
    stack: list[str]
    error_codes: list[str]
    first_location: str | None
    failures: list[dict[str, Any]]
    mermaid: str
    summary: str

    @property
    def saved_tokens(self) -> int:
        return max(self.raw_tokens - self.summary_tokens, 0)

    def as_dict(self) -> dict[str, Any]:
        data = {c: getattr(self, c) for c in COLUMNS}
        data["saved_tokens"] = self.saved_tokens
        return data


def save(store: Store, rec: OffloadRecord) -> None:
    values = [getattr(rec, c) for c in COLUMNS]
    for i, c in enumerate(COLUMNS):
        if c in ("stack", "error_codes", "failures"):
            values[i] = json.dumps(values[i])
    store.insert_offload(COLUMNS, values)


def _row(row: tuple[Any, ...]) -> OffloadRecord:
    data = dict(zip(COLUMNS, row, strict=True))
    for c in ("stack", "error_codes", "failures"):
        data[c] = json.loads(data[c])
    return OffloadRecord(**data)


def list_all(store: Store, limit: int = 200) -> list[OffloadRecord]:
    return [_row(r) for r in store.offloads(COLUMNS, limit)]


def get(store: Store, node: str) -> OffloadRecord:
    """By node id, or by `<task>_<node>` as in the log file name."""
    node = node.strip().removesuffix(".log")
    row = store.offload(COLUMNS, node.rsplit("_", 1)[-1])
    if not row:
        recent = [r.node_id for r in list_all(store, 3)]
        raise NotFoundError(
            f"unknown log node {echo(node)}; use a node id printed by `k0maru offload`"
            + (f" (the latest: {', '.join(recent)})" if recent else " (none recorded yet)")
        )
    return _row(row)


def log_file(vault: Path, rec: OffloadRecord) -> Path:
    path = (vault / rec.log_path).resolve()
    if not path.is_file():
        raise NotFoundError(
            f"log file {rec.log_path} of node {rec.node_id} is missing; it was deleted from .k0maru/refs"
        )
    return path


def totals(store: Store) -> dict[str, Any]:
    raw, summary, count = store.offload_totals()
    return {
        "offloads": count,
        "raw_tokens": raw,
        "summary_tokens": summary,
        "saved_tokens": max(raw - summary, 0),
        "ratio": round(summary / raw, 4) if raw else None,
    }
