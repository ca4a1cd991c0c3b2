"""The files a record family keeps beside its records.

A record kept as a folder of its own with a metadata file beside its text (a Kubernetes KEP:
`NNNN-title/README.md` and `kep.yaml`): the new record gets that file too, with the keys most of
the family's files give, filled from the request (title, number, date) or the value most of them
give; a key whose value differs from record to record is left out, never written empty.

An index of the records (the folder's `README.md`, `index.md` or `_index.md` linking two or more of
them, a table row or a list item each): the new record gets its line, made from the last one's
(link, number, title, date and status swapped), else the caller is told what to add."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from k0maru.fsutil import atomic_write_text, create_exclusive, read_regular

RECENT = 8  # the family's latest metadata files read
_MAX_BYTES = 1 << 16
_MAX_INDEX = 1 << 20


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


INDEX_NAMES = ("README.md", "index.md", "_index.md")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_ITEM = re.compile(r"^\s*(?:\||[-*+]\s|\d+[.)]\s)")
_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_STATUS = re.compile(
    r"^\s*(?:[-*]\s+)?(?:\*\*)?status(?:\*\*)?\s*:\s*['\"]?([\w -]+?)['\"]?\s*$", re.I | re.M
)
_TITLE = re.compile(r"^title:\s*['\"]?(.+?)['\"]?\s*$", re.M)
_HEAD = re.compile(r"^#\s+(?:[A-Za-z]{0,6}[- ]?\d+\s*[:.-]?\s+)?(.+?)\s*$", re.M)


@dataclass(slots=True)
class RecordIndex:
    path: Path
    lines: list[str]
    rows: list[int]  # the lines (table rows, list items) that link a record
    targets: list[str]  # the record each row links: its name in the folder


def find_index(folder: Path, new: Path | None = None) -> RecordIndex | None:
    """The index file of `folder`'s records (not the `new` record itself), None where none links
    two or more of them."""
    if not folder.is_dir():
        return None
    names = {p.name for p in folder.glob("*.md")} | {p.parent.name for p in folder.glob("*/*.md")}
    for index in (folder / n for n in INDEX_NAMES):
        data = read_regular(index, _MAX_INDEX) if index != new else None
        try:  # never rewritten with a byte lost
            lines = data.decode("utf-8").split("\n") if data is not None else []
        except UnicodeDecodeError:
            continue
        rows, targets = [], []
        for i, line in enumerate(lines):
            linked = [t for t in map(_target, _LINK.findall(line)) if t in names - {index.name}]
            if linked and _ITEM.match(line):
                rows.append(i)
                targets.append(linked[0])
        if len(rows) >= 2:
            return RecordIndex(index, lines, rows, targets)
    return None


def add_to_index(root: Path, path: Path, title: str, when: date) -> list[str]:
    """Add the new record at `path` to its folder's index, in the form of the index's last line;
    what was done, or what to add where the line's form is not understood. Nothing where the
    family keeps no index or it lists the record already."""
    own = path.parent if path.name.lower() in ("readme.md", "index.md") else path
    folder = own.parent
    index = find_index(folder, path)
    if index is None or own.name in index.targets:
        return []
    shown = index.path.relative_to(root).as_posix()
    last = index.rows[-1]
    row = _new_row(folder / index.targets[-1], index.lines[last], own, (title, path, when))
    if row is None:
        return [f"{shown} lists {len(index.rows)} records: add a row or line for {own.name}"]
    atomic_write_text(
        index.path, "\n".join([*index.lines[: last + 1], row, *index.lines[last + 1 :]])
    )
    return [f"added a line for {own.name} to {shown}, made from its last one's: check it"]


def _new_row(old: Path, line: str, own: Path, new: tuple[str, Path, date]) -> str | None:
    """`line` (the index's line for the record `old`) made the new record's: its link, number,
    title, dates and status swapped; None where the line does not hold the old record's title."""
    title, path, when = new
    old_text = _record_text(old)
    old_title = _title(old_text)
    named = re.compile(rf"(?<!\w){re.escape(old_title)}(?!\w)", re.I)
    if not old_title or not named.search(_LINK.sub("]()", line)):
        return None
    row = named.sub(lambda _: title, line.replace(old.name, own.name, 1), count=1)
    got, had = re.match(r"^\D*?(\d+)", own.name), re.match(r"^\D*?(\d+)", old.name)
    if got and had:
        row = _swap_outside_dates(row, had.group(1), got.group(1))
    row = _DAY.sub(when.isoformat(), row)
    status, before = _STATUS.search(_record_text(path)), _STATUS.search(old_text)
    if status and before:
        cell = re.compile(rf"(\|\s*){re.escape(before.group(1).strip())}(\s*\|)", re.I)
        row = cell.sub(lambda m: m.group(1) + status.group(1).strip() + m.group(2), row, count=1)
    return row


def _swap_outside_dates(row: str, old: str, new: str) -> str:
    """`row` with the number `old` (as written: `0164`) made `new`, dates left alone."""
    number = re.compile(rf"(?<!\d){re.escape(old)}(?!\d)")
    parts = _DAY.split(row)
    days = _DAY.findall(row)
    out = [number.sub(new, part) for part in parts]
    return "".join(p + d for p, d in zip(out, [*days, ""], strict=True))


def _target(link: str) -> str:
    """A link's record name in the index's folder: `./0001-x.md` -> `0001-x.md`, `0002-y/README.md`
    and `0002-y/` -> `0002-y`."""
    link = link.split("#", 1)[0].removeprefix("./")
    return link.split("/", 1)[0] if "/" in link.rstrip("/") or link.endswith("/") else link


def _record_text(path: Path) -> str:
    if path.is_dir():
        path = next((path / n for n in INDEX_NAMES if (path / n).is_file()), path / "README.md")
    data = read_regular(path, _MAX_BYTES) if path.is_file() else None
    return data.decode("utf-8", "replace") if data is not None else ""


def _title(text: str) -> str:
    """A record's title: its frontmatter's, else its heading's without a number lead."""
    m = _TITLE.search(text.split("\n---", 1)[0]) if text.startswith("---") else None
    m = m or _HEAD.search(text)
    return m.group(1).strip() if m else ""
