"""The findings layer under the extractors: for any tool, a finding is a location (any form
`offload.locations` reads, or a block's file named on a header line with the line on a row below
it: `12┆ code`, `L5 |`, `L: 21 | P: 11 | CODE |` under `== [x.sql] FAIL`, `on line 3` under `In
x.md`, ` 7 | ERROR |` under `FILE: x.php`, Erlang's `{file,"x"}` with its `{line,N}` on a later
line) plus a severity or rule token nearby: on its line, the line before or after, or its block's
header. A rule id next to a location is its code (`B506`, `W112`, `RF02`, `no-dupe-keys`,
`reportArgumentType`, `lint/x/y`), always a string of the log. A file named alone takes the path
the log gave it before (`Compiling src/x.pas`, then `x.pas(11,20) Error`); the lines after a place
whose own line says nothing else are kept as the finding's own, where its message is.

Findings are kept aside while the log is read and settled at its end (`settle`): those an extractor
already reported are dropped; errors become failures; a line that only starts with a location and
says something becomes one when nothing else in the log names a place; warnings fail the run only
when nothing else did (or the log says warnings are treated as errors), and then the first finding
in log order wins, whatever the tool calls it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from k0maru.offload import locations
from k0maru.offload.extractors.base import Cursor, Extractor, register, short
from k0maru.offload.extractors.generic import CAUSED_BY
from k0maru.offload.findings import Failure, Findings, same_place

ERROR, UNKNOWN, WARNING, WEAK = "error", "unknown", "warning", "weak"
SEVERITY = re.compile(
    r"\b(error|Error|ERROR|fatal|FATAL|failed|FAILED|FAIL|Failure|warning|Warning|WARNING|note|Note"
    r"|NOTE|info|INFO|hint|Hint|ALERT|CRITICAL|SEVERE|EMERG)\b"  # and syslog's, Java's levels
)
# a severity that is all a line says before its location (`::warning file=x,line=1`, `ERROR: x:8:`)
LEAD_SEVERITY = re.compile(rf"^\W*{SEVERITY.pattern}(?::\s*|\s+file=)$")
# a syslog level tag opening the line, whatever follows it (`[ALERT] (87) : config : parsing
# [x.cfg:15]`); not maven's `[ERROR]`, which also opens the frames of its own stack
LEAD_TAG = re.compile(r"^\s*\[(ALERT|CRITICAL|SEVERE|EMERG)\]")
SEVERITY_WORDS = "(?:error|warning|info|note|hint|style|fatal)"
WARNINGS = frozenset({"warning", "Warning", "WARNING"})
NOTES = frozenset({"note", "Note", "NOTE", "info", "INFO", "hint", "Hint"})
RULE = (
    r"[A-Z]{1,5}\d{2,5}|lint/[\w./-]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+|[a-z][a-z0-9]*(?:-[a-z0-9]+)+"
    r"|[A-Z][a-z]+(?:[A-Z][a-z]+)*/[A-Z]\w+"  # a department and a cop: `Lint/UselessAssignment`
)
# a rule right after the location, past a severity word or letter (`x.js:3:5 lint/a/b`,
# `x.py:1:1: E302 ...`, `x.rb:6:5: W: Lint/UselessAssignment: ...`)
RULE_AFTER = re.compile(
    rf"^[\s:,-]*(?:\d+:\d+ )?(?:(?:error|warning)\b:?\s*|[CWEFIR]: (?:\[\w+\] )?)?"
    rf"(?:({RULE})(?=[\s:\]/]|$)|\[(?!{SEVERITY_WORDS}\])({RULE}|[a-z]+)\])"
)
# a rule in brackets or parentheses ending the line (`(reportArgumentType)`, `[memleak]`,
# `[clang-analyzer-x.Y,-warnings-as-errors]`, `(no-var) (warning)`, `[-Werror=uninitialized]`); one
# plain word only on a finding
RULE_END = re.compile(
    r"[\[(]([A-Za-z][\w.-]*(?:/[\w.-]+)*|-Werror=[\w-]+)(?:,[^\])]*)?[\])](?:\s*[\[(](?:warning|error)[\])])?\s*$"
)
# a rule heading the lines of its finding: after a label (`>> Issue: [B506:yaml_load]`,
# `Check: CKV_AWS_24:`), as a tool's `x eslint(no-dupe-keys):`, after `❯❱` marks, or a code first
# (`E3002 Additional ...`)
RULE_HEAD = re.compile(
    rf"^\W*(?:(?:Issue|Check|Rule):\s*\[?({RULE})(?=[\]:\s])"
    rf"|[x×✖]\s+[\w-]+\(({RULE})\):"
    rf"|[❯❱]+\s+({RULE})\s*$"
    rf"|-\s+hook id:\s+({RULE})\s*$"  # pre-commit's failing hook
    r"|([A-Z]{1,5}\d{2,5}) (?:\[\*\] )?[A-Z'\"‘`])"  # ruff's `[*]`: a fix is available
)
STRICT = re.compile(
    r"(?i)warnings? (?:were |are )?treated as errors|with warnings treated as errors"
    r"|in strict mode|warnings-as-errors"
)
BARE_PATH = re.compile(
    rf"^\s*(?:==\s*\[|(?:In|File:?|FILE:|[✗✖×])\s+)?({locations._PATH})(?:\]\s*(FAIL)\b.*)?:?\s*$"
)
# a row under a file's header that gives only a line: `line 3 at column 19`, `error at line 19,
# col 1`, `✗ #4: message`, `H013 7:4 message`
LINE_ROW = re.compile(
    r"(?:^|[\s(\[])(?:line (\d+)(?:,? (?:at )?col(?:umn)? (\d+))?|#(\d+):|(\d+):(\d+)(?=\s))"
    r"|^\s*(\d+) +\| "  # phpcs: ` 7 | ERROR | [x] Opening brace ...` under `FILE: x.php`
)
ROW_CODE = re.compile(r"^\W*([A-Z]{1,5}\d{2,5})\s|\(([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\)")
ROW = re.compile(r"^\s*(?:L:\s*(\d+)\s*\|\s*P:\s*(\d+)\s*\|\s*(\w+)\s*\||L(\d+) \||(\d+)┆)")
ERL_FILE = re.compile(r'\{file,\s*"([^"]+)"\}|^\s*"([^"]+\.[a-z]+)"\},?\s*$')
ERL_LINE = re.compile(r"\{line,\s*(\d+)\}")
# rows under a file header, and the lines of the forms above: fed to the layer as trigger hits
# a row of a stylish report under its file's header: `  1:23  error  message  rule`,
# `  3:3  ✖  message  rule`, `  8:1  error  message  (rule)`
STYLISH = re.compile(r"^[ \t]+(\d+):(\d+)(?:-\d+:\d+)?[ \t]+(error|warning|✖|⚠|×|✗)[ \t]+(.*?)\s*$")
STYLISH_RULE = re.compile(r"(?:\s{2,}|\s\()([\w@/.-]+)\)?$")
# lines the layer reads beside its trigger words (`┆`, `| P:`): `L5 |` rows, `line 3`, `#4: `; one
# literal-led pattern each (a scan with a literal prefix is fast, an alternation is not)
HINTS = (re.compile(r"L\d+ \|"), re.compile(r"line \d"), re.compile(r"#\d+: "))
# a severity that a line after a bare location gives it (OCaml's `Error:` under `File "x", line 3`,
# gfortran's `Error:` under `x.f90:17:15:` and its source lines, `Fortran runtime error: ...`)
SAID_AFTER = re.compile(
    r"^\s*(?:\w+ )*?(error|Error|ERROR|fatal|Fatal|FATAL|warning|Warning)(?: \w+)?: [\w'\"‘]"
)
# a note heading the place on the next line (rustc's, clang's `note: ...`, then ` --> x.rs:1:9`)
NOTE_HEAD = re.compile(r"^\W*(?:note|help|info|hint):")
# an exception raised there, named (Elixir: `** (ArithmeticError) bad argument ...`)
RAISED = re.compile(r"^\s*\*\* \(([A-Z][\w.]*)\) ")
# a caret under the source naming the rule and its level (shellcheck: `  ^-- SC2086 (info): ...`)
CARET_RULE = re.compile(r"^\s*\^[-^]*\s+([A-Z]{1,5}\d{2,5}) \((\w+)\):")
# a BDD runner's step, its definition's place in a comment ending it (behave, cucumber)
STEP = re.compile(r"^(?:Given|When|Then|And|But|\*)\s.*#$")
# a rule leading the line after its location (pydocstyle's `    D103: Missing docstring ...`)
RULE_NEXT = re.compile(r"^\s+([A-Z]{1,5}\d{2,5}):? ")
AFTER_LINES = 6  # lines after a bare location searched for its severity
HEAD_LINES = 6  # lines before a location searched for the rule heading its finding
HEADER_LINES = 60  # lines before a row searched for its file's header
MAX_FINDINGS = 200
TOLD_LINES = 10  # lines after a finding kept as its own, up to the next place
FULLER_WINDOW = 1 << 16  # characters before a place searched for its file's path


@dataclass(slots=True)
class Finding:
    line: int
    location: str
    severity: str
    code: str | None
    message: str
    said_at: int | None = None  # the line after it that said what failed there (`Error: ...`)


def _is_path_header(path: str) -> bool:
    """A file named alone on its line: a path with a folder or an extension, not a sentence."""
    return "." in path.rsplit("/", 1)[-1] and not path.endswith(".")


@register
class FindingsLayer(Extractor):
    stack = "findings"
    # fmt: skip
    triggers = (
        "┆",
        "| P:",
        "{line,",
        "At line ",
        "treated as error",
        "strict mode",
        "warning  ",
        "⚠",
        *(f"{name}:" for name in locations.NAMED_FILES),
    )

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.found: list[Finding] = []
        self.strict = False
        self.open: Finding | None = None  # the last finding, whose rule may end the next line
        self.bare: Finding | None = None  # a location without a token yet: a later line may say
        self.weak: Finding | None = None  # the first user location at all: the last resort
        self.paths: dict[str, str] = {}  # a file named alone -> the path the log gave it before
        # a place's line -> the lines after it up to the next place: what it says, when its own
        # line only names it (`views/x.pug:4:8`, the source, then `ID literals must not be used`)
        self.after: dict[int, list[tuple[int, str]]] = {}
        self.told: int | None = None  # the line of the last place, whose next lines are kept
        # a BDD runner's step line (`Then x  # steps.py:19`): lines indented under it say it failed
        self.step: Finding | None = None
        self.step_indent = 0
        self.step_failed = False
        self.step_traceback = False  # its lines hold a Python traceback: innermost frame last
        self.step_framed = False  # a user frame under it gave its place

    def feed(self, line: str, lineno: int) -> None:
        if self.open is not None or self.told is not None:
            self._follow(line, lineno)
        if self.bare is not None and self._said_after(line, lineno):
            return
        if self.step is not None and self._under_step(line, lineno):
            return
        self.busy = self.bare is not None or self.step is not None or self.told is not None
        if len(self.found) >= MAX_FINDINGS:
            return
        if not self.strict and STRICT.search(line):
            self.strict = True
        if self._row(line, lineno) or self._stylish(line, lineno) or self._erlang(line, lineno):
            return
        places = locations.find_all(line)
        for path, ln, col, offset in places:
            if self.cursor.places.is_user(path):
                self._located(line, lineno, locations.text(path, ln, col), offset, len(path))
                return
        if not places:  # a line naming another place (a library's frame) is no row of a file
            self._line_row(line, lineno)

    def _row(self, line: str, lineno: int) -> bool:
        """A row under a file header: `12┆ code`, `L5 | code`, `L:  4 | P:  17 | CP01 | ...`."""
        m = ROW.match(line) if ("┆" in line or "|" in line) else None
        if m is None:
            return False
        header = self._header()
        if header is None:
            return False
        path, failed = header
        number = m.group(1) or m.group(4) or m.group(5)
        where = locations.text(path, number, m.group(2))
        code = m.group(3) or self._head_rule()[0]
        self._keep(Finding(lineno, where, ERROR if failed else UNKNOWN, code, short(line)))
        return True

    def _stylish(self, line: str, lineno: int) -> bool:
        """A stylish report's row under its file's header: `  1:23  error  message  rule`."""
        m = STYLISH.match(line) if line[:1] in " \t" and ":" in line else None
        if m is None or (header := self._header()) is None:
            return False
        rule = STYLISH_RULE.search(m.group(4))
        token = rule.group(1) if rule else ""
        paren = rule is not None and rule.group(0).endswith(")")
        code = token if token and (_rule_like(token) or (paren and token.islower())) else None
        severity = WARNING if m.group(3) in ("warning", "⚠") else ERROR
        where = locations.text(header[0], m.group(1), m.group(2))
        self._keep(Finding(lineno, where, severity, code, short(line)))
        return True

    def _line_row(self, line: str, lineno: int) -> None:
        """A row giving only a line, under its file's header: `"x" is wordy on line 3 at column
        0` under `In docs/intro.md`."""
        m = LINE_ROW.search(line) if line.strip() else None
        if m is None:
            return
        number, col = m.group(1) or m.group(3) or m.group(4) or m.group(6), m.group(2) or m.group(5)
        said = [s for s in SEVERITY.findall(line) if s not in NOTES]
        severity = UNKNOWN if not said else WARNING if said[0] in WARNINGS else ERROR
        c = ROW_CODE.search(line)  # `H013 7:4 ...`, `#4: ... (max_line_length) ...`
        code = next(g for g in c.groups() if g) if c else _rule_of(line[m.end() :])
        if m.group(4) and not said and code is None:
            return  # `1752:10  6 (proc _)`: a frame of a backtrace, not a finding
        header = self._header()
        if header is None:  # `line 8 column 5 - Warning: ...`: a finding in a file never named
            if said and m.group(1):
                self._keep(Finding(lineno, "", severity, code, short(line)))
            return
        where = locations.text(header[0], number, col)
        self._keep(Finding(lineno, where, ERROR if header[1] else severity, code, short(line)))

    def _header(self) -> tuple[str, bool] | None:
        """The file a block of rows belongs to: the nearest line above naming only a path (or
        `== [x.sql] FAIL`); whether its header says it failed."""
        for before in self.cursor.before(HEADER_LINES):
            m = BARE_PATH.match(before) if "." in before else None
            if m is not None and _is_path_header(m.group(1)):
                return m.group(1), m.group(2) is not None
        return None

    def _erlang(self, line: str, lineno: int) -> bool:
        """Erlang's stack term, `{file,"x.erl"},{line,8}`, printed over several lines."""
        if "{line," not in line or "{file," in line:
            return False
        m = ERL_LINE.search(line)
        for before in self.cursor.before(3):
            if m is not None and (f := ERL_FILE.search(before)):
                path = f.group(1) or f.group(2)
                if self.cursor.places.is_user(path):
                    self._keep(Finding(lineno, f"{path}:{m.group(1)}", UNKNOWN, None, short(line)))
                return True
        return False

    def _located(self, line: str, lineno: int, where: str, offset: int, size: int) -> None:
        after = line[offset + size :]
        after = after[after.find(" ") :] if " " in after else ""  # past `:12:5`, `(12)`
        lead = line[:offset].strip()
        said = SEVERITY.findall(after) or LEAD_SEVERITY.findall(lead) or LEAD_TAG.findall(lead)
        sev = next((s for s in said if s not in NOTES), None)
        own_rule = _rule_of(after)
        if own_rule and (alias := RULE_END.search(after)) and alias.group(1) != own_rule:
            self.f.seen_code(alias.group(1))  # pylint's `E1120: ... (no-value-for-parameter)`
        starts = not lead or lead.endswith(("Location:", "File:", ",-[", "-->"))
        if sev is None and said:
            if not (starts and own_rule):
                return  # a note or a hint beside a finding
            sev = "warning"  # a rule's finding at a low level (`x.sh:4:7: note: ... [SC2086]`)
        head, heading = self._head_rule() if own_rule is None else (None, None)
        code = own_rule or head
        # a place under the line that heads its finding (`>> Issue: [B506:yaml_load] Use of ...`,
        # then `Location: x.py:9:15`): that line says what it is
        says = re.search(r"[A-Za-z]{2}", after)
        message = short(heading if heading and starts and not says else line)
        if self.weak is None:
            self.weak = Finding(lineno, where, WEAK, code, message)
        self._told(lineno)
        if STEP.match(lead):
            self._close_step()
            self.step = Finding(lineno, where, ERROR, None, short(line))
            self.step_indent = len(line) - len(line.lstrip())
            self.busy = True
            return
        if lead.startswith("location:") or lead.endswith("*** ["):
            # node's TAP names where a test is declared, make's `*** [Makefile:7: x] Error 1`
            # the recipe that ran the failing command: neither is where it failed
            return
        if sev is None and code is None and (not starts or not re.search(r"[A-Za-z]{2}", after)):
            # a bare place (a frame, a header): a line after it may say what failed there, unless
            # the line before says it is a note's (`note: the lint level is defined here`)
            before = self.cursor.before(1)
            if not (before and NOTE_HEAD.match(before[0])):
                self.bare, self.busy = Finding(lineno, where, UNKNOWN, None, short(line)), True
            return
        if sev is None:
            sev = self._header_severity(where)
        severity = UNKNOWN if sev is None else WARNING if sev in WARNINGS else ERROR
        self._keep(Finding(lineno, where, severity, code, message))

    def _under_step(self, line: str, lineno: int) -> bool:
        """A line after a step's: indented under it, the step failed (its place is the first user
        frame those lines name, the innermost under a Python traceback, else the step's own)."""
        step = self.step
        assert step is not None
        if not line.strip() or len(line) - len(line.lstrip()) <= self.step_indent:
            self._close_step()
            return False
        if not self.step_failed:
            self.step_failed, step.message = True, short(line)
        self.step_traceback |= line.lstrip().startswith("Traceback")
        if lineno - step.line > AFTER_LINES:
            self._close_step()
            return False
        for path, ln, col, _ in locations.find_all(line):
            if self.cursor.places.is_user(path):
                if self.step_traceback or not self.step_framed:
                    step.location, self.step_framed = locations.text(path, ln, col), True
                break
        return True

    def finish(self) -> None:
        self._close_step()

    def _close_step(self) -> None:
        step, self.step = self.step, None
        if step is not None and self.step_failed and len(self.found) < MAX_FINDINGS:
            self.found.append(step)
        self.step_failed = self.step_traceback = self.step_framed = False

    def _said_after(self, line: str, lineno: int) -> bool:
        """A line after a bare location that gives it a severity (and maybe a rule ending it)."""
        bare = self.bare
        assert bare is not None
        if lineno - bare.line > AFTER_LINES:
            self.bare = None
            return False
        m = SAID_AFTER.match(line) or CARET_RULE.match(line) or RAISED.match(line)
        if m is None:
            return False
        self.bare = None
        if m.re is RAISED:
            bare.code, bare.severity, bare.message = m.group(1), ERROR, short(line)
            self.found.append(bare)
            return True
        if m.re is CARET_RULE:
            bare.code, level = m.group(1), m.group(2)
            bare.severity = ERROR if level in ("error", "fatal") else WARNING
            self.found.append(bare)
            return True
        bare.severity = WARNING if m.group(1) in WARNINGS else ERROR
        bare.message, bare.said_at = short(line), lineno
        if (c := RULE_END.search(line)) and _rule_like(c.group(1)):
            bare.code = c.group(1)
        self.found.append(bare)
        return True

    def _head_rule(self) -> tuple[str, str] | tuple[None, None]:
        """The rule heading the lines above, and its line."""
        for before in self.cursor.before(HEAD_LINES):
            if m := RULE_HEAD.match(before):
                return next(g for g in m.groups() if g), before
        return None, None

    def _header_severity(self, where: str) -> str | None:
        """The severity a block's header line gives its findings (`Checking x.lua   4 warnings`)."""
        path = where.split(":", 1)[0]
        placed = re.compile(re.escape(path) + r"[:(]\d")  # a finding's own line is no header
        for before in self.cursor.before(HEADER_LINES):
            header = path in before and not before[:1].isspace() and not placed.search(before)
            if header and (m := SEVERITY.search(before)):
                return m.group(1)
        return None

    def _keep(self, finding: Finding) -> None:
        finding.location = self._fuller(finding.location)
        self.found.append(finding)
        self.open, self.bare, self.busy = finding, None, True
        self._told(finding.line)

    def _told(self, lineno: int) -> None:
        if len(self.after) < MAX_FINDINGS:
            self.after[lineno], self.told = [], lineno

    def _follow(self, line: str, lineno: int) -> None:
        """The lines after a finding: the next may end or lead with its rule; those up to the next
        place are its own, what it says when its line only names it (`views/x.pug:4:8`, then the
        source, then `ID literals must not be used`)."""
        if self.open is not None:
            if self.open.code is None:
                self.open.code = _rule_next(line)
            self.open = None
        told = self.told
        if told is None:
            return
        if lineno - told > TOLD_LINES or locations.PLACE_HINT.search(line):
            self.told = None
        elif line.strip():
            self.after[told].append((lineno, line))

    def _fuller(self, where: str) -> str:
        """A place named by its file alone (`cart.pas:11`) with the path the log gave that file
        before it (`Compiling src/cart.pas`, `problems in /w/css/part4.css.`), if any."""
        name, sep, rest = where.partition(":")
        if "/" in name or not sep:
            return where
        if name not in self.paths:
            seen = self.cursor.block[max(self.cursor.pos - FULLER_WINDOW, 0) : self.cursor.pos]
            found = re.findall(rf"(?<![\w.@~+/-])([\w.@~+/-]*/{re.escape(name)})(?![\w/-])", seen)
            self.paths[name] = found[-1] if found else name
        return f"{self.paths[name]}:{rest}"

    def settle(self, others: list[Failure], seen: list[Failure], markers: list[Failure]) -> None:
        """Turn the findings no extractor reported (`others`: the extractors' failures, `seen`:
        those and their warnings; `markers`: the generic layer's located ones, which stand for a
        finding that names no rule) into failures, or warnings (see the module's docstring)."""
        markers_located = bool(markers)
        by_rule, by_place = _Reported(seen), _Reported(seen + markers)
        # an exception whose cause the generic layer followed (node's `file:line`, the source, then
        # `Error: x` and its `[cause]:`): the cause's place stands for it
        chained = {m.line for m in markers if m.message.lstrip().startswith(CAUSED_BY)}
        fresh = [
            f
            for f in self.found
            if not (by_rule if f.code else by_place).covers(f) and f.said_at not in chained
        ]
        failed = _Reported(others)
        for f in self.found:  # an extractor's failure whose rule only this layer read
            if f.code and failed.covers(f):
                self.f.seen_code(f.code)
        # a rule named beside a location is a finding however the tool words its severity
        errors = [f for f in fresh if f.severity == ERROR or (f.severity == UNKNOWN and f.code)]
        unknown = [f for f in fresh if f.severity == UNKNOWN and not f.code]
        warnings = [f for f in fresh if f.severity == WARNING]
        if self.strict:
            errors, warnings = sorted(errors + warnings, key=lambda f: f.line), []
        chosen = errors
        if not others and not markers_located and not errors and unknown:
            # nothing said failed: what the log names first, whatever it calls it (hlint's
            # `Warning:` before its `Suggestion:`s)
            chosen = sorted(unknown + warnings, key=lambda f: f.line)
        for f in chosen:
            self.f.add(self._failure(f))
        rest = warnings or unknown
        if not rest and not others and not markers_located and self.weak is not None:
            rest = [self.weak]  # nothing else names a place: the first one the log names
        self.warnings = [] if chosen else [self._failure(f) for f in rest]

    def _failure(self, f: Finding) -> Failure:
        after = self.after.get(f.line) or []
        if f.code is None:  # a rule ending a line of its own (Flow's message under its place)
            ends = (RULE_END.search(text) for _, text in after)
            f.code = next((m.group(1) for m in ends if m and _rule_like(m.group(1))), None)
        told = [(f.line, f.message), *after] if after and _says_little(f.message) else None
        where = f.location or None
        return Failure(self.stack, f.code or "error", f.message, f.line, where, lines=told)


