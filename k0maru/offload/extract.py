"""Streaming extractors: a state machine per tool family over log lines, never a regex over the
whole text. `LogAnalyzer.feed(block)` takes decoded text in any-size pieces; lines that cannot start
a finding are skipped at C speed with one pre-filter search, and an extractor that is inside a
multi-line report (a traceback, a sanitizer stack) sees every line until it is done."""

from __future__ import annotations

import re

from k0maru.offload.findings import Failure, Findings

# Words that can start a report. Searched with str.find (C speed); lines without any are skipped
# unless an extractor is inside a multi-line report.
TRIGGERS = ("error", "Error", "ERROR", "fatal", "Fatal", "FATAL", "FAIL", "fail", "Fail", "panic", "Panic", "PANIC",
            "exception", "Exception", "EXCEPTION", "Traceback",
            "Sanitizer", "test session starts", "undefined reference")
_NEVER = 1 << 62
_CODE_IN_TEXT = re.compile(r"\b([A-Z]\w*(?:Error|Exception))\b")


def _short(text: str, limit: int = 160) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Extractor:
    """One tool family. A failure whose location comes on a later line is `pending` for a few lines."""

    stack = "generic"
    busy = False  # True while inside a multi-line report: wants every line

    def __init__(self, findings: Findings):
        self.f = findings
        self.pending: Failure | None = None
        self.window = 0

    def feed(self, line: str, lineno: int) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def expect_location(self, failure: Failure, within: int) -> None:
        self.pending = self.f.add(failure)
        self.window = within
        self.busy = True

    def locate(self, location: str) -> None:
        assert self.pending is not None
        self.pending.location = location
        self.pending = None
        self.busy = False

    def tick(self) -> None:
        """One more line without the location: give up once the window is spent."""
        self.window -= 1
        if self.window <= 0:
            self.pending = None
            self.busy = False


class RustExtractor(Extractor):
    stack = "rust"
    ERROR = re.compile(r"^error\[(E\d{4})\]: (.*)")
    ARROW = re.compile(r"^\s*--> (\S+?):(\d+):(\d+)")
    PANIC_NEW = re.compile(r"^thread '([^']*)' panicked at (\S+?):(\d+):(\d+):\s*$")
    PANIC_OLD = re.compile(r"^thread '([^']*)' panicked at '(.*)', (\S+?):(\d+):(\d+)")
    TEST_HEADER = re.compile(r"^---- (\S+) stdout ----")

    def __init__(self, findings: Findings):
        super().__init__(findings)
        self.pending_panic: Failure | None = None
        self.test: str | None = None

    def feed(self, line: str, lineno: int) -> None:
        if self.pending_panic is not None:  # new-style panic: the message is on the next line
            p, self.pending_panic = self.pending_panic, None
            self.busy = self.pending is not None
            p.message = _short(line)
            code = _CODE_IN_TEXT.search(line)
            p.code = code.group(1) if code else "panic"
            self.f.add(p)
            return
        if self.pending is not None:
            m = self.ARROW.match(line)
            if m:
                self.locate(f"{m.group(1)}:{m.group(2)}:{m.group(3)}")
                return
            self.tick()
        if line.startswith("error["):
            m = self.ERROR.match(line)
            if m:
                self.expect_location(Failure(self.stack, m.group(1), _short(m.group(2)), lineno), 6)
            return
        if line.startswith("thread '"):
            m = self.PANIC_NEW.match(line)
            if m:
                self.pending_panic = Failure(self.stack, "panic", "", lineno,
                                             f"{m.group(2)}:{m.group(3)}:{m.group(4)}", self.test)
                self.busy = True
                return
            m = self.PANIC_OLD.match(line)
            if m:
                code = _CODE_IN_TEXT.search(m.group(2))
                self.f.add(Failure(self.stack, code.group(1) if code else "panic", _short(m.group(2)), lineno,
                                   f"{m.group(3)}:{m.group(4)}:{m.group(5)}", self.test))
            return
        if line.startswith("---- "):
            m = self.TEST_HEADER.match(line)
            if m:
                self.test = m.group(1)


class PythonExtractor(Extractor):
    stack = "python"
    FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)(?:, in (.*))?')
    EXC = re.compile(r"^([A-Za-z_][\w.]*)(?::\s?(.*))?$")

    def __init__(self, findings: Findings):
        super().__init__(findings)
        self.frames: list[str] = []
        self.start = 0

    def feed(self, line: str, lineno: int) -> None:
        if not self.busy:
            if line.startswith("Traceback (most recent call last)"):
                self.busy = True
                self.frames = []
                self.start = lineno
            return
        m = self.FRAME.match(line)
        if m:
            self.frames.append(f"{m.group(1)}:{m.group(2)}")
            return
        if not line.strip() or line[:1] in " \t":
            return
        m = self.EXC.match(line.rstrip())
        self.busy = False
        if m and not line.startswith("During handling") and not line.startswith("The above exception"):
            code = m.group(1).rsplit(".", 1)[-1]
            message = m.group(2) or line
            self.f.add(Failure(self.stack, code, _short(message), self.start, self.frames[-1] if self.frames else None))


