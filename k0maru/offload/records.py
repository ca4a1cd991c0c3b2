"""Offload records in the index (table `offloads`), shared by the CLI, MCP server and console. Each
kept log has its record beside it as a sidecar (`<task>_<node>.json` in `.k0maru/refs/`, written
before the log is renamed into place), so the records come back after the index is rebuilt or lost.
Retention removes a log, its sidecar and its record together."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from k0maru.errors import NotFoundError
from k0maru.fsutil import atomic_write_text
from k0maru.index import db
from k0maru.index.offload_store import OffloadStore
from k0maru.layout import STATE_DIR
from k0maru.limits import echo
from k0maru.offload import reflog

SIDECAR = ".json"

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
    "duration_s",
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
    duration_s: float | None = None  # seconds the command (or stdin) ran; None in older records

    @property
    def saved_tokens(self) -> int:
        return max(self.raw_tokens - self.summary_tokens, 0)

    def as_dict(self) -> dict[str, Any]:
        data = {c: getattr(self, c) for c in COLUMNS}
        data["saved_tokens"] = self.saved_tokens
        return data


def save(store: OffloadStore, rec: OffloadRecord) -> None:
    values = [getattr(rec, c) for c in COLUMNS]
    for i, c in enumerate(COLUMNS):
        if c in ("stack", "error_codes", "failures"):
            values[i] = json.dumps(values[i])
    store.insert_offload(COLUMNS, values)


def _row(row: tuple[Any, ...]) -> OffloadRecord:
    """A record from its row; a list column that does not read back (a damaged row, which
    `doctor` finds and rewrites from the sidecar) reads as empty, so listing never fails."""
    data = dict(zip(COLUMNS, row, strict=True))
    for c in ("stack", "error_codes", "failures"):
        try:
            data[c] = json.loads(data[c])
        except (TypeError, ValueError):  # JSONDecodeError is a ValueError
            data[c] = []
    return OffloadRecord(**{**data, "log_path": _confined(data["log_path"])})


def _confined(log_path: object) -> str:
    """A record's log path as a name in .k0maru/refs, whatever the row or sidecar says (a cloned
    repository's `../../etc/passwd` reads as `.k0maru/refs/passwd`, which is not there)."""
    name = PurePosixPath(str(log_path).replace("\\", "/")).name
    return f"{STATE_DIR}/refs/{name if name not in ('', '.', '..') else '-'}"


def list_all(store: OffloadStore, limit: int = 200) -> list[OffloadRecord]:
    restore(store, store.vault)
    return [_row(r) for r in store.offloads(COLUMNS, limit)]


def refs_dir(vault: Path) -> Path:
    return vault / STATE_DIR / "refs"


def sidecar_of(vault: Path, rec: OffloadRecord) -> Path:
    return _sidecar(vault / rec.log_path)


def _sidecar(log: Path) -> Path:
    return log.with_name(reflog.stem(log.name) + SIDECAR)


