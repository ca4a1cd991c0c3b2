"""Output forms shared by many tools, read without a tool-specific extractor: one-line diagnostics
with a severity word or a program prefix, grouped `line:col` rows with a `✖` or a bracketed rule,
GitHub annotations, pnpm's code badges and JVM frames printed without `at` (in-process)."""

from __future__ import annotations

from k0maru.offload.analyzer import LogAnalyzer
from k0maru.offload.findings import Findings


def analyze(text: str) -> Findings:
    a = LogAnalyzer()
    a.feed(text)
    return a.close()


def test_a_severity_word_before_the_rule_code() -> None:
    f = analyze(
        "docs/a.md:3:41 error MD013/line-length Line length [Expected: 40; Actual: 67]\n"
        "docs/a.md:6 error MD004/ul-style Unordered list style\n"
    )
    assert f.error_codes == ["MD013", "MD004"]
    assert f.first_location == "docs/a.md:3:41"


def test_a_program_prefix_before_the_place() -> None:
    f = analyze("hadolint:build/Dockerfile:2: DL3008 warning: Pin versions in apt get install.\n")
    assert f.error_codes == ["DL3008"]
    assert f.first_location == "build/Dockerfile:2"


def test_grouped_rows_with_a_cross_or_a_bracketed_rule() -> None:
    f = analyze(
        "css/site.css\n"
        '  3:3   ✖  Unknown property "colr"   property-no-unknown\n'
        '  7:10  ✖  Invalid hex color "#ggg"  color-no-invalid-hex\n'
        "\n"
        "values.yaml\n"
        "  1:1       warning  missing document start\n"
        "  3:8       error    syntax error: mapping values are not allowed here (syntax)\n"
    )
    assert f.error_codes == ["property-no-unknown", "color-no-invalid-hex", "syntax"]
    assert f.first_location == "css/site.css:3:3"


def test_github_annotations_fail_on_errors_only() -> None:
    f = analyze(
        "::warning file=ci.yml,line=1,col=1::1:1 [document-start] missing document start\n"
        "::error file=ci.yml,line=7,col=5::7:5 [indentation] wrong indentation\n"
        "::error file=app.py,line=2,col=1,title=F401::unused import\n"
    )
    assert f.error_codes == ["indentation", "F401"]
    assert f.first_location == "ci.yml:7:5"


def test_a_pnpm_badge_is_a_code() -> None:
    f = analyze("\u2009ERR_PNPM_NO_SCRIPT\u2009 Missing script: build\n\nCommand not found.\n")
    assert f.error_codes == ["ERR_PNPM_NO_SCRIPT"]
    f = analyze("ERROR    root:test_x.py:10 boom\n\u2009ELIFECYCLE\u2009 Command failed\n")
    assert f.error_codes == ["ELIFECYCLE"]  # a padded log level is not a badge


def test_jvm_frames_without_at_skip_the_runners_own() -> None:
    f = analyze(
        "│     └─ addsLines() ✘ total ==> expected: <6> but was: <3>\n"
        "    => org.opentest4j.AssertionFailedError: total ==> expected: <6> but was: <3>\n"
        "       org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)\n"
        "       org.junit.jupiter.api.Assertions.assertEquals(Assertions.java:560)\n"
        "       demo.CartTest.addsLines(CartTest.java:12)\n"
        "       java.base/java.lang.reflect.Method.invoke(Method.java:569)\n"
    )
    assert "org.opentest4j.AssertionFailedError" in f.error_codes
    assert f.first_location == "CartTest.java:12"


def test_stylelint_unix_and_compact_forms() -> None:
    f = analyze(
        'src/app.css:2:16: Unknown unit "pixels" (unit-no-unknown) [error]\n'
        "src/app.css: line 5, col 3, error - Empty block (block-no-empty)\n"
        "src/app.css: line 6, col 1, warning - Unexpected empty line (empty-line)\n"
    )
    assert f.error_codes == ["unit-no-unknown", "block-no-empty"]
    assert f.first_location == "src/app.css:2:16"


def test_a_stack_under_npms_prefix_is_read() -> None:
    f = analyze(
        "npm error code 1\n"
        "npm error command sh -c node build.js\n"
        "npm error TypeError: Cannot read properties of undefined (reading 'split')\n"
        "npm error     at Object.<anonymous> (/w/dep/build.js:4:23)\n"
        "npm error     at Module._compile (node:internal/modules/cjs/loader:1521:14)\n"
    )
    assert f.root is not None and f.root.code == "TypeError"
    assert f.first_location == "/w/dep/build.js:4:23"


