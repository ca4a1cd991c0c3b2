"""What k0maru adds to the user's own commands in a 10,000-note repository (medians, ratios in one run):

- `git commit` touching 5 notes with k0maru's plain hooks installed (vectors off, so that the
  worker's load is the index alone), against the same kind of commit with
  hooks switched off (`-c core.hooksPath=/dev/null`), alternating; the background worker the hook starts
  is let finish between runs (its catch-up time is reported too);
- a no-change `k0maru scan` (a whole CLI process: the installed `k0maru` command, as a user types it; `python
  -m k0maru` beside it) against its floor: a Python process that walks the same tree with `os.scandir` and
  `stat()`s every note; the three alternate.

    python scripts/bench_hooks.py [--notes 10000] [--changed 5] [--runs 9] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vaultgen import generate  # noqa: E402

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "b@example.com",
    "K0MARU_EMBED": "false",
}  # the worker: scan and BM25 only
ENV.pop("K0MARU_HOOK_EMBED", None)
K0 = [sys.executable, "-m", "k0maru"]
COMMAND = Path(sys.executable).with_name(
    "k0maru"
)  # the console script pip installed beside this interpreter
FLOOR = """import os, sys
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


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=ENV, check=True, capture_output=True)


def timed(cmd: list[str], cwd: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=ENV, check=True, capture_output=True)
    return (time.perf_counter() - t0) * 1000


def wait_for_worker(root: Path) -> float:
    """ms until the worker the last hook asked for has finished."""
    from k0maru.service import worker

    t0 = time.perf_counter()
    while worker.busy(root):
        time.sleep(0.02)
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--changed", type=int, default=5)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        paths = generate(root, args.notes, min_kb=1, max_kb=10)
        (root / ".gitignore").write_text(".k0maru/\n")
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "init")
        subprocess.run(
            [*K0, "scan", "--vault", str(root)], check=True, capture_output=True, env=ENV
        )
        subprocess.run(
            [*K0, "hooks", "install", "--vault", str(root)],
            check=True,
            capture_output=True,
            env=ENV,
        )
        with_hooks, without, catch_up = [], [], []
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

        for run in range(args.runs):
            for hooks in (True, False) if run % 2 else (False, True):
                ms = commit(run, hooks)
                (with_hooks if hooks else without).append(ms)
                if hooks:
                    catch_up.append(wait_for_worker(root))
        log = (root / ".k0maru" / "hooks.log").read_text()
        assert "worker failed" not in log, log
        worker_lines = [line for line in log.splitlines() if " worker: " in line]
        assert len(worker_lines) >= args.runs, log  # every hooked commit was indexed by the worker
        command = [str(COMMAND)] if COMMAND.exists() else K0
        subprocess.run(
            [*K0, "scan", "--vault", str(root), "--no-embed"],
            check=True,
            capture_output=True,
            env=ENV,
        )
        scan_ms, module_ms, floor_ms = [], [], []
        for _ in range(args.runs):  # after the scan above, every one of these has nothing to do
            scan_ms.append(timed([*command, "scan", "--vault", str(root), "--no-embed"], root))
            module_ms.append(timed([*K0, "scan", "--vault", str(root), "--no-embed"], root))
            floor_ms.append(timed([sys.executable, "-c", FLOOR, str(root)], root))
        walk_only = json.loads(
            subprocess.run(
                [*command, "scan", "--vault", str(root), "--no-embed", "--json"],
                check=True,
                capture_output=True,
                text=True,
                env=ENV,
            ).stdout
        )["walk_only"]
    added = statistics.median(with_hooks) - statistics.median(without)
    out = {
        "notes": args.notes,
        "changed_per_commit": args.changed,
        "runs": args.runs,
        "commit_no_hooks_ms_median": round(statistics.median(without), 1),
        "commit_with_hooks_ms_median": round(statistics.median(with_hooks), 1),
        "commit_added_ms_median": round(added, 1),
        "worker_catch_up_ms_median": round(statistics.median(catch_up), 1),
        "cli_scan_no_change_ms_median": round(statistics.median(scan_ms), 1),
        "cli_scan_walk_only": walk_only,
        "cli_scan_command": Path(command[0]).name
        if command[0] != sys.executable
        else "python -m k0maru",
        "python_m_scan_no_change_ms_median": round(statistics.median(module_ms), 1),
        "scandir_stat_floor_ms_median": round(statistics.median(floor_ms), 1),
        "cli_scan_vs_floor_ratio": round(
            statistics.median(scan_ms) / statistics.median(floor_ms), 2
        ),
    }
    print(json.dumps(out) if args.json else "\n".join(f"{k:>30}: {v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
