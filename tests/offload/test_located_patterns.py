"""The findings layer's line patterns, one test per example of their table
(`offload.extractors.located_patterns`): each row's rule judged without the corpus of logs; and
a few of those lines through the layer itself, as the finding they become (the fast tier)."""

from __future__ import annotations

import pytest

from k0maru.offload.analyzer import LogAnalyzer
from k0maru.offload.extractors import located, located_patterns
from k0maru.offload.extractors.located_patterns import TABLE, Example, LinePattern

CASES = [
    pytest.param(row, example, id=f"{row.name}-{i}")
    for row in TABLE
    for i, example in enumerate(row.examples)
]


@pytest.mark.parametrize(("row", "example"), CASES)
def test_every_example_means_what_its_row_says(row: LinePattern, example: Example) -> None:
    line, want = example
    m = row.regex.match(line) if row.how == "match" else row.regex.search(line)
    if want is None:
        assert m is None, f"{row.name} must not read {line!r}: {row.meaning}"
    else:
        assert m is not None, f"{row.name} must read {line!r}: {row.meaning}"
        assert tuple(g for g in m.groups() if g is not None) == want


def test_every_row_is_named_as_the_layer_uses_it() -> None:
    names = [row.name for row in TABLE]
    assert len(names) == len(set(names))
    for row in TABLE:
        assert getattr(located_patterns, row.name) is row.regex
        assert row.meaning and row.examples
        assert any(want is not None for _, want in row.examples), row.name
    assert located.HINTS == located_patterns.HINTS


def findings_of(log: str) -> list[tuple[str | None, str]]:
    analyzer = LogAnalyzer(None)
    analyzer.feed(log)
    return [(f.location, f.code) for f in analyzer.close().failures]


# (the row, a log holding its example, the failures the layer makes of it: place and code)
LAYER = [
    ("RULE_AFTER", "x.py:1:1: E302 expected 2 blank lines\n", [("x.py:1:1", "E302")]),
    (
        "RULE_END",
        'x.py:3:5 - error: Argument of type "int" (reportArgumentType)\n',
        [("x.py:3:5", "reportArgumentType")],
    ),
    (
        "RULE_HEAD",
        ">> Issue: [B506:yaml_load] Use of unsafe yaml load.\n   Location: app/x.py:9:15\n",
        [("app/x.py:9:15", "B506")],
    ),
    (
        "ROW",
        "== [queries/x.sql] FAIL\nL:   4 | P:  17 | CP01 | Keywords must be upper case.\n",
        [("queries/x.sql:4:17", "CP01")],
    ),
    (
        "LINE_ROW",
        'In docs/intro.md\n  "very" is a weasel word on line 3 at column 19 error\n',
        [("docs/intro.md:3:19", "error")],
    ),
    (
        "STYLISH",
        "/w/src/app.js\n  1:23  error  'x' is not defined  no-undef\n",
        [("/w/src/app.js:1:23", "no-undef")],
    ),
    (
        "SAID_AFTER",
        "x.f90:17:15:\n\n   17 |   x = y\n      |   1\nError: Symbol y at (1) has no IMPLICIT type\n",
        [("x.f90:17:15", "error")],
    ),
    (
        "CARET_RULE",
        "In run.sh line 4:\necho $1\n     ^-- SC2086 (error): Double quote to prevent globbing\n",
        [("run.sh:4", "SC2086")],
    ),
    (
        "RAISED",
        "lib/calc.ex:8\n** (ArithmeticError) bad argument in arithmetic\n",
        [("lib/calc.ex:8", "ArithmeticError")],
    ),
    (
        "ERL_LINE",
        '    [{file,"src/calc.erl"},\n     {line,8}]}]\n',
        [("src/calc.erl:8", "error")],
    ),
]


@pytest.mark.parametrize(
    ("log", "want"), [pytest.param(log, want, id=name) for name, log, want in LAYER]
)
def test_the_layer_makes_a_finding_of_the_example(
    log: str, want: list[tuple[str | None, str]]
) -> None:
    assert findings_of(log) == want
