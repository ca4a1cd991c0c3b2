"""What k0maru adds to the user's own commands in a 10,000-note repository (medians, ratios in one
run):

- `git commit` touching 5 notes with k0maru's plain hooks installed (vectors off, so that the
  worker's load is the index alone), against the same kind of commit with hooks switched off (`-c
  core.hooksPath=/dev/null`), alternating; the background worker the hook starts is let finish
  between runs (its catch-up time is reported too);
- with `--pre-commit`, the same commits through the README's pre-commit block instead, and through
  the same block running a no-op hook (`true`) in k0maru's place: pre-commit's own floor;
- a no-change `k0maru scan` (a whole CLI process: the installed `k0maru` command, as a user types
  it; `python -m k0maru` beside it) against its floor: a Python process that walks the same tree
  with `os.scandir` and `stat()`s every note; the three alternate.

    python scripts/bench.py hooks [--notes 10000] [--changed 5] [--runs 9] [--pre-commit] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench import FLOOR, GIT_ENV, K0, emit, k0, like_a_users_install, median, wait_for_worker
from bench import timed as bench_timed
from vaultgen import generate

ENV = {**os.environ, **GIT_ENV, "K0MARU_EMBED": "false"}  # the worker: scan and BM25 only
ENV.pop("K0MARU_HOOK_EMBED", None)
COMMAND = Path(sys.executable).with_name("k0maru")  # the console script pip installed


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=ENV, check=True, capture_output=True)


CPU_MS: list[float] = []  # CPU time (user + system, the hooks' processes included) of each run


def timed(cmd: list[str], cwd: Path) -> float:
    """Wall ms of one process; its CPU ms (the hooks' processes included) go to CPU_MS."""
    got = bench_timed(cmd, cwd, ENV)
    CPU_MS.append(got.cpu * 1000)
    return got.wall * 1000


@dataclass
class Commits:
    """ms of commits with hooks and without (wall, CPU), and of each hooked commit's worker catching
    up."""

    wall: dict[bool, list[float]] = field(default_factory=lambda: {True: [], False: []})
    cpu: dict[bool, list[float]] = field(default_factory=lambda: {True: [], False: []})
    catch_up: list[float] = field(default_factory=list)

    def added(self, kind: str) -> float:
        got = self.wall if kind == "wall" else self.cpu
        return round(statistics.median(got[True]) - statistics.median(got[False]), 1)


def alternate(commit: Callable[[int, bool], float], root: Path, runs: range) -> Commits:
    """Commits with hooks and without, alternating which goes first."""
    out = Commits()
    for run in runs:
        for hooks in (True, False) if run % 2 else (False, True):
            out.wall[hooks].append(commit(run, hooks))
            out.cpu[hooks].append(CPU_MS[-1])
            if hooks:
                out.catch_up.append(wait_for_worker(root))
    return out


def use_pre_commit(root: Path, home: Path) -> None:
    """Swap the plain hooks for the README's pre-commit block, installed as the README says."""
    import re

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    config = re.search(r"```yaml\n(repos:.*?)```", readme, re.S)
    install = re.search(r"```bash\n(pre-commit install [^\n]*)\n```", readme)
    assert config and install, "the README's pre-commit block moved"
    k0("hooks", "uninstall", "--vault", str(root), env=ENV)
    (root / ".pre-commit-config.yaml").write_text(config.group(1))
    ENV["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{ENV['PATH']}"  # `k0maru` on PATH
    ENV["PRE_COMMIT_HOME"] = str(home)
    pre_commit = Path(sys.executable).with_name("pre-commit")
    subprocess.run([str(pre_commit), *install.group(1).split()[1:]], cwd=root, env=ENV, check=True)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "pre-commit config")


def use_no_op(root: Path) -> None:
    """The README's pre-commit block with `true` in place of k0maru: what pre-commit costs alone."""
    config = (root / ".pre-commit-config.yaml").read_text()
    (root / ".pre-commit-config.yaml").write_text(
        config.replace("entry: k0maru hooks run reindex", 'entry: "true"')
    )
    git(root, "add", "-A")
    git(root, "commit", "-qm", "no-op pre-commit config")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--changed", type=int, default=5)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument(
        "--pre-commit", action="store_true", help="also through the README's pre-commit block"
    )


