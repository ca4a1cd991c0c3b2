"""Python tracebacks (and unittest's, which are the same): each exception at the innermost frame in
the user's code; a chained exception (`raise ... from`, "During handling ...") is a failure of its
own after its cause, which comes first in the log and so is the root. A `SyntaxError` has no
traceback header: its `File ..., line N` comes right before it."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import (
    Cursor,
    Extractor,
    innermost_user_frame,
    register,
    short,
    user_path,
)
from k0maru.offload.findings import Failure, Findings


@register
class PythonExtractor(Extractor):
    stack = "python"
    triggers = ("Traceback", "SyntaxError", "IndentationError", "TabError")
    FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)(?:, in (.*))?')
    EXC = re.compile(r"^([A-Za-z_][\w.]*)(?::\s?(.*))?$")
    SYNTAX = re.compile(r"^(SyntaxError|IndentationError|TabError): (.*)")
    # Python 3.11's exception groups draw each traceback inside `| ` margins, `+---- 1 ----` between
    MARGIN = re.compile(r"^\s*(?:\+ |\| ?)")
    REPEATED = re.compile(r"^\s*\[Previous line repeated \d+ more times?\]")

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.frames: list[str] = []
        self.start = 0
        self.repeated: str | None = None  # the frame a recursion repeats
        self.group: Failure | None = None  # an ExceptionGroup awaiting its first sub-exception

    def feed(self, line: str, lineno: int) -> None:
        if line[:1] in " |+" and (m := self.MARGIN.match(line)):
            if line.lstrip().startswith("+-"):
                return  # a separator between the sub-exceptions of a group
            line = line[m.end() :]
        if not self.busy:
            self._outside(line, lineno)
            return
        m = self.FRAME.match(line)
        if m:
            self.frames.append(f"{m.group(1)}:{m.group(2)}")
            return
        if self.frames and self.REPEATED.match(line):  # a recursion: the repeated line is the root
            self.repeated = self.frames[-1]
            return
        if not line.strip() or line[:1] in " \t":
            return
        self._exception(line)

    def _outside(self, line: str, lineno: int) -> None:
        """A line outside a traceback: a traceback's header, or a `SyntaxError` with no
        traceback."""
        if line.startswith(("Traceback (most recent call last)", "Exception Group Traceback")):
            self.busy = True
            self.frames = []
            self.repeated = None
            self.start = lineno
        elif line[:1] in "STI" and (m := self.SYNTAX.match(line)):
            # `  File "bad.py", line 1` + the source + a caret come right before, without a
            # traceback
            frame = next(filter(None, map(self.FRAME.match, self.cursor.before(4))), None)
            self.f.add(
                Failure(
                    self.stack,
                    m.group(1),
                    short(m.group(2)),
                    lineno,
                    f"{frame.group(1)}:{frame.group(2)}" if frame else None,
                )
            )

    def _exception(self, line: str) -> None:
        """The unindented line that ends a traceback: its exception, at the innermost user frame."""
        m = self.EXC.match(line.rstrip())
        self.busy = False
        if (
            m
            and not line.startswith("During handling")
            and not line.startswith("The above exception")
        ):
            code = m.group(1).rsplit(".", 1)[-1]
            message = m.group(2) or line
            repeated = self.repeated if self.repeated and user_path(self.repeated) else None
            where = repeated or innermost_user_frame(self.frames)
            failure = self.f.add(Failure(self.stack, code, short(message), self.start, where))
            if self.group is not None and where:  # a group's root is its first sub-exception's
                self.group.location, self.group = where, None
            if code.endswith("ExceptionGroup"):
                self.group = failure
