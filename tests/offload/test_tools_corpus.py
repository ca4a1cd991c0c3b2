"""The issue #40 corpus, dev half (tests/data/logs/tools): tools no other corpus held, read by the
findings layer; the summary never says "no failures" of a failing log, never costs more than the
log. In-process: the fast tier."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from k0maru.offload.analyzer import LogAnalyzer
from k0maru.offload.findings import Findings, same_place
from k0maru.offload.runner import OffloadOutcome, run_offload

DATA = Path(__file__).parents[1] / "data" / "logs" / "tools"
EXPECTATIONS = json.loads((DATA / "expectations.json").read_text())
# the two logs the layers do not root yet (a jasmine failure list, a Nim stack), kept visible here
NOT_YET = {"jasmine_spec.log", "nim_runtime_index.log"}


def analyze(text: str) -> Findings:
    a = LogAnalyzer()
    a.feed(text)
    return a.close()


@pytest.mark.parametrize("log", sorted(set(EXPECTATIONS) - NOT_YET))
def test_tools_log_root_and_codes(log: str) -> None:
    want = EXPECTATIONS[log]
    findings = analyze((DATA / log).read_text())
    assert set(want["codes"]) <= set(findings.error_codes), findings.error_codes
    if want["root"]:
        assert same_place(findings.first_location, want["root"]), findings.first_location
    else:
        assert findings.first_location is None, findings.first_location


def test_rows_under_a_file_header_are_findings_with_their_rules() -> None:
    f = analyze(
        "== [models/a.sql] FAIL\n"
        "L:   4 | P:  17 | CP01 | Keywords must be consistently upper case.\n"
        "L:   5 | P:   2 | AL01 | Implicit aliasing of table.\n"
    )
    assert f.first_location == "models/a.sql:4:17"
    assert f.error_codes == ["CP01", "AL01"]


def test_a_rule_after_a_place_is_a_code_and_the_first_finding_is_the_root() -> None:
    f = analyze(
        "src/a.js:13:7 lint/suspicious/noSelfCompare ━━━━\n\n  × This comparison uses the same"
        " expression on both sides.\n\nsrc/a.js:13:9 lint/suspicious/noDoubleEquals ━━━━\n"
    )
    assert f.first_location == "src/a.js:13:7"
    assert f.error_codes == ["lint/suspicious/noSelfCompare", "lint/suspicious/noDoubleEquals"]


def test_a_place_then_error_lines_later_is_the_root() -> None:
    f = analyze(
        'File "bin/main.ml", line 12, characters 26-29:\n12 |   describe avg "bob"\n'
        "                               ^^^\nError: This expression has type int\n"
    )
    assert f.first_location == "bin/main.ml:12"


def test_warnings_treated_as_errors_put_the_first_warning_first() -> None:
    f = analyze(
        "docs/index.rst:4: WARNING: toctree contains reference to nonexisting document 'x'\n"
        "docs/usage.rst:6: ERROR: Error in directive\n"
        "build finished with problems, 2 warnings (with warnings treated as errors).\n"
    )
    assert f.first_location == "docs/index.rst:4"


def _offload(text: str, tmp_path: Path) -> tuple[OffloadOutcome, str]:
    out = io.BytesIO()
    outcome = run_offload(
        tmp_path, None, threshold=0, task_id="t", stdin=io.BytesIO(text.encode()), out=out,
        err=io.BytesIO(), progress=False, tree=tmp_path,
    )  # fmt: skip
    return outcome, out.getvalue().decode()


def test_a_failing_log_with_nothing_recognised_never_says_no_failures(tmp_path: Path) -> None:
    text = "".join(f"INFO    -  step {i} of the documentation build\n" for i in range(400))
    text += "WARNING -  Doc file 'a.md' contains a link 'b.md', but the target is not found.\n"
    text += "\nAborted with 1 warnings in strict mode!\n"
    outcome, shown = _offload(text, tmp_path)
    assert outcome.record is not None
    assert "no failures recognised" not in shown
    assert "Aborted with 1 warnings in strict mode!" in shown


def test_a_summary_never_has_more_words_than_the_log(tmp_path: Path) -> None:
    text = "x.py:1: unused import 'os' (90% confidence)\nx.py:2: unused import 'json'\n"
    outcome, shown = _offload(text, tmp_path)
    assert outcome.passed_through and shown == text


def test_a_tests_declared_location_is_not_a_finding() -> None:
    f = analyze(
        "not ok 1 - pops\n  ---\n  location: '/w/test/q.test.mjs:5:1'\n"
        "  error: 'Cannot read properties of undefined'\n  stack: |-\n"
        "    pop (file:///w/lib/q.mjs:2:29)\n"
    )
    assert f.first_location == "/w/lib/q.mjs:2:29"


@pytest.fixture
def generic_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every extractor switched off but the generic layers: what they read alone."""
    from k0maru.offload import analyzer
    from k0maru.offload.extractors import all_extractors
    from k0maru.offload.findings import GENERIC_STACKS

    stacks = {cls.stack for cls in all_extractors()} - GENERIC_STACKS
    monkeypatch.setattr(analyzer, "SWITCHED_OFF", stacks)


