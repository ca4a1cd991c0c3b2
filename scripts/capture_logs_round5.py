"""Capture issue #40's fifth held-out half: failing runs of tools no earlier corpus held (CI
workflow and commit-message linters, pre-commit, unittest-style runners nose2/green/trial, uvu and
lab for JavaScript, spell checking, HTML validation, JS bundlers and compilers, Flow, Stylus,
protobuf linting, docstring coverage, doc builders pandoc/asciidoctor, Haskell/PHP/C#/COBOL/Verilog
tools, Graphviz, DNS and proxy config checkers, XSLT, flex), into tests/data/logs/round5/.

Each case is a tiny project with a planted bug, written to its own scratch folder (`--cases DIR`,
one folder per case, the cwd of the run); the tool's combined output is stored byte for byte. Its
expectations (each `case`'s, written to `round5/expectations.json`) were written from the planted
bug before any capture and any k0maru run, then checked against the raw log alone (`--check`: each
code, the root's file name and the cause occur in the log); each later fix is noted in
round5/NOTES.md. Several projects are generated (many passing tests, many files with findings after
the first one) so that at least half of the logs are longer than 60 lines, most with the first
failure not the last thing printed.

Needs the tools on PATH (`--bin DIR` prepends folders): pip (zizmor nose2 green twisted interrogate
pre-commit sphinx-lint pymarkdownlnt cmakelang gitlint), npm (uvu @hapi/lab @hapi/code cspell
html-validate esbuild @babel/cli @babel/core @commitlint/cli @commitlint/config-conventional
@bufbuild/buf flow-bin terser stylus; `--node-modules` names their node_modules, linked into the
cases that import from it), Debian (pandoc asciidoctor hlint php-codesniffer mono-mcs verilator
graphviz bind9-utils gnucobol xsltproc flex haproxy), git.

    python capture_logs_round5.py [--out DIR] [--cases DIR] [--only NAME ...] [--bin DIR ...]
                                  [--node-modules DIR] [--check]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capture_logs_tools import Case, Half, d, run_case, write_expectations  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "data" / "logs" / "round5"

HALF = Half()
case = HALF.case
LINK_NODE_MODULES = [["ln", "-s", "{node_modules}", "node_modules"]]
GIT_REPO = [["git", "init", "-q"], ["git", "add", "-A"]]


# --- CI workflows, hooks and commit messages
# ------------------------------------------------------------
def _workflows() -> dict[str, str]:
    files = {
        ".github/workflows/triage.yml": d("""
        name: triage
        on:
          issues:
            types: [opened]
        permissions: {}
        jobs:
          label:
            runs-on: ubuntu-latest
            steps:
              - run: echo "${{ github.event.issue.title }}"
        """)
    }
    for i in range(1, 9):
        files[f".github/workflows/preview_{i:02d}.yml"] = d(f"""
        name: preview {i}
        on: pull_request
        permissions: {{}}
        jobs:
          preview:
            runs-on: ubuntu-latest
            steps:
              - run: echo "branch ${{{{ github.head_ref }}}} step {i}"
        """)
    return files


_WORKFLOWS = _workflows()
case(
    "zizmor_template_injection",
    "zizmor",
    "lint-ci",
    _WORKFLOWS,
    ["zizmor", "--offline", *_WORKFLOWS],
    codes=["template-injection"],
    root=".github/workflows/preview_01.yml:8",
    cause="code injection via template expansion",
)


def _precommit_files() -> dict[str, str]:
    files = {
        ".pre-commit-config.yaml": d(r"""
        repos:
          - repo: local
            hooks:
              - id: always-ok
                name: sanity check
                language: system
                entry: "true"
                pass_filenames: false
              - id: no-tabs
                name: no tab characters
                language: pygrep
                entry: "\t"
                types: [python]
              - id: no-print
                name: no print calls
                language: pygrep
                entry: '^\s*print\('
                types: [python]
              - id: no-todo
                name: no TODO markers
                language: pygrep
                entry: "TODO"
        """),
        "src/app.py": d("""
        import json


        def checkout(order):
            total = sum(line["price"] for line in order["lines"])
            order["total"] = total
            print("debug", order)
            return json.dumps(order)
        """),
    }
    for i in range(1, 31):
        files[f"src/jobs/job_{i:02d}.py"] = d(f"""
        def run_{i}(queue):
            item = queue.pop()
            print("job {i}", item)  # TODO remove
            return item
        """)
    return files


case(
    "precommit_local_hooks",
    "pre-commit",
    "hooks",
    _precommit_files(),
    ["pre-commit", "run", "--all-files"],
    codes=["no-print"],
    root="src/app.py:7",
    cause='print("debug", order)',
    setup=GIT_REPO,
    env={"PRE_COMMIT_HOME": "{cases}/.pre-commit-home"},
)
case(
    "commitlint_conventional",
    "commitlint",
    "lint-commit",
    {
        "commitlint.config.js": "module.exports = { extends: ['@commitlint/config-conventional'] };\n",
        "COMMIT_MSG": "Added the new export Feature.\n",
    },
    ["commitlint", "--edit", "COMMIT_MSG"],
    codes=["subject-empty", "type-empty"],
    root="",
    cause="subject may not be empty",
    setup=[["git", "init", "-q"], *LINK_NODE_MODULES],
)
case(
    "gitlint_message",
    "gitlint",
    "lint-commit",
    {
        "COMMIT_MSG": d("""
        Refactored the whole billing module so that invoices are computed lazily.
        Also fixed tests.
        """),
    },
    ["gitlint", "--msg-filename", "COMMIT_MSG"],
    codes=["T1", "T3", "B6"],
    root="",
    cause="Title exceeds max length",
    setup=[["git", "init", "-q"]],
)


# --- Python test runners (unittest style)
# ------------------------------------------------------------
def _unittest_project(module: str, head: str, n: int) -> str:
    body = "".join(
        f"    def test_add_{i:02d}(self):\n        self.assertEqual(add({i}, {i}), {2 * i})\n\n"
        for i in range(1, n + 1)
    )
    return head + f"\nclass TestAdd({module}.TestCase):\n" + body


_NOSE2_HEAD = d("""
import unittest

