"""The line patterns of the findings layer (`located`), as a table: each row is a pattern, what a
match means, and lines of real tools' logs it reads (with the groups it captures) or must not read.
One tool's rule can be judged from its row alone; tests/offload/test_located_patterns.py runs every
example through its pattern."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from k0maru.offload import locations

# an example: a line, and the groups a match captures (the ones that took part, in order; `()` for a
# pattern without groups), or None: the pattern must not read the line
Example = tuple[str, tuple[str, ...] | None]


@dataclass(frozen=True, slots=True)
class LinePattern:
    """One row: the pattern's name in `located`, the compiled pattern, what a match means, its
    examples, and how the layer applies it (`match` at the start of a line, or `search` in it)."""

    name: str
    regex: re.Pattern[str]
    meaning: str
    examples: tuple[Example, ...]
    how: Literal["match", "search"]


TABLE: list[LinePattern] = []


def _row(
    name: str,
    pattern: str,
    meaning: str,
    *examples: Example,
    how: Literal["match", "search"] = "match",
) -> re.Pattern[str]:
    """Compile `pattern` and add its row to the table."""
    regex = re.compile(pattern)
    TABLE.append(LinePattern(name, regex, meaning, examples, how))
    return regex


# the words a tool, syslog or Java names a level with
SEVERITY_NAMES = (
    r"error|Error|ERROR|fatal|FATAL|failed|FAILED|FAIL|Failure|warning|Warning|WARNING|note|Note"
    r"|NOTE|info|INFO|hint|Hint|ALERT|CRITICAL|SEVERE|EMERG"
)
SEVERITY_WORDS = "(?:error|warning|info|note|hint|style|fatal)"
# a rule id: `B506`, `lint/a/b`, `CKV_AWS_24`, `no-dupe-keys`, `Lint/UselessAssignment` (a
# department and a cop)
RULE = (
    r"[A-Z]{1,5}\d{2,5}|lint/[\w./-]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+|[a-z][a-z0-9]*(?:-[a-z0-9]+)+"
    r"|[A-Z][a-z]+(?:[A-Z][a-z]+)*/[A-Z]\w+"
)

SEVERITY = _row(
    "SEVERITY",
    rf"\b({SEVERITY_NAMES})\b",
    "a severity word anywhere in the line",
    ("x.c:3:5: error: expected ';'", ("error",)),
    ("[SEVERE] Config.java:12 bad value", ("SEVERE",)),
    ("errors: 0", None),
    how="search",
)
LEAD_SEVERITY = _row(
    "LEAD_SEVERITY",
    rf"^\W*\b({SEVERITY_NAMES})\b(?::\s*|\s+file=)$",  # SEVERITY, led by marks only
    "a severity that is all the text before a location says",
    ("::warning file=", ("warning",)),
    ("ERROR: ", ("ERROR",)),
    ("ERROR: in", None),
)
LEAD_TAG = _row(
    "LEAD_TAG",
    r"^\s*\[(ALERT|CRITICAL|SEVERE|EMERG)\]",
    "a syslog level tag opening the line, whatever follows it; not maven's `[ERROR]`, which also"
    " opens the frames of its own stack",
    ("[ALERT] (87) : config : parsing [x.cfg:15]", ("ALERT",)),
    ("[ERROR] /w/src/Ledger.java:[14,24] cannot find symbol", None),
)
RULE_AFTER = _row(
    "RULE_AFTER",
    rf"^[\s:,-]*(?:\d+:\d+ )?(?:(?:error|warning)\b:?\s*|[CWEFIR]: (?:\[\w+\] )?)?"
    rf"(?:({RULE})(?=[\s:\]/]|$)|\[(?!{SEVERITY_WORDS}\])({RULE}|[a-z]+)\])",
    "a rule right after the location, past a severity word or letter (applied to the text after"
    " the location)",
    (" lint/a/b", ("lint/a/b",)),
    (": E302 expected 2 blank lines", ("E302",)),
    (": W: Lint/UselessAssignment: Useless assignment", ("Lint/UselessAssignment",)),
    (": [indentation] wrong indentation", ("indentation",)),
    (": [error] syntax error", None),
)
RULE_END = _row(
    "RULE_END",
    r"[\[(]([A-Za-z][\w.-]*(?:/[\w.-]+)*|-Werror=[\w-]+)(?:,[^\])]*)?[\])]"
    r"(?:\s*[\[(](?:warning|error)[\])])?\s*$",
    "a rule in brackets or parentheses ending the line; one plain word only on a finding",
    ('x.py:3:5 - error: Argument of type "int" (reportArgumentType)', ("reportArgumentType",)),
    ("[x.c:4]: (error) Memory leak: p [memleak]", ("memleak",)),
    (
        "x.cpp:3:9: warning: y [clang-analyzer-x.Y,-warnings-as-errors]",
        ("clang-analyzer-x.Y",),
    ),
    ("x.js:1:1: Unexpected var (no-var) (warning)", ("no-var",)),
    (
        "x.c:5:7: error: 'x' is used uninitialized [-Werror=uninitialized]",
        ("-Werror=uninitialized",),
    ),
    ("x.c:5:7: error: expected ';' (at end)", None),
    how="search",
)
RULE_HEAD = _row(
    "RULE_HEAD",
    rf"^\W*(?:(?:Issue|Check|Rule):\s*\[?({RULE})(?=[\]:\s])"
    rf"|[x×✖]\s+[\w-]+\(({RULE})\):"
    rf"|[❯❱]+\s+({RULE})\s*$"
    rf"|-\s+hook id:\s+({RULE})\s*$"
    r"|([A-Z]{1,5}\d{2,5}) (?:\[\*\] )?[A-Z'\"‘`])",
    "a rule heading the lines of its finding: after a label, as a tool's `x eslint(rule):`, after"
    " `❯❱` marks, as pre-commit's failing hook, or a code first (ruff's `[*]`: a fix is available)",
    (">> Issue: [B506:yaml_load] Use of unsafe yaml load.", ("B506",)),
    ('Check: CKV_AWS_24: "Ensure no security groups allow ingress"', ("CKV_AWS_24",)),
    ("  x eslint(no-dupe-keys): Duplicate key 'a'", ("no-dupe-keys",)),
    ("    ❯❱ python-logger-credential-disclosure", ("python-logger-credential-disclosure",)),
    ("- hook id: check-yaml", ("check-yaml",)),
    ("E3002 Additional properties are not allowed", ("E3002",)),
    ("F401 [*] `os` imported but unused", ("F401",)),
    ("Issue: something went wrong", None),
)
STRICT = _row(
    "STRICT",
    r"(?i)warnings? (?:were |are )?treated as errors|with warnings treated as errors"
    r"|in strict mode|warnings-as-errors",
    "the log says warnings fail the run",
    ("error: warnings are treated as errors", ()),
    ("Sphinx: build finished with problems, 1 warning (with warnings treated as errors).", ()),
    ("vale: running in strict mode", ()),
    ("3 warnings", None),
    how="search",
)
BARE_PATH = _row(
    "BARE_PATH",
    rf"^\s*(?:==\s*\[|(?:In|File:?|FILE:|[✗✖×])\s+)?({locations._PATH})(?:\]\s*(FAIL)\b.*)?:?\s*$",
    "a line naming only a path: the header of a block of rows (`FAIL`: sqlfluff's header says"
    " the file failed)",
    ("src/app.js", ("src/app.js",)),
    ("In docs/intro.md", ("docs/intro.md",)),
    ("FILE: /w/src/Cart.php", ("/w/src/Cart.php",)),
    ("== [queries/x.sql] FAIL", ("queries/x.sql", "FAIL")),
    ("src/app.js:3:5 error", None),
)
LINE_ROW = _row(
    "LINE_ROW",
    r"(?:^|[\s(\[])(?:line (\d+)(?:,? (?:at )?col(?:umn)? (\d+))?|#(\d+):|(\d+):(\d+)(?=\s))"
    r"|^\s*(\d+) +\| ",
    "a row under a file's header that gives only a line (and maybe a column); phpcs's ` 7 |`"
    " under `FILE: x.php`",
    ('"very" is a weasel word on line 3 at column 19', ("3", "19")),
    ("error at line 19, col 1: unexpected token", ("19", "1")),
    ("  ✗ #4: Line too long (max_line_length)", ("4",)),
    ("H013 7:4 Attribute is not quoted", ("7", "4")),
    ("  7 | ERROR | [x] Opening brace should be on a new line", ("7",)),
    ("nothing numbered here", None),
    how="search",
)
ROW_CODE = _row(
    "ROW_CODE",
    r"^\W*([A-Z]{1,5}\d{2,5})\s|\(([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\)",
    "a code on a row under a file's header: leading it, or a snake_case rule in parentheses",
    ("H013 7:4 Attribute is not quoted", ("H013",)),
    ("  ✗ #4: Line too long (max_line_length)", ("max_line_length",)),
    ("line 3: too long (style)", None),
    how="search",
)
ROW = _row(
    "ROW",
    r"^\s*(?:L:\s*(\d+)\s*\|\s*P:\s*(\d+)\s*\|\s*(\w+)\s*\||L(\d+) \||(\d+)┆)",
    "a row under a file header: sqlfluff's `L: | P: | CODE |`, `L5 |`, semgrep's `12┆ code`",
    ("L:   4 | P:  17 | CP01 | Keywords must be consistently upper case.", ("4", "17", "CP01")),
    ("L5 | let x = 1", ("5",)),
    ("         12┆ yaml.load(data)", ("12",)),
    ("| P: 4", None),
)
ERL_FILE = _row(
    "ERL_FILE",
    r'\{file,\s*"([^"]+)"\}|^\s*"([^"]+\.[a-z]+)"\},?\s*$',
    "the file of an Erlang stack term (its line comes on a later line)",
    ('    [{file,"src/calc.erl"},', ("src/calc.erl",)),
    ('         "src/calc.erl"},', ("src/calc.erl",)),
    ("    {line,8}]}]", None),
    how="search",
)
ERL_LINE = _row(
    "ERL_LINE",
    r"\{line,\s*(\d+)\}",
    "the line of an Erlang stack term",
    ("     {line,8}]}]", ("8",)),
    ("    {file, 8}", None),
    how="search",
)
STYLISH = _row(
    "STYLISH",
    r"^[ \t]+(\d+):(\d+)(?:-\d+:\d+)?[ \t]+(error|warning|✖|⚠|×|✗)[ \t]+(.*?)\s*$",
    "a row of a stylish report under its file's header: line, column, level, the rest",
    (
        "  1:23  error  'x' is not defined  no-undef",
        ("1", "23", "error", "'x' is not defined  no-undef"),
    ),
    (
        "  3:3  ✖  Unexpected empty block  block-no-empty",
        ("3", "3", "✖", "Unexpected empty block  block-no-empty"),
    ),
    ("  8:1  error  Missing semicolon  (semi)", ("8", "1", "error", "Missing semicolon  (semi)")),
    ("1:23  error  not indented", None),
)
STYLISH_RULE = _row(
    "STYLISH_RULE",
    r"(?:\s{2,}|\s\()([\w@/.-]+)\)?$",
    "the rule ending a stylish row's text: after two spaces, or in parentheses",
    ("'x' is not defined  no-undef", ("no-undef",)),
    ("Missing semicolon (semi)", ("semi",)),
    ("Missing semicolon", None),
    how="search",
)
L_ROW_HINT = _row(
    "L_ROW_HINT",
    r"L\d+ \|",
    "a hint that a line may be an `L5 |` row (a scan with a literal prefix is fast, an"
    " alternation is not)",
    ("L5 | let x = 1", ()),
    ("L: 5 |", None),
    how="search",
)
LINE_HINT = _row(
    "LINE_HINT",
    r"line \d",
    "a hint that a line may give a `line 3`",
    ('"very" is a weasel word on line 3 at column 19', ()),
    ("line x", None),
    how="search",
)
NUMBER_HINT = _row(
    "NUMBER_HINT",
    r"#\d+: ",
    "a hint that a line may be a `#4: ` row",
    ("  ✗ #4: Line too long", ()),
    ("#4 done", None),
    how="search",
)
SAID_AFTER = _row(
    "SAID_AFTER",
    r"^\s*(?:\w+ )*?(error|Error|ERROR|fatal|Fatal|FATAL|warning|Warning)(?: \w+)?: [\w'\"‘]",
    'a severity that a line after a bare location gives it (OCaml\'s `Error:` under `File "x",'
    " line 3`, gfortran's `Error:` under `x.f90:17:15:`, `Fortran runtime error: ...`)",
    ("Error: Unbound value prnt", ("Error",)),
    ("Fortran runtime error: Index '11' of dimension 1", ("error",)),
    ("Warning Unused: variable x", ("Warning",)),
    ("  3 | let x = prnt 1", None),
)
NOTE_HEAD = _row(
    "NOTE_HEAD",
    r"^\W*(?:note|help|info|hint):",
    "a note heading the place on the next line (rustc's, clang's `note: ...`, then ` --> x.rs:1:9`)",
    ("note: the lint level is defined here", ()),
    ("error: unused variable", None),
)
RAISED = _row(
    "RAISED",
    r"^\s*\*\* \(([A-Z][\w.]*)\) ",
    "an exception raised there, named (Elixir)",
    ("** (ArithmeticError) bad argument in arithmetic expression", ("ArithmeticError",)),
    ("** (exit) shutdown", None),
)
CARET_RULE = _row(
    "CARET_RULE",
    r"^\s*\^[-^]*\s+([A-Z]{1,5}\d{2,5}) \((\w+)\):",
    "a caret under the source naming the rule and its level (shellcheck)",
    ("       ^-- SC2086 (info): Double quote to prevent globbing", ("SC2086", "info")),
    ("  ^ here", None),
)
STEP = _row(
    "STEP",
    r"^(?:Given|When|Then|And|But|\*)\s.*#$",
    "a BDD runner's step (behave, cucumber), applied to the text before the place of its"
    " definition, in a comment ending it",
    ("Then the total is 12  #", ()),
    ("Then the total is 12", None),
)
RULE_NEXT = _row(
    "RULE_NEXT",
    r"^\s+([A-Z]{1,5}\d{2,5}):? ",
    "a rule leading the line after its location (pydocstyle)",
    ("        D103: Missing docstring in public function", ("D103",)),
    ("D103: Missing docstring", None),
)
WORDS = _row(
    "WORDS",
    r"[A-Za-z]{2}",
    "the text says something: it holds a word, not only numbers and marks",
    ("  Unexpected token", ()),
    (" :12:5 ->", None),
    how="search",
)
RULE_LIKE = _row(
    "RULE_LIKE",
    r"\d|[-./_]|[a-z][A-Z]",
    "a token that is a rule id, not a word: a digit, a dash, a dot, a slash, an underscore or"
    " an inner capital (`B506`, `no-dupe-keys`, `toc.not_readable`, `reportX`)",
    ("reportArgumentType", ()),
    ("no-dupe-keys", ()),
    ("syntax", None),
    how="search",
)
STATUS_ROW = _row(
    "STATUS_ROW",
    r"^\|[^|]*\(L(\d+)\)\s*\|.*\b(?:MISSED|MISSING|FAILED|FAIL|ERROR)\b",
    "a table's row giving an item's line `(L4)` and a failing status (interrogate's coverage"
    " table), under the row of its file (`TABLE_FILE`)",
    ("| total (L4)                |      MISSED |", ("4",)),
    ("| tax (L8)                  |     COVERED |", None),
)
TABLE_FILE = _row(
    "TABLE_FILE",
    rf"^\|\s*({locations._PATH})(?=[\s|(])",
    "a table's row whose first cell names a file: the file of the status rows under it",
    ("| cart.py (module)          |     COVERED |", ("cart.py",)),
    ("| TOTAL  |   39 |", None),
)
LINE_REF_HINT = _row(
    "LINE_REF_HINT",
    r"\(L\d+\)",
    "a hint that a line may be a `STATUS_ROW`",
    ("| total (L4) | MISSED |", ()),
    ("(L) x", None),
    how="search",
)
CODE_ROW_HINT = _row(
    "CODE_ROW_HINT",
    r"(?m)^[A-Z]{1,5}\d{2,5} \d+:\d+ ",
    "a hint that a line may be a row led by its rule and `line:col` (djlint's `H013 7:4 ...` under"
    " its file's name): anchored at a line's start, so the scan stays cheap",
    ("H013 7:4 Img tag should have an alt attribute.", ()),
    ("  H013 7:4 indented", None),
    ("12:04:33 INFO started", None),
    how="search",
)
# lines the layer reads beside its trigger words (`┆`, `| P:`); one cheap pattern each
HINTS = (L_ROW_HINT, LINE_HINT, NUMBER_HINT, CODE_ROW_HINT, LINE_REF_HINT)