@pytest.mark.usefixtures("generic_only")
def test_a_stylish_report_under_its_files_header_is_read_row_by_row() -> None:
    f = analyze(
        "\nsrc/lease.js\n  1:23  error  'unused' is defined but never used  no-unused-vars\n"
        "  2:33  error  'undefinedThing' is not defined     no-undef\n\n"
        'ci.yml\n  1:1       warning  missing document start "---"  (document-start)\n'
        '  8:1       error    duplication of key "jobs" in mapping  (key-duplicates)\n'
    )
    assert f.first_location == "src/lease.js:1:23"
    assert f.error_codes == ["no-unused-vars", "no-undef", "key-duplicates"]


@pytest.mark.usefixtures("generic_only")
def test_files_without_an_extension_are_places() -> None:
    f = analyze(
        "hadolint:build/Dockerfile:4: DL3011 error: Valid UNIX ports range from 0 to 65535\n"
    )
    assert f.first_location == "build/Dockerfile:4"
    assert f.error_codes == ["DL3011"]


@pytest.mark.usefixtures("generic_only")
def test_makes_recipe_line_is_not_the_root() -> None:
    f = analyze(
        "src/unit012.c:3:16: error: 'pad_width' undeclared (first use in this function)\n"
        "make: *** [Makefile:7: src/unit012.o] Error 1\n"
    )
    assert f.first_location == "src/unit012.c:3:16"


@pytest.mark.usefixtures("generic_only")
def test_a_caret_naming_a_rule_under_a_place_is_a_finding() -> None:
    f = analyze(
        "\nIn deploy.sh line 2:\nfiles=$(ls *.log)\n"
        "           ^-- SC2035 (info): Use ./*glob* or -- *glob* so names won't become options.\n"
    )
    assert f.first_location == "deploy.sh:2"
    assert f.error_codes == ["SC2035"]


@pytest.mark.usefixtures("generic_only")
def test_rules_beside_a_place_in_every_spelling_are_codes() -> None:
    f = analyze(
        "backup.sh:4:7: note: Double quote to prevent globbing and word splitting. [SC2086]\n"
        "docs/guide.md:1 error MD022/blanks-around-headings Headings should be surrounded\n"
        'src/app.css:2:16: Unknown unit "pixels" (unit-no-unknown) [error]\n'
        "::error file=ci.yml,line=7,col=5::7:5 [indentation] wrong indentation: expected 6\n"
    )
    assert set(f.error_codes) == {"MD022", "unit-no-unknown", "indentation"}
    assert f.first_location == "docs/guide.md:1"


@pytest.mark.usefixtures("generic_only")
def test_a_severity_before_a_place_is_its_own_but_a_frames_is_not() -> None:
    f = analyze(
        "::warning file=ci.yml,line=1,col=1::1:1 [document-start] missing document start\n"
        "::error file=ci.yml,line=7,col=5::7:5 [indentation] wrong indentation\n"
        "[ERROR] \tat org.apache.maven.Fork.fork(Fork.java:669)\n"
    )
    assert f.first_location == "ci.yml:7:5"


@pytest.mark.usefixtures("generic_only")
@pytest.mark.parametrize(
    ("log", "code"),
    [
        ("error[E0502]: cannot borrow `v` as mutable\n --> src/lib.rs:3:5\n", "E0502"),
        ("panic: assignment to entry in nil map\n\ngoroutine 1 [running]:\n", "panic"),
        ("thread 'tests::renew' (25571) panicked at src/lib.rs:11:9:\n", "panic"),
        ("==20291==ERROR: LeakSanitizer: detected memory leaks\n", "LeakSanitizer"),
        ("WARNING: ThreadSanitizer: data race (pid=17541)\n", "data race"),
        ("==================\nWARNING: DATA RACE\n", "DATA RACE"),
        (
            "ov.c:4:34: runtime error: signed integer overflow: 2147483647 + 1\n",
            "signed integer overflow",
        ),
        ("fatal error: all goroutines are asleep - deadlock!\n", "deadlock"),
        (
            "lease.c:7:5: error: 'x' is used uninitialized [-Werror=uninitialized]\n",
            "-Werror=uninitialized",
        ),
    ],
)
def test_runtime_and_compiler_codes_are_read_without_their_extractors(log: str, code: str) -> None:
    assert code in analyze(log).error_codes