from calc import add, mean, parse_int


class TestMean(unittest.TestCase):
    def test_mean_of_four(self):
        self.assertEqual(mean([1, 2, 3, 4]), 2.5)


class TestParse(unittest.TestCase):
    def test_parse_hex(self):
        self.assertEqual(parse_int("0x10"), 16)

""")
_CALC = d("""
def add(a, b):
    return a + b


def mean(xs):
    return sum(xs) // len(xs)


def parse_int(text):
    return int(text, 10) if text.isdigit() else 0
""")
case(
    "nose2_verbose_many",
    "nose2",
    "test-python",
    {
        "calc.py": _CALC,
        "tests/__init__.py": "",
        "tests/test_calc.py": _unittest_project("unittest", _NOSE2_HEAD, 40),
    },
    ["nose2", "-v"],
    codes=[],
    root="tests/test_calc.py:8",
    cause="AssertionError: 2 != 2.5",
)
_GREEN_HEAD = d("""
import unittest

from text import add, slugify


class TestSlug(unittest.TestCase):
    def test_slug_trailing_space(self):
        self.assertEqual(slugify("Hello World "), "hello-world")

""")
case(
    "green_verbose_many",
    "green",
    "test-python",
    {
        "text.py": d("""
        def add(a, b):
            return a + b


        def slugify(title):
            return title.lower().replace(" ", "-")
        """),
        "tests/__init__.py": "",
        "tests/test_text.py": _unittest_project("unittest", _GREEN_HEAD, 40),
    },
    ["green", "-vv", "tests"],
    codes=[],
    root="tests/test_text.py:8",
    cause="AssertionError: 'hello-world-' != 'hello-world'",
)
_TRIAL_HEAD = d("""
from twisted.trial import unittest

from proto import add, frame


class TestFrame(unittest.TestCase):
    def test_frame_length(self):
        self.assertEqual(len(frame(b"abcd")), 6)

