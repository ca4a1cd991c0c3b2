"""Search benchmark on a generated 5,000-note vault: hybrid and BM25 latency (p50/p95), incremental
re-embed after one edit, and a whole `k0maru search` process on the vault once `--pending-notes`
more notes wait for vectors (the worker is kept from starting, so the backlog stays what it is while
it is measured). Embedding throughput against a bare session: `bench.py embed`.

    python scripts/bench.py search [--notes 5000] [--pending-notes 4500] [--queries 200]
        [--keep DIR] [--json]

One-shot search on real vaults (`--real DIR`, repeatable; indexed first, untimed): a whole
`k0maru search --mode bm25` process against ripgrep (`--rg PATH`: the files holding any of the
query's words, case-folded) and qmd's BM25 search (`--qmd CMD`, each vault's index named by
`--qmd-index`, in the order of `--real`), the same queries, interleaved, medians.

    python scripts/bench.py search --real DIR [--real DIR] [--rg PATH] [--qmd CMD]
        [--qmd-index NAME ...] [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np
from bench import K0, clock, emit, interleave, k0, like_a_users_install, median, timed
from vaultgen import SYMBOLS, WORDS, generate

from k0maru.service import worker
from k0maru.wiring.vault import Vault


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(values), p))


# what a reader of the tldr pages (the real vaults measured) asks for
REAL_QUERIES = [
    "extract a tar archive",
    "list open network ports",
    "undo the last git commit",
    "convert video to gif",
    "find files by name",
    "show disk usage of a directory",
]


def real_searches(args: argparse.Namespace) -> list[dict[str, float | int | str]]:
    """Per real vault: the median wall of each tool's one-shot search, and k0maru's ratios."""
    like_a_users_install()
    env = {**os.environ, "K0MARU_HOOK_EMBED": "off"}
    out: list[dict[str, float | int | str]] = []
    for i, root in enumerate(args.real):
        k0("scan", "--no-embed", "--vault", str(root), env=env)  # the index, once
        cases = {
            "k0maru": [
                [*K0, "search", "--mode", "bm25", "--vault", str(root), q] for q in REAL_QUERIES
            ]
        }
        if args.rg:
            cases["rg"] = [
                [args.rg, "-il", *(a for w in q.split() for a in ("-e", w)), str(root)]
                for q in REAL_QUERIES
            ]
        if args.qmd:
            name = ["--index", args.qmd_index[i]] if args.qmd_index else []
            cases["qmd"] = [[*shlex.split(args.qmd), *name, "search", q] for q in REAL_QUERIES]
        load = os.getloadavg()[0]
        with worker.held(root) as mine:  # a held lock: no search starts the worker
            assert mine
            got = interleave(args.runs, {
                tool: partial(lambda cmds: [timed(c, env=env, check=False).wall for c in cmds], cmds)
                for tool, cmds in cases.items()
            })  # fmt: skip
        row: dict[str, float | int | str] = {"vault": str(root)}
        for tool, rounds in got.items():
            row[f"{tool}_ms"] = median((w for r in rounds for w in r), 1000)
        for peer in ("rg", "qmd"):
            if f"{peer}_ms" in row:
                row[f"k0maru_vs_{peer}"] = round(
                    float(row["k0maru_ms"]) / float(row[f"{peer}_ms"]), 2
                )
        row["load_before"], row["load_after"] = round(load, 1), round(os.getloadavg()[0], 1)
        out.append(row)
    return out


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--real", type=Path, action="append", help="a real vault searched one-shot")
    ap.add_argument("--runs", type=int, default=3, help="interleaved rounds (--real)")
    ap.add_argument("--rg", help="ripgrep's executable (--real)")
    ap.add_argument("--qmd", help="qmd's command line, before its arguments (--real)")
    ap.add_argument("--qmd-index", action="append", help="qmd's index of each --real vault")
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
    if args.real:
        emit(real_searches(args), args.json)
        return
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
