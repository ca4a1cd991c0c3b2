"""Go failures in build and test logs."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Cursor, Extractor, register, short, user_path
from k0maru.offload.findings import Failure, Findings


@register
class GoExtractor(Extractor):
    stack = "go"
    triggers = ("FAIL", "panic", "fatal error", ".go:", "=== RUN", "DATA RACE")
    FRAME = re.compile(r"^\s+(\S+\.go):(\d+)")
    TEST_FAIL = re.compile(r"^\s*--- FAIL: (\S+)")
    TEST_LOC = re.compile(r"^\s+(\S+_test\.go):(\d+): (.*)")
    # go build / vet / test: a file's error
    COMPILE = re.compile(r"^(?:\./)?([^\s:]+\.go):(\d+):(\d+): (.*)")

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.running: str | None = None  # the test `=== RUN` started last
        # test -> (file:line, message) of its last t.Log/Error: with subtests, `--- FAIL` comes much
        # later
        self.reports: dict[str, tuple[str, str]] = {}

    def feed(self, line: str, lineno: int) -> None:
        if line.startswith("=== RUN"):
            self.running = line[7:].strip() or None
            return
        if "_test.go:" in line and self.pending is None and self._test_report(line):
            return
        if (
            self.pending is None
            and line[:1] not in " \t"
            and ".go:" in line
            and self._compile_error(line, lineno)
        ):
            return
        if self.pending is not None:
            if self._pending_frame(line):
                return
            self.tick()
        self._failure_start(line, lineno)

    def _test_report(self, line: str) -> bool:
        """`go test -v` prints t.Errorf before `--- FAIL`: remember where the test last spoke.
        Whether the line was such a report."""
        m = self.TEST_LOC.match(line)
        if not m:
            return False
        if self.running is not None and len(self.reports) < 10_000:
            self.reports[self.running] = (f"{m.group(1)}:{m.group(2)}", m.group(3))
        return True

    def _compile_error(self, line: str, lineno: int) -> bool:
        """A file's error from go build / vet / test. Whether the line was one."""
        m = self.COMPILE.match(line)
        if not m:
            return False
        self.f.add(
            Failure(
                self.stack,
                "error",
                short(m.group(4)),
                lineno,
                f"{m.group(1)}:{m.group(2)}:{m.group(3)}",
            )
        )
        return True

    def _pending_frame(self, line: str) -> bool:
        """A user frame (or a test's report) that locates the pending failure. Whether it did."""
        assert self.pending is not None
        m = self.FRAME.match(line) or self.TEST_LOC.match(line)
        if not (
            m
            and user_path(m.group(1))
            and "/src/runtime/" not in m.group(1)
            and "/src/testing/" not in m.group(1)
        ):
            return False
        if self.pending.test and len(m.groups()) > 2:
            self.pending.message = short(m.group(3))
        self.locate(f"{m.group(1)}:{m.group(2)}")
        return True

    def _failure_start(self, line: str, lineno: int) -> None:
        """A data race, a panic, a fatal error or a failed test: a failure that a later line
        locates."""
        if line.startswith("WARNING: DATA RACE"):  # located at the first racing line of the user's
            self.expect_location(Failure(self.stack, "DATA RACE", "data race", lineno), 30)
        elif line.startswith("panic: "):
            self.expect_location(Failure(self.stack, "panic", short(line[7:]), lineno), 40)
        elif line.startswith("fatal error: "):
            msg = line[13:]
            code = "deadlock" if "deadlock" in msg else "fatal-error"
            self.expect_location(Failure(self.stack, code, short(msg), lineno), 40)
        elif "--- FAIL: " in line:
            m = self.TEST_FAIL.match(line)
            if m and m.group(1) in self.reports:  # -v: the report came first
                where, message = self.reports.pop(m.group(1))
                self.f.add(Failure(self.stack, "FAIL", short(message), lineno, where, m.group(1)))
            elif m:
                self.expect_location(
                    Failure(self.stack, "FAIL", short(line), lineno, test=m.group(1)), 4
                )
