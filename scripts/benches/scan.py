"""Scanner benchmark: no-change rescans, full lexical rebuild, touch-only rescans (medians).

python scripts/bench.py scan [--sizes 500 10000] [--repeat 15] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench import clock
from vaultgen import generate

from k0maru.config import load_settings
from k0maru.index.scanner import IncrementalScanner
from k0maru.index.store import Store, db_path
from k0maru.search.lexical import MainSegment


def bench_size(count: int, repeat: int) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix=f"k0bench{count}-"))
    try:
        paths = generate(root, count)
        settings = load_settings(root, embed=False)
        total_bytes = sum(p.stat().st_size for p in paths)
        rebuilds = []
        for _ in range(max(3, repeat // 5)):
            for f in db_path(root).parent.glob("index.sqlite*"):
                f.unlink()
            with Store.open(root) as store:
                t0 = time.perf_counter()
                result = IncrementalScanner(store, settings).scan()
                rebuilds.append(time.perf_counter() - t0)
                assert result.added == count, result.counts()
        with Store.open(root) as store:
            t0 = time.perf_counter()
            MainSegment.build(store)
            bm25_build = time.perf_counter() - t0
            scanner = IncrementalScanner(store, settings)
            nochange = clock(scanner.scan, repeat)
            r = scanner.scan()
            assert r.unchanged == count and r.files_read == 0
            touches = []
            for k in range(max(3, repeat // 5)):
                stamp = time.time() + 10 + k
                for p in paths:
                    os.utime(p, (stamp, stamp))
                t0 = time.perf_counter()
                r = scanner.scan()
                touches.append(time.perf_counter() - t0)
                assert r.touched == count and r.modified == 0, r.counts()
        rebuild = statistics.median(rebuilds)
        touch = statistics.median(touches)
        return {
            "notes": count,
            "mb": round(total_bytes / 1e6, 1),
            "nochange_rescan_ms_median": round(statistics.median(nochange) * 1000, 2),
            "full_rebuild_s_median": round(rebuild, 3),
            "full_rebuild_notes_per_s": round(count / rebuild),
            "touch_all_rescan_s_median": round(touch, 3),
            "touch_vs_rebuild_speedup": round(rebuild / touch, 2),
            "bm25_build_s": round(bm25_build, 3),
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 10_000])
    ap.add_argument("--repeat", type=int, default=15)


def run(args: argparse.Namespace) -> None:
    results = [bench_size(n, args.repeat) for n in args.sizes]
    if args.json:
        print(json.dumps(results))
        return
    for r in results:
        print(
            f"{r['notes']:>6} notes ({r['mb']} MB): no-change rescan {r['nochange_rescan_ms_median']} ms | "
            f"full rebuild {r['full_rebuild_s_median']} s = {r['full_rebuild_notes_per_s']} notes/s | "
            f"touch-all {r['touch_all_rescan_s_median']} s ({r['touch_vs_rebuild_speedup']}x faster than rebuild) | "
            f"BM25 build {r['bm25_build_s']} s"
        )
