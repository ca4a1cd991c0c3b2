"""What the two start-up optimisations k0maru keeps save on a no-change `k0maru scan`.

Medians, one run:
- as shipped: the walk snapshot answers from a walk and a look at the index files; the settings
  cache spares importing pydantic;
- without the walk snapshot (`.k0maru/scan-snapshot.json` removed before each run: the scan opens
  the index and compares every file);
- without the settings cache (`.k0maru/settings.cache.json` removed before each run: pydantic
  validates);
- and a `k0maru search --no-scan --mode bm25` beside them, the CLI's query path.

Each is a whole `python -m k0maru` process; the variants alternate. Wall time and peak RSS per
process.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
from functools import partial
from pathlib import Path

from bench import K0, Sample, emit, interleave, medians, timed
from vaultgen import generate


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--notes", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=9)


def run(args: argparse.Namespace) -> None:
    env = {**os.environ, "K0MARU_EMBED": "false"}
    root = Path(tempfile.mkdtemp(prefix="k0kept-"))
    try:
        generate(root, args.notes)
        subprocess.run(["git", "init", "-q", str(root)], check=True)  # a vault: a repository
        timed([*K0, "scan", "--no-embed"], root, env)
        timed([*K0, "search", "--no-scan", "--mode", "bm25", "retry"], root, env)  # BM25 segment
        timed([*K0, "scan", "--no-embed"], root, env)  # leaves the snapshot
        state = root / ".k0maru"
        variants = {
            "scan_no_change": (["scan", "--no-embed"], None),
            "scan_without_walk_snapshot": (["scan", "--no-embed"], state / "scan-snapshot.json"),
            "scan_without_settings_cache": (["scan", "--no-embed"], state / "settings.cache.json"),
            "search_bm25_no_scan": (["search", "--no-scan", "--mode", "bm25", "retry backup"], None),
        }  # fmt: skip

        def one(argv: list[str], remove: Path | None) -> Sample:
            if remove is not None:
                remove.unlink(missing_ok=True)
            return timed([*K0, *argv], root, env)

        got = interleave(args.runs, {k: partial(one, a, r) for k, (a, r) in variants.items()})  # fmt: skip
        report = {"notes": args.notes, "runs": args.runs}
        emit(report | {k: medians(s, "wall", "rss_mb") for k, s in got.items()}, args.json)
    finally:
        shutil.rmtree(root, ignore_errors=True)
