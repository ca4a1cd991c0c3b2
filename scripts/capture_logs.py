"""Capture the failing-run corpus of tests/data/logs from the real tools, one round at a time.

The cases are data: tests/data/capture/ROUND.toml, one file a round (`first`, `more1`..`more9`,
`tools`, `round3`..`round6`; its header says what the round is and which tools it needs). Each
`[[case]]` is a tiny project with a planted bug: the files it writes, the setup and the command (a
list runs as it is, a string with `bash -c`), the tool and family, and what its log must yield
(`codes`, `root`, `cause`; `heldout = true` puts it in the held-out folder). The `[round]` table
says where the logs go (`out`), the environment (`env`, `unset`, `stdin`), the default `paths` and
how a root is found in a log (`roots`: "exact" forms of `file:line[:col]`, or "file": the file's
name). The runner writes each case into a scratch folder, runs the command there, stores its
combined output byte for byte, and writes the case's line in the folder's expectations.json (with
whether `tail -n 30` shows the root), then says what in the expectations the log does not bear out.

`{name}` in commands, setup and env is replaced: python (this interpreter), python_bin (its folder),
node_modules (`--node-modules`, resolved), node_bin (its .bin), cases (the scratch folder), and the
round's `paths` (`--path NAME=VALUE` overrides them).

    python scripts/capture_logs.py ROUND [--only NAME ...] [--check] [--out DIR] [--cases DIR]
        [--bin DIR ...] [--node-modules DIR] [--path NAME=VALUE ...]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "data" / "capture"
ANSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
Case = dict[str, Any]


def load(name: str) -> tuple[dict[str, Any], list[Case]]:
    """A round's settings and its cases."""
    data = tomllib.loads((CASES / f"{name}.toml").read_text(encoding="utf-8"))
    return data["round"], data["case"]


def rounds() -> list[str]:
    return sorted(p.stem for p in CASES.glob("*.toml"))


def fill(text: str, values: dict[str, str]) -> str:
    return PLACEHOLDER.sub(lambda m: values.get(m[1], m[0]), text)


def argv(step: str | list[str], values: dict[str, str]) -> list[str]:
    """A list runs as it is; a string runs with `bash -c`."""
    if isinstance(step, str):
        return ["bash", "-c", fill(step, values)]
    return [fill(part, values) for part in step]


def run_case(
    case: Case, work: Path, env: dict[str, str], values: dict[str, str], stdin: bool
) -> tuple[bytes, int]:
    """Write the case into `work` (anew), run its setup and its command there; the combined
    output and the exit code, which must not be 0."""
    shutil.rmtree(work, ignore_errors=True)
    for rel, text in case["files"].items():
        path = work / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    env = {**env, **{k: fill(v, values) for k, v in case.get("env", {}).items()}}
    for step in case.get("setup", []):
        done = subprocess.run(argv(step, values), cwd=work, env=env, capture_output=True)
        if done.returncode:
            raise RuntimeError(f"setup {step!r} failed:\n{done.stderr.decode(errors='replace')}")
    cmd = argv(case["command"], values)
    run = subprocess.run(
        cmd,
        cwd=work,
        env=env,
        stdin=None if stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=900,
    )
    if run.returncode == 0 and not case.get("passing"):  # a passing case must exit 0
        raise RuntimeError(f"{' '.join(cmd)} succeeded; the case must fail")
    return run.stdout, run.returncode


def root_in(root: str, text: str) -> bool:
    """Whether the text prints the root, as `path:line[:col]` or in one of the other forms tools
    print a place in."""
    file, _, rest = root.partition(":")
    line = rest.split(":")[0]
    col = rest.split(":")[1] if rest.count(":") else ""
    forms = [
        root,
        f"{file} line {line}",
        f"{file}: line {line}",
        f'{file}", line {line}',
        f"{file} on line {line}",
        f"{file}({line}",
    ]
    if any(f in text for f in forms) or (col and f"{file}:[{line},{col}]" in text):  # maven
        return True
    f = re.escape(file)
    patterns = [rf"file=\S*{f},line={line}\b"]  # a GitHub annotation
    if col:  # babel's form; grouped reports (eslint's stylish, yamllint): the file on a line of
        # its own, then indented `line:col` rows
        patterns += [
            rf"(?m)^.*{f}: .*\({line}:{col}\)$",
            rf"(?m)^\S*{f}\n(?:\s+\d+:\d+.*\n)*?\s+{line}:{col}\s",
        ]
    return any(re.search(p, text) for p in patterns)


def tail30_has_root(data: bytes, root: str, roots: str) -> bool:
    if not root:
        return False
    if roots == "exact":
        return root_in(
            root, ANSI.sub(b"", b"\n".join(data.splitlines()[-30:])).decode("utf-8", "replace")
        )
    text = ANSI.sub(b"", data).decode("utf-8", "replace")
    tail = "\n".join(text.rstrip("\n").split("\n")[-30:])
    path, _, rest = root.partition(":")
    name = re.escape(path.rsplit("/", 1)[-1])
    line = rest.split(":")[0]
    return re.search(rf"{name}(?::| line |\(|\", line |, line |\.| ){line}\b", tail) is not None


