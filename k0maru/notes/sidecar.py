"""A record kept as a folder of its own with a metadata file beside its text (a Kubernetes KEP:
`NNNN-title/README.md` and `kep.yaml`): the new record gets that file too, with the keys most of
the family's files give, filled from the request (title, number, date) or the value most of them
give; a key whose value differs from record to record is left out, never written empty."""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from k0maru.fsutil import create_exclusive, read_regular

RECENT = 8  # the family's latest metadata files read
_MAX_BYTES = 1 << 16


def sidecar_name(folder: Path) -> str | None:
    """The YAML file most of `folder`'s per-record folders keep beside their text, None if none."""
    records = [p for p in folder.iterdir() if p.is_dir()] if folder.is_dir() else []
    names = Counter(y.name for r in records for y in r.glob("*.yaml"))
    name, count = names.most_common(1)[0] if names else ("", 0)
    return name if count >= 2 and count * 2 > len(records) else None


def write_sidecar(record: Path, title: str, number: int | None, when: date) -> str | None:
    """Write the metadata file beside `record` (`x/README.md`) as the family keeps it; its path,
    None where the family keeps none or it exists already."""
    own = record.parent
    name = sidecar_name(own.parent)
    if name is None or (own / name).exists():
        return None
    fields = _fields(own.parent, name, {"title": title, "number": number, "date": when})
    if not fields:
        return None
    text = yaml.safe_dump(fields, sort_keys=False, allow_unicode=True, width=1000)
    return (own / name).as_posix() if create_exclusive(own / name, text.encode("utf-8")) else None


def _fields(folder: Path, name: str, given: dict[str, Any]) -> dict[str, Any]:
    """The keys most of the latest metadata files give, each as the request or the files fill it."""
    files = sorted(folder.glob(f"*/{name}"), key=lambda p: _number(p.parent.name))[-RECENT:]
    loaded = [_load(f) for f in files]
    maps = [(m, _number(f.parent.name)) for m, f in zip(loaded, files, strict=True) if m]
    keys = Counter(k for m, _ in maps for k in m)
    out: dict[str, Any] = {}
    for key in (k for k in keys if keys[k] * 2 > len(maps)):
        value = _value(key, [(m[key], n) for m, n in maps if key in m], given)
        if value is not None:
            out[key] = value
    return out


def _value(key: str, seen: list[tuple[Any, int]], given: dict[str, Any]) -> Any:
    """A key's value: the title, the record's number or date where the files give theirs there,
    else the value most of them give; None (left out) where they differ."""
    if key.lower() == "title":
        return given["title"]
    if all(isinstance(v, int) and v == n for v, n in seen) and given["number"] is not None:
        return given["number"]
    if all(re.fullmatch(r"\d{4}-\d\d-\d\d", str(v)) for v, _ in seen):
        bare = isinstance(seen[-1][0], date)  # as the files write it: bare or quoted
        return given["date"] if bare else given["date"].isoformat()
    common, count = Counter(yaml.safe_dump(v) for v, _ in seen).most_common(1)[0]
    return yaml.safe_load(common) if count * 2 > len(seen) else None


def _number(name: str) -> int:
    m = re.match(r"^(?:[A-Za-z]+-)?(\d+)", name)
    return int(m.group(1)) if m else -1


def _load(path: Path) -> dict[str, Any]:
    data = read_regular(path, _MAX_BYTES)
    try:
        loaded = yaml.safe_load(data.decode("utf-8", "replace")) if data else None
    except yaml.YAMLError:
        return {}
    return loaded if isinstance(loaded, dict) else {}
