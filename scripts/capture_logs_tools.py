"""Capture the issue #40 corpus: failing runs of tools no earlier corpus held (linters and scanners,
doc builders, IaC, BDD and acceptance runners, OCaml, Erlang, Nim, Lua, Fortran, bats, ...), into
tests/data/logs/tools/ (dev) and tests/data/logs/tools/heldout/ (test).

Each case is a tiny project with a planted bug; the tool runs on it in a scratch folder and its
combined output is stored byte for byte. The expectations (`expectations.json` in each folder) were
written from the planted bug and the raw log, before any k0maru run on it. The split is by tool (a
tool's logs all in one half): `split()` draws half of the sorted tool names with
`random.Random("40")`; the draw was made once, before any k0maru run, and is recorded in
`tests/data/logs/tools/split.json`.

Needs the tools on PATH (`--bin DIR` prepends folders): pip (bandit sqlfluff semgrep mkdocs sphinx
behave robotframework pyright vulture pydocstyle codespell isort pycodestyle), npm (@biomejs/biome
oxlint @cucumber/cucumber jshint htmlhint standard ava tap jasmine), Debian (ocaml-nox dune
erlang-nox erlang-eunit rebar3 nim bats lua5.4 lua-check cppcheck clang-tidy shfmt gfortran
libperl-critic-perl tcl), terraform, cfn-lint, g++, pytest.

    python scripts/capture_logs_tools.py [--only NAME ...] [--bin DIR ...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "data" / "logs" / "tools"
SPLIT = OUT / "split.json"


@dataclass
class Case:
    name: str
    tool: str
    family: str
    files: dict[str, str]
    command: list[str]
    setup: list[list[str]] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


def d(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).lstrip("\n")


CASES: list[Case] = []


def case(*args: object, **kw: object) -> None:
    CASES.append(Case(*args, **kw))  # type: ignore[arg-type]


# --- linters and static analysers -------------------------------------------------------------
case(
    "bandit_yaml_shell",
    "bandit",
    "lint-security",
    {
        "app/__init__.py": "",
        "app/util.py": d('''
        """Helpers."""


        def double(x):
            return 2 * x
        '''),
        "app/loader.py": d('''
        """Load settings."""
        import subprocess

        import yaml


        def load(path):
            with open(path) as fh:
                return yaml.load(fh)


        def archive(name):
            return subprocess.call("tar czf " + name + ".tgz " + name, shell=True)
        '''),
    },
    ["bandit", "-r", "app"],
)
case(
    "sqlfluff_lint_models",
    "sqlfluff",
    "lint-sql",
    {
        "models/orders.sql": "select id, amount from orders where amount > 10\n",
        "models/customers.sql": d("""
        SELECT
            c.id,
            c.name,
            count(o.id) as order_count
        FROM customers c
        left join orders o on o.customer_id = c.id
        group by c.id, c.name
        """),
    },
    ["sqlfluff", "lint", "models", "--dialect", "ansi"],
)
case(
    "semgrep_local_rules",
    "semgrep",
    "lint-pattern",
    {
        "rules.yml": d("""
        rules:
          - id: no-eval
            pattern: eval(...)
            message: eval() runs arbitrary code
            languages: [python]
            severity: ERROR
          - id: no-md5
            pattern: hashlib.md5(...)
            message: md5 is broken for security
            languages: [python]
            severity: WARNING
        """),
        "app/calc.py": d("""
        import hashlib


        def digest(data):
            return hashlib.md5(data).hexdigest()


        def compute(expr):
            value = eval(expr)
            return value
        """),
    },
    [
        "semgrep",
        "scan",
        "--config",
        "rules.yml",
        "--metrics=off",
        "--error",
        "--disable-version-check",
        "app",
    ],
    env={"SEMGREP_SEND_METRICS": "off", "SEMGREP_ENABLE_VERSION_CHECK": "0"},
)
case(
    "pyright_arg_type",
    "pyright",
    "python-typecheck",
    {
        "pyrightconfig.json": '{"include": ["src"]}\n',
        "src/prices.py": d("""
        def total(prices: list[float], tax: float) -> float:
            return sum(prices) * (1 + tax)


        def report() -> str:
            amount = total([1.0, 2.5], "0.2")
            return f"{amount:.2f}"


        def name_of(user: dict[str, str]) -> int:
            return user["name"]
        """),
    },
    ["pyright"],
)
case(
    "vulture_dead_code",
    "vulture",
    "lint-python",
    {
        "shop/cart.py": d("""
        import os
        import json


        def total(items):
            return sum(i["price"] for i in items)


        def _legacy_total(items):
            result = 0
            for i in items:
                result += i["price"]
            return result
            print("done")
        """),
    },
    ["vulture", "shop"],
)
case(
    "pydocstyle_missing",
    "pydocstyle",
    "lint-python",
    {
        "pkg/geometry.py": d('''
        """Shapes."""


        def area(w, h):
            return w * h


        class Circle:
            """a circle"""

            def radius(self):
                return 1
        '''),
    },
    ["pydocstyle", "pkg"],
)
case(
    "codespell_typos",
    "codespell",
    "lint-text",
    {
        "docs/guide.md": "# Guide\n\nThis is teh guide for the new libary.\n\nIt recieves input.\n",
        "src/main.py": "def run():\n    # seperate the values\n    return 1\n",
    },
    ["codespell", "docs", "src"],
)
case(
    "isort_check_diff",
    "isort",
    "lint-python",
    {
        "app/views.py": "import sys\nimport os\nfrom app import models\nimport json\n\n\ndef v():\n    return os, sys, json, models\n",
        "app/models.py": "X = 1\n",
        "app/__init__.py": "",
    },
    ["isort", "--check-only", "--diff", "app"],
)
case(
    "pycodestyle_e_w",
    "pycodestyle",
    "lint-python",
    {
        "tools/convert.py": "import os\ndef convert(a,b):\n    x=a+b  \n    return x\nclass C:\n  pass\n",
    },
    ["pycodestyle", "tools"],
)
case(
    "luacheck_globals",
    "luacheck",
    "lint-lua",
    {
        "src/config.lua": d("""
        local M = {}

        local function parse(line)
          local key, value = line:match("^(%w+)=(.*)$")
          return key, value
        end

        function M.load(path)
          local result = {}
          for line in io.lines(path) do
            local k, v = parse(line)
            if k then
              result[k] = v
            end
          end
          return reslt
        end

        function M.unused(a, b)
          local tmp = 1
          return a
        end

        return M
        """),
    },
    ["luacheck", "src"],
)
case(
    "cppcheck_oob",
    "cppcheck",
    "lint-c",
    {
        "src/buf.c": d("""
        #include <stdlib.h>

        int sum(void) {
            int a[10];
            int s = 0;
            for (int i = 0; i <= 10; i++) {
                a[i] = i;
                s += a[i];
            }
            return s;
        }

        char *leak(void) {
            char *p = malloc(16);
            p = NULL;
            return p;
        }
        """),
    },
    ["cppcheck", "--enable=warning", "--error-exitcode=1", "src"],
)
case(
    "clang_tidy_checks",
    "clang-tidy",
    "lint-c",
    {
        "src/copy.cpp": d("""
        #include <cstring>

        void copy(char *dst, const char *src) {
            char *tmp = nullptr;
            strcpy(dst, src);
            int unused = 3;
            *tmp = 'x';
        }
        """),
    },
    [
        "clang-tidy",
        "--checks=-*,clang-analyzer-*,bugprone-*",
        "--warnings-as-errors=*",
        "src/copy.cpp",
        "--",
    ],
)
case(
    "shfmt_diff",
    "shfmt",
    "lint-shell",
    {
        "scripts/deploy.sh": '#!/bin/sh\nif [ -n "$1" ];then\n  echo  "deploy $1"\nfi\nfor f in *.txt\ndo cat $f; done\n',
    },
    ["shfmt", "-d", "scripts"],
)
case(
    "perlcritic_stern",
    "perlcritic",
    "lint-perl",
    {
        "lib/Report.pm": d("""
        package Report;
        sub make {
            my $x = shift;
            open(FH, "<$x");
            my @rows = <FH>;
            return @rows;
        }
        1;
        """),
        "lib/Util.pm": "package Util;\nuse strict;\nuse warnings;\nsub trim { my $s = shift; $s =~ s/^\\s+//; return $s }\n1;\n",
    },
    ["perlcritic", "--stern", "lib"],
)
case(
    "biome_lint_rules",
    "biome",
    "lint-js",
    {
        "biome.json": '{"linter": {"enabled": true, "rules": {"recommended": true}}}\n',
        "src/switch.js": d("""
        export function kind(x) {
          switch (x) {
            case 1:
              console.log("one");
            case 2:
              return "two";
            default:
              return "other";
          }
        }

        export function same(a) {
          if (a == a) {
            return true;
          }
          return false;
        }
        """),
    },
    ["biome", "lint", "src"],
)
case(
    "oxlint_rules",
    "oxlint",
    "lint-js",
    {
        "src/app.js": d("""
        const config = {
          port: 80,
          host: "localhost",
          port: 8080,
        };

        export function start() {
          debugger;
          return config;
        }
        """),
    },
    ["oxlint", "-D", "correctness", "--deny", "no-debugger", "src"],
)
case(
    "jshint_undef",
    "jshint",
    "lint-js",
    {
        ".jshintrc": '{"undef": true, "unused": true, "esversion": 6}\n',
        "lib/total.js": d("""
        function total(items) {
          var sum = 0
          for (var i = 0; i < items.length; i++) {
            sum += items[i].price;
          }
          return sum;
        }
        module.exports = totl;
        """),
    },
    ["jshint", "lib"],
)
case(
    "htmlhint_page",
    "htmlhint",
    "lint-html",
    {
        "site/index.html": d("""
        <!DOCTYPE html>
        <html>
        <head><title>Shop</title></head>
        <body>
          <div id="main"><p>hello</div>
          <img src="a.png">
          <div id="main"></div>
        </body>
        </html>
        """),
    },
    ["htmlhint", "site"],
)
case(
    "standard_style",
    "standard",
    "lint-js",
    {
        "package.json": '{"name": "demo", "version": "1.0.0"}\n',
        "index.js": "var fs = require('fs');\n\nfunction read (p) {\n  return fs.readFileSync(p, \"utf8\")\n}\n",
    },
    ["standard"],
)

# --- documentation builders -----------------------------------------------------------------------
case(
    "mkdocs_strict_links",
    "mkdocs",
    "docs-build",
    {
        "mkdocs.yml": "site_name: Demo\nnav:\n  - Home: index.md\n  - Setup: setup.md\n",
        "docs/index.md": "# Demo\n\nSee [the setup](setup.md) and [the API](api/reference.md).\n",
        "docs/setup.md": "# Setup\n\nInstall it. Back to [home](index.md#missing-anchor) or [faq](faq.md).\n",
    },
    ["mkdocs", "build", "--strict"],
)
case(
    "sphinx_warning_error",
    "sphinx-build",
    "docs-build",
    {
        "conf.py": "project = 'demo'\nextensions = []\n",
        "index.rst": d("""
        Demo
        ====

        .. toctree::

           usage
           missing

        See :ref:`install-steps` for details.
        """),
        "usage.rst": "Usage\n=====\n\nRun it.\n\n.. code-block:: python\n   :linenos: yes\n\n   print(1)\n",
    },
    ["sphinx-build", "-W", "-b", "html", ".", "_build"],
)

# --- IaC --------------------------------------------------------------------------------------
case(
    "terraform_validate_undeclared",
    "terraform",
    "iac",
    {
        "main.tf": d("""
        terraform {
          required_version = ">= 1.0"
        }

        variable "region" {
          type    = string
          default = "eu-west-1"
        }

        locals {
          name   = "demo-${var.regoin}"
          bucket = "${local.name}-logs"
        }

        output "bucket" {
          value = local.bucket
        }

        output "owner" {
          value = local.owner
        }
        """),
    },
    ["terraform", "validate", "-no-color"],
    setup=[["terraform", "init", "-backend=false"]],
)
case(
    "cfn_lint_template",
    "cfn-lint",
    "iac",
    {
        "template.yaml": d("""
        AWSTemplateFormatVersion: "2010-09-09"
        Resources:
          Bucket:
            Type: AWS::S3::Bucket
            Properties:
              BucketNam: demo-logs
          Queue:
            Type: AWS::SQS::Queue
            Properties:
              VisibilityTimeout: "abc"
        Outputs:
          Arn:
            Value: !GetAtt Bucket.Nope
        """),
    },
    ["cfn-lint", "template.yaml"],
)

case(
    "checkov_s3",
    "checkov",
    "iac",
    {
        "infra/main.tf": d("""
        resource "aws_s3_bucket" "logs" {
          bucket = "demo-logs"
        }

        resource "aws_security_group" "web" {
          name = "web"
          ingress {
            from_port   = 22
            to_port     = 22
            protocol    = "tcp"
            cidr_blocks = ["0.0.0.0/0"]
          }
        }
        """),
    },
    [
        "checkov",
        "-d",
        "infra",
        "--framework",
        "terraform",
        "--skip-download",
        "--compact",
        "--quiet",
    ],
    env={"BC_SKIP_MAPPING": "TRUE", "CHECKOV_RUN_SCA_PACKAGE_SCAN_V2": "false"},
)

# --- BDD and acceptance runners ------------------------------------------------------------------
case(
    "behave_step_fail",
    "behave",
    "bdd",
    {
        "features/cart.feature": d("""
        Feature: Cart
          Scenario: add an item
            Given an empty cart
            When I add a book priced 12
            Then the total is 12

          Scenario: discount
            Given an empty cart
            When I add a book priced 20
            Then the total with a 10 percent discount is 18
        """),
        "features/steps/cart_steps.py": d("""
        from behave import given, then, when


        @given("an empty cart")
        def empty(context):
            context.items = []


        @when("I add a book priced {price:d}")
        def add(context, price):
            context.items.append(price)


        @then("the total is {total:d}")
        def total(context, total):
            assert sum(context.items) == total


        @then("the total with a {pct:d} percent discount is {total:d}")
        def discounted(context, pct, total):
            got = sum(context.items) * (100 - pct) // 1000
            assert got == total, f"expected {total}, got {got}"
        """),
    },
    ["behave", "--no-color"],
)
case(
    "robot_keyword_fail",
    "robot",
    "bdd",
    {
        "tests/login.robot": d("""
        *** Settings ***
        Library    Collections

        *** Test Cases ***
        Valid Login
            ${user}=    Create Dictionary    name=ann    role=admin
            Should Be Equal    ${user}[role]    admin

        Invalid Role
            ${user}=    Create Dictionary    name=bob    role=guest
            Should Be Equal    ${user}[role]    admin    msg=bob must be admin

        Missing Key
            ${user}=    Create Dictionary    name=cy
            Dictionary Should Contain Key    ${user}    role
        """),
    },
    [
        "robot",
        "--console",
        "verbose",
        "--output",
        "NONE",
        "--report",
        "NONE",
        "--log",
        "NONE",
        "tests",
    ],
)
case(
    "cucumber_js_step",
    "cucumber-js",
    "bdd",
    {
        "features/stock.feature": d("""
        Feature: Stock
          Scenario: remove items
            Given a stock of 5 apples
            When I remove 2 apples
            Then 3 apples are left

          Scenario: remove too many
            Given a stock of 1 apples
            When I remove 2 apples
            Then the stock is rejected
        """),
        "features/steps.js": d("""
        const { Given, When, Then } = require("@cucumber/cucumber");
        const assert = require("node:assert");

        Given("a stock of {int} apples", function (n) {
          this.stock = n;
        });

        When("I remove {int} apples", function (n) {
          if (n > this.stock) {
            throw new RangeError(`cannot remove ${n} from ${this.stock}`);
          }
          this.stock -= n;
        });

        Then("{int} apples are left", function (n) {
          assert.strictEqual(this.stock, n + 1);
        });

        Then("the stock is rejected", function () {});
        """),
    },
    ["cucumber-js", "--format", "progress"],
    setup=[["ln", "-s", "{node_modules}", "node_modules"]],
)
case(
    "bats_assert",
    "bats",
    "shell-test",
    {
        "lib/slug.sh": 'slug() { echo "$1" | tr "A-Z " "a-z-"; }\n',
        "test/slug.bats": d("""
        #!/usr/bin/env bats

        setup() {
          source lib/slug.sh
        }

        @test "lowercases" {
          run slug "Hello"
          [ "$output" = "hello" ]
        }

        @test "replaces spaces" {
          run slug "Hello World"
          [ "$status" -eq 0 ]
          [ "$output" = "hello_world" ]
        }

        @test "empty input" {
          run slug ""
          [ "$output" = "" ]
        }
        """),
    },
    ["bats", "test"],
)

# --- JavaScript test runners
# -----------------------------------------------------------------------
case(
    "ava_assert",
    "ava",
    "js-test",
    {
        "package.json": '{"name": "demo", "type": "module", "ava": {"files": ["test/**/*.js"]}}\n',
        "src/math.js": "export function add(a, b) {\n  return a + b + 1;\n}\n",
        "test/math.js": d("""
        import test from "ava";
        import { add } from "../src/math.js";

        test("adds", (t) => {
          t.is(add(1, 2), 3);
        });

        test("zero", (t) => {
          t.is(add(0, 0), 0);
        });
        """),
    },
    ["ava", "--no-worker-threads"],
    setup=[["ln", "-s", "{node_modules}", "node_modules"]],
)
case(
    "tap_node_tap",
    "tap",
    "js-test",
    {
        "package.json": '{"name": "demo", "version": "1.0.0"}\n',
        "lib/parse.js": "exports.parse = (s) => s.split(',').map(Number);\n",
        "test/parse.js": d("""
        const t = require("tap");
        const { parse } = require("../lib/parse.js");

        t.test("parses numbers", async (t) => {
          t.same(parse("1,2"), [1, 2]);
        });

        t.test("trims spaces", async (t) => {
          t.same(parse(" 1, x"), [1, 2]);
        });
        """),
    },
    ["tap", "--disable-coverage", "test/parse.js"],
    setup=[["ln", "-s", "{node_modules}", "node_modules"]],
)
case(
    "jasmine_spec",
    "jasmine",
    "js-test",
    {
        "spec/support/jasmine.json": '{"spec_dir": "spec", "spec_files": ["**/*[sS]pec.js"]}\n',
        "lib/queue.js": d("""
        class Queue {
          constructor() { this.items = []; }
          push(x) { this.items.push(x); }
          pop() { return this.items.pop(); }
        }
        module.exports = { Queue };
        """),
        "spec/queueSpec.js": d("""
        const { Queue } = require("../lib/queue.js");

        describe("Queue", () => {
          it("is first in first out", () => {
            const q = new Queue();
            q.push(1);
            q.push(2);
            expect(q.pop()).toBe(1);
          });

          it("peeks", () => {
            const q = new Queue();
            expect(q.peek()).toBeUndefined();
          });
        });
        """),
    },
    ["jasmine"],
)

# --- OCaml, Erlang, Nim, Lua, Fortran, Tcl ------------------------------------------------------
case(
    "dune_build_type_error",
    "dune",
    "ocaml",
    {
        "dune-project": "(lang dune 2.9)\n",
        "bin/dune": "(executable (name main))\n",
        "bin/main.ml": d("""
        let average xs =
          let total = List.fold_left ( + ) 0 xs in
          total / List.length xs

        let describe name score =
          Printf.sprintf "%s scored %d" name score

        let () =
          let scores = [ 3; 5; 8 ] in
          let avg = average scores in
          print_endline (describe "ann" avg);
          print_endline (describe avg "bob")
        """),
    },
    ["dune", "build", "--display", "short"],
)
case(
    "ocaml_script_exception",
    "ocaml",
    "ocaml",
    {
        "lib/parse.ml": d("""
        let parse_port s =
          match int_of_string_opt s with
          | Some p when p > 0 -> p
          | _ -> failwith ("bad port: " ^ s)

        let () =
          let ports = List.map parse_port [ "80"; "443"; "http" ] in
          List.iter (fun p -> Printf.printf "%d\\n" p) ports
        """),
    },
    ["ocaml", "lib/parse.ml"],
    env={"OCAMLRUNPARAM": "b"},
)
case(
    "ocamlfind_unbound",
    "ocamlc",
    "ocaml",
    {
        "src/shapes.ml": d("""
        type shape = Circle of float | Square of float

        let area = function
          | Circle r -> 3.14 *. r *. r
          | Square s -> s *. s

        let perimeter = function
          | Circle r -> 2.0 *. 3.14 *. r
          | Square s -> 4.0 *. sid
        """),
    },
    ["ocamlc", "-c", "src/shapes.ml"],
)
case(
    "erlc_compile_error",
    "erlc",
    "erlang",
    {
        "src/temps.erl": d("""
        -module(temps).
        -export([to_f/1, avg/1]).

        to_f(C) ->
            C * 9 / 5 + 32.

        avg(Xs) ->
            lists:sum(Xs) / lenght(Xs).
        """),
    },
    ["erlc", "-o", "ebin", "src/temps.erl"],
    setup=[["mkdir", "-p", "ebin"]],
)
case(
    "eunit_fail",
    "eunit",
    "erlang",
    {
        "src/temps.erl": d("""
        -module(temps).
        -export([to_f/1]).
        -include_lib("eunit/include/eunit.hrl").

        to_f(C) ->
            C * 9 / 5 + 30.

        to_f_test() ->
            ?assertEqual(212.0, to_f(100)).

        freezing_test() ->
            ?assertEqual(32.0, to_f(0)).
        """),
    },
    [
        "erl",
        "-noshell",
        "-pa",
        "ebin",
        "-eval",
        "case eunit:test(temps, [verbose]) of ok -> halt(0); _ -> halt(1) end",
    ],
    setup=[["mkdir", "-p", "ebin"], ["erlc", "-o", "ebin", "src/temps.erl"]],
)
case(
    "rebar3_eunit",
    "rebar3",
    "erlang",
    {
        "rebar.config": "{erl_opts, [debug_info]}.\n",
        "src/stack.app.src": '{application, stack, [{vsn, "0.1.0"}, {applications, [kernel, stdlib]}]}.\n',
        "src/stack.erl": d("""
        -module(stack).
        -export([new/0, push/2, pop/1]).

        new() -> [].
        push(X, S) -> [X | S].
        pop([_ | S]) -> S.
        """),
        "test/stack_tests.erl": d("""
        -module(stack_tests).
        -include_lib("eunit/include/eunit.hrl").

        push_pop_test() ->
            S = stack:push(1, stack:new()),
            ?assertEqual([], stack:pop(S)).

        pop_empty_test() ->
            ?assertEqual([], stack:pop(stack:new())).
        """),
    },
    ["rebar3", "eunit"],
    env={"REBAR_OFFLINE": "1", "HOME": "/tmp"},
)
case(
    "escript_badarith",
    "escript",
    "erlang",
    {
        "bin/report.erl": d("""
        #!/usr/bin/env escript
        %%! -mode(compile)

        main(_) ->
            Rows = [{"a", 3}, {"b", "4"}],
            Total = total(Rows, 0),
            io:format("~p~n", [Total]).

        total([], Acc) -> Acc;
        total([{_, N} | Rest], Acc) ->
            total(Rest, Acc + N).
        """),
    },
    ["escript", "bin/report.erl"],
)
case(
    "nim_runtime_index",
    "nim",
    "nim",
    {
        "src/histogram.nim": d("""
        import std/strutils

        proc bucketOf(x: int): int =
          x div 10

        proc histogram(values: seq[int]): seq[int] =
          result = newSeq[int](5)
          for v in values:
            inc result[bucketOf(v)]

        when isMainModule:
          let data = @[3, 14, 27, 55]
          echo histogram(data).join(",")
        """),
    },
    ["nim", "c", "-r", "--hints:off", "src/histogram.nim"],
    env={"HOME": "/tmp"},
)
case(
    "nim_compile_type",
    "nim",
    "nim",
    {
        "src/greet.nim": d("""
        proc greet(name: string, times: int): string =
          result = ""
          for i in 0 ..< times:
            result.add("hi " & name & "\\n")

        echo greet(3, "ann")
        """),
    },
    ["nim", "c", "--hints:off", "src/greet.nim"],
    env={"HOME": "/tmp"},
)
case(
    "lua_runtime_error",
    "lua",
    "lua",
    {
        "src/cart.lua": d("""
        local Cart = {}

        function Cart.total(items)
          local sum = 0
          for _, item in ipairs(items) do
            sum = sum + item.price * item.qty
          end
          return sum
        end

        local items = { { price = 2, qty = 3 }, { price = 5 } }
        print(Cart.total(items))
        """),
    },
    ["lua5.4", "src/cart.lua"],
)
case(
    "gfortran_compile",
    "gfortran",
    "fortran",
    {
        "src/stats.f90": d("""
        module stats
          implicit none
        contains
          function mean(x) result(m)
            real, intent(in) :: x(:)
            real :: m
            m = sum(x) / size(x)
          end function mean
        end module stats

        program main
          use stats
          implicit none
          real :: data(3) = [1.0, 2.0, 3.0]
          integer :: n
          n = mean(data, 2)
          print *, totl
        end program main
        """),
    },
    ["gfortran", "-c", "src/stats.f90"],
)
case(
    "gfortran_bounds_runtime",
    "gfortran",
    "fortran",
    {
        "src/fill.f90": d("""
        program fill
          implicit none
          integer :: a(5), i
          do i = 1, 6
            a(i) = i * i
          end do
          print *, a
        end program fill
        """),
    },
    ["sh", "-c", "gfortran -g -fcheck=all -o fill src/fill.f90 && ./fill"],
)
case(
    "tclsh_error",
    "tclsh",
    "tcl",
    {
        "lib/conf.tcl": d("""
        proc read_port {conf} {
            set port [dict get $conf port]
            return [expr {$port + 1}]
        }

        proc main {} {
            set conf [dict create host localhost]
            puts [read_port $conf]
        }

        main
        """),
    },
    ["tclsh", "lib/conf.tcl"],
)

# --- runners already known, forms still missed
# -----------------------------------------------------
case(
    "pytest_setup_error_first",
    "pytest",
    "python-test",
    {
        "tests/conftest.py": d("""
        import json

        import pytest


        @pytest.fixture
        def settings(tmp_path):
            path = tmp_path / "settings.json"
            return json.loads(path.read_text())
        """),
        "tests/test_app.py": d("""
        def test_uses_settings(settings):
            assert settings["debug"] is False


        def test_math():
            assert 2 + 2 == 5
        """),
    },
    ["python", "-m", "pytest", "-p", "no:cacheprovider", "tests"],
)
case(
    "pytest_collection_error",
    "pytest",
    "python-test",
    {
        "tests/test_broken.py": "from app.missing import thing\n\n\ndef test_thing():\n    assert thing\n",
        "tests/test_ok.py": "def test_later():\n    assert [1, 2] == [1, 3]\n",
    },
    [
        "python",
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "--continue-on-collection-errors",
        "tests",
    ],
)
case(
    "gxx_required_from_here",
    "g++",
    "c++-compile",
    {
        "src/main.cpp": d("""
        #include <map>
        #include <string>
        #include <vector>

        struct Key {
            int id;
        };

        int count(const std::vector<int>& v) { return static_cast<int>(v.size()); }

        int main() {
            std::map<Key, std::string> names;
            names[Key{1}] = "one";
            return count({1, 2});
        }
        """),
    },
    ["g++", "-std=c++17", "-c", "src/main.cpp"],
)


def split(tools: list[str]) -> set[str]:
    """The tools whose logs are held out: half of them, drawn once by `random.Random("40")`."""
    names = sorted(set(tools))
    rng = random.Random("40")
    rng.shuffle(names)
    return set(names[: len(names) // 2])


def capture(case: Case, bins: list[str], node_modules: str) -> bytes:
    with tempfile.TemporaryDirectory(prefix="k0cap-") as tmp:
        return run_case(case, Path(tmp) / case.name, bins, node_modules, {})[0]


def run_case(
    case: Case, work: Path, bins: list[str], node_modules: str, env: dict[str, str]
) -> tuple[bytes, int]:
    """Write the case into `work`, run its setup and its command there (`env` beside the case's);
    the combined output and the exit code, which must not be 0."""
    for rel, text in case.files.items():
        path = work / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    path_var = os.pathsep.join([*bins, os.environ.get("PATH", "")])
    env = {**os.environ, "PATH": path_var, "NO_COLOR": "1", **case.env, **env}
    for step in case.setup:
        step = [part.replace("{node_modules}", node_modules) for part in step]
        subprocess.run(step, cwd=work, env=env, check=True, capture_output=True)
    run = subprocess.run(
        case.command, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        timeout=600,
    )  # fmt: skip
    if run.returncode == 0:
        raise RuntimeError(f"{case.name}: {' '.join(case.command)} succeeded; it must fail")
    return run.stdout, run.returncode


ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def check(folder: Path) -> list[str]:
    """Each expectation's codes, root and cause occur in its raw log."""
    problems = []
    for name, want in json.loads((folder / "expectations.json").read_text()).items():
        path = folder / name
        if not path.exists():
            problems.append(f"{name}: no log")
            continue
        text = ANSI.sub("", path.read_text("utf-8", "replace"))
        for code in want["codes"]:
            if code not in text:
                problems.append(f"{name}: code {code!r} not in the log")
        if want["cause"] not in text:
            problems.append(f"{name}: cause {want['cause']!r} not in the log")
        root = str(want["root"])
        if root and root.split(":")[0] not in text:
            problems.append(f"{name}: root file {root!r} not in the log")
    return problems


def tail30_has_root(text: str, root: str) -> bool:
    if not root:
        return False
    tail = "\n".join(ANSI.sub("", text).rstrip("\n").split("\n")[-30:])
    path, _, rest = root.partition(":")
    line = rest.split(":")[0]
    name = re.escape(path.rsplit("/", 1)[-1])
    return re.search(rf"{name}(?::| line |\(|\", line |, line |\.| ){line}\b", tail) is not None


class Half:
    """A held-out half's cases and their expectations, written from the planted bug before
    capture."""

    def __init__(self) -> None:
        self.cases: list[Case] = []
        self.expect: dict[str, dict[str, object]] = {}

    def case(self, name: str, tool: str, family: str, files: dict[str, str], command: list[str], *,
             codes: list[str], root: str, cause: str, **kw: object) -> None:  # fmt: skip
        self.cases.append(Case(name, tool, family, files, command, **kw))  # type: ignore[arg-type]
        self.expect[f"{name}.log"] = {
            "tool": tool, "family": family, "codes": codes, "root": root, "cause": cause,
        }  # fmt: skip

    def main(self, description: str | None, out: Path) -> None:
        """Capture the cases into `--out` (default `out`), write their expectations (with whether
        `tail -n 30` holds the root) and print what `check` finds."""
        ap = argparse.ArgumentParser(description=description)
        ap.add_argument("--out", type=Path, default=out, help="where the logs and expectations go")
        ap.add_argument("--only", nargs="*", help="capture just these cases")
        ap.add_argument("--bin", nargs="*", default=[], help="folders put first on PATH")
        ap.add_argument("--node-modules", default="node_modules", help="npm packages for JS cases")
        ap.add_argument(
            "--check", action="store_true", help="check the stored logs, capture nothing"
        )
        args = ap.parse_args()
        out = args.out
        if not args.check:
            capture_all(self.cases, args, lambda case: out)
        write_expectations(out, self.expect)


def write_expectations(out: Path, expect: dict[str, dict[str, object]]) -> None:
    """The expectations of the logs captured into `out`, each with whether its last 30 lines hold
    the root; then what `check` says of them."""
    found = {}
    for name, want in expect.items():
        log = out / name
        if log.exists():
            has = tail30_has_root(log.read_text("utf-8", "replace"), str(want["root"]))
            found[name] = {**want, "tail30_has_root": has}
    (out / "expectations.json").write_text(json.dumps(found, indent=1) + "\n")
    for line in check(out):
        print(line)


def capture_all(
    cases: list[Case], args: argparse.Namespace, folder_of: Callable[[Case], Path]
) -> None:
    """Capture each case (or those `--only` names) into its folder, saying what each gave."""
    for case in cases:
        if args.only and case.name not in args.only:
            continue
        try:
            data = capture(case, args.bin, args.node_modules)
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            print(f"{case.name}: FAILED TO CAPTURE: {exc}")
            continue
        folder = folder_of(case)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{case.name}.log").write_bytes(data)
        lines = data.count(b"\n")
        print(f"{case.name}: {len(data):,} bytes, {lines:,} lines -> {folder.name}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", nargs="*", help="capture just these cases")
    ap.add_argument("--bin", nargs="*", default=[], help="folders put first on PATH")
    ap.add_argument(
        "--node-modules", default="node_modules", help="npm packages the JS cases import"
    )
    args = ap.parse_args()
    if SPLIT.exists():
        held = set(json.loads(SPLIT.read_text())["heldout_tools"])
    else:
        held = split([c.tool for c in CASES])
        OUT.mkdir(parents=True, exist_ok=True)
        SPLIT.write_text(json.dumps({"heldout_tools": sorted(held)}, indent=1) + "\n")
    capture_all(CASES, args, lambda case: OUT / "heldout" if case.tool in held else OUT)


if __name__ == "__main__":
    main()
