"""Java failures in build and test logs: an exception's line (at the start, after a runner's label
such as the JUnit ConsoleLauncher's `=> `, or under a tree's `│`), then its frames (`at
pkg.C.m(C.java:12)`, or without `at` as the ConsoleLauncher prints them), then `Caused by:`
chains."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import (
    CODE_IN_TEXT,
    Cursor,
    Extractor,
    register,
    short,
    user_path,
)
from k0maru.offload.findings import Failure, Findings


@register
class JavaExtractor(Extractor):
    stack = "java"
    triggers = ("Exception", "FAIL", "ERROR")
    THREAD = re.compile(r'^Exception in thread "[^"]*" ([\w.$]+)(?::\s*(.*))?')
    BARE = re.compile(
        r"^((?:[a-z_][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Failure|Throwable))(?::\s*(.*))?$"
    )
    CAUSED = re.compile(r"^Caused by: ([\w.$]+)(?::\s*(.*))?")
    FRAME = re.compile(
        r"^[\s│]+(?:at )?([\w$.<>/]+)\("
        r"(?:([\w$]+\.(?:java|kt|scala|groovy)):(\d+)|Native Method|Unknown Source)\)"
    )
    # what leads an exception's line: a tree's rules, a runner's label (`=> `, `caught: `,
    # `Exception: `)
    LEAD = re.compile(r"^[\s│├└─╷]*(?:(?:=>|caught:) )?(?:Exception: )?")
    SUREFIRE = re.compile(r"^\[ERROR\]\s+(\w+)\.(\w+):(\d+) (.*)")

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.awaiting: tuple[str, str, int, bool] | None = (
            None  # an exception line awaiting its first frame
        )
        self.current: Failure | None = None
        self.head: Failure | None = (
            None  # the top exception of a `Caused by:` chain: located at the root cause
        )

    def feed(self, line: str, lineno: int) -> None:
        frame = self.FRAME.match(line) if line[:1] in " \t│" else None
        if frame:
            self._frame(frame)
            return
        bare = self.LEAD.sub("", line, count=1)
        if (bare.startswith("... ") and bare.rstrip().endswith(" more")) or bare == "[...]":
            return  # `... 3 more` closes a cause's frames; the chain goes on
        self.awaiting = None
        self.busy = False
        if self._exception(line, bare, lineno):
            return
        self.head = None
        if line.startswith("[ERROR]"):
            self._surefire(line, lineno)

    def _frame(self, frame: re.Match[str]) -> None:
        """A stack frame: it opens the failure awaiting it, and locates it at the first user
        frame."""
        where = f"{frame.group(2)}:{frame.group(3)}" if frame.group(2) else None
        if self.awaiting is not None:
            code, msg, start, cause = self.awaiting
            self.awaiting = None
            self.current = self.f.add(Failure(self.stack, code, msg, start))
            if not cause:
                self.head = self.current
        if (
            where is not None
            and self.current is not None
            and self.current.location is None
            and user_path(frame.group(1))
        ):
            self.current.location = where
            if (
                self.head is not None and self.head is not self.current
            ):  # the innermost cause is the root: the head is located there, and says it
                self.head.location = where
                self.head.message = short(f"{self.head.message} · {self.current.message}", 300)

    def _exception(self, line: str, bare: str, lineno: int) -> bool:
        """An exception's line: at the start, or indented under a runner's `... FAILED` (Gradle); it
        awaits its first frame. Whether the line was one."""
        m = self.THREAD.match(line) or self.CAUSED.match(bare) or self.BARE.match(bare.strip())
        if not m:
            return False
        code = m.group(1).rsplit(".", 1)[-1]
        if code != m.group(1):  # the name as the log writes it, a code too
            self.f.seen_code(m.group(1))
        self.awaiting = (code, short(bare), lineno, bare.startswith("Caused by:"))
        self.busy = True
        return True

    def _surefire(self, line: str, lineno: int) -> None:
        """Surefire's `[ERROR] Class.method:line message`: a failure located in the test."""
        m = self.SUREFIRE.match(line)
        if m:
            found = CODE_IN_TEXT.search(m.group(4))
            self.f.add(
                Failure(
                    self.stack,
                    found.group(1) if found else "error",
                    short(m.group(4)),
                    lineno,
                    f"{m.group(1)}.java:{m.group(3)}",
                    f"{m.group(1)}.{m.group(2)}",
                )
            )