def test_a_java_cause_chain_through_native_frames_is_rooted_at_the_cause() -> None:
    f = analyze(
        "java.lang.IllegalStateException: bad price list\n"
        "\tat demo.Prices.load(Prices.java:12)\n"
        "\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)\n"
        "\tat org.junit.runners.ParentRunner.run(ParentRunner.java:413)\n"
        'Caused by: java.lang.NumberFormatException: For input string: "1999 EUR"\n'
        "\tat java.base/java.lang.Integer.parseInt(Integer.java:668)\n"
        "\tat demo.Prices.parseCents(Prices.java:5)\n"
        "\t... 29 more\n"
    )
    assert f.first_location == "Prices.java:5"
    assert f.root is not None and 'For input string: "1999 EUR"' in f.root.message
    assert "java.lang.NumberFormatException" in f.error_codes


def test_an_error_with_a_node_code_names_both() -> None:
    f = analyze(
        "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/w/base.js' imported from /w/x.js\n"
        "    at finalizeResolution (node:internal/modules/esm/resolve:283:11)\n"
    )
    assert {"Error", "ERR_MODULE_NOT_FOUND"} <= set(f.error_codes)
    assert f.first_location is None


def test_warnings_count_only_when_nothing_failed() -> None:
    strict = (
        "compose.yaml\n"
        '  1:1       warning  missing document start "---"  (document-start)\n'
        "  4:14      warning  truthy value should be one of [false, true]  (truthy)\n"
    )
    f = analyze(strict)
    assert f.error_codes == ["document-start", "truthy"]
    assert f.first_location == "compose.yaml:1:1"
    f = analyze(strict + "\nb.yaml\n  3:5       error    syntax error: bad (syntax)\n")
    assert f.error_codes == ["syntax"]
    assert f.first_location == "b.yaml:3:5"


def test_a_compact_place_without_a_severity_is_an_error() -> None:
    f = analyze("renovate.json: line 3, col 24, found: ']' - expected: 'STRING'.\n")
    assert f.first_location == "renovate.json:3:24"


def test_an_annotation_names_the_rule_before_its_title() -> None:
    f = analyze(
        "::error title=Ruff (F401),file=app.py,line=1,col=8::app.py:1:8: F401 `os` unused\n"
    )
    assert f.error_codes == ["F401"]


def test_a_failure_named_like_an_exception_is_a_code() -> None:
    f = analyze(
        "Error: Unable to parse 'x.json'; Unable to parse JSONC content,"
        " PropertyNameExpected (offset 34, length 1)\n"
    )
    assert "PropertyNameExpected" in f.error_codes


def test_gnu_dot_columns_chktex_and_dart_sass_frames_are_places() -> None:
    """Lines captured from bison 3.8, valac 0.56, chktex 1.7 and dart-sass 1.x."""
    f = analyze(
        "calc.y:7.7-11: error: symbol ‘IDENT’ is used, but is not defined as a token and has no rules\n"
        "    7 |     | IDENT\n"
    )
    assert f.first_location == "calc.y:7:7"
    f = analyze(
        "src/main.vala:3.12-3.16: error: Assignment: Cannot convert from `int' to `string?'\n"
    )
    assert f.first_location == "src/main.vala:3:12"
    f = analyze("Warning 18 in paper.tex line 4: Use either `` or '' as an alternative to `\"'.\n")
    assert f.first_location == "paper.tex:4"
    f = analyze(
        "Error: Undefined variable.\n  ╷\n5 │   border-color: $accent;\n  │                 ^^^^^^^\n"
        "  ╵\n  styles/main.scss 5:17  root stylesheet\n"
    )
    assert f.first_location == "styles/main.scss:5:17"
    assert (
        analyze("built with python 3.11.2: ok\nversion 1.2.3 12:30 done\n").first_location is None
    )


def test_a_severity_letter_before_a_department_rule_and_an_elixir_raise() -> None:
    f = analyze(
        "lib/greeter.rb:6:5: W: Lint/UselessAssignment: Useless assignment to variable - unused.\n"
        "lib/greeter.rb:7:5: C: [Correctable] Style/StringLiterals: Prefer single-quoted strings.\n"
    )
    assert f.error_codes[:2] == ["Lint/UselessAssignment", "Style/StringLiterals"]
    assert f.first_location == "lib/greeter.rb:6:5"
    f = analyze(
        "  1) test mean of nothing (StatsTest)\n     test/stats_test.exs:6\n"
        "     ** (ArithmeticError) bad argument in arithmetic expression\n"
    )
    assert f.error_codes == ["ArithmeticError"]
    assert f.first_location == "test/stats_test.exs:6"
