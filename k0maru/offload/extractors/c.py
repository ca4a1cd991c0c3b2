"""C failures in build and test logs."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Cursor, Extractor, register, short, user_path
from k0maru.offload.findings import Failure, Findings


def _runtime_path(path: str) -> bool:
    return not user_path(path)


def _san_code(m: re.Match[str]) -> str:
    """The report's kind as written (`heap-use-after-free`, `SEGV`); for a report that names none
    (`LeakSanitizer: detected memory leaks`), the sanitizer's name; `attempting double-free`: the
    kind."""
    kind, rest = m.group(2), m.group(3).split()
    if kind == "attempting" and rest:
        return rest[0]
    return kind if "-" in kind or kind.isupper() else m.group(1)


@register
class CExtractor(Extractor):
    stack = "c"
    triggers = ("error", "Sanitizer", "undefined reference", "required from", "requested here")
    # a template's error is reported in the library header; the user's line is where it was
    # instantiated: g++ prints `x.cpp:10:32:   required from here` before it, clang
    # `x.cpp:10:10: note: in instantiation of ... requested here` after it
    INSTANTIATED = re.compile(
        r"^(\S+?):(\d+):(\d+):\s+(?:required from here|note: in instantiation of .* requested here)"
    )
    TSAN = re.compile(r"^WARNING: ThreadSanitizer: (.+?)(?: \(pid=\d+\))?\s*$")
    TSAN_FRAME = re.compile(r"^\s+#\d+ \S+ (\S+?):(\d+)(?::(\d+))? \(")
    DIAG = re.compile(
        r"^(\S+?\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|m|mm)|/\S+/c\+\+/[^\s:]+):(\d+):(\d+): (?:fatal )?error: (.*)"
    )
    UBSAN = re.compile(r"^(\S+?\.(?:c|cc|cpp|cxx|h|hpp)):(\d+):(\d+): runtime error: (.*)")
    SAN = re.compile(r"^==\d+==ERROR: (\w+Sanitizer): ([\w-]+)(.*)")
    SAN_FRAME = re.compile(r"^\s+#\d+ 0x[0-9a-fA-F]+ in (\S+) (\S+?):(\d+)(?::(\d+))?")
    FLAG = re.compile(r"\[(-W[\w=+-]+)\]")

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.instantiated: tuple[str, int] | None = None  # the user's line last named as such
        self.in_header: Failure | None = None  # an error in a library header, not yet placed

    def _template(self, line: str, lineno: int) -> bool:
        m = self.INSTANTIATED.match(line)
        if not m or not user_path(m.group(1)):
            return False
        where = f"{m.group(1)}:{m.group(2)}:{m.group(3)}"
        if self.in_header is not None and lineno - self.in_header.line <= 60:
            self.in_header.location, self.in_header = where, None
        else:
            self.instantiated = (where, lineno)
        return True

    def feed(self, line: str, lineno: int) -> None:
        if ("required from here" in line or "requested here" in line) and self._template(
            line, lineno
        ):
            return
        if self.pending is not None:
            self._pending_frame(line)
            return
        if line.startswith("=="):
            self._sanitizer(line, lineno)
            return
        if line.startswith("WARNING: ThreadSanitizer: "):
            self._thread_sanitizer(line, lineno)
            return
        if "error: " in line or "runtime error" in line:
            self._error(line, lineno)
        elif "undefined reference to" in line:
            self._undefined_reference(line, lineno)

    def _pending_frame(self, line: str) -> None:
        """A sanitizer's frame in the user's code locates the pending report; any other line
        ticks."""
        m = self.SAN_FRAME.match(line)
        if m and not _runtime_path(m.group(2)):
            self.locate(f"{m.group(2)}:{m.group(3)}" + (f":{m.group(4)}" if m.group(4) else ""))
        elif (t := self.TSAN_FRAME.match(line)) and not _runtime_path(t.group(1)):
            self.locate(f"{t.group(1)}:{t.group(2)}" + (f":{t.group(3)}" if t.group(3) else ""))
        else:
            self.tick()

    def _sanitizer(self, line: str, lineno: int) -> None:
        """`==pid==ERROR: AddressSanitizer: kind ...`: a report its frames locate."""
        m = self.SAN.match(line)
        if m:
            code = _san_code(m)
            said = f"{m.group(2)}{m.group(3)}"
            message = short(said if code == m.group(1) else f"{m.group(1)}: {said}")
            self.expect_location(Failure(self.stack, code, message, lineno), 30)

    def _thread_sanitizer(self, line: str, lineno: int) -> None:
        """`WARNING: ThreadSanitizer: kind`: a report its frames locate."""
        m = self.TSAN.match(line)
        if m:
            message = short(line.removeprefix("WARNING: ThreadSanitizer: "))
            self.expect_location(Failure(self.stack, m.group(1), message, lineno), 30)

    def _error(self, line: str, lineno: int) -> None:
        """A compiler's `file:line:col: error: ...`, else UBSan's `runtime error: ...`."""
        m = self.DIAG.match(line)
        if m:
            self._diagnostic(m, lineno)
            return
        m = self.UBSAN.match(line)
        if m:
            # the check's name as UBSan prints it ("signed integer overflow"), else uncoded
            kind = m.group(4).split(":", 1)[0].strip()
            code = kind if ":" in m.group(4) and len(kind.split()) <= 5 else "error"
            said = m.group(4).split(":", 1)[1] if code == kind else m.group(4)
            self.f.add(
                Failure(
                    self.stack,
                    code,
                    short(said),
                    lineno,
                    f"{m.group(1)}:{m.group(2)}:{m.group(3)}",
                )
            )

    def _diagnostic(self, m: re.Match[str], lineno: int) -> None:
        """A compiler's error: at its line in the user's code, else where the template was
        instantiated."""
        flag = self.FLAG.search(m.group(4))
        where = f"{m.group(1)}:{m.group(2)}:{m.group(3)}"
        failure = self.f.add(
            Failure(self.stack, flag.group(1) if flag else "error", short(m.group(4)), lineno)
        )
        if user_path(m.group(1)):
            failure.location = where
        elif self.instantiated is not None and lineno - self.instantiated[1] <= 20:
            failure.location, self.instantiated = self.instantiated[0], None
        else:  # placed by the `requested here` that follows, else in the header
            failure.location = where
            if self.in_header is None:
                self.in_header = failure

    def _undefined_reference(self, line: str, lineno: int) -> None:
        """A linker's `undefined reference to`: at the user's file it names, if any."""
        from k0maru.offload.locations import find_all

        place = next((f"{p}:{n}" for p, n, _, _ in find_all(line) if user_path(p)), None)
        self.f.add(Failure(self.stack, "undefined reference", short(line), lineno, place))
