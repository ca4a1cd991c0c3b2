"""k0maru's benchmarks, one subcommand each (scripts/benches/NAME.py holds its measurement; `python
scripts/bench.py NAME --help` says what it measures and how). Shared here: the state processes
start in (a user's install: bytecode compiled), a timed child process (wall, CPU and peak RSS),
rounds interleaved so that a change in the machine's load touches every case alike, medians, and
the report (aligned lines, or one JSON document with `--json`).

    python scripts/bench.py {scan,search,lexical,mcp,offload,hooks,agent-hook,embed,cli}
        [options] [--json]
"""

from __future__ import annotations

import argparse
import compileall
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

REPO = Path(__file__).resolve().parents[1]
T = TypeVar("T")
sys.path.insert(0, str(REPO / "scripts"))
K0 = [sys.executable, "-m", "k0maru"]
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "b@example.com",
}
# the floor of a no-change scan (#62): a Python process that imports what a small command-line tool
# does (argparse, sqlite3, json), walks the tree and stat()s every note
FLOOR = """import argparse, json, os, sqlite3, sys
def walk(d):
    n = 0
    with os.scandir(d) as it:
        for e in it:
            if e.is_dir(follow_symlinks=False):
                if e.name not in ('.git', '.k0maru'):
                    n += walk(e.path)
            elif e.name.endswith('.md'):
                e.stat(); n += 1
    return n
print(walk(sys.argv[1]))
"""
SUBCOMMANDS = ["scan", "search", "lexical", "mcp", "offload", "hooks", "agent-hook", "embed", "cli"]


def like_a_users_install() -> None:
    """Compile k0maru's modules now, and let the processes started later keep what they compile.
    pip compiles a package's modules when it installs it; with PYTHONDONTWRITEBYTECODE set (some CI
    and sandbox machines) and an editable install, every process would compile k0maru again and a
    start-up time would measure the compiler (100-270 ms of a CLI search on a 2-core machine)."""
    import k0maru

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    compileall.compile_dir(Path(k0maru.__file__).parent, quiet=1)


class Sample(NamedTuple):
    wall: float  # seconds
    cpu: float  # user + system seconds: steadier than wall on a busy machine
    rss_mb: float  # peak


def timed(cmd: list[str], cwd: Path | str | None = None, env: dict[str, str] | None = None, stdin: str | None = None, check: bool = True) -> Sample:  # fmt: skip
    """One child process, its output dropped."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdin=subprocess.PIPE if stdin is not None else None,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    if proc.stdin is not None:
        proc.stdin.write(stdin or "")
        proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if check and os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def interleave(runs: int, cases: Mapping[str, Callable[[], T]]) -> dict[str, list[T]]:
    """Each round runs every case once, in order."""
    got: dict[str, list[T]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, run in cases.items():
            got[name].append(run())
    return got


def median(values: Iterable[float], scale: float = 1.0, digits: int = 1) -> float:
    return round(statistics.median(values) * scale, digits)


def clock(fn: Callable[[], object], times: int = 1) -> list[float]:
    """Seconds of each of `times` calls of fn, in this process."""
    out = []
    for _ in range(times):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def k0(*args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None) -> str:
    """`python -m k0maru ARGS`, which must succeed; its stdout."""
    done = subprocess.run([*K0, *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)  # fmt: skip
    return done.stdout


def wait_for_worker(root: Path) -> float:
    """ms until the worker the last command asked for in the vault has finished."""
    from k0maru.service import worker

    t0 = time.perf_counter()
    while worker.busy(root):
        time.sleep(0.02)
    return (time.perf_counter() - t0) * 1000


def medians(samples: list[Sample], *fields: str) -> dict[str, float]:
    """ms and MB medians of the fields asked for (wall, cpu, rss_mb)."""
    names = {"wall": "ms_median", "cpu": "cpu_ms_median", "rss_mb": "rss_mb_median"}
    return {
        names[f]: median((getattr(s, f) for s in samples), 1 if f == "rss_mb" else 1000)
        for f in fields or ("wall", "cpu", "rss_mb")
    }


def emit(report: Any, as_json: bool, width: int = 30) -> None:
    """One JSON document, or a line per key (a row per item of a list)."""
    if as_json:
        print(json.dumps(report))
    elif isinstance(report, dict):
        print("\n".join(f"{k:>{width}}: {v}" for k, v in report.items()))
    elif report is not None:
        print("\n".join(json.dumps(r) for r in report))


def module(name: str) -> Any:
    return importlib.import_module("benches." + name.replace("-", "_"))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    sub = ap.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        mod = module(name)
        p = sub.add_parser(name, help=mod.__doc__.splitlines()[0], description=mod.__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
        mod.add_arguments(p)
        p.add_argument("--json", action="store_true", help="one JSON document")
    args = ap.parse_args(argv)
    module(args.command).run(args)


if __name__ == "__main__":
    main()