def test_a_rule_ending_a_compiler_style_line_is_its_code() -> None:
    f = analyze(
        "src/buf.c:7:10: error: Array 'a[10]' accessed at index 10, which is out of bounds."
        " [arrayIndexOutOfBounds]\n        a[i] = i;\n         ^\n"
        "src/copy.cpp:7:10: error: Dereference of null pointer (loaded from variable 'tmp')"
        " [clang-analyzer-core.NullDereference,-warnings-as-errors]\n"
    )
    assert f.first_location == "src/buf.c:7:10"
    assert {"arrayIndexOutOfBounds", "clang-analyzer-core.NullDereference"} <= set(f.error_codes)


BDD = (
    "  Scenario: discount                     # features/cart.feature:7\n"
    "    Given an empty cart                  # features/steps/cart_steps.py:4\n"
    "    Then the discounted total is 18      # features/steps/cart_steps.py:19\n"
    "      ASSERT FAILED: expected 18, got 1\n\n"
    "Failing scenarios:\n  features/cart.feature:7  discount\n"
)


def test_a_bdd_step_with_lines_under_it_is_the_root() -> None:
    f = analyze(BDD)
    assert f.first_location == "features/steps/cart_steps.py:19"


def test_a_frame_under_a_failing_step_places_it() -> None:
    f = analyze(
        "    When I add 2 apples         # features/step_definitions/cart_steps.rb:5\n"
        "    Then the cart holds 2 items # features/step_definitions/cart_steps.rb:10\n"
        "      expected 2 items, got 3 (RuntimeError)\n"
        "      ./features/step_definitions/cart_steps.rb:11:in `block in <top (required)>'\n"
        "      features/cart.feature:6:in `Then the cart holds 2 items'\n\n"
    )
    assert f.first_location == "features/step_definitions/cart_steps.rb:11"


@pytest.mark.usefixtures("generic_only")
def test_a_bracketed_level_before_a_summary_line_is_not_its_severity() -> None:
    """Maven's `[ERROR]   CartTest.addsLines:12 ...` summary is not a finding: the frame is the
    root."""
    f = analyze((DATA.parent / "maven_junit5_e_flag.log").read_text())
    assert f.first_location == "CartTest.java:12"


def test_a_rule_heading_a_quoted_message_is_its_places_code() -> None:
    f = analyze(
        "E3002 Additional properties are not allowed ('BucketNam' was unexpected)\n"
        "template.yaml:6:7\n\nE3012 'abc' is not of type 'integer'\ntemplate.yaml:10:7\n"
    )
    assert f.first_location == "template.yaml:6:7"
    assert {"E3002", "E3012"} <= set(f.error_codes)


def test_an_uncaught_ocaml_exception_names_its_constructor() -> None:
    f = analyze(
        'Exception: Failure "bad port: http".\n'
        'Raised at Stdlib.failwith in file "stdlib.ml", line 29, characters 17-33\n'
    )
    assert "Failure" in f.error_codes


def test_a_place_under_its_findings_heading_says_what_the_heading_says() -> None:
    # checkov: `Check: CKV_AWS_24: "Ensure no ..."`, then `File: /main.tf:5-13` two lines below
    root = analyze((DATA / "checkov_s3.log").read_text()).root
    assert root is not None and root.code == "CKV_AWS_24"
    assert root.message.startswith('Check: CKV_AWS_24: "Ensure no security groups allow ingress')


# bandit 1.9.4 on a module with four findings, its report cut to the findings (a real run's lines)
BANDIT = "".join(
    f">> Issue: [{rule}] {message}\n   Severity: Low   Confidence: High\n"
    f"   More Info: https://bandit.readthedocs.io/en/1.9.4/\n   Location: svc/cache.py:{line}\n"
    f"{line.split(':')[0]}\t    code\n\n{'-' * 50}\n"
    for rule, message, line in [
        ("B403:blacklist", "Consider possible security implications associated with pickle module.", "3:0"),
        ("B324:hashlib", "Use of weak MD5 hash for security. Consider usedforsecurity=False", "7:11"),
        ("B301:blacklist", "Pickle and modules that wrap it can be unsafe when used to deserialize untrusted data, possible security issue.", "12:15"),
        ("B101:assert_used", "Use of assert detected. The enclosed code will be removed when compiling to optimised byte code.", "16:4"),
    ]
)  # fmt: skip


