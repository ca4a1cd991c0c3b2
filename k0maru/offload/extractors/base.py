"""What every log extractor shares, and the registry: `@register` adds an extractor class, whose
`stack` names the tool family and whose `triggers` are the words that can start one of its reports."""

from __future__ import annotations

import re

from k0maru.offload.findings import Failure, Findings

CODE_IN_TEXT = re.compile(r"\b([A-Z]\w*(?:Error|Exception))\b")
EXTRACTORS: list[type[Extractor]] = []


def register(cls: type[Extractor]) -> type[Extractor]:
    EXTRACTORS.append(cls)
    return cls


def short(text: str, limit: int = 160) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Extractor:
    """One tool family. A failure whose location comes on a later line is `pending` for a few lines."""

    stack = "generic"
    triggers: tuple[str, ...] = ()  # words that can start a report (searched at C speed)
    busy = False  # True while inside a multi-line report: wants every line

    def __init__(self, findings: Findings):
        self.f = findings
        self.pending: Failure | None = None
        self.window = 0

    def feed(self, line: str, lineno: int) -> None:  # pragma: no cover - interface
        raise NotImplementedError

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
