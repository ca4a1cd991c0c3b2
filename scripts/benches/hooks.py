"""What k0maru adds to the user's own commands in a 10,000-note repository (medians, ratios in one
run):

- `git commit` touching 5 notes with k0maru's plain hooks installed (vectors off, so that the
  worker's load is the index alone), against the same kind of commit with hooks switched off (`-c
  core.hooksPath=/dev/null`), alternating; the background worker the hook starts is let finish
  between runs (its catch-up time is reported too); CPU is user + system of `git commit` and the
  hooks it waits for;
- a no-change `k0maru scan` (a whole CLI process: the installed `k0maru` command, as a user types
  it; `python -m k0maru` beside it) against its floor: a Python process that walks the same tree
  with `os.scandir` and `stat()`s every note; the three alternate.

The pre-commit figures of docs/benchmarks.md (a goal since retired) came from its `--pre-commit`:
`git show bb736b0:scripts/benches/hooks.py`.

    python scripts/bench.py hooks [--notes 10000] [--changed 5] [--runs 9] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path

from bench import (
    FLOOR,
    GIT_ENV,
    K0,
    Sample,
    emit,
    interleave,
    k0,
    like_a_users_install,
    median,
    timed,
    wait_for_worker,
)
from vaultgen import generate

ENV = {**os.environ, **GIT_ENV, "K0MARU_EMBED": "false"}  # the worker: scan and BM25 only
ENV.pop("K0MARU_HOOK_EMBED", None)
COMMAND = Path(sys.executable).with_name("k0maru")  # the console script pip installed


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=ENV, check=True, capture_output=True)


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--changed", type=int, default=5)
    ap.add_argument("--runs", type=int, default=9)


def run(args: argparse.Namespace) -> None:
    like_a_users_install()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        edited = iter(generate(root, args.notes, min_kb=1, max_kb=10))
        (root / ".gitignore").write_text(".k0maru/\n")
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "init")
        k0("scan", "--vault", str(root), env=ENV)
        k0("hooks", "install", "--vault", str(root), env=ENV)
        catch_up: list[float] = []

        def commit(hooks: bool) -> Sample:
            for _ in range(args.changed):
                p = next(edited)
                p.write_text(p.read_text() + f"\nEdited ({'hooks' if hooks else 'no hooks'}).\n")
            git(root, "add", "-A")
            off = [] if hooks else ["-c", "core.hooksPath=/dev/null"]
            got = timed(["git", *off, "commit", "-qm", "edit"], root, ENV)
            if hooks:
                catch_up.append(wait_for_worker(root))
            return got

        commits = interleave(
            args.runs, {"hooks": partial(commit, True), "none": partial(commit, False)}
        )
        log = (root / ".k0maru" / "hooks.log").read_text()
        assert "worker failed" not in log, log
        assert log.count(" worker: ") >= args.runs, log  # every hooked commit was indexed
        command = [str(COMMAND)] if COMMAND.exists() else K0
        scan = ["scan", "--vault", str(root), "--no-embed"]
        k0(*scan, env=ENV)
        scans = interleave(args.runs, {  # after the scan above, every one has nothing to do
            "cli": partial(timed, [*command, *scan], root, ENV),
            "python_m": partial(timed, [*K0, *scan], root, ENV),
            "floor": partial(timed, [sys.executable, "-c", FLOOR, str(root)], root, ENV),
        })  # fmt: skip
        walk_only = json.loads(k0(*scan, "--json", env=ENV))["walk_only"]

    def ms(samples: list[Sample], cpu: bool = False) -> float:
        return median((s.cpu if cpu else s.wall for s in samples), 1000)

    hooked, bare = commits["hooks"], commits["none"]
    emit({
        "notes": args.notes, "changed_per_commit": args.changed, "runs": args.runs,
        "commit_no_hooks_ms_median": ms(bare),
        "commit_with_hooks_ms_median": ms(hooked),
        "commit_added_ms_median": round(ms(hooked) - ms(bare), 1),
        "commit_added_cpu_ms_median": round(ms(hooked, True) - ms(bare, True), 1),
        "worker_catch_up_ms_median": median(catch_up),
        "cli_scan_no_change_ms_median": ms(scans["cli"]),
        "cli_scan_walk_only": walk_only,
        "cli_scan_command": "k0maru" if command[0] != sys.executable else "python -m k0maru",
        "python_m_scan_no_change_ms_median": ms(scans["python_m"]),
        "scandir_stat_floor_ms_median": ms(scans["floor"]),
        "cli_scan_vs_floor_ratio": round(ms(scans["cli"]) / ms(scans["floor"]), 2),
    }, args.json, 34)  # fmt: skip
