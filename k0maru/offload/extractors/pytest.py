"""Pytest failures in build and test logs."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import CODE_IN_TEXT, Extractor, register, short
from k0maru.offload.findings import Failure, Findings


@register
class PytestExtractor(Extractor):
    stack = "pytest"
    triggers = ("test session starts",)
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
            code = CODE_IN_TEXT.search(message)
            code_text = code.group(1) if code else self.codes.get(path, m.group(1))
            self.f.add(Failure(self.stack, code_text, short(message or line), lineno,
                               self.locations.get(path, path), test_id))
