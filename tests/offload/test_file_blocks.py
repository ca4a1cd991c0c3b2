"""Findings that tools print in blocks (#40, fifth round), read by the generic layer alone: a row
that gives only a line under its file's header, a file named alone whose path the log gave before,
a place whose message follows it, a finding in a file the log never names, tslint's `x.ts[3, 3]`,
a line said after its file, syslog levels, rules in brackets and pre-commit's hook ids. Each log is
a real tool's output, captured for rounds 4 and 5 (tests/data/logs/round4, round5)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from k0maru.offload.analyzer import LogAnalyzer
from k0maru.offload.findings import Findings, same_place
from k0maru.offload.locations import find_all
from k0maru.offload.runner import run_offload

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
ROUND4 = LOGS / "round4"


def findings_of(log: str) -> Findings:
    analyzer = LogAnalyzer(None)
    analyzer.feed((LOGS / log).read_text(encoding="utf-8"))
    return analyzer.close()


def root_of(log: str) -> str | None:
    return findings_of(log if "/" in log else f"round4/{log}").first_location


def summary_of(log: str, tmp_path: Path) -> str:
    out = io.BytesIO()
    outcome = run_offload(
        tmp_path, None, threshold=0, task_id="b", stdin=io.BytesIO((ROUND4 / log).read_bytes()),
        out=out, err=io.BytesIO(), progress=False, tree=tmp_path,
    )  # fmt: skip
    assert not outcome.passed_through
    return out.getvalue().decode()


@pytest.mark.parametrize(
    ("log", "root"),
    [
        ("csslint_ids_important.log", "css/part4.css:19"),  # `1: error at line 19, col 1`
        ("writegood_docs.log", "docs/intro.md:3"),  # `... on line 3 at column 19` under `In x`
        ("coffeelint_src.log", "src/app.coffee:4"),  # `✗ #4: ... (max_line_length) ...`
    ],
)
def test_a_row_giving_only_a_line_takes_its_files_header(log: str, root: str) -> None:
    assert same_place(root_of(log), root)


def test_a_file_named_alone_takes_the_path_the_log_gave_it_before() -> None:
    # fpc: `Compiling src/cart.pas`, then `cart.pas(11,20) Error: Identifier not found "totl"`
    assert root_of("fpc_identifier_not_found.log") == "src/cart.pas:11:20"


def test_tslint_places_are_read() -> None:
    line = "ERROR: (no-var-keyword) src/a_cart.ts[3, 3]: Forbidden 'var' keyword"
    assert [f[:3] for f in find_all(line)] == [("src/a_cart.ts", "3", "3")]
    assert root_of("tslint_many_files.log") == "src/a_cart.ts:3:3"


def test_frames_of_a_backtrace_under_a_file_are_not_findings() -> None:
    # guile: `In ice-9/boot-9.scm:` then `  1752:10  6 (with-exception-handler ...)`
    assert same_place(root_of("guile_unbound_variable.log"), "app/main.scm:5:57")


def test_a_place_that_only_names_itself_is_shown_with_what_follows_it(tmp_path: Path) -> None:
    analyzer = LogAnalyzer(None)  # pug-lint: the place, the source, then the message
    analyzer.feed((ROUND4 / "puglint_views.log").read_text(encoding="utf-8"))
    root = analyzer.close().root
    assert root is not None and root.location == "views/index.pug:4:8"
    assert "ID literals must not be used" in [text for _, text in root.lines or []]
    text = summary_of("guile_unbound_variable.log", tmp_path)  # `x.scm:5:57: In procedure f:`
    assert "Unbound variable: totl" in text
    text = summary_of("../round5/flow_check_many.log", tmp_path)  # `Error ----- src/cart.js:7:38`
    assert "Cannot call `total`" in text


def test_a_warning_in_a_file_the_log_never_names_is_the_failure_shown(tmp_path: Path) -> None:
    # tidy -e: `line 8 column 5 - Warning: <img> lacks "alt" attribute`, then a page of advice
    text = summary_of("tidy_html_page.log", tmp_path)
    assert "no failure recognised" not in text
    assert 'line 8 column 5 - Warning: <img> lacks "alt" attribute' in text
    assert root_of("tidy_html_page.log") is None  # no place is invented


@pytest.mark.parametrize(
    ("log", "root"),
    [
        ("round5/dot_syntax_error.log", "graphs/deps.dot:7"),  # `x.dot: syntax error in line 7`
        ("round5/xsltproc_bad_xpath.log", "xsl/report.xsl:8"),  # `file x.xsl line 8 element`
        ("round5/haproxy_unknown_keyword.log", "haproxy.cfg:15"),  # `[ALERT] ... [haproxy.cfg:15]`
        ("round5/phpcs_psr12_many.log", "src/Cart.php:7"),  # ` 7 | ERROR | ...` under `FILE: x`
        ("round5/cmake_lint_naming.log", "CMakeLists.txt:4"),  # `CMakeLists.txt:04,09:`
        ("round5/hlint_hints_many.log", "src/Billing.hs:4"),  # its `Warning:` before `Suggestion:`s
        ("round5/babel_syntax_verbose.log", "src/cart.js:4"),  # `SyntaxError: x.js: ... (4:28)`
    ],
)
def test_lines_said_after_their_file_and_syslog_levels(log: str, root: str) -> None:
    assert same_place(root_of(log), root)


@pytest.mark.parametrize(
    ("log", "code"),
    [
        ("round5/commitlint_conventional.log", "type-empty"),  # `✖ ... [type-empty]`
        ("round5/flow_check_many.log", "incompatible-type"),  # on the message under the place
        ("round5/precommit_local_hooks.log", "no-print"),  # `- hook id: no-print`
    ],
)
def test_rules_in_brackets_and_hook_ids_are_codes(log: str, code: str) -> None:
    assert code in findings_of(log).error_codes


def test_a_librarys_frame_saying_line_n_is_no_row_of_a_file_above_it() -> None:
    # green: a bare `tests.test_text` line, then `File ".../unittest/case.py", line 623, in run`
    root = root_of("round5/green_verbose_many.log")
    assert root is None or not root.startswith("tests.test_text:")


def test_a_findings_own_line_is_no_header_for_the_lines_after_it() -> None:
    # check: `x.c:113:F:...: Assertion ... failed`, then `x.c:121:P:...: Passed` rows
    assert root_of("check_stack_verbose.log") == "tests/check_stack.c:113"
