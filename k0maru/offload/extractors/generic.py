"""The tool-agnostic layer under the extractors: the failure markers of common runners (TAP `not
ok`, `FAIL`, RSpec's `Failure/Error:`, jest's `●`, `✗`/`×`, `--- FAIL`, PHP's `Fatal error:`, npm's
`ERR!`, sanitizers, `Error:` lines) and, in the lines after each, the innermost location in the
user's code in any common form (`offload.locations`). A marker is kept as a candidate root, not as a
failure of its own: the first one in log order stands for the failure when no extractor located one
in the user's code."""

from __future__ import annotations

import re

from k0maru.offload import locations
from k0maru.offload.extractors.base import Cursor, Extractor, register, short, user_path
from k0maru.offload.findings import Failure, Findings
from k0maru.text import shorten

MARKER = re.compile(
    r"^\s*\[ERROR\]|^::error\b|^\s?(?:ERR_[A-Z0-9_]+|E[A-Z]{4,})\s\s"
    r"|^[\s│┃|├└─╷]*(?:#*\[\w+\]\s*|#\s+|\d+\) |=> |caught: |_{3,} )?(?:"
    r"not ok\b"
    r"|Failed test\b"
    r"|(?:--- )?FAIL(?:ED)?\b"
    r"|Failure/Error:"
    r"|● "
    r"|[✗×✕✖✘] "
    r"|(?:PHP )?(?:Fatal|Parse) error:"
    r"|(?:npm )?ERR!|npm error\b"
    r"|WARNING: (?:ThreadSanitizer|DATA RACE)"
    r"|==\d+==\s*ERROR:"
    r"|Traceback \(most recent call last\)"
    r"|panic:"
    r"|thread '[^']*'.* panicked"
    r"|(?:Uncaught )?(?:[\w$]+\.)*[A-Z][\w$]*(?:Error|Exception)\b(?: \[\w+\])?:"
    r"|(?:fatal )?error(?:\[\w+\])?:"
    r"|Error(?: \[\w+\])?:|ERROR\b|Failure:|FATAL\b|Exception in thread\b|Exception: [A-Z]"
    r"|There (?:was|were) \d+ (?:failure|error)s?:|Failed asserting\b|Failed example:|Failures:\s*$"
    r")"
    r"|: (?:fatal )?error:|: runtime error:| ERR! |: line \d+: "
    r"|: (?:fatal )?[Ee]rror\b|: No such file or directory|: command not found|: Permission denied"
    r"|: unbound variable| at \S+ line \d+\.$|\bAssertion .* failed\b| FAILED$| [✗✕✖✘] "
    r"|: (?:[\w$]+\.)*[A-Z][\w$]*Error: "
    r"|^==\d+== (?:Invalid |Conditional jump|Use of uninitialised|Mismatched free|Syscall param"
    r"|Source and destination overlap|[\d,]+ bytes in [\d,]+ blocks are (?:definitely|possibly))"
    r"|:\d+:in [`'][^']*': .*\([A-Z]\w*\)$"
)
TRIGGERS = (
    "not ok",
    "Failed test",
    "Failed example",
    "FAIL",
    "Failure",
    "● ",
    "✗",
    "×",
    "✕",
    "✖",
    "✘",
    "rror:",
    "ERR!",
    "ThreadSanitizer",
    "DATA RACE",
    "ERROR",
    "FATAL",
    "Traceback",
    "panic",
    "Exception",
    ": line ",
    "npm error",
    "ERR_",
    "rror",
    "No such file",
    "not found",
    "Permission denied",
    "unbound variable",
    " line ",
    ":in ",
    "Assertion",
    "asserting",
    "There w",
    "Invalid ",
    "Conditional jump",
    "uninitialised",
    "Mismatched",
    "Syscall param",
    "overlap",
    "blocks are",
)
# a line that starts with an exception's name and its message (`TypeError: expected ...`)
EXCEPTION_LINE = re.compile(r"^\s*(?:[\w$]+\.)*[A-Z][\w$]*(?:Error|Exception): ")
ERROR_NAME = re.compile(r"\b((?:[\w$]+\.)*[A-Z][\w$]*(?:Error|Exception))\b")
# codes a runner prints in a failure's lines, each as it is written in the log: exception names and
# the like (`PropertyNameExpected`, `ComparisonFailure`), node's and npm's `E...` codes, sanitizers'
CODES = re.compile(
    r"(?:^|[\s(\['])((?:[\w$]+\.)*[A-Z][\w$]*"
    r"(?:Error|Exception|Expected|Failed|Failure|Invalid|Mismatch|NotFound|Denied))"
    r"(?=[:)\]'\s,]|\.(?!\w)|$)"
    r"|^SUMMARY: \w+Sanitizer: ([a-z]+(?:-[a-z]+)+)"
    r"|^\s*(?:Uncaught )?(Error)(?= \[\w+\]:|:)"
    r"|\[(ERR_[A-Z0-9_]+)\]|\bcode: '(ERR_[A-Z0-9_]+|E[A-Z]{3,})'"
    r"|^npm (?:ERR!|error) code (E[A-Z0-9]+)\b"
    r"|^\s?(ERR_[A-Z0-9_]+|E(?!RROR\b)[A-Z]{4,})\s\s"  # pnpm's badge: ` ERR_PNPM_NO_SCRIPT  Missing script`
    r"|\b(?:error|warning)\[([A-Z]+\d+)\]"  # a compiler's code in brackets: `error[E0502]:`
    r"|^\s*(panic)(?=: )|\b(panic)(?=ked at )"  # a panic, as Go and Rust say it
    # what a runtime checker found: `ERROR: LeakSanitizer:`, `ThreadSanitizer: data race`,
    # `WARNING: DATA RACE`, `runtime error: signed integer overflow:`, `- deadlock!`
    r"|^(?:==\d+==)?(?:ERROR|WARNING): (?:(LeakSanitizer)\b|\w+Sanitizer: ([a-z]+(?: [a-z]+)+)\b)"
    r"|^WARNING: (DATA RACE)$|: runtime error: ([a-z]+(?: [a-z]+)+)(?=:)|- (deadlock)!$"
    r"|^Exception: ([A-Z]\w*)"  # OCaml's uncaught exception: `Exception: Failure "x".`
)
# a rule the failure's line ends with, in brackets (commitlint's `✖ type may not be empty
# [type-empty]`, Flow's `... [incompatible-type]`)
RULE_AT_END = re.compile(r" \[([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\]$")
# words without which a line holds none of those codes
CODE_WORDS = ("rror", "xception", "ERR", "code", "SUMM", "anic", "Sanitizer", "RACE", "deadlock")
# `at app//demo.Ledger.add(` before a `File.java:12)`: the class, without a class loader's prefix
JVM_FRAME = re.compile(r"^(?:\[\w+\]\s*)?[\s│]*(?:at )?(?:[\w.-]+/+)?([\w$.]+)\.[\w$<>]+\($")
WINDOW = 30  # lines after a marker searched for its location (a stack's frames not counted)
# a line of a stack (`\tat x.Y.z(Y.java:3)`, `... 23 more`, Rust's `at /rustc/x.rs:5`): the report
# goes on, so the window holds
STACK_LINE = re.compile(r"^\s+(?:at \S|\.\.\. \d+ more$)")
# a numbered frame's function, its place on the next line (a Rust backtrace's `  0: std::x`)
NUMBERED_FRAME = re.compile(r"^\s+\d+: \S+$")
# an exception's cause, whose frames follow (the JVM's; node's `[cause]:` in the error's braces):
# the failure is where the cause was thrown
CAUSED_BY = ("Caused by: ", "[cause]: ")
# IPython's frame of a module a notebook called (`File ~/proj/mod.py:3, in f(x)`); its `Cell In[3],
# line 2` names no file an editor opens, so it is no location: the failure's lines show it
IPYTHON_FRAME = re.compile(r"^\s*File \S+:\d+, in ")
# the exception line ending a Python traceback (`KeyError: 'rows'`, `json.JSONDecodeError: x`)
PYTHON_RAISED = re.compile(r"((?:\w+\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt))(?::|$)")
MAX_ROWS = 200  # lines kept of one marker's report
# lines before a marker searched for the Python frame it was raised in (`File "x.py", line 1`, the
# source, its caret, then `SyntaxError: ...`)
PYTHON_FRAME_LINES = 3
TRACE_LINES = 60  # lines above an exception line searched through its frames
MAX_MARKERS = 50
KEPT_LINES = 10  # markers whose lines are kept for the summary
LINE_CHARS = 300
# how a location is written says how sure it is to be the failing line: a stack frame beats a bare
# `file:line`, which beats a test's declaration (node's TAP `location:`)
THROWN, INLINE, FRAME, PLAIN, DECLARED = -2, -1, 0, 1, 2


