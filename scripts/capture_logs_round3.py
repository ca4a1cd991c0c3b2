"""Capture issue #40's third held-out half: failing runs of tools no earlier corpus held, into
tests/data/logs/round3/.

Each case is a tiny project with a planted bug, run in a scratch folder; its combined output is
stored byte for byte. Its expectations (each `case`'s, written to `round3/expectations.json`) were
written from the planted bug before any capture and any k0maru run, then checked against the raw log
alone (`--check`: each code, the root and the cause occur in the log). The whole half is held out:
whoever changes the offload extractors does not open these logs, and it is reported once.

Needs the tools on PATH (`--bin DIR` prepends folders): pip (cpplint flawfinder doc8 docutils
pytest-bdd meson interrogate), npm (remark-cli remark-preset-lint-recommended sass less coffeescript
tape qunit gherkin-lint), Debian (libxml2-utils chktex protobuf-compiler nasm elixir valac iverilog
bison nginx-light lua-busted swi-prolog-nox checkstyle cucumber rubocop shunit2), gcc, ninja.

    python scripts/capture_logs_round3.py [--only NAME ...] [--bin DIR ...] [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capture_logs_tools import Half, d  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "data" / "logs" / "round3"

HALF = Half()
case = HALF.case


# --- linters -------------------------------------------------------------------------------------
case(
    "cpplint_style",
    "cpplint",
    "lint-c",
    {
        "src/calc.cc": d("""
        // Copyright 2024 Example
        #include <string>

        int add(int a,int b){
          return a + b;
        }
        """),
    },
    ["cpplint", "src/calc.cc"],
    codes=["whitespace/comma", "whitespace/braces"],
    root="src/calc.cc:4",
    cause="Missing space after ,",
)
case(
    "flawfinder_strcpy",
    "flawfinder",
    "lint-security",
    {
        "src/copy.c": d("""
        #include <string.h>

        void copy(const char *src) {
            char buf[16];
            strcpy(buf, src);
        }
        """),
    },
    ["flawfinder", "--error-level=4", "src"],
    codes=["CWE-120"],
    root="src/copy.c:5",
    cause="strcpy",
)
case(
    "doc8_rst",
    "doc8",
    "lint-docs",
    {
        "docs/index.rst": d("""
        Title
        =====

        This line is deliberately far too long for the documentation style checker and it keeps on going.
        """)
        + "Trailing space here. \n",
    },
    ["doc8", "docs"],
    codes=["D001", "D002"],
    root="docs/index.rst:4",
    cause="Line too long",
)
case(
    "rubocop_offenses",
    "rubocop",
    "lint-ruby",
    {
        "lib/greeter.rb": d("""
        # frozen_string_literal: true

        # Says hello.
        class Greeter
          def greet(name)
            unused = 1
            "Hello, " + name
          end
        end
        """),
    },
    ["rubocop", "--format", "clang", "lib"],
    codes=["Lint/UselessAssignment"],
    root="lib/greeter.rb:6:5",
    cause="Useless assignment to variable",
)
case(
    "checkstyle_java",
    "checkstyle",
    "lint-java",
    {
        "src/Shop.java": d("""
        public class Shop {
            public int Total(int a) {
                int unused_value = a;
                return a;
            }
        }
        """),
        "checks.xml": d("""
        <?xml version="1.0"?>
        <!DOCTYPE module PUBLIC "-//Checkstyle//DTD Checkstyle Configuration 1.3//EN"
            "https://checkstyle.org/dtds/configuration_1_3.dtd">
        <module name="Checker">
          <property name="severity" value="error"/>
          <module name="TreeWalker">
            <module name="MethodName"/>
            <module name="LocalVariableName"/>
          </module>
        </module>
        """),
    },
    ["checkstyle", "-c", "checks.xml", "src/Shop.java"],
    codes=["MethodName", "LocalVariableName"],
    root="src/Shop.java:2",
    cause="Name 'Total' must match pattern",
)
case(
    "remark_lint_md",
    "remark",
    "lint-docs",
    {
        "README.md": d("""
        # Title

        * one
        - two

        [missing][nowhere]
        """),
        ".remarkrc.json": '{"plugins": ["remark-preset-lint-recommended"]}\n',
    },
    ["remark", "--frail", "--no-stdout", "README.md"],
    codes=["no-undefined-references"],
    root="README.md:6",
    cause="Unexpected reference to undefined definition",
    setup=[["ln", "-s", "{node_modules}", "node_modules"]],
)
case(
    "gherkin_lint_feature",
    "gherkin-lint",
    "bdd",
    {
        "features/cart.feature": d("""
        Feature: Cart

          Scenario: Add item
            Given an empty cart
            When I add 2 apples
            Then the cart holds 2 items

          Scenario: Add item
            Given an empty cart
        """),
        ".gherkin-lintrc": '{"no-dupe-scenario-names": "on", "no-trailing-spaces": "on"}\n',
    },
    ["gherkin-lint", "features"],
    codes=["no-dupe-scenario-names"],
    root="features/cart.feature:8",
    cause="Scenario name is already used",
)
case(
    "chktex_latex",
    "chktex",
    "lint-docs",
    {
        "paper.tex": d(r"""
        \documentclass{article}
        \begin{document}
        This is a test.This sentence follows without a space. See Fig.\ref{x}.
        Quotes "like this" are wrong.
        \end{document}
        """),
    },
    ["chktex", "-q", "paper.tex"],
    codes=[],
    root="paper.tex:3",
    cause="Warning",
)

# --- doc builders and config / schema checkers ----------------------------------------------------
case(
    "docutils_halt_role",
    "docutils",
    "doc-build",
    {
        "docs/guide.rst": d("""
        Guide
        =====

        Install the package first.

        Then call :clss:`Widget` to start.
        """),
    },
    ["docutils", "--halt=warning", "docs/guide.rst", "guide.html"],
    codes=[],
    root="docs/guide.rst:6",
    cause='Unknown interpreted text role "clss"',
)
case(
    "xmllint_schema",
    "xmllint",
    "config",
    {
        "conf/app.xml": d("""
        <?xml version="1.0"?>
        <app>
          <name>demo</name>
          <port>eighty</port>
        </app>
        """),
        "conf/app.xsd": d("""
        <?xml version="1.0"?>
        <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
          <xs:element name="app">
            <xs:complexType>
              <xs:sequence>
                <xs:element name="name" type="xs:string"/>
                <xs:element name="port" type="xs:integer"/>
              </xs:sequence>
            </xs:complexType>
          </xs:element>
        </xs:schema>
        """),
    },
    ["xmllint", "--noout", "--schema", "conf/app.xsd", "conf/app.xml"],
    codes=[],
    root="conf/app.xml:4",
    cause="'eighty' is not a valid value",
)
case(
    "protoc_undefined_type",
    "protoc",
    "schema",
    {
        "proto/order.proto": d("""
        syntax = "proto3";

        package shop;

        message Order {
          int64 id = 1;
          Money total = 2;
        }
        """),
    },
    ["protoc", "--python_out=.", "proto/order.proto"],
    codes=[],
    root="proto/order.proto:7",
    cause='"Money" is not defined.',
)
case(
    "nginx_unknown_directive",
    "nginx",
    "config",
    {
        "conf/nginx.conf": d("""
        events {}
        http {
            server {
                lisen 8080;
                root /srv/www;
            }
        }
        """),
        "logs/.keep": "",
    },
    ["nginx", "-t", "-q", "-p", ".", "-e", "stderr", "-c", "conf/nginx.conf"],
    codes=[],
    root="conf/nginx.conf:4",
    cause='unknown directive "lisen"',
)

# --- build tools ---------------------------------------------------------------------------------
case(
    "meson_unknown_function",
    "meson",
    "build",
    {
        "meson.build": d("""
        project('demo', 'c')
        src = files('main.c')
        exectuable('demo', src)
        """),
        "main.c": "int main(void) { return 0; }\n",
    },
    ["meson", "setup", "build"],
    codes=[],
    root="meson.build:3",
    cause='Unknown function "exectuable"',
)
case(
    "meson_ninja_compile",
    "meson",
    "build",
    {
        "meson.build": "project('demo', 'c')\nexecutable('demo', 'src/main.c', 'src/util.c')\n",
        "src/util.c": "int twice(int x) { return 2 * x; }\n",
        "src/main.c": d("""
        #include <stdio.h>

        int twice(int x);

        int main(void) {
            int n = twice(2)
            printf("%d\\n", n);
            return 0;
        }
        """),
    },
    ["sh", "-c", "meson setup build >/dev/null && ninja -C build"],
    codes=[],
    root="src/main.c:7:5",
    cause="expected ‘,’ or ‘;’ before ‘printf’",
)
case(
    "bison_undeclared",
    "bison",
    "parser-gen",
    {
        "calc.y": d("""
        %token NUM
        %%
        expr: expr '+' term
            | term
            ;
        term: NUM
            | IDENT
            ;
        %%
        """),
    },
    ["bison", "-Werror", "-o", "calc.c", "calc.y"],
    codes=[],
    root="calc.y:7",
    cause="symbol ‘IDENT’ is used, but is not defined as a token and has no rules",
)

# --- less common languages and their test runners
# --------------------------------------------------
case(
    "exunit_assert",
    "exunit",
    "elixir",
    {
        "lib/cart.ex": d("""
        defmodule Cart do
          def total(prices), do: Enum.sum(prices) + 1
        end
        """),
        "test/cart_test.exs": d("""
        ExUnit.start()

        defmodule CartTest do
          use ExUnit.Case

          test "total sums prices" do
            assert Cart.total([1, 2]) == 3
          end
        end
        """),
    },
    ["elixir", "-r", "lib/cart.ex", "test/cart_test.exs"],
    codes=[],
    root="test/cart_test.exs:7",
    cause="Assertion with == failed",
)
case(
    "exunit_raise_in_lib",
    "exunit",
    "elixir",
    {
        "lib/stats.ex": d("""
        defmodule Stats do
          def mean(xs) do
            Enum.sum(xs) / length(xs)
          end
        end
        """),
        "test/stats_test.exs": d("""
        ExUnit.start()

        defmodule StatsTest do
          use ExUnit.Case

          test "mean of nothing" do
            assert Stats.mean([]) == 0
          end
        end
        """),
    },
    ["elixir", "-r", "lib/stats.ex", "test/stats_test.exs"],
    codes=["ArithmeticError"],
    root="lib/stats.ex:3",
    cause="bad argument in arithmetic expression",
)
case(
    "elixirc_undefined",
    "elixirc",
    "elixir",
    {
        "lib/shop.ex": d("""
        defmodule Shop do
          def price(item) do
            base = lookup(item)
            base * 2
          end
        end
        """),
    },
    ["elixirc", "-o", "ebin", "lib/shop.ex"],
    codes=[],
    root="lib/shop.ex:3",
    cause="undefined function lookup/1",
)
case(
    "valac_type_error",
    "valac",
    "vala",
    {
        "src/main.vala": d("""
        int main () {
            int count = 0;
            string label = count;
            print ("%s\\n", label);
            return 0;
        }
        """),
    },
    ["valac", "-C", "src/main.vala"],
    codes=[],
    root="src/main.vala:3",
    cause="Cannot convert from `int' to `string?'",
)
case(
    "iverilog_undeclared",
    "iverilog",
    "hdl",
    {
        "rtl/counter.v": d("""
        module counter(input clk, output reg [3:0] q);
          always @(posedge clk) begin
            q <= q + stepp;
          end
        endmodule
        """),
    },
    ["iverilog", "-o", "counter.vvp", "rtl/counter.v"],
    codes=[],
    root="rtl/counter.v:3",
    cause="Unable to bind wire/reg/memory `stepp'",
)
case(
    "nasm_bad_operand",
    "nasm",
    "asm",
    {
        "src/hello.asm": d("""
        section .text
        global _start
        _start:
            mov eax, 1
            mov [ebx], 5
            int 0x80
        """),
    },
    ["nasm", "-f", "elf64", "src/hello.asm", "-o", "hello.o"],
    codes=[],
    root="src/hello.asm:5",
    cause="operation size not specified",
)
case(
    "plunit_wrong_answer",
    "plunit",
    "prolog",
    {
        "test/lists.pl": d("""
        :- use_module(library(plunit)).

        double([], []).
        double([X|Xs], [Y|Ys]) :- Y is X + X + 1, double(Xs, Ys).

        :- begin_tests(lists).

        test(double) :-
            double([1, 2], L),
            assertion(L == [2, 4]).

        :- end_tests(lists).
        """),
    },
    ["swipl", "-g", "run_tests", "-t", "halt", "test/lists.pl"],
    codes=[],
    root="test/lists.pl:8",
    cause="Assertion: [3,5]==[2,4]",
)
case(
    "busted_lua",
    "busted",
    "lua-test",
    {
        "src/slug.lua": d("""
        local M = {}

        function M.slug(s)
          return s:lower():gsub(" ", "_")
        end

        return M
        """),
        "spec/slug_spec.lua": d("""
        package.path = "src/?.lua;" .. package.path
        local slug = require("slug")

        describe("slug", function()
          it("joins words with dashes", function()
            assert.are.equal("a-b", slug.slug("A B"))
          end)
        end)
        """),
    },
    ["busted", "spec"],
    codes=[],
    root="spec/slug_spec.lua:6",
    cause="Expected objects to be equal.",
)
case(
    "shunit2_assert",
    "shunit2",
    "shell-test",
    {
        "tests/test_math.sh": d("""
        #!/bin/sh
        add() { echo $(($1 + $2 + 1)); }

        test_add() {
          assertEquals "sum" 5 "$(add 2 3)"
        }

        test_zero() {
          assertEquals 0 "$(add 0 0)"
        }

        . shunit2
        """),
    },
    ["sh", "tests/test_math.sh"],
    codes=[],
    root="",
    cause="ASSERT:sum expected:<5> but was:<6>",
)
case(
    "cucumber_ruby_step",
    "cucumber",
    "bdd",
    {
        "features/cart.feature": d("""
        Feature: Cart

          Scenario: Add apples
            Given an empty cart
            When I add 2 apples
            Then the cart holds 2 items
        """),
        "features/step_definitions/cart_steps.rb": d("""
        Given(/^an empty cart$/) do
          @items = []
        end

        When(/^I add (\\d+) apples$/) do |n|
          n.to_i.times { @items << :apple }
          @items << :apple
        end

        Then(/^the cart holds (\\d+) items$/) do |n|
          raise "expected #{n} items, got #{@items.size}" unless @items.size == n.to_i
        end
        """),
    },
    ["cucumber", "--strict", "--no-color"],
    codes=["RuntimeError"],
    root="features/step_definitions/cart_steps.rb:11",
    cause="expected 2 items, got 3",
)
case(
    "pytest_bdd_then",
    "pytest-bdd",
    "bdd",
    {
        "tests/features/cart.feature": d("""
        Feature: Cart
          Scenario: Add apples
            Given an empty cart
            When I add 2 apples
            Then the cart holds 2 items
        """),
        "tests/test_cart.py": d("""
        from pytest_bdd import given, parsers, scenarios, then, when

        scenarios("features/cart.feature")


        @given("an empty cart", target_fixture="cart")
        def empty_cart():
            return []


        @when(parsers.parse("I add {n:d} apples"))
        def add_apples(cart, n):
            cart.extend(["apple"] * (n + 1))


        @then(parsers.parse("the cart holds {n:d} items"))
        def cart_holds(cart, n):
            assert len(cart) == n
        """),
    },
    ["python", "-m", "pytest", "-p", "no:cacheprovider", "tests"],
    codes=["AssertionError"],
    root="tests/test_cart.py:18",
    cause="assert 3 == 2",
)
case(
    "sass_undefined_variable",
    "sass",
    "css-build",
    {
        "styles/_theme.scss": "$primary: #336699;\n",
        "styles/main.scss": d("""
        @use "theme";

        .button {
          color: theme.$primary;
          border-color: $accent;
        }
        """),
    },
    ["sass", "--no-color", "styles/main.scss", "out.css"],
    codes=[],
    root="styles/main.scss:5",
    cause="Undefined variable.",
)
case(
    "lessc_undefined",
    "lessc",
    "css-build",
    {
        "styles/site.less": d("""
        @base: 4px;

        .card {
          padding: @base;
          margin: @gap;
        }
        """),
    },
    ["lessc", "--no-color", "styles/site.less"],
    codes=["NameError"],
    root="styles/site.less:5",
    cause="variable @gap is undefined",
)
case(
    "coffee_syntax",
    "coffee",
    "coffeescript",
    {
        "src/app.coffee": d("""
        square = (x) -> x * x

        greet = (name) ->
          console.log "hi #{name"

        greet "bob"
        """),
    },
    ["coffee", "-c", "src/app.coffee"],
    codes=[],
    root="src/app.coffee:4",
    cause="error",
)
case(
    "tape_deep_equal",
    "tape",
    "js-test",
    {
        "lib/range.js": d("""
        exports.range = function (n) {
          const out = [];
          for (let i = 0; i <= n; i++) out.push(i);
          return out;
        };
        """),
        "test/range.test.js": d("""
        const test = require('tape');
        const { range } = require('../lib/range');

        test('range counts up', (t) => {
          t.deepEqual(range(3), [0, 1, 2]);
          t.end();
        });
        """),
    },
    ["node", "test/range.test.js"],
    codes=[],
    root="test/range.test.js:5",
    cause="should be deeply equivalent",
    setup=[["ln", "-s", "{node_modules}", "node_modules"]],
)
case(
    "qunit_throws",
    "qunit",
    "js-test",
    {
        "lib/parse.js": d("""
        exports.parsePort = function (text) {
          const n = Number(text);
          if (Number.isNaN(n)) throw new TypeError('port must be a number: ' + text);
          return n;
        };
        """),
        "test/parse.test.js": d("""
        const { parsePort } = require('../lib/parse');

        QUnit.module('parse', () => {
          QUnit.test('ports', (assert) => {
            assert.equal(parsePort('80'), 80);
            assert.equal(parsePort('http'), 0);
          });
        });
        """),
    },
    ["qunit", "test/parse.test.js"],
    codes=["TypeError"],
    root="lib/parse.js:3",
    cause="port must be a number: http",
    setup=[["ln", "-s", "{node_modules}", "node_modules"]],
)


def main() -> None:
    HALF.main(__doc__, OUT)


if __name__ == "__main__":
    main()
