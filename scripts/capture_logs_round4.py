"""Capture issue #40's fourth held-out half: failing runs of tools no earlier corpus held (Haskell,
Pascal, Ada, D, VHDL, Common Lisp, Scheme, R, awk, C unit-test frameworks, HTML/XML checkers, prose
and CSS/Solidity/TypeScript linters, copy-paste detection, ...), into tests/data/logs/round4/.

Each case is a tiny project with a planted bug, run in a scratch folder; its combined output is
stored byte for byte. Its expectations (each `case`'s, written to `round4/expectations.json`) were
written from the planted bug before any capture and any k0maru run, then checked against the raw log
alone (`--check`: each code, the root's file name and the cause occur in the log); each later fix is
noted in round4/NOTES.md. Several projects are generated (many passing tests, many files with a few
findings among them) so that at least half of the logs are longer than 60 lines, some with the first
failure deep in the output and not the last one.

Needs the tools on PATH (`--bin DIR` prepends folders): pip (pyflakes yapf rstcheck cmakelint
proselint djlint bashate xenon darglint), npm (csslint @coffeelint/cli pug-lint solhint tslint
typescript@4.9.5 -- tslint crashes on TypeScript 5 -- textlint textlint-rule-no-todo alex write-good
ejs-lint jscpd; `--node-modules` names their node_modules, linked into the textlint project for its
rule), Debian (ghc fpc gnat ghdl gdc sbcl guile-3.0 tcc tidy xmlstarlet gawk r-base-core
r-cran-testthat check libcunit1-dev pkg-config), gcc.

    python capture_logs_round4.py [--out DIR] [--only NAME ...] [--bin DIR ...] [--check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capture_logs_tools import Half, d  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "data" / "logs" / "round4"

HALF = Half()
case = HALF.case


# --- Python-side linters and formatters
# ------------------------------------------------------------
_HANDLERS = {
    f"app/handlers/h{i:02d}.py": (
        f"import logging\nimport os\nimport re\nimport sys\n\nlog = logging.getLogger({i})\n\n\n"
        f"def handle_{i}(text):\n    return re.sub('x', '{i}', text)\n"
    )
    for i in range(1, 31)
}
case(
    "pyflakes_undefined_name",
    "pyflakes",
    "lint-python",
    {
        **_HANDLERS,
        "app/billing.py": d("""
        def subtotal(items):
            return sum(i.price for i in items)


        def total(items, tax):
            return totl * (1 + tax)
        """),
        "app/report.py": d("""
        import os
        import json


        def render(rows):
            out = []
            for row in rows:
                out.append(json.dumps(row))
            return "\\n".join(out)


        def render(rows):
            return str(rows)
        """),
    },
    ["pyflakes", "app/billing.py", "app/report.py"]
    + [f"app/handlers/h{i:02d}.py" for i in range(1, 31)],
    codes=[],
    root="app/billing.py:6",
    cause="undefined name 'totl'",
)


def _yapf_source() -> str:
    head = '"""Arithmetic helpers."""\nimport math\n\n'
    body = "".join(
        f"def op_{i}( a,b ):\n    x=a+b*{i}\n    return math.floor( x )\n\n\n" for i in range(1, 16)
    )
    return head + body


case(
    "yapf_diff_long",
    "yapf",
    "format-python",
    {"src/calc.py": _yapf_source(), "src/__init__.py": ""},
    ["yapf", "--diff", "--recursive", "src"],
    codes=[],
    root="src/calc.py:4",
    cause="(reformatted)",
)
case(
    "rstcheck_targets",
    "rstcheck",
    "lint-docs",
    {
        "docs/index.rst": d("""
        Project
        =======

        See the `install guide`_ for details.

        Usage
        -----

        Run it.
        """),
        "docs/usage.rst": d("""
        A very long title
        ====

        Text.
        """),
    },
    ["rstcheck", "docs/index.rst", "docs/usage.rst"],
    codes=[],
    root="docs/index.rst:4",
    cause="Unknown target name",
)
case(
    "cmakelint_style",
    "cmakelint",
    "lint-cmake",
    {
        "CMakeLists.txt": d("""
        cmake_minimum_required(VERSION 3.16)
        project(demo C)
        Add_Executable(demo main.c)
        target_compile_options(demo PRIVATE -Wall -Wextra -Wpedantic -Werror -O2 -g -fno-omit-frame-pointer)
        """),
    },
    ["cmakelint", "CMakeLists.txt"],
    codes=["readability/wonkycase", "linelength"],
    root="CMakeLists.txt:3",
    cause="mixed case",
)
case(
    "proselint_essay",
    "proselint",
    "lint-text",
    {
        "docs/essay.md": d("""
        # On testing

        Testing is very unique in that it never ends.

        In the year of 2024, we decided to rewrite everything.

        At this point in time the suite is slow.

        We will revert back to the old runner if needed.

        The results were very unique and very surprising.

        Each and every test must pass, and the end result is what counts.

        It is absolutely essential that the past history of failures is kept.

        The new innovation is to plan ahead and to reply back quickly.
        """),
    },
    ["proselint", "check", "docs/essay.md"],
    codes=["lexical_illusions", "uncomparables"],
    root="docs/essay.md:1",
    cause="There's a lexical illusion",
)


def _djlint_pages() -> dict[str, str]:
    files = {
        "base.html": d("""
        <!DOCTYPE html>
        <html lang="en">
        <head>
            <title>{% block title %}{% endblock %}</title>
        </head>
        <body>
            <img src="/logo.png">
            {% block content %}{% endblock %}
        </body>
        </html>
        """)
    }
    for i in range(1, 21):
        files[f"page_{i}.html"] = d(f"""
        {{% extends "base.html" %}}
        {{% block content %}}
        <div class="page-{i}">
            <h1>Page {i}</h1>
            <img src="/img/{i}.png">
            <a href="/next/{i}" onclick="go({i})">Next</a>
            <p>Text {i}</p>
        </div>
        {{% endblock %}}
        """)
    return files


case(
    "djlint_templates",
    "djlint",
    "lint-html-template",
    _djlint_pages(),
    ["djlint", ".", "--lint"],
    codes=["H013"],
    root="base.html:7",
    cause="Img tag should have an alt attribute",
)
case(
    "bashate_scripts",
    "bashate",
    "lint-shell",
    {
        "scripts/build.sh": d("""
        #!/bin/bash
        set -e
        if [ -d build ]; then
          rm -rf build
        fi
        mkdir build
        """),
        "scripts/deploy.sh": d("""
        #!/bin/bash
        for host in a b c
        do
            echo "deploy $host"
        done
        """),
        **{
            f"scripts/job{i:02d}.sh": (
                f'#!/bin/bash\nset -e\nwhile read -r line\ndo\n    echo "job {i}: $line" \nDONE\n'.replace(
                    "DONE", "done"
                )
                + "if true; then\n  echo ok\nfi\n"
            )
            for i in range(1, 21)
        },
    },
    ["bashate", "scripts/build.sh", "scripts/deploy.sh"]
    + [f"scripts/job{i:02d}.sh" for i in range(1, 21)],
    codes=["E003", "E010"],
    root="scripts/build.sh:4",
    cause="Indent not multiple of 4",
)
case(
    "xenon_complexity",
    "xenon",
    "lint-complexity",
    {
        "src/__init__.py": "",
        "src/util.py": "def add(a, b):\n    return a + b\n",
        "src/rules.py": d("""
        def classify(order):
            kind = "plain"
            if order.get("vip"):
                kind = "vip"
            elif order.get("bulk") and order.get("qty", 0) > 100:
                kind = "bulk"
            elif order.get("gift"):
                kind = "gift"
            for item in order.get("items", []):
                if item.get("fragile"):
                    kind += "-fragile"
                if item.get("cold") or item.get("frozen"):
                    kind += "-cold"
                while item.get("retry"):
                    item["retry"] -= 1
            if order.get("country") not in ("FR", "DE") and order.get("express"):
                kind += "-intl"
            try:
                kind = kind.upper() if order["upper"] else kind
            except KeyError:
                pass
            return kind
        """),
    },
    ["xenon", "--max-absolute", "B", "src"],
    codes=[],
    root="src/rules.py:1",
    cause="has a rank of",
)
case(
    "darglint_docstrings",
    "darglint",
    "lint-docstring",
    {
        "src/geo.py": d('''
        """Geometry."""


        def area(width, height):
            """Return the area.

            Args:
                width: the width.

            Returns:
                The area.

            """
            return width * height


        def scale(value, factor):
            """Scale a value.

            Args:
                value: the value.
                factor: the factor.

            """
            return value * factor
        '''),
    },
    ["darglint", "src/geo.py"],
    codes=["DAR101", "DAR201"],
    root="src/geo.py:7",
    cause="- height",
)


# --- compiled languages
# ----------------------------------------------------------------------------
case(
    "ghc_type_mismatch",
    "ghc",
    "haskell",
    {
        "src/Types.hs": d("""
        module Types where

        data Item = Item { name :: String, price :: Int }
        """),
        "src/Util.hs": d("""
        module Util (total, label) where

        import Types

        total :: [Item] -> Int
        total = sum . map price

        label :: Item -> Int
        label item = name item ++ ": " ++ show (price item)
        """),
        "src/Main.hs": d("""
        module Main where

        import Types
        import Util

        main :: IO ()
        main = print (total [Item "a" 1, Item "b" 2])
        """),
    },
    ["ghc", "-isrc", "-outputdir", "build", "src/Main.hs"],
    codes=[],
    root="src/Util.hs:9",
    cause="Couldn't match",
)
case(
    "fpc_identifier_not_found",
    "fpc",
    "pascal",
    {
        "src/cart.pas": d("""
        unit cart;

        interface

        function Total(a, b: Integer): Integer;

        implementation

        function Total(a, b: Integer): Integer;
        begin
          Total := a + b + totl;
        end;

        end.
        """),
        "src/shop.pas": d("""
        program shop;

        uses cart;

        begin
          writeln(Total(1, 2));
        end.
        """),
    },
    ["fpc", "-vewnhi", "-Fusrc", "-FEbuild", "src/shop.pas"],
    setup=[["mkdir", "-p", "build"]],
    codes=[],
    root="src/cart.pas:11",
    cause='Identifier not found "totl"',
)
case(
    "gnatmake_undefined",
    "gnatmake",
    "ada",
    {
        "stock.ads": d("""
        package Stock is
           function Level (Count : Integer) return Integer;
        end Stock;
        """),
        "stock.adb": d("""
        package body Stock is
           function Level (Count : Integer) return Integer is
              Total : Integer := 0;
           begin
              Total := Count * 2;
              return Totl;
           end Level;
        end Stock;
        """),
        "main.adb": d("""
        with Ada.Text_IO;
        with Stock;

        procedure Main is
        begin
           Ada.Text_IO.Put_Line (Integer'Image (Stock.Level (3)));
        end Main;
        """),
    },
    ["gnatmake", "main.adb"],
    codes=[],
    root="stock.adb:6",
    cause='"Totl" is undefined',
)
case(
    "ghdl_no_declaration",
    "ghdl",
    "vhdl",
    {
        "counter.vhd": d("""
        library ieee;
        use ieee.std_logic_1164.all;
        use ieee.numeric_std.all;

        entity counter is
          port (clk : in std_logic; q : out unsigned(3 downto 0));
        end entity;

        architecture rtl of counter is
          signal count : unsigned(3 downto 0) := (others => '0');
        begin
          process (clk) begin
            if rising_edge(clk) then
              count <= cnt + 1;
            end if;
          end process;
          q <= count;
        end architecture;
        """),
    },
    ["ghdl", "-a", "counter.vhd"],
    codes=[],
    root="counter.vhd:14",
    cause='no declaration for "cnt"',
)
case(
    "gdc_undefined_identifier",
    "gdc",
    "d-compile",
    {
        "src/util.d": d("""
        module util;

        int twice(int x) { return 2 * x; }
        """),
        "src/app.d": d("""
        module app;

        import std.stdio;
        import util;

        int score(int[] xs) {
            int total = 0;
            foreach (x; xs) total += twice(x);
            return totl;
        }

        void main() {
            string s = score([1, 2, 3]);
            writeln(s);
        }
        """),
    },
    ["gdc", "-Isrc", "-o", "app", "src/app.d", "src/util.d"],
    codes=[],
    root="src/app.d:9",
    cause="undefined identifier",
)
case(
    "tcc_undeclared",
    "tcc",
    "c-compile",
    {
        "src/main.c": d("""
        #include <stdio.h>

        static int sum(const int *xs, int n) {
            int total = 0;
            for (int i = 0; i < n; i++)
                total += xs[i];
            return totl;
        }

        int main(void) {
            int xs[] = {1, 2, 3};
            printf("%d\\n", sum(xs, 3));
            return 0;
        }
        """),
    },
    ["tcc", "-Wall", "-o", "main", "src/main.c"],
    codes=[],
    root="src/main.c:7",
    cause="'totl' undeclared",
)


# --- runtimes and test frameworks
# ------------------------------------------------------------------
case(
    "guile_unbound_variable",
    "guile",
    "scheme",
    {
        "app/main.scm": d("""
        (define (mean xs)
          (/ (apply + xs) (length xs)))

        (define (report xs)
          (display (string-append "mean: " (number->string (mean totl))))
          (newline))

        (display "starting")
        (newline)
        (let loop ((i 1))
          (when (<= i 45)
            (display (string-append "loaded record " (number->string i)))
            (newline)
            (loop (+ i 1))))
        (report '(1 2 3))
        """),
    },
    ["guile", "--fresh-auto-compile", "-s", "app/main.scm"],
    codes=[],
    root="app/main.scm:5",
    cause="totl",
)


def _sbcl_script() -> str:
    rows = "\n".join(
        f'(format t "row ~a: ~a~%" {i} (safe-ratio {i * 3} {i}))' for i in range(1, 41)
    )
    return (
        d("""
    (defun safe-ratio (a b) (/ a b))

    (defun average-per-day (total days)
      (safe-ratio total days))

    """)
        + rows
        + d("""

    (format t "days: ~a~%" 0)
    (format t "avg: ~a~%" (average-per-day 120 0))
    """)
    )


case(
    "sbcl_division_by_zero",
    "sbcl",
    "common-lisp",
    {"report.lisp": _sbcl_script()},
    ["sbcl", "--script", "report.lisp"],
    codes=["DIVISION-BY-ZERO"],
    root="",
    cause="arithmetic error DIVISION-BY-ZERO signalled",
)


def _r_tests() -> dict[str, str]:
    ok = "\n\n".join(
        f'test_that("mean_of works for case {i}", {{\n  expect_equal(mean_of(c({i}, {i + 2})), {i + 1})\n}})'
        for i in range(1, 46)
    )
    return {
        "stats.R": d("""
        mean_of <- function(xs) sum(xs) / length(xs)
        median_of <- function(xs) sort(xs)[ceiling(length(xs) / 2)]
        parse_price <- function(text) {
          value <- as.numeric(text)
          if (is.na(value)) stop("not a price: ", text)
          value
        }
        """),
        "helper-load.R": 'source("stats.R", keep.source = TRUE)\n',
        "test-mean.R": ok + "\n",
        "test-median.R": d("""
        test_that("median of odd length", {
          expect_equal(median_of(c(3, 1, 2)), 2)
        })

        test_that("median of even length", {
          expect_equal(median_of(c(1, 2, 3, 4)), 2.5)
        })

        test_that("prices parse", {
          expect_equal(parse_price("12"), 12)
          expect_equal(parse_price("twelve"), 12)
        })
        """),
    }


case(
    "rscript_testthat_tap",
    "Rscript",
    "r-test",
    _r_tests(),
    ["Rscript", "-e", "testthat::test_dir('.', reporter = 'tap')"],
    codes=[],
    root="",
    cause="not equal to",
)


def _gawk_files() -> dict[str, str]:
    rows = "".join(f"item{i} {i * 10} {1 if i != 70 else 0}\n" for i in range(1, 80))
    return {
        "data/sales.txt": rows,
        "report.awk": d("""
        # columns: name amount units
        {
            unit = $2 / $3
            printf "%-8s %6d %8.2f\\n", $1, $2, unit
            total += $2
        }
        END { print "total", total }
        """),
    }


case(
    "gawk_division_by_zero",
    "gawk",
    "awk",
    _gawk_files(),
    ["gawk", "-f", "report.awk", "data/sales.txt"],
    codes=[],
    root="report.awk:3",
    cause="division by zero attempted",
)

_STACK_C = d("""
#include "stack.h"

void stack_init(Stack *s) { s->n = 0; }
void stack_push(Stack *s, int v) { s->v[s->n++] = v; }
int stack_pop(Stack *s) { return s->v[--s->n]; }
int stack_peek(const Stack *s) { return s->v[s->n]; }
int stack_size(const Stack *s) { return s->n; }
""")
_STACK_H = d("""
typedef struct { int v[64]; int n; } Stack;
void stack_init(Stack *s);
void stack_push(Stack *s, int v);
int stack_pop(Stack *s);
int stack_peek(const Stack *s);
int stack_size(const Stack *s);
""")


def _check_tests() -> str:
    out = ["#include <check.h>", "#include <stdlib.h>", '#include "../src/stack.h"', ""]
    names = []
    for i in range(1, 61):
        if i == 14:
            out += [
                "START_TEST(test_peek_top)",
                "{",
                "    Stack s; stack_init(&s);",
                "    stack_push(&s, 1); stack_push(&s, 2);",
                "    ck_assert_int_eq(stack_peek(&s), 2);",
                "}",
                "END_TEST",
                "",
            ]
            names.append("test_peek_top")
        elif i == 45:
            out += [
                "START_TEST(test_peek_keeps_size)",
                "{",
                "    Stack s; stack_init(&s);",
                "    stack_push(&s, 7);",
                "    ck_assert_int_eq(stack_peek(&s), 7);",
                "}",
                "END_TEST",
                "",
            ]
            names.append("test_peek_keeps_size")
        else:
            out += [
                f"START_TEST(test_push_pop_{i})",
                "{",
                "    Stack s; stack_init(&s);",
                f"    stack_push(&s, {i});",
                f"    ck_assert_int_eq(stack_pop(&s), {i});",
                "}",
                "END_TEST",
                "",
            ]
            names.append(f"test_push_pop_{i}")
    out += ["int main(void)", "{", '    Suite *s = suite_create("stack");',
            '    TCase *tc = tcase_create("core");']  # fmt: skip
    out += [f"    tcase_add_test(tc, {n});" for n in names]
    out += [
        "    suite_add_tcase(s, tc);",
        "    SRunner *sr = srunner_create(s);",
        "    srunner_run_all(sr, CK_VERBOSE);",
        "    int failed = srunner_ntests_failed(sr);",
        "    srunner_free(sr);",
        "    return failed ? EXIT_FAILURE : EXIT_SUCCESS;",
        "}",
        "",
    ]
    return "\n".join(out)


# test_peek_top starts on line 4 + 13*8 + 1 = 109; its assertion is the 5th line of the block: 113
case(
    "check_stack_verbose",
    "check",
    "c-test",
    {"src/stack.h": _STACK_H, "src/stack.c": _STACK_C, "tests/check_stack.c": _check_tests()},
    [
        "sh",
        "-c",
        "mkdir -p build && gcc -Wall -o build/check_stack tests/check_stack.c src/stack.c "
        "$(pkg-config --cflags --libs check) && ./build/check_stack",
    ],
    codes=[],
    root="tests/check_stack.c:113",
    cause="Assertion 'stack_peek(&s) == 2' failed",
)


def _cunit_tests() -> str:
    out = ["#include <CUnit/Basic.h>", '#include "../src/stack.h"', ""]
    names = []
    for i in range(1, 51):
        if i == 9:
            out += ["static void test_size_after_pop(void)", "{",
                    "    Stack s; stack_init(&s); stack_push(&s, 1); stack_push(&s, 2);",
                    "    stack_pop(&s);", "    CU_ASSERT_EQUAL(stack_size(&s), 2);", "}", ""]  # fmt: skip
            names.append("test_size_after_pop")
        elif i == 40:
            out += ["static void test_peek_empty_push(void)", "{",
                    "    Stack s; stack_init(&s); stack_push(&s, 5);",
                    "    CU_ASSERT_EQUAL(stack_peek(&s), 5);", "}", ""]  # fmt: skip
            names.append("test_peek_empty_push")
        else:
            out += [f"static void test_push_{i}(void)", "{",
                    f"    Stack s; stack_init(&s); stack_push(&s, {i});",
                    f"    CU_ASSERT_EQUAL(stack_pop(&s), {i});", "}", ""]  # fmt: skip
            names.append(f"test_push_{i}")
    out += ["int main(void)", "{", "    CU_initialize_registry();",
            '    CU_pSuite suite = CU_add_suite("stack", NULL, NULL);']  # fmt: skip
    out += [f'    CU_add_test(suite, "{n}", {n});' for n in names]
    out += ["    CU_basic_set_mode(CU_BRM_VERBOSE);", "    CU_basic_run_tests();",
            "    unsigned failed = CU_get_number_of_failures();", "    CU_cleanup_registry();",
            "    return failed ? 1 : 0;", "}", ""]  # fmt: skip
    return "\n".join(out)


# tests 1..8 take 6 lines each from line 4: test_size_after_pop starts at 52, its assert on 56
case(
    "cunit_stack_verbose",
    "cunit",
    "c-test",
    {"src/stack.h": _STACK_H, "src/stack.c": _STACK_C, "tests/test_stack.c": _cunit_tests()},
    [
        "sh",
        "-c",
        "mkdir -p build && gcc -Wall -o build/test_stack tests/test_stack.c src/stack.c -lcunit "
        "&& ./build/test_stack",
    ],
    codes=[],
    root="tests/test_stack.c:56",
    cause="CU_ASSERT_EQUAL(stack_size(&s),2)",
)


# --- markup, prose and style checkers -------------------------------------------------------------
def _tidy_page() -> str:
    cards = "".join(
        f'  <div class="card">\n    <img src="/img/{i}.png">\n    <p>Card {i}</p>\n  </div>\n'
        for i in range(1, 41)
    )
    return (
        "<!DOCTYPE html>\n<html>\n<head>\n<title>Shop</title>\n</head>\n<body>\n"
        + cards
        + "  <blink>sale</blink>\n  <table><tr><td>1</td></table>\n</body>\n</html>\n"
    )


case(
    "tidy_html_page",
    "tidy",
    "html-check",
    {"site/index.html": _tidy_page()},
    ["tidy", "-e", "site/index.html"],
    codes=[],
    root="",
    cause='lacks "alt" attribute',
)
case(
    "xmlstarlet_xsd_invalid",
    "xmlstarlet",
    "xml-check",
    {
        "schema/order.xsd": d("""
        <?xml version="1.0"?>
        <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
          <xs:element name="order">
            <xs:complexType>
              <xs:sequence>
                <xs:element name="item" maxOccurs="unbounded">
                  <xs:complexType>
                    <xs:sequence>
                      <xs:element name="sku" type="xs:string"/>
                      <xs:element name="qty" type="xs:integer"/>
                    </xs:sequence>
                  </xs:complexType>
                </xs:element>
              </xs:sequence>
            </xs:complexType>
          </xs:element>
        </xs:schema>
        """),
        "data/a_ok.xml": "<order><item><sku>A1</sku><qty>2</qty></item></order>\n",
        "data/b_bad.xml": d("""
        <?xml version="1.0"?>
        <order>
          <item>
            <sku>B7</sku>
            <qty>1</qty>
          </item>
          <item>
            <sku>C3</sku>
            <qty>two</qty>
          </item>
        </order>
        """),
    },
    ["xmlstarlet", "val", "-e", "-s", "schema/order.xsd", "data/a_ok.xml", "data/b_bad.xml"],
    codes=[],
    root="data/b_bad.xml:9",
    cause="is not a valid value of the atomic type",
)


def _css_files() -> dict[str, str]:
    files = {}
    for i in range(1, 13):
        rules = "".join(
            f".box-{i}-{j} {{\n  width: {j * 10}px;\n  padding: 4px;\n  color: red;\n}}\n\n"
            for j in range(1, 4)
        )
        files[f"css/part{i}.css"] = rules
    for i in (4, 7, 9, 11):
        files[f"css/part{i}.css"] += "#header {\n  color: blue !important;\n}\n"
    return files


case(
    "csslint_ids_important",
    "csslint",
    "lint-css",
    _css_files(),
    ["csslint", "--errors=ids,important"] + [f"css/part{i}.css" for i in range(1, 13)],
    codes=[],
    root="css/part4.css:19",
    cause="Don't use IDs in selectors.",
)
case(
    "coffeelint_src",
    "coffeelint",
    "lint-coffeescript",
    {
        "src/app.coffee": d("""
        square = (x) -> x * x

        greet = (name) ->
          console.log "hello there #{name}, this line is far longer than the eighty characters allowed"

        greet "bob"
        """),
        "src/util.coffee": "cube = (x) -> x * x * x   \n",
    },
    ["coffeelint", "src/app.coffee", "src/util.coffee"],
    codes=["max_line_length", "no_trailing_whitespace"],
    root="src/app.coffee:4",
    cause="Line exceeds maximum allowed length",
)
case(
    "puglint_views",
    "pug-lint",
    "lint-template",
    {
        ".pug-lintrc.json": '{"disallowIdLiterals": true, "requireStrictEqualityOperators": true}\n',
        "views/index.pug": d("""
        doctype html
        html
          body
            div#main
              p Hello
              if count == 1
                p one
        """),
        "views/about.pug": d("""
        html
          body
            section#about
              h1 About
              if team.length == 0
                p nobody
              if page != 'about'
                p elsewhere
        """),
        "views/contact.pug": d("""
        html
          body
            form#contact(action="/send")
              input(name="email")
              if errors.length != 0
                p.error check the form
        """),
    },
    ["pug-lint", "views/index.pug", "views/about.pug", "views/contact.pug"],
    codes=[],
    root="views/index.pug:4",
    cause="ID literals must not be used",
)


def _sol_files() -> dict[str, str]:
    files = {
        ".solhint.json": json.dumps(
            {
                "rules": {
                    "avoid-tx-origin": "error",
                    "no-unused-vars": "error",
                    "func-visibility": ["error", {"ignoreConstructors": True}],
                }
            }
        )
        + "\n",  # fmt: skip
        "contracts/A_Vault.sol": d("""
        // SPDX-License-Identifier: MIT
        pragma solidity ^0.8.0;

        contract Vault {
            address owner;

            function withdraw() public {
                require(tx.origin == owner, "not owner");
            }
        }
        """),
    }
    for i in range(1, 11):
        files[f"contracts/Token{i}.sol"] = d(f"""
        // SPDX-License-Identifier: MIT
        pragma solidity ^0.8.0;

        contract Token{i} {{
            uint256 total;

            function mint(uint256 amount) {{
                uint256 unused = {i};
                total += amount;
            }}

            function burn(uint256 amount) {{
                require(tx.origin != address(0));
                total -= amount;
            }}
        }}
        """)
    return files


case(
    "solhint_contracts",
    "solhint",
    "lint-solidity",
    _sol_files(),
    ["solhint", "contracts/*.sol"],
    codes=["avoid-tx-origin", "func-visibility", "no-unused-vars"],
    root="contracts/Token9.sol:7",
    cause="Explicitly mark visibility in function",
)


def _ts_files() -> dict[str, str]:
    files = {
        "tslint.json": json.dumps(
            {
                "rules": {
                    "no-var-keyword": true_,
                    "triple-equals": true_,
                    "no-console": true_,
                    "prefer-const": true_,
                }
            }
        )
        + "\n",  # fmt: skip
    }
    files["src/a_cart.ts"] = d("""
    export function total(prices: number[]): number {
      let sum = 0;
      var count = 0;
      for (const p of prices) {
        sum += p;
        count++;
      }
      return sum;
    }
    """)
    for i in range(1, 17):
        files[f"src/m{i:02d}.ts"] = d(f"""
        export function check{i}(x: number): boolean {{
          let limit = {i};
          if (x == limit) {{
            console.log("hit {i}");
          }}
          var y = x + 1;
          return y != 0;
        }}
        """)
    return files


true_ = True
case(
    "tslint_many_files",
    "tslint",
    "lint-typescript",
    _ts_files(),
    ["tslint", "-t", "verbose", "-c", "tslint.json", "src/**/*.ts"],
    codes=["no-var-keyword", "triple-equals", "no-console", "prefer-const"],
    root="src/a_cart.ts:3",
    cause="Forbidden 'var' keyword",
)
case(
    "textlint_no_todo",
    "textlint",
    "lint-text",
    {
        "docs/guide.md": d("""
        # Guide

        - [ ] write the intro

        Install it with the installer.

        TODO: explain the options.
        """),
        "docs/faq.md": "# FAQ\n\nNothing yet.\n",
        **{
            f"docs/ch{i:02d}.md": f"# Chapter {i}\n\nSome text.\n\n- [ ] add example {i}\n\nTODO: review {i}\n"
            for i in range(1, 17)
        },
    },
    ["textlint", "--rule", "no-todo", "docs/guide.md", "docs/faq.md"]
    + [f"docs/ch{i:02d}.md" for i in range(1, 17)],
    setup=[["ln", "-s", "{node_modules}", "node_modules"]],
    codes=["no-todo"],
    root="docs/guide.md:3",
    cause="Found TODO",
)
case(
    "alex_docs",
    "alex",
    "lint-text",
    {
        "docs/contributing.md": d("""
        # Contributing

        When a contributor opens a pull request, he should run the tests.

        Ask a maintainer; she will review it.
        """),
    },
    ["alex", "docs/contributing.md"],
    codes=["retext-equality"],
    root="docs/contributing.md:3",
    cause="may be insensitive",
)
case(
    "writegood_docs",
    "write-good",
    "lint-text",
    {
        "docs/intro.md": d("""
        # Intro

        The config file is obviously read by the loader.

        It was decided that tests are run nightly.

        The cache is basically rebuilt when the index is updated by the worker.

        Errors are logged and the request is retried by the client.

        It is very easy to configure, and the defaults are really quite sensible.

        In order to deploy, the build is uploaded and the servers are restarted.

        Reports are generated weekly and are emailed to the team by the scheduler.
        """),
    },
    ["write-good", "docs/intro.md"],
    codes=[],
    root="docs/intro.md:3",
    cause="is a weasel word",
)
case(
    "ejslint_syntax",
    "ejslint",
    "lint-template",
    {
        "views/page.ejs": d("""
        <h1><%= title %></h1>
        <ul>
        <% items.forEach(function (item) { %>
          <li><%= item.name %></li>
        <% }) %>
        <% if (user { %>
          <p>hi</p>
        <% } %>
        </ul>
        """),
    },
    ["ejslint", "views/page.ejs"],
    codes=[],
    root="views/page.ejs:6",
    cause="Unexpected token",
)


def _jscpd_files() -> dict[str, str]:
    block = "".join(
        f"  if (order.kind === 'k{j}') {{\n    total += order.qty * {j} + fee(order, {j});\n  }}\n"
        for j in range(1, 9)
    )
    files = {}
    for name in ("checkout.js", "invoice.js"):
        files[name] = (
            "'use strict';\n\nfunction fee(order, n) {\n  return order.base * n;\n}\n\n"
            f"function price(order) {{\n  let total = 0;\n{block}  return total;\n}}\n\n"
            "module.exports = { price };\n"
        )
    files["other.js"] = "module.exports = function add(a, b) {\n  return a + b;\n};\n"
    return files


case(
    "jscpd_duplicates",
    "jscpd",
    "lint-duplication",
    _jscpd_files(),
    ["jscpd", "--threshold", "0", "--reporters", "console", "."],
    codes=[],
    root="checkout.js:1",
    cause="found too many duplicates",
)


def main() -> None:
    HALF.main(__doc__, OUT)


if __name__ == "__main__":
    main()
