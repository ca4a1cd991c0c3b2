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
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from k0maru.offload import locations
from k0maru.offload.extractors.base import Cursor, Extractor, register, short
from k0maru.offload.extractors.generic import CAUSED_BY, IPYTHON_FRAME
from k0maru.offload.extractors.located_patterns import (
    BARE_PATH,
    CARET_RULE,
    ERL_FILE,
    ERL_LINE,
    HINTS,
    LEAD_SEVERITY,
    LEAD_TAG,
    LINE_ROW,
    NOTE_HEAD,
    RAISED,
    ROW,
    ROW_CODE,
    RULE_AFTER,
    RULE_END,
    RULE_HEAD,
    RULE_LIKE,
    RULE_NEXT,
    SAID_AFTER,
    SEVERITY,
    STATUS_ROW,
    STEP,
    STRICT,
    STYLISH,
    STYLISH_RULE,
    TABLE_FILE,
    WORDS,
)
from k0maru.offload.findings import Failure, Findings, same_place

__all__ = ["HINTS", "Finding", "FindingsLayer"]

ERROR, UNKNOWN, WARNING, WEAK = "error", "unknown", "warning", "weak"
WARNINGS = frozenset({"warning", "Warning", "WARNING"})
NOTES = frozenset({"note", "Note", "NOTE", "info", "INFO", "hint", "Hint"})
# what a line says before a place that it leads all the same (`Location: x.py:9`, ` --> x.rs:1:9`)
PLACE_LABELS = ("Location:", "File:", ",-[", "-->")
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
        if self._continues(line, lineno):
            return
        self.busy = self.bare is not None or self.step is not None or self.told is not None
        if len(self.found) >= MAX_FINDINGS:
            return
        if not self.strict and STRICT.search(line):
            self.strict = True
        if self._row(line, lineno) or self._stylish(line, lineno) or self._erlang(line, lineno):
            return
        if self._status_row(line, lineno):
            return
        self._placed(line, lineno)

    def _continues(self, line: str, lineno: int) -> bool:
        """Read `line` as one after an earlier one (a finding's, a bare place's, a step's); whether
        it belonged to that one alone."""
        if self.open is not None or self.told is not None:
            self._follow(line, lineno)
        if self.bare is not None and self._said_after(line, lineno):
            return True
        return self.step is not None and self._under_step(line, lineno)

    def _placed(self, line: str, lineno: int) -> None:
        """A line naming a place: the first of the user's is a finding's; a line naming none may be
        a row under a file's header (one naming another place, a library's frame, is not)."""
        places = locations.find_all(line)
        for path, ln, col, offset in places:
            if self.cursor.places.is_user(path):
                self._located(line, lineno, locations.text(path, ln, col), offset, len(path))
                return
        if not places:
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

    def _status_row(self, line: str, lineno: int) -> bool:
        """A table's row giving an item's line and a failing status (`| total (L4) | MISSED |`),
        under the row naming its file (`| cart.py (module) | COVERED |`)."""
        m = STATUS_ROW.match(line) if line.startswith("|") else None
        if m is None:
            return False
        for before in self.cursor.before(HEADER_LINES):
            if (f := TABLE_FILE.match(before)) and self.cursor.places.is_user(f.group(1)):
                where = locations.text(f.group(1), m.group(1), None)
                self._keep(Finding(lineno, where, ERROR, None, short(line)))
                break
        return True

    def _stylish(self, line: str, lineno: int) -> bool:
        """A stylish report's row under its file's header: `  1:23  error  message  rule`."""
        m = STYLISH.match(line) if line[:1] in " \t" and ":" in line else None
        if m is None or (header := self._header()) is None:
            return False
        severity = WARNING if m.group(3) in ("warning", "⚠") else ERROR
        where = locations.text(header[0], m.group(1), m.group(2))
        self._keep(Finding(lineno, where, severity, _stylish_rule(m.group(4)), short(line)))
        return True

    def _line_row(self, line: str, lineno: int) -> None:
        """A row giving only a line, under its file's header: `"x" is wordy on line 3 at column
        0` under `In docs/intro.md`."""
        m = LINE_ROW.search(line) if line.strip() else None
        if m is None:
            return
        said = _severities(line)
        code = _row_code(line, m.end())
        if m.group(4) and not said and code is None:
            return  # `1752:10  6 (proc _)`: a frame of a backtrace, not a finding
        finding = Finding(lineno, "", _level(said[0] if said else None), code, short(line))
        header = self._header()
        if header is not None:
            path, failed = header
            finding.location = _row_place(path, m)
            finding.severity = ERROR if failed else finding.severity
            self._keep(finding)
        elif said and m.group(1):  # `line 8 column 5 - Warning: ...`: a file never named
            self._keep(finding)

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
        """A user place at `offset` of `line`: a finding, a BDD step, a bare place a later line
        may explain, or nothing (a note's place, where a test is declared, make's recipe)."""
        near = _Around.of(line, offset, size)
        if near.alias is not None:
            self.f.seen_code(near.alias)
        if near.only_notes():
            return  # a note or a hint beside a finding
        code, message = self._code_and_message(line, near)
        if self.weak is None:
            self.weak = Finding(lineno, where, WEAK, code, message)
        self._told(lineno)
        if STEP.match(near.lead):
            self._open_step(line, lineno, where)
        elif _not_where_it_failed(near.lead) or IPYTHON_FRAME.match(line):
            return  # an IPython frame is a traceback's, which the generic layer reads
        elif near.is_bare(code):
            self._bare(line, lineno, where)
        else:
            sev = near.severity()
            sev = self._header_severity(where) if sev is None else sev
            self._keep(Finding(lineno, where, _level(sev), code, message))

    def _code_and_message(self, line: str, near: _Around) -> tuple[str | None, str]:
        """A finding's rule (its own, else the one heading its lines) and its message: the heading
        line when the place leads a line that says nothing else (`>> Issue: [B506:yaml_load] Use
        of ...`, then `Location: x.py:9:15`), else its own line."""
        if near.rule is not None:
            return near.rule, short(line)
        head, heading = self._head_rule()
        return head, short(heading if heading and near.starts and not near.says else line)

    def _open_step(self, line: str, lineno: int, where: str) -> None:
        """A BDD step's line (`Then x  # steps.py:19`): the lines indented under it say whether it
        failed."""
        self._close_step()
        self.step = Finding(lineno, where, ERROR, None, short(line))
        self.step_indent = len(line) - len(line.lstrip())
        self.busy = True

    def _bare(self, line: str, lineno: int, where: str) -> None:
        """A bare place (a frame, a header): a line after it may say what failed there, unless the
        line before says it is a note's (`note: the lint level is defined here`)."""
        before = self.cursor.before(1)
        if not (before and NOTE_HEAD.match(before[0])):
            self.bare, self.busy = Finding(lineno, where, UNKNOWN, None, short(line)), True

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
        for pattern, explain in _SAID_AFTER:
            if m := pattern.match(line):
                self.bare = None
                explain(bare, m, line, lineno)
                self.found.append(bare)
                return True
        return False

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
        self._name_rules(others)
        levels = _Levels.of(self._fresh(seen, markers), self.strict)
        alone = not others and not markers  # no extractor, no located marker names a failure
        chosen = levels.failures(alone)
        self.f.promoted = bool(chosen) and not levels.errors  # nothing said it was an error
        for f in chosen:
            self.f.add(self._failure(f))
        rest = levels.warnings or levels.unknown
        if not rest and alone and self.weak is not None:
            rest = [self.weak]  # nothing else names a place: the first one the log names
        self.warnings = [] if chosen else [self._failure(f) for f in rest]

    def _fresh(self, seen: list[Failure], markers: list[Failure]) -> list[Finding]:
        """The findings no extractor reported: none at the same rule's line or place (`seen`), none
        at a place of a marker's, none said after an exception whose cause the generic layer
        followed (node's `file:line`, the source, then `Error: x` and its `[cause]:`: the cause's
        place stands for it)."""
        by_rule, by_place = _Reported(seen), _Reported(seen + markers)
        chained = {m.line for m in markers if m.message.lstrip().startswith(CAUSED_BY)}
        return [
            f
            for f in self.found
            if not (by_rule if f.code else by_place).covers(f) and f.said_at not in chained
        ]

    def _name_rules(self, others: list[Failure]) -> None:
        """Name the rule of an extractor's failure that only this layer read."""
        failed = _Reported(others)
        for f in self.found:
            if f.code and failed.covers(f):
                self.f.seen_code(f.code)

    def _failure(self, f: Finding) -> Failure:
        after = self.after.get(f.line) or []
        if f.code is None:  # a rule ending a line of its own (Flow's message under its place)
            f.code = _rule_ending(text for _, text in after)
        told = [(f.line, f.message), *after] if after and _says_little(f.message) else None
        where = f.location or None
        return Failure(self.stack, f.code or "error", f.message, f.line, where, lines=told)


