"""Go failures in build and test logs."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Extractor, register, short
from k0maru.offload.findings import Failure, Findings


@register
class GoExtractor(Extractor):
    stack = "go"
    triggers = ("FAIL", "panic", "fatal error", "_test.go:", "=== RUN")
    FRAME = re.compile(r"^\s+(\S+\.go):(\d+)")
    TEST_FAIL = re.compile(r"^\s*--- FAIL: (\S+)")
    TEST_LOC = re.compile(r"^\s+(\S+_test\.go):(\d+): (.*)")

    def __init__(self, findings: Findings):
        super().__init__(findings)
        self.last_report: tuple[str, str] | None = None  # (file:line, message) of the running test's last t.Log/Error

    def feed(self, line: str, lineno: int) -> None:
        if line.startswith("=== RUN"):
            self.last_report = None
            return
        if "_test.go:" in line and self.pending is None:
            m = self.TEST_LOC.match(line)
            if m:  # `go test -v` prints t.Errorf before `--- FAIL`: remember where the test last spoke
                self.last_report = (f"{m.group(1)}:{m.group(2)}", m.group(3))
                return
        if self.pending is not None:
            m = self.FRAME.match(line) or self.TEST_LOC.match(line)
            if m and "/runtime/" not in m.group(1) and not m.group(1).startswith("runtime/"):
                if self.pending.test and len(m.groups()) > 2:
                    self.pending.message = short(m.group(3))
                self.locate(f"{m.group(1)}:{m.group(2)}")
                return
            self.tick()
        if line.startswith("panic: "):
            self.expect_location(Failure(self.stack, "panic", short(line[7:]), lineno), 40)
        elif line.startswith("fatal error: "):
            msg = line[13:]
            code = "deadlock" if "deadlock" in msg else "fatal-error"
            self.expect_location(Failure(self.stack, code, short(msg), lineno), 40)
        elif "--- FAIL: " in line:
            m = self.TEST_FAIL.match(line)
            if m and self.last_report is not None:  # -v: the report came first
                where, message = self.last_report
                self.f.add(Failure(self.stack, "FAIL", short(message), lineno, where, m.group(1)))
                self.last_report = None
            elif m:
                self.expect_location(Failure(self.stack, "FAIL", short(line), lineno, test=m.group(1)), 4)
