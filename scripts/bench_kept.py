"""What the two start-up optimisations k0maru keeps save on a no-change `k0maru scan` (medians, one
run):

- as shipped: the walk snapshot answers from a walk and a look at the index files; the settings
  cache spares importing pydantic;
- without the walk snapshot (`.k0maru/scan-snapshot.json` removed before each run: the scan opens
  the index and compares every file);
- without the settings cache (`.k0maru/settings.cache.json` removed before each run: pydantic
  validates);
- and a `k0maru search --no-scan --mode bm25` beside them, the CLI's query path.

Each is a whole `python -m k0maru` process; the variants alternate. Wall time and peak RSS per
process.

    python scripts/bench_kept.py [--notes 2000] [--runs 9] [--json]
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

ENV = {**os.environ, "K0MARU_EMBED": "false"}


def timed(args: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one `python -m k0maru` process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "k0maru", *args],
        cwd=cwd,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"k0maru {' '.join(args)} failed: {err}")
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="k0kept-"))
    try:
        generate(root, args.notes)
        timed(["scan", "--no-embed"], root)
        timed(["search", "--no-scan", "--mode", "bm25", "retry"], root)  # builds the BM25 segment
        timed(["scan", "--no-embed"], root)  # leaves the snapshot
        state = root / ".k0maru"
        variants = {
            "scan_no_change": (["scan", "--no-embed"], None),
            "scan_without_walk_snapshot": (["scan", "--no-embed"], state / "scan-snapshot.json"),
            "scan_without_settings_cache": (["scan", "--no-embed"], state / "settings.cache.json"),
            "search_bm25_no_scan": (
                ["search", "--no-scan", "--mode", "bm25", "retry backup"],
                None,
            ),
        }
        samples: dict[str, list[tuple[float, float]]] = {k: [] for k in variants}
        for _ in range(args.runs):
            for name, (argv, remove) in variants.items():
                if remove is not None:
                    remove.unlink(missing_ok=True)
                samples[name].append(timed(argv, root))
        report = {
            "notes": args.notes,
            "runs": args.runs,
            **{
                name: {
                    "ms_median": round(statistics.median(s[0] for s in runs) * 1000, 1),
                    "rss_mb_median": round(statistics.median(s[1] for s in runs), 1),
                }
                for name, runs in samples.items()
            },
        }
        if args.json:
            print(json.dumps(report))
        else:
            for key, value in report.items():
                print(f"{key:<30} {value}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
