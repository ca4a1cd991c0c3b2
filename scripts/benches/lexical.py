"""Incremental BM25: what an edit costs the next query, the delta against a full rebuild and against
FTS5.

Speed, on a generated vault (default 38,000 notes, 1-3 KB each): warm query latency; after editing
1% of the notes, the first query in the same process (main segment in memory, delta scored) and in a
fresh one (main segment read from the index file, as the CLI does), against the full rebuild every
edit used to cost; and SQLite FTS5 over the very same pre-tokenised terms (build, the 1% update,
query latency), the alternative the design had to rule in or out. The quality
figures (the delta against a full rebuild and FTS5's bm25() on the labelled sets, nDCG@10) came from
its `--skip-speed` half: `git show bb736b0:scripts/benches/lexical.py`.

    python scripts/bench.py lexical [--notes 38000] [--queries 100] [--json]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from bench import emit
from vaultgen import SYMBOLS, WORDS, generate

from k0maru.config import load_settings
from k0maru.index.scanner import IncrementalScanner
from k0maru.index.store import Store
from k0maru.search.lexical import LexicalCache, LexicalIndex, MainSegment
from k0maru.search.terms import tokenize


class Fts5:
    """FTS5 over our own terms: each distinct term becomes one opaque ASCII token, so FTS5 sees
    exactly the terms the bm25s index sees and only its storage and scoring differ."""

    def __init__(self) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='ascii')")
        self.ids: dict[str, str] = {}

    def encode(self, terms: list[str], add: bool) -> str:
        out = []
        for t in terms:
            code = self.ids.get(t)
            if code is None and add:
                code = self.ids[t] = f"t{len(self.ids)}"
            if code is not None:
                out.append(code)
        return " ".join(out)

    def put(self, rows: list[tuple[int, str]]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO f(rowid, body) VALUES (?, ?)",
                [(i, self.encode(tokenize(text), True)) for i, text in rows],
            )

    def delete(self, ids: list[int]) -> None:
        with self.db:
            self.db.executemany("DELETE FROM f WHERE rowid = ?", [(i,) for i in ids])

    def search(self, query: str, k: int) -> list[int]:
        q = self.encode(tokenize(query), False)
        if not q:
            return []
        return [
            r[0]
            for r in self.db.execute(
                "SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT ?",
                (" OR ".join(q.split()), k),
            )
        ]


def chunk_rows(store: Store) -> list[tuple[int, str]]:
    return [
        (cid, f"{title}\n{heading}\n{text}")
        for cid, _, title, heading, text, _lang in store.lexical_corpus()
    ]


def timed_ms(fn) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t0) * 1000, out


def speed(notes: int, n_queries: int) -> dict[str, float | int]:
    root = Path(tempfile.mkdtemp(prefix="k0bench-lex-"))
    try:
        paths = generate(root, notes, seed=3, min_kb=1, max_kb=3)
        rng = random.Random(9)
        queries = [
            " ".join(rng.sample(WORDS, 3)) if i % 3 else rng.choice(SYMBOLS)
            for i in range(n_queries)
        ]
        out: dict[str, float | int] = {"notes": notes}
        with Store.open(root) as store:
            scanner = IncrementalScanner(store, load_settings(root, embed=False))
            scanner.scan()
            out["chunks"] = store.counts()["chunks"]
            out["full_rebuild_ms"], main = timed_ms(lambda: MainSegment.build(store))
            assert isinstance(main, MainSegment)
            main.save(store)
            cache = LexicalCache()
            cache.get(store).search("warm", 10)
            warm = [timed_ms(lambda q=q: cache.get(store).search(q, 80))[0] for q in queries]
            out["warm_query_p50_ms"] = round(statistics.median(warm), 2)

            fts = Fts5()
            rows = chunk_rows(store)
            out["fts5_build_ms"] = round(timed_ms(lambda: fts.put(rows))[0], 1)
            fts_warm = [timed_ms(lambda q=q: fts.search(q, 80))[0] for q in queries]
            out["fts5_query_p50_ms"] = round(statistics.median(fts_warm), 2)

            edited = rng.sample(paths, max(1, notes // 100))
            for p in edited:
                p.write_text(
                    p.read_text(encoding="utf-8") + "\n\nA closing paragraph on lease renewal.\n",
                    encoding="utf-8",
                )
            before_ids = {cid for cid, _ in rows}
            out["edited_notes"] = len(edited)
            out["scan_after_edit_ms"] = round(timed_ms(lambda: scanner.scan())[0], 1)
            q = queries[1]
            out["first_query_after_edit_ms"] = round(
                timed_ms(lambda: cache.get(store).search(q, 80))[0], 2
            )
            index = cache.get(store)
            assert isinstance(index, LexicalIndex)
            out["delta_chunks"] = index.delta_size
            out["first_query_fresh_process_ms"] = round(
                timed_ms(lambda: LexicalCache().get(store).search(q, 80))[0], 1
            )
            after = [timed_ms(lambda q=q: cache.get(store).search(q, 80))[0] for q in queries]
            out["query_with_delta_p50_ms"] = round(statistics.median(after), 2)
            out["first_query_vs_warm"] = round(
                out["first_query_after_edit_ms"] / out["warm_query_p50_ms"], 1
            )
            out["old_first_query_ms"] = round(out["full_rebuild_ms"] + out["warm_query_p50_ms"], 1)
            out["full_rebuild_ms"] = round(out["full_rebuild_ms"], 1)

            now = chunk_rows(store)
            now_ids = {cid for cid, _ in now}
            gone = sorted(before_ids - now_ids)
            fresh = [r for r in now if r[0] not in before_ids]
            t0 = time.perf_counter()
            fts.delete(gone)
            fts.put(fresh)
            out["fts5_update_ms"] = round((time.perf_counter() - t0) * 1000, 1)
            out["fts5_first_query_after_edit_ms"] = round(timed_ms(lambda: fts.search(q, 80))[0], 2)
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--notes", type=int, default=38_000)
    ap.add_argument("--queries", type=int, default=100)


def run(args: argparse.Namespace) -> None:
    emit(speed(args.notes, args.queries), args.json, 32)