@dataclass(slots=True)
class _Around:
    """What a line says around the user place it names: the text before it (`lead`) and after it
    (past `:12:5`, `(12)`), the severity words they say, the rule right after it, and the other
    name the line gives that rule (pylint's `E1120: ... (no-value-for-parameter)`)."""

    lead: str
    after: str
    said: list[str]
    rule: str | None
    alias: str | None
    starts: bool  # the place leads the line, or follows a label (`Location:`, `-->`)
    says: bool  # the text after the place holds words

    @classmethod
    def of(cls, line: str, offset: int, size: int) -> _Around:
        after = line[offset + size :]
        after = after[after.find(" ") :] if " " in after else ""
        lead = line[:offset].strip()
        said = SEVERITY.findall(after) or LEAD_SEVERITY.findall(lead) or LEAD_TAG.findall(lead)
        rule = _rule_of(after)
        alias = _alias(after, rule)
        starts = not lead or lead.endswith(PLACE_LABELS)
        return cls(lead, after, said, rule, alias, starts, WORDS.search(after) is not None)

    def is_bare(self, code: str | None) -> bool:
        """Nothing here says what the place is: no severity, no rule, no words after a place
        that leads the line (a frame, a header)."""
        return self.severity() is None and code is None and not (self.starts and self.says)

    def only_notes(self) -> bool:
        """Only a note or a hint is said here, and the place is no rule's finding: the place is a
        note's beside a finding."""
        return bool(self.said) and self.severity() is None

    def severity(self) -> str | None:
        """The first severity word said that is no note's; `warning` for a rule's finding said at a
        note's level (`x.sh:4:7: note: ... [SC2086]`)."""
        sev = next((s for s in self.said if s not in NOTES), None)
        if sev is None and self.said and self.starts and self.rule:
            return "warning"
        return sev


