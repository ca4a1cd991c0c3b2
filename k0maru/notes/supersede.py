"""A decision written again under its title with a new text supersedes the one before it: the new
record names the one it replaces and the old one is marked as its family marks such records (its
`status:` key or `Status:` line, a `superseded-by:` key beside a frontmatter), never a silent
`-v2`. Recall puts a standing record above the one it supersedes."""

from __future__ import annotations

import re
from pathlib import Path

from k0maru.fsutil import atomic_write_text, read_regular, read_text

SUPERSEDING = ("adr", "decision")
# what marks a record replaced, and the line naming what it replaces (both left out of content
# identity: a superseded or superseding record flushed again is up to date)
MARK = re.compile(r"^(?:[-*]\s+)?(?:\*\*)?(?:superseded[- ]by|supersedes)\b.*$", re.I | re.M)
_SUPERSEDES = re.compile(r"^(?:[-*]\s+)?(?:\*\*)?supersedes\b.*$", re.I | re.M)
_SUPERSEDED = re.compile(
    r"^(?:[-*]\s+)?(?:\*\*)?(?:status\W*:\W*|##\s+status\s*\n\s*)?superseded\b", re.I | re.M
)
_BY = re.compile(r"superseded[-_ ]by\W*?[:\s]\s*(\S.*)$", re.I | re.M)
_FM = re.compile(r"\A---\n(.*?\n)---\n", re.S)
_STATUS_KEY = re.compile(r"^(status:)[ \t]*.*$", re.I | re.M)
_STATUS_LINE = re.compile(
    r"^(\s*(?:[-*]\s+)?(?:\*\*)?status(?:\*\*)?:(?:\*\*)?)[ \t]*.*$", re.I | re.M
)
_STATUS_SECTION = re.compile(r"^(##\s+status\s*\n\s*\n?)[^\n#][^\n]*", re.I | re.M)
_HEADING = re.compile(r"^# .*$", re.M)


def link_both_ways(old: Path, new: Path, old_link: str, new_link: str) -> None:
    """Mark `old` superseded by `new` (as `new_link` names it from old's folder) and say in `new`
    which record it supersedes (`old_link`)."""
    atomic_write_text(old, mark_superseded(read_text(old), new_link))
    atomic_write_text(new, with_line(read_text(new), "supersedes", old_link))


def mark_superseded(text: str, link: str) -> str:
    """`text` with its status saying it is superseded by `link`: its frontmatter `status:` set to
    `superseded` and a `superseded-by:` key added; else its `Status:` line or `## Status` section
    rewritten; else a line under its heading."""
    fm = _FM.match(text)
    if fm is not None and _STATUS_KEY.search(fm.group(1)):
        head = _STATUS_KEY.sub(
            lambda m: f"{m.group(1)} {_cased('superseded', m.group(0))}", fm.group(1), 1
        )
        return f"---\n{head}superseded-by: {_quoted(link)}\n---\n" + text[fm.end() :]
    body_at = fm.end() if fm else 0
    head, body = text[:body_at], text[body_at:]
    said = f"{_LEADS['superseded-by']} {link}"
    if _STATUS_LINE.search(body):
        return head + _STATUS_LINE.sub(lambda m: f"{m.group(1)} {said}", body, 1)
    if _STATUS_SECTION.search(body):
        return head + _STATUS_SECTION.sub(lambda m: m.group(1) + said, body, 1)
    return with_line(text, "superseded-by", link)


_LEADS = {"supersedes": "Supersedes", "superseded-by": "Superseded by"}  # each key as a line


def with_line(text: str, key: str, link: str) -> str:
    """`text` saying `key` `link` in a line under its heading (a `key:` of its frontmatter where it
    has one and no heading)."""
    line = f"{_LEADS[key]} {link}"
    heading = _HEADING.search(text)
    if heading is not None:
        return f"{text[: heading.end()]}\n\n{line}{text[heading.end() :]}"
    fm = _FM.match(text)
    if fm is not None:
        return f"---\n{fm.group(1)}{key}: {_quoted(link)}\n---\n" + text[fm.end() :]
    return f"{line}\n\n{text}"


def _cased(word: str, like: str) -> str:
    value = like.split(":", 1)[1].strip().strip("\"'")
    return word.capitalize() if value[:1].isupper() else word


def _quoted(value: str) -> str:
    return f'"{value}"' if value[:1] in "[{" or ": " in value else value


def is_superseded(text: str) -> bool:
    """Whether a record says it is superseded (a `superseded-by` key or line, a superseded
    status)."""
    fm = _FM.match(text)
    if fm is not None and re.search(
        r"^(?:superseded[-_]by:|status:\s*['\"]?superseded)", fm.group(1), re.I | re.M
    ):
        return True
    return _SUPERSEDED.search(text[:4000]) is not None


HEAD_BYTES = 16_384  # of each hit, read for its status and Supersedes lines


def standing_first(root: Path, paths: list[str]) -> tuple[list[int], dict[int, str]]:
    """The order (indexes into `paths`, recall's ranking) with each superseded record moved to just
    below the first record ranked after it that names it in a `Supersedes` line; and each
    superseded record's index with what replaces it: that record, else what its own `superseded
    by` names ('' where nothing does)."""
    order = list(range(len(paths)))
    texts = {i: read_head(root / p) for i, p in enumerate(paths)}
    replaced_by: dict[int, str] = {}
    for i, path in enumerate(paths):
        if not is_superseded(texts[i]):
            continue
        stem = (
            Path(path).stem
            if Path(path).stem.lower() not in ("index", "readme")
            else Path(path).parent.name
        )
        later = [j for j in order[order.index(i) + 1 :] if _names(texts[j], stem)]
        replaced_by[i] = paths[later[0]] if later else _named_by(texts[i])
        if later:
            order.remove(i)
            order.insert(order.index(later[0]) + 1, i)
    return order, replaced_by


def _named_by(text: str) -> str:
    """What a superseded record's own `superseded by` key or line names, else ''."""
    return superseded_by(text).strip("[]()*").strip()


def superseded_by(text: str) -> str:
    """The value a superseded record's own `superseded by` key or line gives, as written (a link,
    a name), else ''."""
    m = _BY.search(text[:4000])
    return m.group(1).strip().strip("\"'") if m else ""


def _names(text: str, stem: str) -> bool:
    return any(stem in line for line in _SUPERSEDES.findall(text[:4000]))


def read_head(path: Path, size: int = HEAD_BYTES) -> str:
    """A record's first `size` bytes as text, where it says it is superseded or what it
    supersedes (a recall reads each hit's, so not the whole file); '' where unreadable."""
    data = read_regular(path, size)
    return data.decode("utf-8", errors="replace") if data else ""
