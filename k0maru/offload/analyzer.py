"""Streaming log analysis: every registered extractor is a state machine over log lines, never a
regex over the whole text. `LogAnalyzer.feed(block)` takes decoded text in any-size pieces; lines
that cannot start a finding are skipped with one Aho-Corasick pass over the block for every trigger
word at once (ahocorasick-rs: ~6x faster than one `str.find` scan per word), and an extractor that
is inside a multi-line report (a traceback, a sanitizer stack) sees every line until it is done."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import ahocorasick_rs

from k0maru.offload.extractors import all_extractors
from k0maru.offload.extractors.base import Cursor, Extractor, short
from k0maru.offload.extractors.located import HINTS, FindingsLayer
from k0maru.offload.findings import GENERIC_STACKS, Failure, Findings
from k0maru.offload.locations import PLACE_SCAN, Places
from k0maru.offload.prefixes import Prefixes

# Words that start a generic failure line, searched as written, capitalised and in capitals; with
# the extractors' own triggers (searched as written), the pre-filter.
GENERIC_TRIGGERS = ("error", "fatal", "fail", "panic", "exception", "traceback", "sanitizer")
MAX_LINE = 1 << 16  # characters of one line the extractors see; the stored log keeps the whole line
# colour and hyperlink escapes (cargo --color=always, tsc --pretty, FORCE_COLOR): removed before
# matching, the stored log keeps them
ANSI = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()*+][0-9A-Za-z]|[@-Z\\-_])"
)

GENERIC = re.compile(r"(?i)\b(error|fatal|failed|failure|exception|panic)\b")
# `go test -json`: the test's own output line, read as the test printed it
GO_JSON = re.compile(r'(?m)^\{"Time":"[^"]*","Action":"output",.*?"Output":"((?:[^"\\]|\\.)*)"\}$')


def _go_output(m: re.Match[str]) -> str:
    try:
        text = json.loads(f'"{m.group(1)}"')
    except ValueError:
        return m.group(0)
    return " ".join(text.rstrip("\n").split("\n"))


def _readable(block: str, prefixes: Prefixes | None = None, base: int = 0) -> str:
    """`block` as the extractors read it: colour, line prefixes (CI timestamps and markers, task
    prefixes: `offload.prefixes`) and `go test -json` framing removed, one line for one line;
    `base`: the log's lines before it."""
    if "\x1b" in block:
        block = ANSI.sub("", block)
    block = (prefixes or Prefixes()).strip(block, base)
    if block.startswith('{"Time":'):
        block = GO_JSON.sub(_go_output, block)
    return block


# extractor stacks left out of every new analyzer: `scripts/eval_offload.py --without` measures the
# generic layers alone on a family this way; empty in normal use
SWITCHED_OFF: set[str] = set()


def _trigger_words(extractors: list[Extractor]) -> tuple[ahocorasick_rs.AhoCorasick, list[int]]:
    """One automaton for every trigger word, and for each word the extractors it feeds (a bit per
    extractor): its owners, or all of them for a generic word."""
    everyone = (1 << len(extractors)) - 1
    owners: dict[str, int] = {}
    for i, e in enumerate(extractors):
        for word in e.triggers:
            owners[word] = owners.get(word, 0) | 1 << i
    generic: tuple[str, ...] = ("test session starts", "undefined reference")
    generic += tuple(v for g in GENERIC_TRIGGERS for v in (g, g.capitalize(), g.upper()))
    for word in generic:
        owners[word] = everyone
    words = list(owners)
    automaton = ahocorasick_rs.AhoCorasick(words, matchkind=ahocorasick_rs.MatchKind.Standard)
    return automaton, [owners[w] for w in words]


def _path_of(location: str) -> str:
    """`src/a.rs:4:5` -> `src/a.rs` (a Windows drive's colon kept)."""
    parts = location.split(":")
    while len(parts) > 1 and parts[-1].isdigit():
        parts.pop()
    return ":".join(parts)


