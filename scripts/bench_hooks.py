"""Git hook benchmark: `k0maru hooks run reindex` after commits touching a handful of files in a
10,000-note repository (wall time of the hook process, median over runs).

    python scripts/bench_hooks.py [--notes 10000] [--changed 5] [--runs 7] [--json]
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

ENV = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_COMMITTER_NAME": "bench",
       "GIT_COMMITTER_EMAIL": "b@example.com", "K0MARU_HOOK_EMBED": "off"}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=ENV, check=True, capture_output=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--changed", type=int, default=5)
    ap.add_argument("--runs", type=int, default=7)
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
        subprocess.run([sys.executable, "-m", "k0maru", "scan", "--vault", str(root), "--no-embed"], check=True,
                       capture_output=True, env=ENV)
        hook_ms, full_scan_ms = [], []
        for run in range(args.runs):
            for p in paths[run * args.changed:(run + 1) * args.changed]:
                p.write_text(p.read_text() + f"\nEdited in run {run}.\n")
            git(root, "commit", "-qam", f"edit {run}")
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "k0maru", "hooks", "run", "reindex", "--hook", "post-commit",
                            "--vault", str(root)], check=True, env=ENV)
            hook_ms.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "k0maru", "scan", "--vault", str(root), "--no-embed"], check=True,
                           capture_output=True, env=ENV)
            full_scan_ms.append((time.perf_counter() - t0) * 1000)
        log = (root / ".k0maru" / "hooks.log").read_text().splitlines()
        assert all(f"scope={args.changed} +0 ~{args.changed} -0" in line for line in log), log
    out = {"notes": args.notes, "changed_per_commit": args.changed, "runs": args.runs,
           "hook_wall_ms_median": round(statistics.median(hook_ms), 1), "hook_wall_ms_max": round(max(hook_ms), 1),
           "cli_scan_no_change_ms_median": round(statistics.median(full_scan_ms), 1)}
    print(json.dumps(out) if args.json else "\n".join(f"{k:>30}: {v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
