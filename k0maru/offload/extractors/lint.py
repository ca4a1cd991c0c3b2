"""Linters that name a rule per finding: ruff (full output: `F401 [*] message` then ` -->
file:line:col`), shellcheck (`In file line N:` then `^-- SC2086 (info): message`), ESLint's stylish
form (a file's path, then `  line:col  error  message  rule-id`, also yamllint's and stylelint's),
one-line diagnostics, and GitHub annotations (`::error file=x,line=3,col=5::message`) that any tool
may print. Each finding is a failure with the rule as its code."""

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
    triggers = ("  error  ", "  ✖  ", "  warning  ", "  ⚠  ")
    # the rule after two spaces, or in brackets after one (yamllint's `(syntax)`); stylelint marks
    # errors `✖` and warnings `⚠`
    PROBLEM = re.compile(
        r"^\s+(\d+):(\d+)\s+(error|warning|✖|⚠)\s+(.*?)(?:\s{2,}(\S+)|\s\(([a-z][\w-]*)\))\s*$"
    )

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
        rule = m.group(5) or m.group(6)
        self.report(
            Failure(
                self.stack,
                rule[1:-1] if rule.startswith("(") and rule.endswith(")") else rule,  # yamllint
                short(m.group(4)),
                lineno,
                f"{self.file}:{m.group(1)}:{m.group(2)}" if self.file else None,
            ),
            m.group(3) in ("error", "✖"),
        )


@register
class DiagnosticExtractor(Extractor):
    """One finding per line, led by its place, with a rule code: flake8 and ruff's concise output
    (`app.py:1:1: F401 ...`), hadolint (`Dockerfile:2 DL3008 warning: ...`), shellcheck's gcc format
    (`x.sh:4:7: note: ... [SC2086]`), yamllint's parsable one (`x.yaml:4:11: [error] ... (syntax)`;
    its warnings do not fail a run)."""

    stack = "lint"
    # a rule code after the place (`: F401`, `: C0114`, ` DL3006`, ` MD022`), or a bracketed one
    triggers = (
        *(f": {c}" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
        " DL",
        " MD",
        "[SC",
        ": [error]",
        " [error]",
        ", col ",
        "[warning]",
    )
    # the place, after the tool's name in GNU's form (`hadolint:Dockerfile:2: DL3008 ...`)
    LINE = re.compile(
        r"^(?:[a-z][\w-]*:(?=\S+:\d))?(?:\./)?([^\s:]+\.?[\w-]*):(\d+)(?::(\d+))?:? (.*)$"
    )
    # flake8/ruff `F401 msg`, pylint `C0114: msg (symbol)`, markdownlint
    # `MD022/blanks-around-headings msg`, after a severity word where the tool prints one (`error
    # MD013/line-length ...`)
    LEAD = re.compile(
        r"^(?:(?:error|warning|info|note|style) )?([A-Z]{1,5}\d{2,5})(?:/[\w-]+)*:?(?: \[\*\])? (.*)"
    )
    SYMBOL = re.compile(r" \(([a-z]+(?:-[a-z]+)+)\)$")
    SC = re.compile(r"^(?:note|warning|error|info|style): (.*) \[(SC\d{4})\]$")
    BRACKETED = re.compile(r"^\[(error|warning)\] (.*) \(([a-z][\w-]*)\)$")
    # the severity last (stylelint's unix form: `msg (rule) [error]`)
    TRAILING = re.compile(r"^(.*) \(([a-z][\w-]*(?:/[\w-]+)*)\) \[(error|warning)\]$")
    # the compact form (stylelint, old ESLint, jsonlint -c): `file: line 2, col 16, error - msg
    # (rule)`
    COMPACT = re.compile(
        r"^(\S+): line (\d+), col (\d+), (?:([Ee]rror|[Ww]arning) - )?(.*?)(?: \(([\w/@-]+)\))?$"
    )

    def feed(self, line: str, lineno: int) -> None:
        if line[:1] in " \t" or ":" not in line:
            return
        m = self.LINE.match(line)
        if not m:
            self._compact(line, lineno)
            return
        rest, severity = m.group(4), "error"
        found = self.LEAD.match(rest)
        if found:
            code, message = found.group(1), found.group(2)
            if symbol := self.SYMBOL.search(message):  # pylint names the check both ways
                self.f.seen_code(symbol.group(1))
        elif found := self.SC.match(rest):
            code, message = found.group(2), found.group(1)
        elif found := self.BRACKETED.match(rest):
            code, message, severity = found.group(3), found.group(2), found.group(1)
        elif found := self.TRAILING.match(rest):
            code, message, severity = found.group(2), found.group(1), found.group(3)
        else:
            return
        where = f"{m.group(1)}:{m.group(2)}" + (f":{m.group(3)}" if m.group(3) else "")
        self.report(Failure(self.stack, code, short(message), lineno, where), severity == "error")

    def _compact(self, line: str, lineno: int) -> None:
        """A finding in the compact form: `file: line 2, col 16, error - msg (rule)`."""
        c = self.COMPACT.match(line) if ", col " in line else None
        if c:
            where = f"{c.group(1)}:{c.group(2)}:{c.group(3)}"
            failure = Failure(self.stack, c.group(6) or "error", short(c.group(5)), lineno, where)
            self.report(failure, (c.group(4) or "error").lower() == "error")


@register
class AnnotationExtractor(Extractor):
    """GitHub workflow commands (`yamllint -f github`, `ruff --output-format github`, ...): an
    `::error` is a failure at its `file`/`line`/`col`; its code is a bracketed rule or a rule code
    leading the message, else the `title`. A `::warning` fails a run only under a strict flag."""

    stack = "lint"
    triggers = ("::error", "::warning")
    LINE = re.compile(r"^::(error|warning) ([^:]*)::(.*)$")
    # the rule at the message's start, after its place if it repeats it (`7:5 [indentation] ...`,
    # `app.py:1:8: F401 ...`)
    CODE = re.compile(r"^(?:\S+:\d+:\d+:? |\d+:\d+ )?(?:\[([\w/-]+)\]|([A-Z]{1,5}\d{2,5})\b)")

    def feed(self, line: str, lineno: int) -> None:
        m = self.LINE.match(line) if line.startswith("::") else None
        if not m:
            return
        params = dict(p.partition("=")[::2] for p in m.group(2).split(","))
        if "file" not in params or not params.get("line", "").isdigit():
            return
        message = m.group(3)
        found = self.CODE.match(message)
        code = (found and (found.group(1) or found.group(2))) or params.get("title") or "error"
        col = params.get("col", "")
        where = f"{params['file']}:{params['line']}" + (f":{col}" if col.isdigit() else "")
        self.report(Failure(self.stack, code, short(message), lineno, where), m.group(1) == "error")