def _alias(after: str, rule: str | None) -> str | None:
    """The other name a line gives its rule in brackets ending it, if any."""
    if rule is None or (alias := RULE_END.search(after)) is None:
        return None
    return alias.group(1) if alias.group(1) != rule else None


def _not_where_it_failed(lead: str) -> bool:
    """A place named as where a test is declared (node's TAP `location:`) or as the recipe that ran
    the failing command (make's `*** [Makefile:7: x] Error 1`): neither is where it failed."""
    return lead.startswith("location:") or lead.endswith("*** [")


def _severities(line: str) -> list[str]:
    """The severity words `line` says, notes' and hints' left out."""
    return [s for s in SEVERITY.findall(line) if s not in NOTES]


def _level(word: str | None) -> str:
    """The finding's severity from the word a line says: none, a warning's, or else an error's."""
    if word is None:
        return UNKNOWN
    return WARNING if word in WARNINGS else ERROR


def _first_group(m: re.Match[str], *groups: int) -> str | None:
    """The first of `groups` that took part in the match."""
    return next((m.group(g) for g in groups if m.group(g)), None)


def _row_place(path: str, m: re.Match[str]) -> str:
    """`path:line[:col]` of a row that gives only its line (`m`: LINE_ROW's match, whose every
    form captures a line)."""
    line = _first_group(m, 1, 3, 4, 6)
    assert line is not None
    return locations.text(path, line, _first_group(m, 2, 5))