def write_sidecar(vault: Path, rec: OffloadRecord) -> Path:
    """The record as JSON beside its log (atomic: whole or absent)."""
    path = sidecar_of(vault, rec)
    data = {c: getattr(rec, c) for c in COLUMNS}
    atomic_write_text(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return path


def _read_sidecar(path: Path) -> OffloadRecord | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        # duration_s came later: sidecars written before it load without it
        rec = OffloadRecord(**{c: data[c] for c in COLUMNS if c != "duration_s"})
        took = data.get("duration_s")
        rec.duration_s = float(took) if isinstance(took, int | float) else None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(rec.node_id, str) or not isinstance(rec.log_path, str):
        return None
    rec.log_path = _confined(rec.log_path)
    return rec


def restore(store: OffloadStore, vault: Path) -> int:
    """Records missing from the index put back from the sidecars of logs still on disk (after `scan
    --rebuild` or a lost index); how many. A sidecar is read only when no record has its node id
    (the one its name ends with); one that does not read back is left alone
    (`unreadable_sidecars`)."""
    refs = refs_dir(vault)
    if store.readonly or not refs.is_dir():
        return 0
    known = {r[0] for r in store.offloads(("node_id",), 1 << 30)}
    restored = 0
    for path in refs.glob(f"*{SIDECAR}"):
        if _node_of(path) in known:
            continue
        rec = _read_sidecar(path)
        if rec is None or rec.node_id in known or not (vault / rec.log_path).is_file():
            continue
        save(store, rec)
        known.add(rec.node_id)
        restored += 1
    return restored


def readable(store: OffloadStore) -> list[OffloadRecord]:
    """Every record the index holds that reads back whole (a damaged index: those that still do)."""
    found = []
    for node_id in [r[0] for r in store.offloads(("node_id",), 1 << 30)]:
        try:
            row = store.offload(COLUMNS, node_id)
            if row is not None:
                found.append(_row(row))
        except (ValueError, TypeError, KeyError, db.DatabaseError):
            rec = _damaged_row(store, node_id)
            if rec is not None:
                found.append(rec)
    return found


def _damaged_row(store: OffloadStore, node_id: str) -> OffloadRecord | None:
    """A record whose stored text is damaged, read as bytes: undecodable bytes become U+FFFD and a
    list that no longer parses becomes empty (the log itself is intact on disk)."""
    try:
        row = store.offload_bytes(COLUMNS, node_id)
    except db.DatabaseError:
        return None
    if row is None:
        return None
    data: dict[str, Any] = {
        c: v.decode("utf-8", errors="replace") if isinstance(v, bytes) else v
        for c, v in zip(COLUMNS, row, strict=True)
    }
    for c in ("stack", "error_codes", "failures"):
        try:
            data[c] = json.loads(data[c])
        except (TypeError, ValueError):
            data[c] = []
    try:
        return OffloadRecord(**data)
    except TypeError:
        return None


def restore_from(store: OffloadStore, vault: Path, kept: list[OffloadRecord]) -> list[str]:
    """Records of an old index put in `store` when missing, for logs still on disk whose sidecar
    does not read back: the sidecar is written again from the record. Returns those sidecars'
    paths."""
    known = {r[0] for r in store.offloads(("node_id",), 1 << 30)}
    rewritten = []
    for rec in kept:
        if rec.node_id in known or not (vault / rec.log_path).is_file():
            continue
        save(store, rec)
        known.add(rec.node_id)
        rewritten.append(str(write_sidecar(vault, rec).relative_to(vault)))
    return rewritten


def unreadable_sidecars(vault: Path) -> list[str]:
    """The sidecars that do not read back as a record (damaged, or not k0maru's), vault-relative."""
    refs = refs_dir(vault)
    if not refs.is_dir():
        return []
    return sorted(
        str(p.relative_to(vault)) for p in refs.glob(f"*{SIDECAR}") if _read_sidecar(p) is None
    )


def _node_of(sidecar: Path) -> str:
    """The node id a sidecar's name ends with (`<task>_<node>.json`)."""
    return sidecar.name.removesuffix(SIDECAR).rsplit("_", 1)[-1]


def get(store: OffloadStore, node: str) -> OffloadRecord:
    """By node id, or by `<task>_<node>` as in the log file name."""
    node = reflog.stem(node.strip())
    row = store.offload(COLUMNS, node.rsplit("_", 1)[-1])
    if not row and restore(store, store.vault):
        row = store.offload(COLUMNS, node.rsplit("_", 1)[-1])
    if not row:
        recent = [r.node_id for r in list_all(store, 3)]
        raise NotFoundError(
            f"unknown log node {echo(node)}"
            + (f" (the latest: {', '.join(recent)})" if recent else " (none recorded yet)"),
            what="log node",
            finding="use a node id printed by `k0maru offload`",
        )
    return _row(row)


def log_file(vault: Path, rec: OffloadRecord) -> Path:
    """The record's log, a plain file of .k0maru/refs: never a symbolic link (which a cloned
    repository could commit) nor a path out of it."""
    path = vault / _confined(rec.log_path)
    if path.is_symlink() or path.parent.is_symlink():
        raise NotFoundError(
            f"log file {echo(rec.log_path)} of node {rec.node_id} is a symbolic link; it is not "
            "followed (remove it, or `k0maru log prune`)"
        )
    if not path.is_file():
        raise NotFoundError(
            f"log file {rec.log_path} of node {rec.node_id} is missing; it was deleted from .k0maru/refs"
        )
    return path


def totals(store: OffloadStore) -> dict[str, Any]:
    raw, summary, count = store.offload_totals()
    return {
        "offloads": count,
        "raw_tokens": raw,
        "summary_tokens": summary,
        "saved_tokens": max(raw - summary, 0),
        "ratio": round(summary / raw, 4) if raw else None,
    }


@dataclass(slots=True)
class Pruned:
    logs: int
    freed_bytes: int
    kept: int
    kept_bytes: int


def prune(
    store: OffloadStore,
    vault: Path,
    *,
    older_than_s: float | None = None,
    keep: int | None = None,
    max_bytes: int | None = None,
    now: float | None = None,
) -> Pruned:
    """Remove offloaded logs older than `older_than_s`, beyond the newest `keep`, and the oldest
    ones while all of them take more than `max_bytes` on disk (logs and sidecars). Each goes sidecar
    first, then its record, then the log, so no record ever points at a missing file. Logs with no
    record (kept output of interrupted runs) count and go by their file's age."""
    refs = refs_dir(vault)
    if not refs.is_dir():
        return Pruned(0, 0, 0, 0)
    restore(store, vault)
    now = time.time() if now is None else now
    logs = _stored_logs(store, vault, refs)
    doomed, kept_bytes = _doomed_by_age_and_count(logs, keep, older_than_s, now)
    if max_bytes:
        kept_bytes = _doom_oldest_past(logs, doomed, kept_bytes, max_bytes)
    freed = _remove_doomed(store, vault, doomed)
    return Pruned(len(doomed), freed, len(logs) - len(doomed), kept_bytes)


def _stored_logs(
    store: OffloadStore, vault: Path, refs: Path
) -> list[tuple[float, Path, OffloadRecord | None, int]]:
    """Every offloaded log under `refs` as (when, path, record or None, bytes on disk), newest
    first."""
    by_path = {
        (vault / r.log_path).resolve(): r for r in map(_row, store.offloads(COLUMNS, 1 << 30))
    }
    logs: list[tuple[float, Path, OffloadRecord | None, int]] = []
    for path in refs.iterdir():
        if not reflog.is_log(path):
            continue
        try:
            info = path.stat()
            mtime = info.st_mtime
            size = info.st_size + _size(_sidecar(path))  # the bytes on disk: the log and its record
        except OSError:
            continue
        rec = by_path.get(path.resolve())
        logs.append((rec.created_at if rec else mtime, path, rec, size))
    logs.sort(key=lambda x: x[0], reverse=True)  # newest first
    return logs


def _doomed_by_age_and_count(
    logs: list[tuple[float, Path, OffloadRecord | None, int]],
    keep: int | None,
    older_than_s: float | None,
    now: float,
) -> tuple[list[tuple[Path, OffloadRecord | None, int]], int]:
    """The logs beyond the newest `keep` or older than `older_than_s`, and the bytes the rest
    take."""
    total = sum(x[3] for x in logs)
    doomed: list[tuple[Path, OffloadRecord | None, int]] = []
    kept_bytes = total
    for i, (when, path, rec, size) in enumerate(logs):
        if (keep is not None and i >= keep) or (
            older_than_s is not None and now - when > older_than_s
        ):
            doomed.append((path, rec, size))
            kept_bytes -= size
    return doomed, kept_bytes


def _doom_oldest_past(
    logs: list[tuple[float, Path, OffloadRecord | None, int]],
    doomed: list[tuple[Path, OffloadRecord | None, int]],
    kept_bytes: int,
    max_bytes: int,
) -> int:
    """Add the oldest logs (never the newest) to `doomed` while the rest take more than `max_bytes`;
    the bytes then kept."""
    for _, path, rec, size in reversed(logs[1:]):  # oldest first; never the newest log
        if kept_bytes <= max_bytes:
            break
        if any(d[0] == path for d in doomed):
            continue
        doomed.append((path, rec, size))
        kept_bytes -= size
    return kept_bytes


def _remove_doomed(
    store: OffloadStore, vault: Path, doomed: list[tuple[Path, OffloadRecord | None, int]]
) -> int:
    """Remove each doomed log: sidecars of records, then the records, then the logs; the bytes
    freed."""
    gone = [rec for _, rec, _ in doomed if rec is not None]
    for rec in gone:
        sidecar_of(vault, rec).unlink(missing_ok=True)
    if gone:
        store.delete_offloads([r.node_id for r in gone])
    freed = 0
    for path, _, size in doomed:
        path.unlink(missing_ok=True)
        _sidecar(path).unlink(missing_ok=True)
        freed += size
    return freed


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


AGE_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_age(text: str) -> float:
    """`30d`, `12h`, `90m`, `2w`, `45s` -> seconds."""
    import re

    from k0maru.errors import K0maruError

    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*", text or "")
    if not m:
        raise K0maruError(
            f"bad age {echo(text)}; use a number and a unit: s, m, h, d or w (e.g. 30d, 12h)"
        )
    return float(m.group(1)) * AGE_UNITS[m.group(2)]
