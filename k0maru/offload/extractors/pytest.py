"""Pytest failures: each failure's section (`____ test_x ____` or `____ ERROR collecting m.py ____`)
gives the exception (`E   pkg.ErrType: message`) and its frames; the location is the innermost frame
in the user's code (relative paths, not the standard library or site-packages). The short summary's
`FAILED` / `ERROR` lines name the tests; without a section, their own text is used."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import (
    CODE_IN_TEXT,
    Cursor,
    Extractor,
    innermost_user_frame,
    register,
    short,
)
from k0maru.offload.findings import Failure, Findings


@register
class PytestExtractor(Extractor):
    stack = "pytest"
    triggers = ("test session starts", "= FAILURES =", "= ERRORS =")
    SECTION = re.compile(r"^_{3,} (.+?) _{3,}$")
    FRAME = re.compile(r"^([^\s:][^:]*\.py):(\d+):(?: (?:in \S+|([A-Za-z_][\w.]*))?)?\s*$")
    EXC = re.compile(
        r"^E\s+([A-Za-z_][\w.]*?(?:Error|Exception|Exit|Interrupt|Failed|Warning|[A-Z]\w+))(?::\s?(.*))?$"
    )
    WARNING = re.compile(r"^\s+\S+:\d+: ([A-Z]\w*Warning): ")
    SUMMARY = re.compile(r"^(FAILED|ERROR) (\S+?)(?: - (.*))?$")
    END = re.compile(
        r"^(?:=+ )?\d+ (?:passed|failed|error|errors|skipped|deselected)\b.* in [\d.]+s"
        r"|^=+ .*\b(?:passed|failed|error|errors|skipped|deselected)\b.* in [\d.]+s"
    )
    STARTS = re.compile(r"^=+ (?:FAILURES|ERRORS) =+$")  # `-q` prints no session banner

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.section: str | None = None
        self.frames: list[str] = []
        self.exc: tuple[str, str] | None = None
        self.frame_exc: str | None = (
            None  # `path.py:7: AssertionError`, pytest's last line of a section
        )
        self.first_e: str | None = None  # the first `E ` line, e.g. `assert 41 == 42`
        self.section_line = 0  # the log line of the open section's header
        self.frame_lines: dict[str, int] = {}  # a frame of the open section -> its log line
        # name -> (where, code, msg, its log line): a failure is placed in its section (at the frame
        # that locates it),
        # so an `ERROR at setup` or a collection error, reported first, stays first
        self.sections: dict[str, tuple[str | None, str | None, str | None, int]] = {}

    def feed(self, line: str, lineno: int) -> None:
        if not self.busy:
            self._outside(line, lineno)
            return
        if self._boundary(line, lineno):
            return
        if line[:1] == " " and "Warning: " in line and (w := self.WARNING.match(line)):
            self.f.seen_code(w.group(1))  # the warnings summary: each category as written
            return
        if self.section is not None and self._in_section(line, lineno):
            return
        if line.startswith(("FAILED ", "ERROR ")):
            self._summary_line(line.rstrip(), lineno)

    def _outside(self, line: str, lineno: int) -> None:
        """A line outside a session: its banner, or a short summary's line without its session."""
        if line.startswith("=") and ("test session starts" in line or self.STARTS.match(line)):
            self.f.saw(self.stack)
            self.busy = True  # read the whole session: sections have no trigger words
        elif line.startswith(("FAILED ", "ERROR ")):  # a short summary without its session
            self._summary_line(line.rstrip(), lineno)

    def _boundary(self, line: str, lineno: int) -> bool:
        """A section's header, a `=====` rule or the closing line: the open section closes. Whether
        the line was one."""
        m = self.SECTION.match(line)
        if m or line.startswith("====="):
            self._close_section()
            self.section = m.group(1) if m else None
            self.section_line = lineno
            if not m and self.END.match(line):
                self.busy = False
            return True
        if line[:1].isdigit() and self.END.match(line):  # `-q`'s closing line
            self._close_section()
            self.busy = False
            return True
        return False

    def _in_section(self, line: str, lineno: int) -> bool:
        """A frame or an `E ` line of the open section. Whether the line is done with."""
        fm = self.FRAME.match(line)
        if fm:
            self.frames.append(f"{fm.group(1)}:{fm.group(2)}")
            self.frame_lines[self.frames[-1]] = lineno
            if fm.group(3):
                self.frame_exc = fm.group(3).rsplit(".", 1)[-1]
            return True
        if line.startswith("E ") and self.first_e is None:
            self.first_e = line[1:].strip()
        em = self.EXC.match(line)
        if em:
            self.exc = (em.group(1).rsplit(".", 1)[-1], (em.group(2) or "").strip())
            return True
        return False

    def _close_section(self) -> None:
        if self.section is not None:
            where = innermost_user_frame(self.frames)
            code, msg = self.exc if self.exc else (self.frame_exc, self.first_e)
            if code and msg and msg.startswith(f"{code}: "):  # `E   Failed: DID NOT RAISE ...`
                msg = msg[len(code) + 2 :]
            name = re.sub(r"^ERROR at (?:setup|teardown) of ", "", self.section)
            if name != self.section:  # the phase that failed is part of the message
                msg = f"{self.section}: {msg}" if msg else self.section
            at = self.frame_lines.get(where or "", self.section_line)  # the failing line's frame
            self.sections[name] = (where, code, msg, at)
        self.frame_lines = {}
        self.section, self.frames, self.exc, self.frame_exc, self.first_e = (
            None,
            [],
            None,
            None,
            None,
        )

    def _summary_line(self, line: str, lineno: int) -> None:
        m = self.SUMMARY.match(line)
        if not m or ("::" not in m.group(2) and not m.group(2).endswith(".py")):
            return
        test_id, text = m.group(2), m.group(3) or ""
        path = test_id.split("::", 1)[0]
        name = (
            test_id.split("::", 1)[1].replace("::", ".")
            if "::" in test_id
            else f"ERROR collecting {path}"
        )
        where, code, msg, at = self.sections.get(name, (None, None, None, lineno))
        if code is None:
            found = CODE_IN_TEXT.search(text)
            code = found.group(1) if found else "error"  # pytest names no code: none invented
            msg = text.split(": ", 1)[1] if ": " in text else text
        self.f.add(Failure(self.stack, code, short(msg or line), at, where or path, test_id))
