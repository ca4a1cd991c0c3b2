"""What k0maru keeps per user under `~/.cache/k0maru` (`$XDG_CACHE_HOME`): the optimised copy of the
embedding model and the token counter's cut of the vocabulary, each made from a file of an installed
package. Each entry records that file beside it (`ENTRY.source`); making a new entry removes those
whose file is gone or changed (a deleted virtual environment, an upgraded package) or that the new
one replaces (the same file, made by another onnxruntime), so the folder does not grow by a model
copy per install. The record also holds each file's size and digest (a large file's size and
time): `intact` and `read` tell a damaged entry (truncated, overwritten) from a sound one, so it is
made again instead of loaded."""

from __future__ import annotations

import json
import os
import shutil
from contextlib import suppress
from pathlib import Path
from typing import Any

from k0maru.fsutil import atomic_write_text

SOURCE = ".source"
DIGEST_MAX = 8 << 20  # files up to this size are checked by a digest of their bytes; larger ones
# (the model's weights, which a session maps instead of reading) by their size and time


def folder(kind: str) -> Path | None:
    """The cache folder of `kind` ("models", "tokens"), not created; None without a home
    directory."""
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except RuntimeError:  # no home directory to speak of
        return None
    return base / "k0maru" / kind


def _stamp(source: Path) -> list[Any] | None:
    try:
        st = source.stat()
    except OSError:
        return None
    return [str(source.resolve()), st.st_size, st.st_mtime_ns]


def remember(entry: Path, source: Path, made_by: str, keep: int | None = None) -> None:
    """Record that `entry` (a file or folder of a cache folder) was made from `source` by `made_by`,
    then remove the entries beside it made from a file since gone or changed, made from `source` by
    anything else, or never recorded (made before entries were recorded); with `keep`, also all but
    the `keep` most recently used of those made as this one was (variants of one source)."""
    record: dict[str, Any] = {"source": _stamp(source), "made_by": made_by}
    with suppress(OSError):
        record["files"] = _files(entry)
        # whole or not at all: another process pruning beside it takes an unreadable record for
        # stale
        atomic_write_text(entry.with_name(entry.name + SOURCE), json.dumps(record))
        variants = []
        for other in entry.parent.iterdir():
            if other.name.startswith(".") or other.name.endswith(SOURCE) or other == entry:
                continue  # a dot name is another process's entry, still being written
            if _stale(other, record):
                _remove(other)
            elif keep is not None and _made_as(other, record):
                with suppress(OSError):
                    variants.append((other.stat().st_mtime_ns, other))
        for _, other in sorted(variants, reverse=True)[max(keep or 0, 1) - 1 :]:
            _remove(other)


def intact(entry: Path) -> bool:
    """Whether `entry`'s files are the ones `remember` recorded (an entry recorded without them,
    by an older k0maru, is not)."""
    try:
        return bool(_record(entry)["files"] == _files(entry))
    except (OSError, ValueError, TypeError, KeyError):
        return False


def read(entry: Path) -> bytes | None:
    """The bytes of the file `entry`, None when it is missing or not the file `remember`
    recorded."""
    try:
        data = entry.read_bytes()
        return data if _record(entry)["files"] == {"": _file_stamp(entry, data)} else None
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _files(entry: Path) -> dict[str, list[Any]]:
    """A stamp of each file of `entry` (a folder's files by name; a file under "")."""
    if not entry.is_dir():
        return {"": _file_stamp(entry)}
    return {p.name: _file_stamp(p) for p in sorted(entry.iterdir()) if p.is_file()}


def _file_stamp(path: Path, data: bytes | None = None) -> list[Any]:
    """[size, digest of the bytes] up to DIGEST_MAX (the time would change on `used`), else [size,
    modification time]."""
    import xxhash

    size = len(data) if data is not None else path.stat().st_size
    if size > DIGEST_MAX:
        return [size, path.stat().st_mtime_ns]
    return [size, xxhash.xxh3_64_hexdigest(path.read_bytes() if data is None else data)]


def used(entry: Path) -> None:
    """Mark `entry` as just used (what `remember`'s `keep` goes by)."""
    with suppress(OSError):
        os.utime(entry)


def _remove(entry: Path) -> None:
    if entry.is_dir():
        shutil.rmtree(entry, ignore_errors=True)
    else:
        entry.unlink(missing_ok=True)
    entry.with_name(entry.name + SOURCE).unlink(missing_ok=True)


def _record(entry: Path) -> Any:
    return json.loads(entry.with_name(entry.name + SOURCE).read_text(encoding="utf-8"))


def _made_as(entry: Path, record: dict[str, Any]) -> bool:
    """Whether `entry` was made from the same source by the same maker as `record` says."""
    try:
        other = _record(entry)
        return bool(other["source"] == record["source"] and other["made_by"] == record["made_by"])
    except (OSError, ValueError, TypeError, KeyError):
        return False


def _stale(entry: Path, current: dict[str, Any]) -> bool:
    try:
        record = _record(entry)
        source = record["source"]
        same_source = source == current["source"]
        return (same_source and record["made_by"] != current["made_by"]) or (
            not same_source and _stamp(Path(source[0])) != source
        )
    except (OSError, ValueError, TypeError, KeyError, IndexError):
        return True
