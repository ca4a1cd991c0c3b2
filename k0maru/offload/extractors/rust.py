"""Rust failures in build and test logs."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import CODE_IN_TEXT, Cursor, Extractor, register, short
from k0maru.offload.findings import Failure, Findings


@register
class RustExtractor(Extractor):
    stack = "rust"
    triggers = ("error", "panicked", "did not panic", "panic did not contain")
    ERROR = re.compile(r"^error\[(E\d{4})\]: (.*)")
    ARROW = re.compile(r"^\s*--> (\S+?):(\d+):(\d+)")
    # rustc >= 1.80: (tid)
    PANIC_NEW = re.compile(r"^\s*thread '([^']*)'(?: \(\d+\))? panicked at (\S+?):(\d+):(\d+):\s*$")
    PANIC_OLD = re.compile(r"^\s*thread '([^']*)' panicked at '(.*)', (\S+?):(\d+):(\d+)")
    TEST_HEADER = re.compile(r"^---- (\S+) stdout ----")
    ASSERT_SIDE = re.compile(r"^\s*(?:left|right): ")
    NO_PANIC = re.compile(r"^note: test did not panic as expected at (\S+?):(\d+):(\d+)")
    UNCODED = re.compile(
        r"^error: (?!could not compile|aborting due to|process didn't exit|failed to run)(.*)"
    )
    # names the lint behind an uncoded error
    LINT = re.compile(r"#!?\[(?:deny|forbid|allow)\(([\w:]+)\)\]")

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.pending_panic: Failure | None = None
        self.test: str | None = None
        self.lint_for: Failure | None = None  # an uncoded error whose lint name may follow
        self.lint_window = 0
        self.panic: Failure | None = None  # the last panic: `left:`/`right:` lines complete it
        self.panic_window = 0

    def feed(self, line: str, lineno: int) -> None:
        if self.pending_panic is not None:  # new-style panic: the message is on the next line
            self._panic_message(self.pending_panic, line)
            return
        if self._panic_detail(line):
            return
        if self.pending is not None and self._arrow(line):
            return
        if self.lint_for is not None:
            self._watch_lint(line)
        if line.startswith("error"):
            self._error(line, lineno)
        elif line.lstrip().startswith("thread '"):
            self._panic(line, lineno)
        else:
            self._test_line(line, lineno)

    def _test_line(self, line: str, lineno: int) -> None:
        """A test's `---- name stdout ----` header, or a #[should_panic] test that returned."""
        if line.startswith("note: test did not panic"):
            m = self.NO_PANIC.match(line)
            if m:
                where = f"{m.group(1)}:{m.group(2)}:{m.group(3)}"
                self.f.add(Failure(self.stack, "FAIL", short(line[6:]), lineno, where, self.test))
        elif line.startswith("---- ") and not self.busy:
            m = self.TEST_HEADER.match(line)
            if m:
                self.test = m.group(1)

    def _arrow(self, line: str) -> bool:
        """The `-->` place of the error waiting for one. Whether the line was it."""
        m = self.ARROW.match(line)
        if m:
            self.locate(f"{m.group(1)}:{m.group(2)}:{m.group(3)}")
            self.busy = self.lint_for is not None
            return True
        self.tick()
        return False

    def _panic_message(self, p: Failure, line: str) -> None:
        """The line after a rustc >= 1.80 panic header: its message."""
        self.pending_panic = None
        self.busy = self.pending is not None
        p.message = short(line)
        code = CODE_IN_TEXT.search(line)
        p.code = code.group(1) if code else "panic"
        self.panic, self.panic_window = self.f.add(p), 3

    def _panic_detail(self, line: str) -> bool:
        """`left:`/`right:` under an assertion panic, or a #[should_panic] mismatch: added to the
        last panic's message. Whether the line was one."""
        if self.panic_window > 0:
            self.panic_window -= 1
            if self.panic is not None and self.ASSERT_SIDE.match(line):
                self.panic.message = short(f"{self.panic.message}; {line.strip()}", 240)
                return True
        if line.startswith("note: panic did not contain expected string"):
            if self.panic is not None:
                self.panic.message = short(f"{line[6:]} ({self.panic.message})", 240)
            return True
        return False

    def _error(self, line: str, lineno: int) -> None:
        """`error[E0382]: ...` waits for its `-->` place; an uncoded `error: ...` (deny, clippy) for
        its place and the lint that raised it."""
        if line.startswith("error["):
            m = self.ERROR.match(line)
            if m:
                self.expect_location(Failure(self.stack, m.group(1), short(m.group(2)), lineno), 6)
        elif line.startswith("error: "):
            m = self.UNCODED.match(line)
            if m:
                self.lint_for = self.f.add(Failure(self.stack, "error", short(m.group(1)), lineno))
                self.lint_window = 30
                self.pending, self.window, self.busy = self.lint_for, 6, True

    def _panic(self, line: str, lineno: int) -> None:
        """A panic header: the new form's message follows on the next line, the old form's is
        quoted."""
        m = self.PANIC_NEW.match(line)
        if m:
            where = f"{m.group(2)}:{m.group(3)}:{m.group(4)}"
            self.pending_panic = Failure(self.stack, "panic", "", lineno, where, self.test)
            self.busy = True
            return
        m = self.PANIC_OLD.match(line)
        if m:
            code = CODE_IN_TEXT.search(m.group(2))
            where = f"{m.group(3)}:{m.group(4)}:{m.group(5)}"
            kind = code.group(1) if code else "panic"
            self.f.add(Failure(self.stack, kind, short(m.group(2)), lineno, where, self.test))

    def _watch_lint(self, line: str) -> None:
        if (
            line.startswith(("error", "warning")) and self.lint_window < 30
        ):  # the next diagnostic: no lint named
            self.lint_for, self.busy = None, self.pending is not None
            return
        m = self.LINT.search(line)
        self.lint_window -= 1
        if m and self.lint_for is not None:
            self.f.recode(self.lint_for, m.group(1))
        if m or self.lint_window <= 0:
            self.lint_for, self.busy = None, self.pending is not None
