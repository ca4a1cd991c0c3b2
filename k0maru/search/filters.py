"""Recall filters: folder prefix, tag (nested tags included), kind, and a date window (the note's
frontmatter date, else the date its file name starts with, else its file's mtime). Dates are ISO
(`2026-11-01`) or relative (`30d`, `2w`, `6m`, `1y`)."""

from __future__ import annotations

import datetime as dt
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from k0maru.errors import K0maruError
from k0maru.index.languages import CODES
from k0maru.search.folding import language_folder

if TYPE_CHECKING:
    from k0maru.index.document_store import DocumentStore

_RELATIVE = re.compile(r"(\d{1,5})\s*([dwmy])\Z")
_DAYS = {"d": 1, "w": 7, "m": 30, "y": 365}


def parse_when(text: str, end_of_day: bool = False) -> float:
    """Epoch seconds for an ISO date/datetime or a relative age; a bare `until` date includes that
    day. An age names the day that many days back (UTC, as note dates are read): `30d` on
    2026-12-07 is 2026-11-07, that day included either way, as `--since 2026-11-07` includes it."""
    raw = text.strip().lower()
    m = _RELATIVE.match(raw)
    if m:
        today = dt.datetime.fromtimestamp(time.time(), dt.UTC).date()
        back = int(m.group(1)) * _DAYS[m.group(2)]
        raw = (today - dt.timedelta(days=min(back, today.toordinal() - 1))).isoformat()
    try:
        if len(raw) == 10:
            day = dt.date.fromisoformat(raw)
            start = dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()
            return start + 86399.999 if end_of_day else start
        moment = dt.datetime.fromisoformat(raw)
        return (moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)).timestamp()
    except ValueError:
        raise K0maruError(
            f"bad date {text[:40]!r}; use YYYY-MM-DD or an age like 30d, 2w, 6m, 1y"
        ) from None


@dataclass(frozen=True, slots=True)
class Filters:
    path: str | None = None
    tag: str | None = None
    kind: str | None = None
    since: str | None = None
    until: str | None = None
    lang: str | None = None  # an ISO 639-1 code: notes stemmed in that language or in its folder

    def __bool__(self) -> bool:
        return any((self.path, self.tag, self.kind, self.since, self.until, self.lang))

    def language(self) -> tuple[str | None, str] | None:
        """(the stemmer's name for the `lang` code: '' for English, None for a language without one;
        the code), or None without `lang`."""
        if not self.lang:
            return None
        code = self.lang.strip().lower()
        if language_folder(code) is None:
            raise K0maruError(
                f"unknown language {self.lang[:20]!r}; give an ISO 639-1 code such as en, es, ko"
            )
        name = CODES.get(code.split("-")[0].split("_")[0])
        return ("" if name == "english" else name), code

    def window(self) -> tuple[float | None, float | None]:
        since = parse_when(self.since) if self.since else None
        until = parse_when(self.until, end_of_day=True) if self.until else None
        if since is not None and until is not None and since > until:
            raise K0maruError("--since is after --until; swap them")
        return since, until

    def allowed(self, store: DocumentStore) -> set[int]:
        """Ids of the notes these filters select."""
        since, until = self.window()
        return store.filter_documents(self.path, self.tag, self.kind, since, until, self.language())

    def describe(self) -> str:
        parts = [
            f"{k} {v}"
            for k, v in (
                ("under", self.path),
                ("tagged", self.tag),
                ("kind", self.kind),
                ("dated on or after", self.since),
                ("dated on or before", self.until),
                ("in language", self.lang),
            )
            if v
        ]
        return ", ".join(parts)