class LogAnalyzer:
    """Feeds every extractor; counts lines; keeps memory flat whatever the log size."""

    def __init__(self, tree: Path | None = None) -> None:
        """`tree`: the working tree whose files are the user's code (the command's folder, or the
        repository root when the log is piped in)."""
        self.findings = Findings()
        self.places = Places(tree)
        self.prefixes = Prefixes()
        self.cursor = Cursor(self.places)
        self.extractors = [
            cls(self.findings, self.cursor)
            for cls in all_extractors()
            if cls.stack in GENERIC_STACKS or cls.stack not in SWITCHED_OFF
        ]
        self.layer = next(e for e in self.extractors if isinstance(e, FindingsLayer))
        for i, e in enumerate(self.extractors):
            e.bit = 1 << i
        self.triggers, self.owners = _trigger_words(self.extractors)
        self._feeds: dict[int, list[Callable[[str, int], None]]] = {}  # mask -> whom it feeds
        # the findings layer reads every line fed (it looks for places in any line)
        self.always = 1 << self.extractors.index(self.layer)
        self.lines = 0
        self._partial: list[
            str
        ] = []  # the unfinished last line, in pieces (never re-copied per read)
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
        self._hold(text[cut + 1 :])
        self._feed_block(_readable(head, self.prefixes, self.lines))

    def _hold(self, piece: str) -> None:
        """Keep the start of an unfinished line: only its first MAX_LINE characters can matter to an
        extractor, so a huge line without a newline costs no more than a short one."""
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
            self._feed_block(_readable(block, self.prefixes, self.lines))
            self._partial, self._partial_len = [], 0
        for e in self.extractors:  # a report still open at the end of the log
            e.finish()
        self._settle_findings()
        if not self.findings.total and not self.findings.markers:  # warnings failed it, if anything
            for w in sorted((w for e in self.extractors for w in e.warnings), key=lambda w: w.line):
                self.findings.add(w)
                self.findings.promoted = True
        f = self.findings
        self.prefixes.attribute([*f.failures, *f.markers, *([f.verdict] if f.verdict else [])])
        f.root, f.root_is_users = self._root()
        return f

    def _settle_findings(self) -> None:
        """The findings layer settles what it found against the extractors' failures, their
        warnings and the generic layer's located markers."""
        others = [x for x in self.findings.failures if x.stack not in GENERIC_STACKS]
        warned = [w for e in self.extractors if e is not self.layer for w in e.warnings]
        located = [m for m in self.findings.markers if m.location]
        self.layer.settle(others, others + warned, located)

    def _root(self) -> tuple[Failure | None, bool]:
        """The first failure in log order located in the user's code: an extractor's, else the first
        marker of the generic layer that has one; else the first failure or marker at all."""
        f = self.findings
        ordered = sorted(f.failures, key=lambda x: x.line)
        for failure in ordered:
            if failure.location and self.places.is_user(_path_of(failure.location)):
                return failure, True
        for marker in f.markers:
            if marker.location:
                return marker, True
        located = next((x for x in ordered if x.location), None)
        if located is not None:
            return located, False
        if ordered:
            return ordered[0], False
        return (f.markers[0] if f.markers else f.generic), False

    def _hits(self, block: str) -> list[tuple[int, int]]:
        """Where lines of `block` hold a trigger word, and whom each feeds (a mask of extractors),
        in order: a place in any form, or a row under a file's header, feeds the findings layer."""
        owners = self.owners
        hits = [
            (start, owners[i])
            for i, start, _ in self.triggers.find_matches_as_indexes(block, overlapping=True)
        ]
        layer = self.always
        places = [(m.start(), layer) for m in PLACE_SCAN.finditer(block)]
        places += [(m.start(), layer) for hint in HINTS for m in hint.finditer(block)]
        return sorted(hits + places) if places else sorted(hits)

    def _feeds_for(self, wanted: int) -> list[Callable[[str, int], None]]:
        """The feeds of the extractors in mask `wanted`, kept for the next line that wants them."""
        fed = self._feeds[wanted] = [e.feed for e in self.extractors if wanted & e.bit]
        return fed

    def _feed_block(self, block: str) -> None:
        """`block` is whole lines. A line is fed to the extractors whose trigger words it holds (all
        of them for a generic word), the busy ones and the findings layer; lines with no trigger hit
        are skipped unless an extractor is busy."""
        base = self.lines  # lines before this block
        layer = self.always
        hits = self._hits(block)
        count = len(hits)
        next_hit = 0
        pos = 0
        counted = 0  # newlines in block[:pos]
        end = len(block)
        feeds = self._feeds
        find = block.find
        cursor = self.cursor
        cursor.block = block
        while pos < end:
            busy = cursor.busy
            if not busy:
                if next_hit == count:
                    break
                start = block.rfind("\n", 0, hits[next_hit][0]) + 1
                if start > pos:
                    counted += block.count("\n", pos, start)
                    pos = start
            stop = find("\n", pos)
            if stop < 0:
                stop = end
            wanted = busy | layer
            while next_hit < count and hits[next_hit][0] < stop:
                wanted |= hits[next_hit][1]
                next_hit += 1
            line = block[pos:stop]
            lineno = base + counted + 1
            cursor.pos = pos
            fed = feeds.get(wanted) or self._feeds_for(wanted)
            for feed in fed:
                feed(line, lineno)
            if self.findings.generic is None and GENERIC.search(line):
                self.findings.generic = Failure("generic", "error", short(line), lineno)
            counted += 1
            pos = stop + 1
        self.lines = base + block.count("\n")
