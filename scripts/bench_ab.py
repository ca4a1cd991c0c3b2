"""Two versions of k0maru side by side on the commands a user waits on, alternating run by run so
that a busy machine weighs on both alike (medians of wall time, CPU time and peak RSS per process):

- a no-change `k0maru scan` (the walk snapshot's path),
- `k0maru hooks run reindex` as a git hook runs it (the worker is not started:
  K0MARU_HOOK_EMBED=off),
- `k0maru search --no-scan --mode bm25` (a CLI query without the model),
- `k0maru status`.

Each version is a folder holding a `k0maru` package (e.g. `git archive REV k0maru | tar -x -C DIR`).

    python scripts/bench_ab.py --a DIR --b DIR [--notes 2000] [--runs 9] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vaultgen import generate  # noqa: E402

COMMANDS = {
    "scan_no_change": ["scan", "--no-embed"],
    "hook_reindex": ["hooks", "run", "reindex", "--hook", "post-commit"],
    "search_bm25_no_scan": ["search", "--no-scan", "--mode", "bm25", "retry backup"],
    "status": ["status"],
}


def timed(code: Path, args: list[str], cwd: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system: steadier than wall on a busy machine) and peak RSS
    (MB) of one `python -m k0maru` process of the version in `code`."""
    env = {
        **os.environ,
        "PYTHONPATH": str(code),
        "K0MARU_EMBED": "false",
        "K0MARU_HOOK_EMBED": "off",
    }
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "k0maru", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{code}: k0maru {' '.join(args)} failed")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--a", type=Path, required=True, help="folder holding version A's k0maru package"
    )
    ap.add_argument(
        "--b", type=Path, required=True, help="folder holding version B's k0maru package"
    )
    ap.add_argument("--notes", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="k0ab-"))
    try:
        generate(root, args.notes)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        for code in (args.a, args.b):  # index, BM25 segment, snapshot, settings cache for both
            for argv in COMMANDS.values():
                timed(code, argv, root)
        samples: dict[tuple[str, str], list[tuple[float, float, float]]] = {
            (v, c): [] for v in "ab" for c in COMMANDS
        }
        for _ in range(args.runs):
            for name, argv in COMMANDS.items():
                for version, code in (("a", args.a), ("b", args.b)):
                    samples[(version, name)].append(timed(code, argv, root))
        report: dict[str, object] = {"notes": args.notes, "runs": args.runs}
        for name in COMMANDS:
            for version in "ab":
                runs = samples[(version, name)]
                report[f"{name}_{version}"] = {
                    "ms_median": round(statistics.median(r[0] for r in runs) * 1000, 1),
                    "cpu_ms_median": round(statistics.median(r[1] for r in runs) * 1000, 1),
                    "rss_mb_median": round(statistics.median(r[2] for r in runs), 1),
                }
        if args.json:
            print(json.dumps(report))
        else:
            for key, value in report.items():
                print(f"{key:<26} {value}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
