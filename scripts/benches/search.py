"""Search benchmark on a generated 5,000-note vault: hybrid and BM25 latency (p50/p95), incremental
re-embed after one edit, and a whole `k0maru search` process on the vault once `--pending-notes`
more notes wait for vectors (the worker is kept from starting, so the backlog stays what it is while
it is measured). Embedding throughput against a bare session: `bench.py embed`.

    python scripts/bench.py search [--notes 5000] [--pending-notes 4500] [--queries 200]
        [--keep DIR] [--json]
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np
from bench import K0, clock, emit, like_a_users_install, median, timed
from vaultgen import SYMBOLS, WORDS, generate

from k0maru.service import worker
from k0maru.wiring.vault import Vault


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(values), p))


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--notes", type=int, default=5000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument(
        "--pending-notes",
        type=int,
        default=4500,
        help="notes added without vectors (~10 chunks each)",
    )
    ap.add_argument(
        "--keep", type=Path, help="reuse/keep the generated vault here (embedding takes minutes)"
    )


def run(args: argparse.Namespace) -> None:
    like_a_users_install()
    root = args.keep or Path(tempfile.mkdtemp(prefix="k0bench-search-"))
    if not any(root.rglob("*.md")):
        root.mkdir(parents=True, exist_ok=True)
        generate(root, args.notes, seed=11, min_kb=0.3, max_kb=1.5)
    out: dict[str, float | int | str] = {"notes": args.notes}
    with Vault.open(root) as v:
        t0 = time.perf_counter()
        report = v.index()
        out["index_s"] = round(time.perf_counter() - t0, 1)
        out["chunks"] = v.store.counts()["chunks"]
        out["embedded_now"] = report.embedded
        assert v.embedder is not None, v.model_warning
        rng = random.Random(5)
        queries = [
            " ".join(rng.sample(WORDS, 3)) if i % 3 else rng.choice(SYMBOLS)
            for i in range(args.queries)
        ]
        v.recall.search("warm up the model and the bm25 index", limit=10)
        for mode, key in (("hybrid", "hybrid"), ("bm25", "bm25")):
            lat = [
                clock(partial(v.recall.search, q, limit=10, mode=mode))[0] * 1000 for q in queries
            ]
            out[f"{key}_p50_ms"] = median(lat, digits=2)
            out[f"{key}_p95_ms"] = round(pct(lat, 95), 2)

        # incremental re-embed after editing one note: only its changed chunks
        target = sorted(root.rglob("*.md"))[0]
        target.write_text(
            target.read_text(encoding="utf-8") + "\n\nOne new closing paragraph about leases.\n",
            encoding="utf-8",
        )
        report = v.index()
        out.update(
            edit_modified=report.scan.modified,
            edit_new_chunks=report.scan.new_chunks,
            edit_embedded=report.embedded,
        )
        t0 = time.perf_counter()
        v.recall.search("lease", limit=10)
        out["first_query_after_edit_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        # a backlog: notes indexed but not embedded; whole CLI processes answer while it waits
        if args.pending_notes:
            generate(root / "backlog", args.pending_notes, seed=12, min_kb=2, max_kb=8)
            v.index(embed=False, lexical=True)  # as `k0maru scan --no-embed` would
            out["pending_chunks"] = v.store.unembedded_chunks()
            out["embedded_chunks"] = v.store.counts()["chunks_embedded"]
    if args.pending_notes:
        env = {**os.environ, "K0MARU_HOOK_EMBED": "off"}
        with worker.held(root) as mine:  # a held lock: the search asks for the worker, none starts
            assert mine
            cli = [
                timed([*K0, "search", "--vault", str(root), q], env=env).wall * 1000
                for q in queries[:9]
            ]
        out["cli_search_with_backlog_ms_median"] = median(cli)
        out["cli_search_with_backlog_ms_max"] = round(max(cli), 1)
    emit(out, args.json, 34)
