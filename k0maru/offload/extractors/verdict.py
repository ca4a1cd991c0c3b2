"""The tool's own verdict: the first line whose words say the run failed (`FAILED`, `BROKEN`,
`ERROR`, `✗`, `##[error]`, `error:`, `3 failed`), kept with the lines around it. It fails a piped
run that names no failure of its own, and the summary names it when nothing else was recognised."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Extractor, register, short
from k0maru.offload.findings import Failure

FAIL_VERDICT = re.compile(
    r"\b(?:FAILED|FAILURE|FAIL|BROKEN|ERROR|FATAL|Traceback|panicked|Aborted)\b|[✗✖✘]|##\[error\]"
    r"|(?i:\berror\b)(?:\[\w+\])?:|\b[1-9]\d* (?:failed|failing|errors?|failures?)\b"
    r"|(?<!\b0 )\bfailed\b"
)
BEFORE = 3  # lines kept before the verdict line
AFTER = 2  # and after it


@register
class VerdictExtractor(Extractor):
    stack = "generic"
    triggers = ("BROKEN", "Aborted", "FATAL", "✗", "✖", "✘", "##[error]")

    def feed(self, line: str, lineno: int) -> None:
        verdict = self.f.verdict
        if verdict is None and FAIL_VERDICT.search(line):
            before = self.cursor.before(BEFORE)
            rows = [(lineno - i, short(b, 300)) for i, b in enumerate(before, start=1)][::-1]
            rows.append((lineno, short(line, 300)))
            self.f.verdict = Failure("generic", "verdict", short(line), lineno, lines=rows)
            self.window, self.busy = AFTER, True
        elif self.busy and verdict is not None and verdict.lines is not None:
            verdict.lines.append((lineno, short(line, 300)))
            self.tick()