class PytestExtractor(Extractor):
    stack = "pytest"
    FAILED = re.compile(r"^(FAILED|ERROR) (\S+?)(?: - (.*))?$")
    LOCATION = re.compile(r"^([\w./\\-]+\.py):(\d+): (\w+)")

    def __init__(self, findings: Findings):
        super().__init__(findings)
        self.locations: dict[str, str] = {}
        self.codes: dict[str, str] = {}

    def feed(self, line: str, lineno: int) -> None:
        if "test session starts" in line and line.startswith("="):
            self.f.saw(self.stack)
            return
        m = self.LOCATION.match(line)
        if m:
            self.locations[m.group(1)] = f"{m.group(1)}:{m.group(2)}"
            self.codes[m.group(1)] = m.group(3)
            return
        if line.startswith(("FAILED ", "ERROR ")):
            m = self.FAILED.match(line.rstrip())
            if not m or "::" not in m.group(2) and not m.group(2).endswith(".py"):
                return
            test_id, message = m.group(2), m.group(3) or ""
            path = test_id.split("::", 1)[0]
            code = _CODE_IN_TEXT.search(message)
            code_text = code.group(1) if code else self.codes.get(path, m.group(1))
            self.f.add(Failure(self.stack, code_text, _short(message or line), lineno,
                               self.locations.get(path, path), test_id))


class GoExtractor(Extractor):
    stack = "go"
    FRAME = re.compile(r"^\s+(\S+\.go):(\d+)")
    TEST_FAIL = re.compile(r"^\s*--- FAIL: (\S+)")
    TEST_LOC = re.compile(r"^\s+(\S+_test\.go):(\d+): (.*)")

    def feed(self, line: str, lineno: int) -> None:
        if self.pending is not None:
            m = self.FRAME.match(line) or self.TEST_LOC.match(line)
            if m and "/runtime/" not in m.group(1) and not m.group(1).startswith("runtime/"):
                if self.pending.test and len(m.groups()) > 2:
                    self.pending.message = _short(m.group(3))
                self.locate(f"{m.group(1)}:{m.group(2)}")
                return
            self.tick()
        if line.startswith("panic: "):
            self.expect_location(Failure(self.stack, "panic", _short(line[7:]), lineno), 40)
        elif line.startswith("fatal error: "):
            msg = line[13:]
            code = "deadlock" if "deadlock" in msg else "fatal-error"
            self.expect_location(Failure(self.stack, code, _short(msg), lineno), 40)
        elif "--- FAIL: " in line:
            m = self.TEST_FAIL.match(line)
            if m:
                self.expect_location(Failure(self.stack, "FAIL", _short(line), lineno, test=m.group(1)), 4)


class TypeScriptExtractor(Extractor):
    stack = "typescript"
    CLASSIC = re.compile(r"^(\S.*?\.(?:ts|tsx|mts|cts|js|jsx))\((\d+),(\d+)\): error (TS\d+): (.*)")
    PRETTY = re.compile(r"^(\S.*?\.(?:ts|tsx|mts|cts|js|jsx)):(\d+):(\d+) - error (TS\d+): (.*)")

    def feed(self, line: str, lineno: int) -> None:
        if " error TS" not in line and "- error TS" not in line:
            return
        m = self.CLASSIC.match(line) or self.PRETTY.match(line)
        if m:
            self.f.add(Failure(self.stack, m.group(4), _short(m.group(5)), lineno,
                               f"{m.group(1)}:{m.group(2)}:{m.group(3)}"))


