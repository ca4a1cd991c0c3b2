"""Linters that name a rule per finding: ruff (full output: `F401 [*] message` then ` --> file:line:col`),
shellcheck (`In file line N:` then `^-- SC2086 (info): message`) and ESLint (stylish: a file's path, then
`  line:col  error  message  rule-id`). Each finding is a failure with the rule as its code."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Cursor, Extractor, register, short
from k0maru.offload.findings import Failure, Findings


@register
class RuffExtractor(Extractor):
    stack = "ruff"
    triggers = ("-->",)
    ARROW = re.compile(r"^\s*--> ([^:\s]+):(\d+):(\d+)\s*$")
    RULE = re.compile(r"^([A-Z]{1,4}\d{2,4}) (?:\[\*\] )?(.*)")

    def feed(self, line: str, lineno: int) -> None:
        m = self.ARROW.match(line) if "-->" in line else None
        if m:
            rule = next(filter(None, (self.RULE.match(p) for p in self.cursor.before(1))), None)
            if rule:
                self.f.add(
                    Failure(
                        self.stack,
                        rule.group(1),
                        short(rule.group(2)),
                        lineno - 1,
                        f"{m.group(1)}:{m.group(2)}:{m.group(3)}",
                    )
                )


@register
class ShellcheckExtractor(Extractor):
    stack = "shellcheck"
    triggers = ("In ",)
    HEADER = re.compile(r"^In (\S+) line (\d+):\s*$")
    MARK = re.compile(r"\^-*\^? (SC\d{4}) \((\w+)\): (.*)")

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.where: str | None = None

    def feed(self, line: str, lineno: int) -> None:
        if line.startswith("In "):
            m = self.HEADER.match(line)
            if m:
                self.where, self.busy, self.window = f"{m.group(1)}:{m.group(2)}", True, 12
            return
        if not self.busy:
            return
        m = self.MARK.search(line)
        if m:
            self.f.add(
                Failure(
                    self.stack,
                    m.group(1),
                    short(f"({m.group(2)}) {m.group(3)}"),
                    lineno,
                    self.where,
                )
            )
            return
        self.window -= 1
        if self.window <= 0 or line.startswith(("For more information", "Did you mean")):
            self.busy = False


@register
class EslintExtractor(Extractor):
    stack = "eslint"
    triggers = ("  error  ",)
    PROBLEM = re.compile(r"^\s+(\d+):(\d+)\s+(error|warning)\s+(.*?)\s{2,}(\S+)\s*$")

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.file: str | None = None

    def feed(self, line: str, lineno: int) -> None:
        m = self.PROBLEM.match(line)
        if not m:
            if self.busy and not line.strip():
                self.busy = False
            return
        for before in self.cursor.before(50):  # the file's path heads its group of problems
            if not self.PROBLEM.match(before):
                if before.strip() and " " not in before.strip():
                    self.file = before.strip()
                break
        self.busy = True  # the group's later lines, warnings included
        if m.group(3) == "error":
            self.f.add(
                Failure(
                    self.stack,
                    m.group(5),
                    short(m.group(4)),
                    lineno,
                    f"{self.file}:{m.group(1)}:{m.group(2)}" if self.file else None,
                )
            )