def _says_little(line: str) -> bool:
    """A finding's line that names its place and little else (`views/x.pug:4:8`, `x.scm:5:57: In
    procedure report:`, Flow's `Error ----- x.js:7:38`): the lines after it say what it is."""
    rest = line
    for path, _, _, offset in locations.find_all(line):
        rest = line[:offset] + line[offset + len(path) :]
    return rest.rstrip().endswith(":") or not re.search(r"[A-Za-z]{2}", SEVERITY.sub("", rest))


def _rule_of(after: str) -> str | None:
    """The rule right after a location, or in brackets ending its line."""
    if m := RULE_AFTER.match(after):
        return m.group(1) or m.group(2)
    m = RULE_END.search(after)
    if m is not None and (_rule_like(m.group(1)) or m.group(1).islower()):
        return m.group(1)
    return None


def _rule_next(line: str) -> str | None:
    """A rule on the line after a finding: in brackets ending it (pyright), or leading it."""
    if (m := RULE_END.search(line)) and _rule_like(m.group(1)):
        return m.group(1)
    if m := RULE_NEXT.match(line):
        return m.group(1)
    return None


def _rule_like(token: str) -> bool:
    """A rule id, not a word: it has a digit, a dash, a dot, a slash, an underscore or an inner
    capital (`B506`, `no-dupe-keys`, `toc.not_readable`, `lint/a/b`, `CKV_AWS_24`, `reportX`)."""
    return bool(re.search(r"\d|[-./_]|[a-z][A-Z]", token)) and not token.endswith(".")


def _file_and_line(location: str) -> tuple[str, str]:
    """`src/a.py:12:5` -> (`a.py`, `12`): what two places that are the same always share."""
    path, _, rest = location.partition(":")
    return path.rsplit("/", 1)[-1], rest.split(":", 1)[0]


class _Reported:
    """What the extractors reported, indexed by log line and by file name and line."""

    def __init__(self, others: list[Failure]) -> None:
        self.lines = {o.line for o in others}
        self.places: dict[tuple[str, str], list[str]] = {}
        for o in others:
            if o.location:
                self.places.setdefault(_file_and_line(o.location), []).append(o.location)

    def covers(self, f: Finding) -> bool:
        """An extractor reported this finding: on the same log line, or at the same place."""
        if f.line in self.lines:
            return True
        near = self.places.get(_file_and_line(f.location), ())
        return any(same_place(loc, f.location) for loc in near)