class CExtractor(Extractor):
    stack = "c"
    DIAG = re.compile(r"^(\S+?\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|m|mm)):(\d+):(\d+): (?:fatal )?error: (.*)")
    UBSAN = re.compile(r"^(\S+?\.(?:c|cc|cpp|cxx|h|hpp)):(\d+):(\d+): runtime error: (.*)")
    SAN = re.compile(r"^==\d+==ERROR: (\w+Sanitizer): ([\w-]+)(.*)")
    SAN_FRAME = re.compile(r"^\s+#\d+ 0x[0-9a-fA-F]+ in (\S+) (\S+?):(\d+)(?::(\d+))?")
    FLAG = re.compile(r"\[-W(?:error=)?([\w-]+)\]")

    def feed(self, line: str, lineno: int) -> None:
        if self.pending is not None:
            m = self.SAN_FRAME.match(line)
            if m and not _runtime_path(m.group(2)):
                self.locate(f"{m.group(2)}:{m.group(3)}" + (f":{m.group(4)}" if m.group(4) else ""))
            else:
                self.tick()
            return
        if line.startswith("=="):
            m = self.SAN.match(line)
            if m:
                message = _short(f"{m.group(1)}: {m.group(2)}{m.group(3)}")
                self.expect_location(Failure(self.stack, m.group(2), message, lineno), 30)
            return
        if "error: " in line:
            m = self.DIAG.match(line)
            if m:
                flag = self.FLAG.search(m.group(4))
                self.f.add(Failure(self.stack, flag.group(1) if flag else "error", _short(m.group(4)), lineno,
                                   f"{m.group(1)}:{m.group(2)}:{m.group(3)}"))
                return
            m = self.UBSAN.match(line)
            if m:
                self.f.add(Failure(self.stack, "ubsan-runtime-error", _short(m.group(4)), lineno,
                                   f"{m.group(1)}:{m.group(2)}:{m.group(3)}"))
        elif "undefined reference to" in line:
            self.f.add(Failure(self.stack, "undefined-reference", _short(line), lineno))


def _runtime_path(path: str) -> bool:
    return any(part in path for part in ("compiler-rt", "libsanitizer", "asan_", "/usr/include", "/usr/lib", "<null>"))


class JavaExtractor(Extractor):
    stack = "java"
    THREAD = re.compile(r'^Exception in thread "[^"]*" ([\w.$]+)(?::\s*(.*))?')
    BARE = re.compile(r"^((?:[a-z_][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Failure|Throwable))(?::\s*(.*))?$")
    CAUSED = re.compile(r"^Caused by: ([\w.$]+)(?::\s*(.*))?")
    FRAME = re.compile(r"^\s+at [\w$.<>/]+\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)")
    SUREFIRE = re.compile(r"^\[ERROR\]\s+(\w+)\.(\w+):(\d+) (.*)")

    def __init__(self, findings: Findings):
        super().__init__(findings)
        self.awaiting: tuple[str, str, int] | None = None  # an exception line awaiting its first frame
        self.current: Failure | None = None

    def feed(self, line: str, lineno: int) -> None:
        frame = self.FRAME.match(line) if line[:1] in " \t" else None
        if frame:
            if self.awaiting is not None:
                code, msg, start = self.awaiting
                self.awaiting = None
                self.current = self.f.add(Failure(self.stack, code, msg, start))
            if self.current is not None and self.current.location is None:
                self.current.location = f"{frame.group(1)}:{frame.group(2)}"
            return
        self.awaiting = None
        self.busy = False
        m = self.THREAD.match(line) or self.CAUSED.match(line) or self.BARE.match(line.rstrip())
        if m:
            code = m.group(1).rsplit(".", 1)[-1]
            self.awaiting = (code, _short(line), lineno)
            self.busy = True
            return
        if line.startswith("[ERROR]"):
            m = self.SUREFIRE.match(line)
            if m:
                code = _CODE_IN_TEXT.search(m.group(4))
                self.f.add(Failure(self.stack, code.group(1) if code else "TestFailure", _short(m.group(4)), lineno,
                                   f"{m.group(1)}.java:{m.group(3)}", f"{m.group(1)}.{m.group(2)}"))


GENERIC = re.compile(r"(?i)\b(error|fatal|failed|failure|exception|panic)\b")


class LogAnalyzer:
    """Feeds every extractor; counts lines; keeps memory flat whatever the log size."""

    def __init__(self) -> None:
        self.findings = Findings()
        self.extractors: list[Extractor] = [cls(self.findings) for cls in (
            RustExtractor, PythonExtractor, PytestExtractor, GoExtractor, TypeScriptExtractor, CExtractor,
            JavaExtractor)]
        self.lines = 0
        self._partial = ""

    def feed(self, text: str) -> None:
        if self._partial:
            text = self._partial + text
        cut = text.rfind("\n")
        if cut < 0:
            self._partial = text
            return
        self._partial = text[cut + 1:]
        self._feed_block(text[: cut + 1])

    def close(self) -> Findings:
        if self._partial:
            self._feed_block(self._partial + "\n")
            self._partial = ""
        return self.findings

    def _feed_block(self, block: str) -> None:
        base = self.lines  # lines before this block
        pos = 0
        counted = 0  # newlines in block[:pos]
        end = len(block)
        extractors = self.extractors
        find = block.find
        nexts = {kw: find(kw) for kw in TRIGGERS}
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
            for e in extractors:
                e.feed(line, lineno)
            if self.findings.generic is None and GENERIC.search(line):
                self.findings.generic = Failure("generic", "error", _short(line), lineno)
            counted += 1
            pos = stop + 1
            for kw, i in nexts.items():
                if i < pos:
                    j = find(kw, pos)
                    nexts[kw] = j if j >= 0 else _NEVER
        self.lines = base + block.count("\n")