""")
case(
    "trial_twisted_many",
    "trial",
    "test-python",
    {
        "proto.py": d("""
        def add(a, b):
            return a + b


        def frame(payload):
            return bytes([len(payload)]) + payload
        """),
        "tests/__init__.py": "",
        "tests/test_proto.py": _unittest_project("unittest", _TRIAL_HEAD, 40),
    },
    ["trial", "tests"],
    codes=[],
    root="tests/test_proto.py:8",
    cause="FailTest: 5 != 6",
    env={"PYTHONPATH": "."},
)


# --- Docs, Markdown and CMake linters (Python)
# ------------------------------------------------------------
def _rst_docs() -> dict[str, str]:
    files = {
        "docs/index.rst": "Project\n=======\n\nWelcome.\n\nSee the usage page. \n",
        "docs/usage.rst": "Usage\n=====\n\nRun the tool.  \n",
    }
    for i in range(1, 11):
        files[f"docs/topic_{i:02d}.rst"] = f"Topic {i}\n========\n\nPlain text {i}.\n"
    return files


case(
    "sphinxlint_trailing",
    "sphinx-lint",
    "lint-docs",
    _rst_docs(),
    ["sphinx-lint", "docs"],
    codes=["trailing-whitespace"],
    root="docs/index.rst:6",  # the stored log prints index.rst first (round5/NOTES.md)
    cause="trailing whitespace",
)


def _md_docs() -> dict[str, str]:
    files = {"docs/a_guide.md": "# Guide\n\n### Install\n\nRun the installer.\n"}
    for i in range(1, 21):
        files[f"docs/topic_{i:02d}.md"] = (
            f"# Topic {i}\n\nFirst line {i}. \n\nSecond line {i}. \n\nThird line {i}. \n"
        )
    return files


case(
    "pymarkdown_docs",
    "pymarkdown",
    "lint-markdown",
    _md_docs(),
    ["pymarkdown", "scan", "docs"],
    codes=["MD001", "MD009"],
    root="docs/a_guide.md:3",
    cause="Heading levels should only increment by one level at a time",
)


def _cmake_files() -> dict[str, str]:
    files = {
        "CMakeLists.txt": d("""
        cmake_minimum_required(VERSION 3.16)
        project(demo C)
        # Build one target.
        function(BuildThing name)
          add_executable(${name} main.c)
        endfunction()
        BuildThing(demo)
        """)
    }
    for i in range(1, 17):
        srcs = " ".join(f"src/module_{i:02d}/file_{j}.c" for j in range(1, 7))
        files[f"cmake/mod_{i:02d}.cmake"] = f"# Module {i}.\nset(MOD_{i:02d}_SOURCES {srcs})\n"
    return files


_CMAKE = _cmake_files()
case(
    "cmake_lint_naming",
    "cmake-lint",
    "lint-cmake",
    _CMAKE,
    ["cmake-lint", *_CMAKE],
    codes=["C0103"],
    root="CMakeLists.txt:4",
    cause="Invalid function name",
)


def _interrogate_files() -> dict[str, str]:
    files = {
        "cart.py": d('''
        """Cart totals."""


        def total(items):
            return sum(i.price for i in items)


        def tax(amount):
            """Return the tax on amount."""
            return amount * 0.2
        '''),
    }
    for i in range(1, 13):
        files[f"mod_{i:02d}.py"] = (
            f'"""Module {i}."""\n\n\ndef step_{i}(x):\n    """Step {i}."""\n    return x + {i}\n'
            f"\n\ndef helper_{i}(x):\n    return x * {i}\n"
        )
    return files


case(
    "interrogate_coverage",
    "interrogate",
    "docs-coverage",
    _interrogate_files(),
    ["interrogate", "-vv", "--fail-under", "90", "."],
    codes=[],
    root="cart.py:4",
    cause="RESULT: FAILED",
)


# --- JavaScript: test runners, spelling, HTML, bundlers, compilers, Flow
# ------------------------------------------------------------
def _uvu_files() -> dict[str, str]:
    files = {
        "src/math.js": d("""
        exports.add = (a, b) => a + b;
        exports.mean = (xs) => Math.floor(xs.reduce((s, x) => s + x, 0) / xs.length);
        """),
        "tests/math.test.js": d("""
        const { test } = require('uvu');
        const assert = require('uvu/assert');
        const { add, mean } = require('../src/math');

        test('mean of four', () => {
          assert.is(mean([1, 2, 3, 4]), 2.5);
        });

        test('add', () => {
          assert.is(add(2, 2), 4);
        });

        test.run();
        """),
    }
    for i in range(1, 15):
        tests = "".join(
            f"test('add {i}.{j}', () => {{\n  assert.is(add({i}, {j}), {i + j});\n}});\n\n"
            for j in range(1, 6)
        )
        files[f"tests/suite_{i:02d}.test.js"] = (
            "const { test } = require('uvu');\nconst assert = require('uvu/assert');\n"
            "const { add } = require('../src/math');\n\n" + tests + "test.run();\n"
        )
    return files


case(
    "uvu_assert_is",
    "uvu",
    "test-js",
    _uvu_files(),
    ["uvu", "tests", ".test.js$"],
    codes=[],
    root="tests/math.test.js:6",
    cause="Expected values to be strictly equal",
    setup=LINK_NODE_MODULES,
)


def _lab_test() -> str:
    head = d("""
    'use strict';

    const Code = require('@hapi/code');
    const Lab = require('@hapi/lab');
    const { add, mean } = require('../lib/math');

    const { expect } = Code;
    const { describe, it } = (exports.lab = Lab.script());

    describe('math', () => {

        it('mean of four', () => {
            expect(mean([1, 2, 3, 4])).to.equal(2.5);
        });

    """)
    body = "".join(
        f"    it('adds {i}', () => {{\n        expect(add({i}, 1)).to.equal({i + 1});\n    }});\n\n"
        for i in range(1, 41)
    )
    tail = d("""
        it('adds strings', () => {
            expect(add('1', 1)).to.equal(2);
        });
    });
    """)
    return head + body + tail


case(
    "lab_verbose_many",
    "lab",
    "test-js",
    {
        "lib/math.js": d("""
        'use strict';

        exports.add = (a, b) => a + b;
        exports.mean = (xs) => Math.floor(xs.reduce((s, x) => s + x, 0) / xs.length);
        """),
        "test/math.js": _lab_test(),
    },
    ["lab", "-v"],
    codes=[],
    root="test/math.js:13",
    cause="Expected 2 to equal specified value: 2.5",
    setup=LINK_NODE_MODULES,
)


def _cspell_docs() -> dict[str, str]:
    files = {
        "docs/a_intro.md": d("""
        # Introduction

        Users receive a welcome mail, and admins recieve a copy of it.
        """),
        "docs/z_faq.md": "# Questions\n\nKeep the two lists seperate.\n",
    }
    for i in range(1, 61):
        files[f"docs/page_{i:02d}.md"] = (
            f"# Page {i}\n\nThis page explains the settings of part {i} of the program.\n"
        )
    return files


case(
    "cspell_docs",
    "cspell",
    "spell",
    _cspell_docs(),
    ["cspell", "docs/**/*.md"],
    codes=[],
    root="docs/a_intro.md:3",
    cause="Unknown word (recieve)",
)


def _html_page(title: str, body: str) -> str:
    return d(f"""
    <!DOCTYPE html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <title>{title}</title>
      </head>
      <body>
        <main>
          {body}
        </main>
      </body>
    </html>
    """)


_PAGES = {"pages/index.html": _html_page("Home", '<img src="logo.png">')}
for _i in range(1, 13):
    _PAGES[f"pages/p{_i:02d}.html"] = _html_page(f"Page {_i}", f"<p>Text {_i}.</p>")
_PAGES["pages/contact.html"] = _html_page("Contact", "<button>Send</button>")
case(
    "htmlvalidate_pages",
    "html-validate",
    "lint-html",
    {".htmlvalidate.json": '{"extends": ["html-validate:recommended"]}\n', **_PAGES},
    ["html-validate", *_PAGES],
    codes=["no-implicit-button-type", "wcag/h37"],
    root="pages/contact.html:9",
    cause='<button> is missing recommended "type" attribute',
)
case(
    "esbuild_unresolved",
    "esbuild",
    "build-js",
    {
        "src/main.js": d("""
        import { formatPrice } from "./format.js";
        import { cartTotal } from "./cart";

        console.log(formatPrice(cartTotal([1, 2])));
        """),
        "src/format.js": "export const formatPrice = (n) => `$${n.toFixed(2)}`;\n",
        "src/carts.js": "export const cartTotal = (xs) => xs.reduce((s, x) => s + x, 0);\n",
    },
    ["esbuild", "src/main.js", "--bundle", "--outfile=dist/app.js"],
    codes=[],
    root="src/main.js:2",
    cause='Could not resolve "./cart"',
)


case(
    "stylus_bad_color",
    "stylus",
    "compile-css",
    {
        "styles/main.styl": d("""
        $primary = #336699

        .button
          color $primary
          padding 4px 8px
          border 1px solid darken($primry, 10%)
        """),
    },
    ["stylus", "styles/main.styl", "-o", "out"],
    codes=[],
    root="styles/main.styl:4",
    cause="expected rgba or hsla",
)


def _babel_files() -> dict[str, str]:
    files = {
        "src/cart.js": d("""
        export function total(items) {
          let sum = 0;
          for (const item of items) {
            const tax = { rate: 0.2 base: 10 };
            sum += item.price * (1 + tax.rate) + tax.base;
          }
          return sum;
        }
        """)
    }
    for i in range(1, 46):
        files[f"src/a_mod_{i:02d}.js"] = f"export const value{i} = (x) => x * {i};\n"
    return files


case(
    "babel_syntax_verbose",
    "babel",
    "compile-js",
    _babel_files(),
    ["babel", "src", "--out-dir", "lib", "--verbose"],
    codes=[],
    root="src/cart.js:4",
    cause='Unexpected token, expected ","',
)


def _flow_files() -> dict[str, str]:
    files = {
        ".flowconfig": "[options]\n",
        "src/cart.js": d("""
        // @flow

        function total(price: number, qty: number): number {
          return price * qty;
        }

        export const due: number = total(10, "3");
        """),
    }
    for i in range(1, 11):
        files[f"src/label_{i:02d}.js"] = (
            f"// @flow\n\nconst label{i}: string = {i};\n\nexport default label{i};\n"
        )
    return files


case(
    "flow_check_many",
    "flow",
    "typecheck-js",
    _flow_files(),
    ["flow", "full-check"],
    codes=["incompatible-type"],
    root="src/cart.js:7",
    cause="Cannot call `total`",
)
case(
    "terser_parse_error",
    "terser",
    "minify-js",
    {
        "src/app.js": d("""
        function greet(name) {
          return "hi " + name;
        }
        const items = [1, 2, 3;
        greet(items);
        """),
    },
    ["terser", "src/app.js", "-o", "dist/app.min.js"],
    codes=[],
    root="src/app.js:4",
    cause="Unexpected token",
)


def _proto_files() -> dict[str, str]:
    files = {
        "buf.yaml": "version: v1\nlint:\n  use:\n    - DEFAULT\n",
        "shop/v1/cart.proto": d("""
        syntax = "proto3";

        package shop.v1;

        message Cart {
          string id = 1;
          int64 UserId = 2;
        }
        """),
    }
    for i in range(1, 61):
        files[f"shop/v1/item_{i:02d}.proto"] = (
            f'syntax = "proto3";\n\npackage shop.v1;\n\nmessage Item{i:02d} {{\n'
            f"  string id = 1;\n  string DisplayName = 2;\n}}\n"
        )
    return files


case(
    "buf_lint_fields",
    "buf",
    "lint-proto",
    _proto_files(),
    ["buf", "lint"],
    codes=[],
    root="shop/v1/cart.proto:7",
    cause='Field name "UserId" should be lower_snake_case',
)


# --- Documents
# ------------------------------------------------------------
case(
    "pandoc_yaml_metadata",
    "pandoc",
    "doc-build",
    {
        "doc.md": d("""
        ---
        title: Release notes
        authors: [Ann, Bob
        date: 2024-05-01
        ---

        # Changes

        - Faster start.
        """),
    },
    ["pandoc", "doc.md", "-o", "doc.html"],
    codes=[],
    root="",
    cause="YAML parse exception at line 3",
)


def _adoc_files() -> dict[str, str]:
    files = {
        "guide.adoc": d("""
        = Guide
        :toc:

        include::chapters/missing.adoc[]

        == Setup

        Install it.
        """)
    }
    for i in range(1, 66):
        files[f"ch_{i:02d}.adoc"] = f"= Chapter {i}\n\n=== Details {i}\n\nText {i}.\n"
    return files


_ADOC = _adoc_files()
case(
    "asciidoctor_include_missing",
    "asciidoctor",
    "doc-build",
    _ADOC,
    ["asciidoctor", "--failure-level=WARN", "-D", "out", *_ADOC],
    codes=[],
    root="guide.adoc:4",
    cause="include file not found",
)


# --- Compilers and linters from Debian
# ------------------------------------------------------------
def _hs_files() -> dict[str, str]:
    files = {
        "src/Billing.hs": d("""
        module Billing where

        totals :: [[Int]] -> [Int]
        totals xs = concat (map (map (* 2)) xs)
        """)
    }
    for i in range(1, 21):
        files[f"src/Mod{i:02d}.hs"] = (
            f"module Mod{i:02d} where\n\nstep{i} :: Int -> Int\nstep{i} x = (x + {i})\n"
        )
    return files


case(
    "hlint_hints_many",
    "hlint",
    "lint-haskell",
    _hs_files(),
    ["hlint", "src"],
    codes=[],
    root="src/Billing.hs:4",
    cause="Use concatMap",
)


def _php_files() -> dict[str, str]:
    files = {
        "src/Cart.php": d("""
        <?php

        namespace App;

        class Cart
        {
            public function total($items){
                return array_sum($items);
            }
        }
        """)
    }
    for i in range(1, 13):
        long = " . ".join(f"'part{j}'" for j in range(1, 16))
        files[f"src/Service{i:02d}.php"] = (
            f"<?php\n\nnamespace App;\n\nclass Service{i:02d}\n{{\n"
            f"    public function label(): string\n    {{\n        return {long};\n    }}\n}}\n"
        )
    return files


_PHP = _php_files()
case(
    "phpcs_psr12_many",
    "phpcs",
    "lint-php",
    _PHP,
    ["phpcs", "--standard=PSR12", "--report=full", *_PHP],
    codes=[],
    root="src/Cart.php:7",
    cause="Opening brace should be on a new line",
)
case(
    "mcs_undefined_name",
    "mcs",
    "compile-csharp",
    {
        "src/Program.cs": d("""
        using System;

        public static class Program
        {
            public static void Main()
            {
                Console.WriteLine(Cart.Total(3, 4));
            }
        }
        """),
        "src/Cart.cs": d("""
        using System;

        public static class Cart
        {
            public static int Total(int price, int qty)
            {
                return price * qyt;
            }
        }
        """),
    },
    ["mcs", "-out:app.exe", "src/Program.cs", "src/Cart.cs"],
    codes=["CS0103"],
    root="src/Cart.cs:7",
    cause="does not exist in the current context",
)
case(
    "verilator_lint_undeclared",
    "verilator",
    "lint-hdl",
    {
        "rtl/top.v": d("""
        module top (
            input  wire       clk,
            input  wire [7:0] a,
            output reg  [7:0] q
        );
          always @(posedge clk) begin
            q <= a + offst;
          end
        endmodule
        """),
    },
    ["verilator", "--lint-only", "-Wall", "rtl/top.v"],
    codes=[],
    root="rtl/top.v:7",
    cause="Can't find definition of variable",
)
case(
    "cobc_not_defined",
    "cobc",
    "compile-cobol",
    {
        "src/payroll.cob": (
            "       IDENTIFICATION DIVISION.\n"
            "       PROGRAM-ID. PAYROLL.\n"
            "       DATA DIVISION.\n"
            "       WORKING-STORAGE SECTION.\n"
            "       01 WS-TOTAL PIC 9(5) VALUE 0.\n"
            "       PROCEDURE DIVISION.\n"
            "           ADD 100 TO WS-TOTL.\n"
            "           DISPLAY WS-TOTAL.\n"
            "           STOP RUN.\n"
        ),
    },
    ["cobc", "-x", "-o", "payroll", "src/payroll.cob"],
    codes=[],
    root="src/payroll.cob:7",
    cause="'WS-TOTL' is not defined",
)
case(
    "flex_undefined_definition",
    "flex",
    "compile-lexer",
    {
        "scanner.l": d(r"""
        %{
        #include <stdio.h>
        %}
        DIGIT [0-9]
        %%
        {DIGIT}+    { printf("NUM\n"); }
        {DIGITT}+   { printf("BAD\n"); }
        .|\n        ;
        %%
        """),
    },
    ["flex", "-o", "scanner.c", "scanner.l"],
    codes=[],
    root="scanner.l:7",
    cause="undefined definition {DIGITT}",
)
case(
    "xsltproc_bad_xpath",
    "xsltproc",
    "xslt",
    {
        "xsl/report.xsl": d("""
        <?xml version="1.0"?>
        <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
          <xsl:output method="text"/>
          <xsl:template match="/">
            <xsl:for-each select="orders/order">
              <xsl:value-of select="@id"/>
            </xsl:for-each>
            <xsl:value-of select="count(orders/order"/>
          </xsl:template>
        </xsl:stylesheet>
        """),
        "data/orders.xml": '<orders><order id="a1"/><order id="a2"/></orders>\n',
    },
    ["xsltproc", "xsl/report.xsl", "data/orders.xml"],
    codes=[],
    root="xsl/report.xsl:8",
    cause="Invalid expression",
)
case(
    "dot_syntax_error",
    "dot",
    "graphviz",
    {
        "graphs/deps.dot": d("""
        digraph deps {
          rankdir=LR;
          app -> core;
          app -> ui;
          ui -> core;
          core -> util;
          util -> -> log;
        }
        """),
    },
    ["dot", "-Tsvg", "-o", "deps.svg", "graphs/deps.dot"],
    codes=[],
    root="graphs/deps.dot:7",
    cause="syntax error in line 7",
)


# --- Config checkers
# ------------------------------------------------------------
def _zone() -> str:
    head = d("""
    $TTL 3600
    @   IN SOA ns1.example.com. admin.example.com. (
            2024050101 ; serial
            3600       ; refresh
            900        ; retry
            604800     ; expire
            300 )      ; minimum
    @   IN NS ns1.example.com.
    ns1 IN A 192.0.2.1
    www IN A 192.0.2.300
    """)
    return head + "".join(f"host{i:02d} IN A 192.0.2.{i + 10}\n" for i in range(1, 21))


case(
    "named_checkzone_bad_quad",
    "named-checkzone",
    "config-dns",
    {"zones/db.example.com": _zone()},
    ["named-checkzone", "example.com", "zones/db.example.com"],
    codes=[],
    root="zones/db.example.com:10",
    cause="bad dotted quad",
)
case(
    "haproxy_unknown_keyword",
    "haproxy",
    "config-proxy",
    {
        "haproxy.cfg": d("""
        global
            maxconn 256

        defaults
            mode http
            timeout connect 5s
            timeout client 30s
            timeout server 30s

        frontend web
            bind :8080
            default_backend app

        backend app
            balanse roundrobin
            server a1 127.0.0.1:9001
        """),
    },
    ["haproxy", "-c", "-f", "haproxy.cfg"],
    codes=[],
    root="haproxy.cfg:15",
    cause="unknown keyword 'balanse'",
)


# --- Capture
# ------------------------------------------------------------
def capture(case: Case, cases: Path, bins: list[str], node_modules: str) -> tuple[bytes, int]:
    """Write the case into `cases/NAME` (anew), run its setup and its command there; return the
    combined output and the exit code."""
    work = cases / case.name
    if work.exists():
        shutil.rmtree(work)
    extra = {k: v.replace("{cases}", str(cases)) for k, v in case.env.items()}
    return run_case(case, work, bins, node_modules, extra)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=OUT, help="where the logs and expectations go")
    ap.add_argument("--cases", type=Path, help="where the case folders go (default: a temp dir)")
    ap.add_argument("--only", nargs="*", help="capture just these cases")
    ap.add_argument("--bin", nargs="*", default=[], help="folders put first on PATH")
    ap.add_argument("--node-modules", default="node_modules", help="npm packages for JS cases")
    ap.add_argument("--check", action="store_true", help="check the stored logs, capture nothing")
    args = ap.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    if not args.check:
        cases = args.cases or Path(tempfile.mkdtemp(prefix="k0cap5-"))
        cases = cases.resolve()
        node_modules = str(Path(args.node_modules).resolve())
        for c in HALF.cases:
            if args.only and c.name not in args.only:
                continue
            try:
                data, rc = capture(c, cases, args.bin, node_modules)
            except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
                print(f"{c.name}: FAILED TO CAPTURE: {exc}")
                continue
            (out / f"{c.name}.log").write_bytes(data)
            lines = data.count(b"\n")
            print(f"{c.name}: exit {rc}, {len(data):,} bytes, {lines:,} lines")
    write_expectations(out, HALF.expect)


if __name__ == "__main__":
    main()
