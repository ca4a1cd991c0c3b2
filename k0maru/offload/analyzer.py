"""Streaming log analysis: every registered extractor is a state machine over log lines, never a regex
over the whole text. `LogAnalyzer.feed(block)` takes decoded text in any-size pieces; lines that cannot
start a finding are skipped at C speed with one pre-filter search, and an extractor that is inside a
multi-line report (a traceback, a sanitizer stack) sees every line until it is done."""

from __future__ import annotations

import re

from k0maru.offload.extractors import all_extractors
from k0maru.offload.extractors.base import Cursor, short
from k0maru.offload.findings import Failure, Findings

# Words that start a generic failure line, searched in any case; with the extractors' own triggers
# (searched as written, unless one of these words already finds them), the pre-filter.
GENERIC_TRIGGERS = ("error", "fatal", "fail", "panic", "exception", "traceback", "sanitizer")
_NEVER = 1 << 62
MAX_LINE = 1 << 16  # characters of one line the extractors see; the stored log keeps the whole line
# colour and hyperlink escapes (cargo --color=always, tsc --pretty, FORCE_COLOR): removed before matching,
# the stored log keeps them
ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()*+][0-9A-Za-z]|[@-Z\\-_])")

GENERIC = re.compile(r"(?i)\b(error|fatal|failed|failure|exception|panic)\b")


class LogAnalyzer:
    """Feeds every extractor; counts lines; keeps memory flat whatever the log size."""

    def __init__(self) -> None:
        self.findings = Findings()
        self.cursor = Cursor()
        self.extractors = [cls(self.findings, self.cursor) for cls in all_extractors()]
        own = ("test session starts", "undefined reference", *(t for e in self.extractors for t in e.triggers))
        # one scan per trigger and block is the pre-filter's cost: a trigger another one finds is dropped
        self.exact = tuple(dict.fromkeys(t for t in own if not any(g in t.lower() for g in GENERIC_TRIGGERS)))
        self.lines = 0
        self._partial: list[str] = []  # the unfinished last line, in pieces (never re-copied per read)
        self._partial_len = 0

    def feed(self, text: str) -> None:
        cut = text.rfind("\n")
        if cut < 0:
            self._hold(text)
            return
        head = text[: cut + 1]
        if self._partial:
            first = head.find("\n") + 1
            self._hold(head[:first])
            head = "".join(self._partial) + head[first:]
            self._partial, self._partial_len = [], 0
        self._hold(text[cut + 1:])
        self._feed_block(ANSI.sub("", head) if "\x1b" in head else head)

    def _hold(self, piece: str) -> None:
        """Keep the start of an unfinished line: only its first MAX_LINE characters can matter to an
        extractor, so a 30 MB line without a newline costs no more than a short one."""
        room = MAX_LINE - self._partial_len
        if piece and room > 0:
            piece = piece[:room] if len(piece) > room and not piece.endswith("\n") else piece
            self._partial.append(piece)
            self._partial_len += len(piece)
        elif piece.endswith("\n"):
            self._partial.append("\n")

    def close(self) -> Findings:
        if self._partial:
            block = "".join(self._partial) + "\n"
            self._feed_block(ANSI.sub("", block) if "\x1b" in block else block)
            self._partial, self._partial_len = [], 0
        return self.findings

    def _feed_block(self, block: str) -> None:
        base = self.lines  # lines before this block
        pos = 0
        counted = 0  # newlines in block[:pos]
        end = len(block)
        extractors = self.extractors
        find = block.find
        cursor = self.cursor
        cursor.block = block
        lowered = block.lower()
        if len(lowered) == len(block):
            searches = {**dict.fromkeys(GENERIC_TRIGGERS, lowered.find), **dict.fromkeys(self.exact, find)}
        else:  # a character whose lower case is longer: offsets would drift, so search the case variants
            searches = {kw: find for kw in (*(v for g in GENERIC_TRIGGERS for v in (g, g.capitalize(), g.upper())),
                                            *self.exact)}
        nexts = {kw: search(kw) for kw, search in searches.items()}
        nexts = {kw: (i if i >= 0 else _NEVER) for kw, i in nexts.items()}
        while pos < end:
            if not any(e.busy for e in extractors):
                hit = min(nexts.values())
                if hit == _NEVER:
                    break
                start = block.rfind("\n", 0, hit) + 1
                if start > pos:
                    counted += block.count("\n", pos, start)
                    pos = start
            stop = find("\n", pos)
            line = block[pos:stop]
            lineno = base + counted + 1
            cursor.pos = pos
            for e in extractors:
                e.feed(line, lineno)
            if self.findings.generic is None and GENERIC.search(line):
                self.findings.generic = Failure("generic", "error", short(line), lineno)
            counted += 1
            pos = stop + 1
            for kw, i in nexts.items():
                if i < pos:
                    j = searches[kw](kw, pos)
                    nexts[kw] = j if j >= 0 else _NEVER
        self.lines = base + block.count("\n")