def test_a_summary_lists_the_first_failure_of_each_other_code() -> None:
    from k0maru.offload import summary

    findings = analyze(BANDIT)
    text = summary.render(
        command="bandit -r svc", findings=findings, exit_code=1, lines=40, raw_tokens=5000,
        log_rel="refs/x.log.gz", node_id="x",
    )  # fmt: skip
    # the place's line says nothing but the place: the finding's heading is what it says
    assert "first failure: svc/cache.py:3:0  B403: >> Issue: [B403:blacklist] Consider" in text
    others = text.split("other failures:\n", 1)[1].split("\ninspect:", 1)[0].splitlines()
    # the root's code is the first failure's line, not repeated; at most MAX_GROUPS groups in all
    assert [line.split()[:2] for line in others] == [
        ["svc/cache.py:7:11", "B324:"], ["svc/cache.py:12:15", "B301:"], ["svc/cache.py:16:4", "B101:"]
    ]  # fmt: skip
    assert "B324: >> Issue: [B324:hashlib] Use of weak MD5 hash for security." in text


@pytest.mark.usefixtures("generic_only")
def test_a_failure_named_in_a_rules_title_is_a_marker(tmp_path: Path) -> None:
    # pytest's `____ ERROR at setup of x ____` above the fixture's frame, without its extractor
    log = (DATA / "pytest_setup_error_first.log").read_bytes()
    out = io.BytesIO()
    outcome = run_offload(
        tmp_path, None, threshold=0, task_id="t", stdin=io.BytesIO(log), out=out,
        err=io.BytesIO(), progress=False, tree=tmp_path,
    )  # fmt: skip
    assert outcome.findings is not None and outcome.findings.first_location == "tests/conftest.py:9"
    assert "ERROR at setup of test_uses_settings" in out.getvalue().decode()


def test_a_logs_colour_escapes_are_no_words() -> None:
    from k0maru.offload.runner import more_words

    # cargo's coloured `test result:` line: an escape run alone between two spaces
    log = "test result: \x1b[1m\x1b[92m FAILED\x1b[0m. 0 passed\n"
    assert more_words("a b c d e f", log)  # 6 words against the 5 the log shows
    assert not more_words("a b c d e", log)


def test_no_summary_has_more_words_than_the_coloured_log_it_stands_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # without the rust extractor this log's summary comes within a few words of the log's 124
    from k0maru.offload import analyzer

    monkeypatch.setattr(analyzer, "SWITCHED_OFF", {"rust"})
    log = (DATA.parent / "cargo_test_color_panic.log").read_bytes()
    out = io.BytesIO()
    outcome = run_offload(
        tmp_path, None, threshold=0, task_id="t", stdin=io.BytesIO(log), out=out,
        err=io.BytesIO(), progress=False, tree=tmp_path,
    )  # fmt: skip
    shown = out.getvalue().decode()
    visible = analyzer.ANSI.sub("", log.decode())
    assert outcome.passed_through or len(shown.split()) <= len(visible.split())


def _generic_summary(log: Path, tmp_path: Path) -> tuple[OffloadOutcome, str]:
    outcome, shown = _offload(log.read_text(), tmp_path)
    assert outcome.findings is not None
    return outcome, shown


@pytest.mark.usefixtures("generic_only")
def test_a_jvm_exceptions_cause_is_the_failure_where_it_was_thrown(tmp_path: Path) -> None:
    # the frames of the wrapper, then `Caused by:` past the marker's first 30 lines, in maven's log
    outcome, shown = _generic_summary(DATA.parent / "maven_junit4_caused_by.log", tmp_path)
    assert outcome.findings is not None
    assert outcome.findings.first_location == "Prices.java:5"
    assert 'For input string: "1999 EUR"' in shown
    f = analyze((DATA.parent / "java_caused_by.log").read_text())
    assert f.first_location == "App.java:6"
    assert "java.lang.NumberFormatException" in f.error_codes


@pytest.mark.usefixtures("generic_only")
def test_a_python_traceback_is_one_failure_named_by_its_last_line(tmp_path: Path) -> None:
    outcome, shown = _generic_summary(
        DATA.parent / "python_thread_exception_then_logs.log", tmp_path
    )
    assert outcome.findings is not None
    root = outcome.findings.root
    assert root is not None and root.location is not None
    assert root.code == "KeyError" and root.location.endswith("sync.py:9")
    assert "KeyError: 'rows'" in shown
    assert "threading.py" not in shown  # a library's frame is no failure line