def problems(case: Case, data: bytes, roots: str) -> list[str]:
    """What in the case's expectations the raw log does not bear out."""
    raw = data.decode("utf-8", "replace")
    text = ANSI.sub(b"", data).decode("utf-8", "replace")
    bad = [f"code {c!r} not in the log" for c in case["codes"] if c not in raw and c not in text]
    root = case["root"]
    if root and not (root_in(root, text) if roots == "exact" else root.split(":")[0] in text):
        bad.append(f"root {root!r} not printed")
    if case["cause"] not in text:
        bad.append(f"cause {case['cause']!r} not in the log")
    return bad


def write_expectations(folder: Path, entries: dict[str, dict[str, Any]]) -> None:
    """Update the folder's expectations.json, its order and its escaping kept (sorted when it was
    sorted, non-ASCII as it is when it holds some)."""
    path = folder / "expectations.json"
    text = path.read_text(encoding="utf-8") if path.exists() else "{}"
    known = json.loads(text)
    was_sorted = list(known) == sorted(known)
    for name, entry in entries.items():  # an entry's keys keep their order too
        known[name] = {k: entry[k] for k in known.get(name, {}) if k in entry} | entry
    if was_sorted:
        known = dict(sorted(known.items()))
    dump = json.dumps(known, indent=1, ensure_ascii=text.isascii())
    path.write_text(dump + "\n", encoding="utf-8")


def environment(rnd: dict[str, Any], bins: list[str], values: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in set(rnd.get("unset", []))}
    if bins:
        env["PATH"] = os.pathsep.join([*bins, os.environ.get("PATH", "")])
    return env | {k: fill(v, values) for k, v in rnd.get("env", {}).items()}


def capture(args: argparse.Namespace, cases_dir: Path) -> int:
    rnd, cases = load(args.round)
    out = args.out or REPO / rnd["out"]
    node_modules = Path(args.node_modules).resolve()
    values = {
        "python": sys.executable,
        "python_bin": str(Path(sys.executable).parent),
        "node_modules": str(node_modules),
        "node_bin": str(node_modules / ".bin"),
        "cases": str(cases_dir),
        **rnd.get("paths", {}),
        **dict(p.split("=", 1) for p in args.path),
    }
    env = environment(rnd, args.bin, values)
    failed = 0
    found: dict[Path, dict[str, dict[str, Any]]] = {}
    for case in cases:
        if args.only and case["name"] not in args.only:
            continue
        folder = out / "heldout" if case.get("heldout") else out
        log = folder / f"{case['name']}.log"
        said = ""
        if args.check:
            if not log.exists():
                continue
            data = log.read_bytes()
        else:
            try:
                data, rc = run_case(
                    case, cases_dir / case["name"], env, values, rnd.get("stdin") != "null"
                )
            except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
                print(f"{case['name']}: FAILED TO CAPTURE: {exc}")
                failed += 1
                continue
            folder.mkdir(parents=True, exist_ok=True)
            log.write_bytes(data)
            said = f"exit {rc}, "
        bad = problems(case, data, rnd["roots"])
        if said and "exit" in case and rc != case["exit"]:
            bad.append(f"exit {rc}, not {case['exit']}")
        failed += bool(bad)
        has = case.get("tail30_has_root", tail30_has_root(data, case["root"], rnd["roots"]))
        keys = ("tool", "family", "codes", "root", "cause")
        found.setdefault(folder, {})[log.name] = (
            {k: case[k] for k in keys}
            | {"tail30_has_root": has}
            | {k: case[k] for k in ("exit", "passing") if k in case}
        )
        where = "heldout" if case.get("heldout") else "dev"
        lines = data.count(b"\n")
        print(f"{case['name']} [{where}]: {said}{len(data):,} bytes, {lines:,} lines", *bad)
    for folder, entries in found.items():
        write_expectations(folder, entries)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("round", choices=rounds(), help="the cases file tests/data/capture/ROUND.toml")
    ap.add_argument("--only", nargs="*", help="capture just these cases")
    ap.add_argument("--check", action="store_true", help="check the stored logs, capture nothing")
    ap.add_argument(
        "--out", type=Path, help="where the logs and expectations go (default: the round's)"
    )
    ap.add_argument("--cases", type=Path, help="where the case folders go (default: a temp dir)")
    ap.add_argument("--bin", nargs="*", default=[], help="folders put first on PATH")
    ap.add_argument("--node-modules", default="node_modules", help="npm packages for JS cases")
    ap.add_argument(
        "--path", nargs="*", default=[], metavar="NAME=VALUE", help="override a path of the round"
    )
    args = ap.parse_args(argv)
    if args.cases:
        args.cases.mkdir(parents=True, exist_ok=True)
        return capture(args, args.cases.resolve())
    with tempfile.TemporaryDirectory(prefix="k0cap-") as tmp:
        return capture(args, Path(tmp))


if __name__ == "__main__":
    sys.exit(main())
