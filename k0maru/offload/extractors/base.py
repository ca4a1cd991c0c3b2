"""What every log extractor shares, and the registry: `@register` adds an extractor class, whose
`stack` names the tool family and whose `triggers` are the words that can start one of its
reports."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from k0maru.offload.findings import Failure, Findings
from k0maru.offload.locations import user_path as user_path  # the extractors take it from here
from k0maru.text import shorten

if TYPE_CHECKING:
    from k0maru.offload.locations import Places

CODE_IN_TEXT = re.compile(r"\b([A-Z]\w*(?:Error|Exception))\b")
MAX_WARNINGS = 50
EXTRACTORS: list[type[Extractor]] = []


def innermost_user_frame(frames: list[str]) -> str | None:
    """The last `path:line` of a stack listed outermost first that is the user's code, else the last
    one."""
    users = [f for f in frames if user_path(f.rsplit(":", 1)[0])]
    return users[-1] if users else (frames[-1] if frames else None)


def register(cls: type[Extractor]) -> type[Extractor]:
    EXTRACTORS.append(cls)
    return cls


def short(text: str, limit: int = 160) -> str:
    return shorten(text.strip(), limit)


class Cursor:
    """Where the analyzer is in the current block of text, so an extractor can look back a few lines
    (the lines before a trigger are skipped, not fed)."""

    def __init__(self, places: Places | None = None) -> None:
        self.block = ""
        self.pos = 0  # start of the line being fed
        self.busy = 0  # a bit for each extractor inside a multi-line report
        if places is None:
            from k0maru.offload.locations import Places

            places = Places(None)
        self.places = places  # judges whether a path is the user's code

    def before(self, n: int) -> list[str]:
        """Up to `n` lines before the current one, nearest first (none from an earlier block)."""
        out: list[str] = []
        end = self.pos - 1
        while len(out) < n and end >= 0:
            start = self.block.rfind("\n", 0, end) + 1
            out.append(self.block[start:end])
            end = start - 1
        return out


class Extractor:
    """One tool family. A failure whose location comes on a later line is `pending` for a few
    lines."""

    stack = "generic"
    triggers: tuple[str, ...] = ()  # words that can start a report (searched at C speed)
    bit = 0  # this extractor's bit in its cursor's `busy` mask (set by the analyzer)
    _busy = False

    @property
    def busy(self) -> bool:
        """True while inside a multi-line report: wants every line."""
        return self._busy

    @busy.setter
    def busy(self, value: bool) -> None:
        self._busy = value
        cursor = self.cursor
        cursor.busy = cursor.busy | self.bit if value else cursor.busy & ~self.bit

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        self.f = findings
        self.cursor = cursor or Cursor()
        self.pending: Failure | None = None
        self.window = 0
        self.warnings: list[Failure] = []  # counted only when nothing in the log failed

    def report(self, failure: Failure, error: bool) -> None:
        """A linter's finding: an error fails the run; a warning does only under a strict flag
        (`yamllint --strict`, `--max-warnings 0`), so it is kept aside for a log with no failure."""
        if error:
            self.f.add(failure)
        elif len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(failure)

    def feed(self, line: str, lineno: int) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def finish(self) -> None:
        """The log ended: close a report still open."""

    def expect_location(self, failure: Failure, within: int) -> None:
        self.pending = self.f.add(failure)
        self.window = within
        self.busy = True

    def locate(self, location: str) -> None:
        assert self.pending is not None
        self.pending.location = location
        self.pending = None
        self.busy = False

    def tick(self) -> None:
        """One more line without the location: give up once the window is spent."""
        self.window -= 1
        if self.window <= 0:
            self.pending = None
            self.busy = False
