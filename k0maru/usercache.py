"""What k0maru keeps per user under `~/.cache/k0maru` (`$XDG_CACHE_HOME`): the optimised copy of the
embedding model and the token counter's cut of the vocabulary, each made from a file of an installed
package. Each entry records that file beside it (`ENTRY.source`); making a new entry removes those
whose file is gone or changed (a deleted virtual environment, an upgraded package) or that the new
one replaces (the same file, made by another onnxruntime), so the folder does not grow by a model
copy per install."""

from __future__ import annotations

import json
import os
import shutil
from contextlib import suppress
from pathlib import Path
from typing import Any

from k0maru.fsutil import atomic_write_text

SOURCE = ".source"


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
    record = {"source": _stamp(source), "made_by": made_by}
    with suppress(OSError):
        # whole or not at all: another process pruning beside it takes an unreadable record for
        # stale
        atomic_write_text(entry.with_name(entry.name + SOURCE), json.dumps(record))
        variants = []
        for other in entry.parent.iterdir():
            if other.name.startswith(".") or other.name.endswith(SOURCE) or other == entry:
                continue  # a dot name is another process's entry, still being written
            if _stale(other, record):
                _remove(other)
            elif keep is not None and _record(other) == record:
                with suppress(OSError):
                    variants.append((other.stat().st_mtime_ns, other))
        for _, other in sorted(variants, reverse=True)[max(keep or 0, 1) - 1 :]:
            _remove(other)


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
