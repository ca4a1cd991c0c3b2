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
    COMPILE = re.compile(
        r"^(?:\./)?([^\s:]+\.go):(\d+):(\d+): (.*)"
    )  # go build / vet / test: a file's error

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.running: str | None = None  # the test `=== RUN` started last
        # test -> (file:line, message) of its last t.Log/Error: with subtests, `--- FAIL` comes much later
        self.reports: dict[str, tuple[str, str]] = {}

    def feed(self, line: str, lineno: int) -> None:  # noqa: C901 - a line-driven state machine: one branch per line shape
        if line.startswith("=== RUN"):
            self.running = line[7:].strip() or None
            return
        if "_test.go:" in line and self.pending is None:
            m = self.TEST_LOC.match(line)
            if (
                m
            ):  # `go test -v` prints t.Errorf before `--- FAIL`: remember where the test last spoke
                if self.running is not None and len(self.reports) < 10_000:
                    self.reports[self.running] = (f"{m.group(1)}:{m.group(2)}", m.group(3))
                return
        if self.pending is None and line[:1] not in " \t" and ".go:" in line:
            m = self.COMPILE.match(line)
            if m:
                self.f.add(
                    Failure(
                        self.stack,
                        "error",
                        short(m.group(4)),
                        lineno,
                        f"{m.group(1)}:{m.group(2)}:{m.group(3)}",
                    )
                )
                return
        if self.pending is not None:
            m = self.FRAME.match(line) or self.TEST_LOC.match(line)
            if (
                m
                and user_path(m.group(1))
                and "/src/runtime/" not in m.group(1)
                and "/src/testing/" not in m.group(1)
            ):
                if self.pending.test and len(m.groups()) > 2:
                    self.pending.message = short(m.group(3))
                self.locate(f"{m.group(1)}:{m.group(2)}")
                return
            self.tick()
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