def run(args: argparse.Namespace) -> None:
    like_a_users_install()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        paths = generate(root, args.notes, min_kb=1, max_kb=10)
        (root / ".gitignore").write_text(".k0maru/\n")
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "init")
        k0("scan", "--vault", str(root), env=ENV)
        k0("hooks", "install", "--vault", str(root), env=ENV)
        edited = iter(paths)

        def commit(run: int, hooks: bool) -> float:
            for _ in range(args.changed):
                p = next(edited)
                p.write_text(
                    p.read_text() + f"\nEdited in run {run} ({'hooks' if hooks else 'no hooks'}).\n"
                )
            git(root, "add", "-A")
            off = [] if hooks else ["-c", "core.hooksPath=/dev/null"]
            return timed(["git", *off, "commit", "-qm", f"edit {run}"], root)

        plain = alternate(commit, root, range(args.runs))
        log = (root / ".k0maru" / "hooks.log").read_text()
        assert "worker failed" not in log, log
        worker_lines = [line for line in log.splitlines() if " worker: " in line]
        assert len(worker_lines) >= args.runs, log  # every hooked commit was indexed by the worker
        pre_commit = no_op = None
        if args.pre_commit:  # the README's pre-commit block instead of the plain hooks
            use_pre_commit(root, Path(tmp) / "pc-home")
            pre_commit = alternate(commit, root, range(args.runs, 2 * args.runs))
            use_no_op(root)
            no_op = alternate(commit, root, range(2 * args.runs, 3 * args.runs))
        command = [str(COMMAND)] if COMMAND.exists() else K0
        k0("scan", "--vault", str(root), "--no-embed", env=ENV)
        scan_ms, module_ms, floor_ms = [], [], []
        for _ in range(args.runs):  # after the scan above, every one of these has nothing to do
            scan_ms.append(timed([*command, "scan", "--vault", str(root), "--no-embed"], root))
            module_ms.append(timed([*K0, "scan", "--vault", str(root), "--no-embed"], root))
            floor_ms.append(timed([sys.executable, "-c", FLOOR, str(root)], root))
        scanned = k0("scan", "--vault", str(root), "--no-embed", "--json", env=ENV)
        walk_only = json.loads(scanned)["walk_only"]
    out = {
        "notes": args.notes,
        "changed_per_commit": args.changed,
        "runs": args.runs,
        "commit_no_hooks_ms_median": median(plain.wall[False]),
        "commit_with_hooks_ms_median": median(plain.wall[True]),
        "commit_added_ms_median": plain.added("wall"),
        "commit_added_cpu_ms_median": plain.added("cpu"),
        "worker_catch_up_ms_median": median(plain.catch_up),
        "cli_scan_no_change_ms_median": median(scan_ms),
        "cli_scan_walk_only": walk_only,
        "cli_scan_command": Path(command[0]).name
        if command[0] != sys.executable
        else "python -m k0maru",
        "python_m_scan_no_change_ms_median": median(module_ms),
        "scandir_stat_floor_ms_median": median(floor_ms),
        "cli_scan_vs_floor_ratio": round(
            statistics.median(scan_ms) / statistics.median(floor_ms), 2
        ),
    }
    if pre_commit is not None and no_op is not None:
        out["pre_commit_added_ms_median"] = pre_commit.added("wall")
        out["pre_commit_added_cpu_ms_median"] = pre_commit.added("cpu")
        out["pre_commit_no_op_added_cpu_ms_median"] = no_op.added("cpu")
        out["pre_commit_k0maru_share_cpu_ms"] = round(
            pre_commit.added("cpu") - no_op.added("cpu"), 1
        )
    emit(out, args.json, 30)
