"""Scanner benchmark, in this process: a first scan of a generated vault, then no-change rescans
(medians). The rebuild and touch-all figures it once printed: `git show
bb736b0:scripts/benches/scan.py`.

python scripts/bench.py scan [--sizes 500 10000] [--repeat 15] [--json]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from bench import clock, emit, median
from vaultgen import generate

from k0maru.config import load_settings
from k0maru.index.scanner import IncrementalScanner
from k0maru.index.store import Store


def bench_size(count: int, repeat: int) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix=f"k0bench{count}-"))
    try:
        paths = generate(root, count)
        with Store.open(root) as store:
            scanner = IncrementalScanner(store, load_settings(root, embed=False))
            first = clock(scanner.scan)
            nochange = clock(scanner.scan, repeat)
            r = scanner.scan()
            assert r.unchanged == count and r.files_read == 0, r.counts()
        return {
            "notes": count,
            "mb": round(sum(p.stat().st_size for p in paths) / 1e6, 1),
            "first_scan_s": round(first[0], 2),
            "nochange_rescan_ms_median": median(nochange, 1000, 2),
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 10_000])
    ap.add_argument("--repeat", type=int, default=15)


def run(args: argparse.Namespace) -> None:
    emit([bench_size(n, args.repeat) for n in args.sizes], args.json)
