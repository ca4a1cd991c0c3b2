"""Two versions of k0maru side by side on the commands a user waits on.

Alternating run by run so that a busy machine weighs on both alike (medians of wall time, CPU time
and peak RSS per process):
- a no-change `k0maru scan` (the walk snapshot's path),
- `k0maru hooks run reindex` as a git hook runs it (the worker is not started:
  K0MARU_HOOK_EMBED=off),
- `k0maru search --no-scan --mode bm25` (a CLI query without the model),
- `k0maru status`.

Each version is a folder holding a `k0maru` package (e.g. `git archive REV k0maru | tar -x -C DIR`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
from functools import partial
from pathlib import Path

from bench import K0, emit, interleave, medians, timed
from vaultgen import generate

COMMANDS = {
    "scan_no_change": ["scan", "--no-embed"],
    "hook_reindex": ["hooks", "run", "reindex", "--hook", "post-commit"],
    "search_bm25_no_scan": ["search", "--no-scan", "--mode", "bm25", "retry backup"],
    "status": ["status"],
}


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--a", type=Path, required=True, help="folder holding version A's k0maru")
    ap.add_argument("--b", type=Path, required=True, help="folder holding version B's k0maru")
    ap.add_argument("--notes", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=9)


def run(args: argparse.Namespace) -> None:
    envs = {
        v: {**os.environ, "PYTHONPATH": str(code), "K0MARU_EMBED": "false", "K0MARU_HOOK_EMBED": "off"}
        for v, code in (("a", args.a), ("b", args.b))
    }  # fmt: skip
    root = Path(tempfile.mkdtemp(prefix="k0ab-"))
    try:
        generate(root, args.notes)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        for env in envs.values():  # index, BM25 segment, snapshot, settings cache for both
            for argv in COMMANDS.values():
                timed([*K0, *argv], root, env)
        cases = {
            f"{name}_{v}": partial(timed, [*K0, *argv], root, env)
            for name, argv in COMMANDS.items()
            for v, env in envs.items()
        }
        got = interleave(args.runs, cases)
        report = {"notes": args.notes, "runs": args.runs}
        emit(report | {k: medians(s) for k, s in got.items()}, args.json, 26)
    finally:
        shutil.rmtree(root, ignore_errors=True)