def _clip(line: str) -> str:
    return shorten(line.rstrip(), LINE_CHARS)


@register
class GenericExtractor(Extractor):
    stack = "generic"
    triggers = TRIGGERS

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.marker: Failure | None = None
        self.python: list[str] = []
        self.found: list[tuple[int, str, str, int]] = []  # (rank, location, its line, its number)
        self.outer: list[tuple[int, str, str, int]] = []  # the places before a `Caused by:`
        self.python_library = 0  # the line of the last Python frame in a library
        # a Python frame just before the marker: doctest prints the place, then `Failed example:`
        self.framed_before: str | None = None

    def feed(self, line: str, lineno: int) -> None:
        if len(self.f.markers) >= MAX_MARKERS and self.marker is None:
            return
        caused = self.marker is not None and line.lstrip().startswith(CAUSED_BY)
        is_marker = not caused and MARKER.search(line) is not None
        if is_marker and self._in_traceback() and (name := PYTHON_RAISED.match(line)):
            self._raised(line, lineno, name.group(1))
            return
        if is_marker and self._starts_anew(line):
            self._open(line, lineno)
        elif self.marker is None:
            return
        self._read_row(line, lineno, caused)

    def _in_traceback(self) -> bool:
        """The open report is a Python traceback: it named a user frame, or it opened with
        `Traceback` (its frames all a library's, or a notebook's cells)."""
        return bool(self.python) or (
            self.marker is not None and self.marker.message.startswith("Traceback (most recent")
        )

    def _starts_anew(self, line: str) -> bool:
        """A marker line starts a report of its own: none is open, the open one already holds a
        Python traceback or a frame (a second failure, not a line of the first one's), or it is an
        exception's line after a report that named no place of the user's (stylus' `Error:` at
        its library's file, then the `TypeError:` thrown at the user's)."""
        if self.marker is None or self.python or any(f[0] <= FRAME for f in self.found):
            return True
        return not self.found and EXCEPTION_LINE.match(line) is not None

    def _read_row(self, line: str, lineno: int, caused: bool) -> None:
        """A line of the open marker's report: kept among its lines, read for a cause, places and
        codes; the report ends when its window of non-stack lines runs out."""
        kept = self._keep_row(line, lineno)
        if caused:
            self._caused_by(line)
        elif not self._read_locations(line, lineno) and kept:
            self._library_row(line, lineno)
        self._read_codes(line)
        if not STACK_LINE.match(line):
            self.window -= 1
        if self.window <= 0:
            self._close()

    def _open(self, line: str, lineno: int) -> None:
        """A marker line: the report of the one before it ends, this one's starts."""
        self._close()
        name = ERROR_NAME.search(line)
        self.marker = Failure(
            "generic", name.group(1).rsplit(".", 1)[-1] if name else "error", short(line), lineno
        )
        raised = PYTHON_RAISED.match(line) is not None
        self.framed_before = self._frame_above(TRACE_LINES if raised else PYTHON_FRAME_LINES)
        before = self.cursor.before(1)
        if len(self.f.markers) < KEPT_LINES:
            self.marker.lines = [
                (lineno - i, _clip(b)) for i, b in reversed(list(enumerate(before, start=1)))
            ]
        self.window, self.busy = WINDOW, True

    def _frame_above(self, most: int) -> str | None:
        """The innermost user frame of the Python frames just above the marker (`File "x.py", line
        1`, then the source and its caret, then `SyntaxError: ...`; a runner's frames printed
        without a `Traceback` line, then `AssertionError: ...`)."""
        for i, line in enumerate(self.cursor.before(most)):
            if i >= PYTHON_FRAME_LINES and not line.startswith(" "):
                return None  # the frames above have ended
            if place := _python_frame(line, self.cursor.places):
                return place
        return None

    def _keep_row(self, line: str, lineno: int) -> bool:
        """Keep `line` among the marker's own (the first `MAX_ROWS` of the first markers'); whether
        it was kept."""
        assert self.marker is not None
        if self.marker.lines is None or len(self.marker.lines) >= MAX_ROWS:
            return False
        self.marker.lines.append((lineno, _clip(line)))
        return True

    def _raised(self, line: str, lineno: int, name: str) -> None:
        """The exception line ending a Python traceback: what the marker's failure is."""
        assert self.marker is not None
        self.marker.code, self.marker.message = name.rsplit(".", 1)[-1], short(line)
        self._keep_row(line, lineno)
        self._read_codes(line)
        self._close()

    def _caused_by(self, line: str) -> None:
        """`Caused by: X: message`, `[cause]: X: message`: the failure is the cause's, located by
        the frames after it (the places found so far stay for a cause with none in the user's
        code)."""
        assert self.marker is not None
        name = ERROR_NAME.search(line)
        if name:
            self.marker.code = name.group(1).rsplit(".", 1)[-1]
        self.marker.message = short(line)
        # the outer report up to its first place, then the cause
        if self.found and self.marker.lines:
            first = min(f[3] for f in self.found)
            self.marker.lines = [r for r in self.marker.lines if r[0] <= first or r[1] == line]
        self.outer, self.found = self.found or self.outer, []
        self.window = WINDOW

    def _library_row(self, line: str, lineno: int) -> None:
        """A stack line outside the user's code (a library's frame, a Python frame's source line
        after it): left out of the failure's lines in the summary."""
        rows = self.f.library_rows
        if locations.PYTHON_FRAME.search(line):
            rows.add(lineno)
            self.python_library = lineno
        elif STACK_LINE.match(line):
            rows.add(lineno)
            before = self.cursor.before(1)
            if before and NUMBERED_FRAME.match(before[0]):  # Rust's `  3: core::x` above it
                rows.add(lineno - 1)
        elif lineno - 1 == self.python_library and line.startswith("    "):
            rows.add(lineno)

    def finish(self) -> None:
        self._close()

    def _read_codes(self, line: str) -> None:
        if any(w in line for w in CODE_WORDS) or line[:2].lstrip()[:1] == "E":
            for m in CODES.finditer(line):
                self.f.seen_code(next(g for g in m.groups() if g))
        if line.endswith("]") and (rule := RULE_AT_END.search(line)):
            self.f.seen_code(rule.group(1))

    def _read_locations(self, line: str, lineno: int) -> bool:
        """Keep the user's places `line` names; whether it named one."""
        own = self.marker is not None and self.marker.line == lineno
        places = self.cursor.places
        named = False
        declared = line.lstrip().startswith("location:")
        thrown = line.lstrip().startswith("thrown in ")
        for path, ln, col, offset in locations.find_all(line):
            if not places.is_user(path):
                continue
            where = locations.text(path, ln, col)
            named = True
            said = line[max(offset - 6, 0) : offset]
            if said == 'File "' or IPYTHON_FRAME.match(line):  # a Python frame, innermost last
                self.python.append(where)
                continue
            before = line[:offset].removesuffix("file://").rstrip()
            framed = before.endswith("(") or before.lstrip().startswith(("at ", "#"))
            if framed and (jvm := JVM_FRAME.match(before)) and not user_path(jvm.group(1)):
                named = False
                continue  # a JVM frame names its class: the JDK's and test runners' are not the user's
            rank = (
                THROWN
                if thrown
                else INLINE
                if own
                else DECLARED
                if declared
                else FRAME
                if framed
                else PLAIN
            )
            if len(self.found) < MAX_ROWS:  # a stack's frames hold the window open: bounded here
                self.found.append((rank, where, line, lineno))
        return named

    def _close(self) -> None:
        marker, self.marker = self.marker, None
        self.busy = False
        if marker is None:
            return
        if self.python:  # a Python stack lists the innermost frame last
            marker.location = self.python[-1]
        elif found := self.found or self.outer:
            rank, marker.location, said, at = min(found, key=lambda f: f[0])
            own = said.replace(marker.location.rsplit(":", 1)[0], "")
            if rank in (THROWN, PLAIN) and re.search(r"[A-Za-z]{3}", own):  # a message of its own
                marker.message = short(said, 240)
                if marker.lines and MARKER.search(said):  # a failure's own report inside the first
                    marker.lines = [r for r in marker.lines if r[0] <= marker.line or r[0] >= at]
        elif self.framed_before:
            marker.location = self.framed_before
        self.python, self.found, self.outer, self.framed_before = [], [], [], None
        self.f.mark(marker)


def _python_frame(line: str, places: locations.Places) -> str | None:
    """The user-code place of a Python frame line (`File "x.py", line 7, in f`), else None."""
    m = locations.PYTHON_FRAME.search(line)
    if m is None or not places.is_user(m.group(1)):
        return None
    return locations.text(m.group(1), m.group(2), None)