def _row_code(line: str, end: int) -> str | None:
    """The code of a row that gives only a line: leading it (`H013 7:4 ...`), a snake_case one in
    parentheses (`#4: ... (max_line_length) ...`), else a rule after its line (from `end`)."""
    if c := ROW_CODE.search(line):
        return next(g for g in c.groups() if g)
    return _rule_of(line[end:])


def _stylish_rule(text: str) -> str | None:
    """The rule ending a stylish row's text (`'x' is not defined  no-undef`, `Missing semicolon
    (semi)`): a rule-like token, or a lower-case word in parentheses."""
    rule = STYLISH_RULE.search(text)
    if rule is None:
        return None
    token = rule.group(1)
    paren = rule.group(0).endswith(")")
    return token if _rule_like(token) or (paren and token.islower()) else None


def _rule_ending(lines: Iterable[str]) -> str | None:
    """The first rule in brackets ending one of `lines` (Flow's message under its place)."""
    ends = (RULE_END.search(text) for text in lines)
    return next((m.group(1) for m in ends if m and _rule_like(m.group(1))), None)


def _raised(bare: Finding, m: re.Match[str], line: str, lineno: int) -> None:
    """Elixir's `** (ArithmeticError) ...`: the exception raised at the bare place."""
    bare.code, bare.severity, bare.message = m.group(1), ERROR, short(line)


def _caret(bare: Finding, m: re.Match[str], line: str, lineno: int) -> None:
    """shellcheck's `  ^-- SC2086 (info): ...`: the rule and its level."""
    bare.code = m.group(1)
    bare.severity = ERROR if m.group(2) in ("error", "fatal") else WARNING


def _said(bare: Finding, m: re.Match[str], line: str, lineno: int) -> None:
    """`Error: ...` under the place: its severity, its message, maybe a rule ending the line."""
    bare.severity = WARNING if m.group(1) in WARNINGS else ERROR
    bare.message, bare.said_at = short(line), lineno
    if (c := RULE_END.search(line)) and _rule_like(c.group(1)):
        bare.code = c.group(1)


# the lines after a bare place that say what failed there, first match wins: how each explains it
_SAID_AFTER: tuple[
    tuple[re.Pattern[str], Callable[[Finding, re.Match[str], str, int], None]], ...
] = (
    (SAID_AFTER, _said),
    (CARET_RULE, _caret),
    (RAISED, _raised),
)


@dataclass(slots=True)
class _Levels:
    """The fresh findings by level. A rule named beside a location is a finding however the tool
    words its severity; under `strict` (warnings treated as errors) warnings are errors too."""

    errors: list[Finding]
    unknown: list[Finding]
    warnings: list[Finding]

    @classmethod
    def of(cls, fresh: list[Finding], strict: bool) -> _Levels:
        levels = cls([], [], [])
        by_kind = {ERROR: levels.errors, UNKNOWN: levels.unknown, WARNING: levels.warnings}
        for f in fresh:
            kind = ERROR if f.severity == UNKNOWN and f.code else f.severity
            if kind in by_kind:
                by_kind[kind].append(f)
        if strict:
            return cls(
                sorted(levels.errors + levels.warnings, key=lambda f: f.line), levels.unknown, []
            )
        return levels

    def failures(self, alone: bool) -> list[Finding]:
        """The findings that fail the run: the errors; when nothing says anything failed and no
        one else names a failure, what the log names first, whatever it calls it (hlint's
        `Warning:` before its `Suggestion:`s)."""
        if alone and not self.errors and self.unknown:
            return sorted(self.unknown + self.warnings, key=lambda f: f.line)
        return self.errors


def _says_little(line: str) -> bool:
    """A finding's line that names its place and little else (`views/x.pug:4:8`, `x.scm:5:57: In
    procedure report:`, Flow's `Error ----- x.js:7:38`): the lines after it say what it is."""
    rest = line
    for path, _, _, offset in locations.find_all(line):
        rest = line[:offset] + line[offset + len(path) :]
    return rest.rstrip().endswith(":") or not WORDS.search(SEVERITY.sub("", rest))


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
    return bool(RULE_LIKE.search(token)) and not token.endswith(".")


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