@pytest.mark.usefixtures("generic_only")
def test_a_failures_own_report_inside_a_runners_block_is_shown(tmp_path: Path) -> None:
    # nextest's `FAIL` line, its captured stdout, then the panic and its `left:`/`right:` lines
    outcome, shown = _generic_summary(DATA.parent / "cargo_nextest_fail.log", tmp_path)
    assert outcome.findings is not None
    assert outcome.findings.first_location == "src/lib.rs:11:9"
    assert "left: 11" in shown
    assert "rust_begin_unwind" not in shown and "/rustc/" not in shown


@pytest.mark.usefixtures("generic_only")
def test_python_frames_above_an_exception_line_locate_it() -> None:
    f = analyze((DATA.parent / "python_syntax_error.log").read_text())
    assert f.first_location is not None and f.first_location.endswith("bad.py:1")
    # a runner printing its frames without a `Traceback` line (green, unittest's own output)
    frames = "".join(
        f'  File "/usr/lib/python3.11/unittest/case.py", line {n}, in run\n    step()\n'
        for n in (57, 623)
    )
    f = analyze(
        "Failure in tests.test_text.TestSlug.test_trailing_space\n" + frames
        + '  File "/w/tests/test_text.py", line 8, in test_trailing_space\n'
        + '    self.assertEqual(slugify("a "), "a")\n' + frames
        + "AssertionError: 'a-' != 'a'\n"
    )  # fmt: skip
    assert f.first_location == "/w/tests/test_text.py:8"


@pytest.mark.usefixtures("generic_only")
def test_a_code_before_a_fix_mark_heads_its_finding() -> None:
    f = analyze((DATA.parent / "ruff_check.log").read_text())
    assert f.first_location == "app.py:1:8"
    assert "F401" in f.error_codes


@pytest.mark.usefixtures("generic_only")
def test_a_notes_place_is_not_where_the_build_failed() -> None:
    # rustc's `note: the lint level is defined here` then ` --> src/main.rs:1:9`, then
    # `error: could not compile` six lines on
    f = analyze((DATA.parent / "cargo_build_deny_uncoded.log").read_text())
    assert f.first_location == "src/main.rs:7:20"


@pytest.mark.usefixtures("generic_only")
def test_a_rule_named_twice_beside_its_place_gives_both_codes() -> None:
    f = analyze("lib/x.py:4:0: W0611: Unused import json (unused-import)\n")
    assert f.error_codes == ["W0611", "unused-import"]


@pytest.mark.usefixtures("generic_only")
def test_a_truncated_exception_name_is_a_code() -> None:
    # pytest's short summary cuts the message: `FAILED x.py::t - AssertionError...`
    f = analyze((DATA.parent / "pytest_q_long_message.log").read_text())
    assert "AssertionError" in f.error_codes


def test_a_failure_without_a_place_keeps_the_logs_last_lines(tmp_path: Path) -> None:
    rows = "".join(f"| mod_{i:02}.py | 3 | 1 | 2 | 67% |\n" for i in range(60))
    text = rows + "| TOTAL | 180 | 60 | 120 | 66.7% |\n---- RESULT: FAILED (minimum: 90.0%) ----\n"
    outcome, shown = _offload(text, tmp_path)
    assert outcome.findings is not None
    assert outcome.record is not None and outcome.findings.first_location is None
    assert "| TOTAL | 180 | 60 | 120 | 66.7% |" in shown
    assert "| mod_59.py |" in shown


def test_a_stack_that_never_ends_keeps_the_generic_layer_bounded() -> None:
    # a stack's frames hold a report open; what it keeps of them is bounded all the same
    from k0maru.offload.extractors.generic import KEPT_LINES, MAX_ROWS, GenericExtractor

    head = 'Exception in thread "main" java.lang.StackOverflowError\n'
    frames = "".join(
        f"\tat java.base/java.util.Obj.m{i}(Obj.java:1)\n\tat demo.App.step(App.java:{i % 90 + 1})\n"
        for i in range(3_000)
    )
    a = LogAnalyzer()
    a.feed(head + frames)
    generic = next(e for e in a.extractors if isinstance(e, GenericExtractor))
    assert generic.marker is not None  # still open: frames do not spend its window
    assert len(generic.found) <= MAX_ROWS
    findings = a.close()
    assert findings.first_location == "App.java:1"
    assert len(findings.library_rows) <= MAX_ROWS * KEPT_LINES
