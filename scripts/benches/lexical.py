"""Incremental BM25: what an edit costs the next query, the delta against a full rebuild and against
FTS5.

Speed, on a generated vault (default 38,000 notes, 1-3 KB each): warm query latency; after editing
1% of the notes, the first query in the same process (main segment in memory, delta scored) and in a
fresh one (main segment read from the index file, as the CLI does), against the full rebuild every
edit used to cost; and SQLite FTS5 over the very same pre-tokenised terms (build, the 1% update,
query latency), the alternative the design had to rule in or out. The quality
figures (the delta against a full rebuild and FTS5's bm25() on the labelled sets, nDCG@10) came from
its `--skip-speed` half: `git show bb736b0:scripts/benches/lexical.py`.

A build (`--build DIR`, repeatable): `k0maru scan --no-embed` of each real vault into a new index
(wall, CPU, peak RSS of the process tree's largest process) against SQLite FTS5's build of the same
pages in a Python process (read every note, one insert each, one transaction), interleaved rounds,
medians; `--before PATH` adds the same build by the code at PATH (a worktree, put first on the
PYTHONPATH).

    python scripts/bench.py lexical [--notes 38000] [--queries 100] [--json]
    python scripts/bench.py lexical --build DIR [--build DIR] [--runs 3] [--before PATH] [--json]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from bench import K0, REPO, Sample, emit, interleave, like_a_users_install, median, timed
from vaultgen import SYMBOLS, WORDS, generate

from k0maru.config import load_settings
from k0maru.index.scanner import IncrementalScanner
from k0maru.index.store import Store
from k0maru.search.lexical import LexicalCache, LexicalIndex, MainSegment
from k0maru.search.terms import tokenize

# SQLite FTS5's build of a vault's notes, the floor a lexical build is held to (#62)
FTS5_BUILD = """import os, sqlite3, sys
db = sqlite3.connect(sys.argv[2])
db.execute("CREATE VIRTUAL TABLE f USING fts5(path UNINDEXED, body)")
with db:
    for top, dirs, files in os.walk(sys.argv[1]):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.endswith(".md"):
                path = os.path.join(top, name)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    db.execute("INSERT INTO f VALUES (?, ?)", (path, fh.read()))
"""


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


def k0_build(root: Path, before: Path | None) -> Sample:
    """`k0maru scan --no-embed` of `root` into a new index (by the code at `before`, if given)."""
    shutil.rmtree(root / ".k0maru", ignore_errors=True)
    env = dict(os.environ)
    if before is not None:
        env["PYTHONPATH"] = str(before)
    # `-m` puts the working folder first on the path: the code measured is the one run from
    return timed([*K0, "scan", "--no-embed", "--vault", str(root)], cwd=before or REPO, env=env)


def fts5_build(root: Path) -> Sample:
    with tempfile.TemporaryDirectory(prefix="k0bench-fts5-") as tmp:
        return timed([sys.executable, "-c", FTS5_BUILD, str(root), str(Path(tmp) / "f.db")])


def builds(roots: list[Path], runs: int, before: Path | None) -> list[dict[str, float | int]]:
    """Per vault: the medians of each build and the ratio of k0maru's wall to FTS5's."""
    like_a_users_install()
    out: list[dict[str, float | int]] = []
    for root in roots:
        cases: dict[str, Callable[[], Sample]] = {
            "k0maru": partial(k0_build, root, None),
            "fts5": partial(fts5_build, root),
        }
        if before is not None:
            cases["before"] = partial(k0_build, root, before)
        load = os.getloadavg()[0]
        got = interleave(runs, cases)
        row: dict[str, float | int] = {"notes": sum(1 for _ in root.rglob("*.md"))}
        for name, samples in got.items():
            row[f"{name}_s"] = median((s.wall for s in samples), digits=2)
            row[f"{name}_cpu_s"] = median((s.cpu for s in samples), digits=2)
            row[f"{name}_rss_mb"] = median(s.rss_mb for s in samples)
        row["k0maru_vs_fts5"] = round(float(row["k0maru_s"]) / float(row["fts5_s"]), 1)
        # the peak per 10k notes: the issue states the build's memory at that scale (#62)
        row["k0maru_rss_mb_per_10k"] = round(float(row["k0maru_rss_mb"]) * 10_000 / row["notes"], 1)
        if before is not None:
            row["before_vs_fts5"] = round(float(row["before_s"]) / float(row["fts5_s"]), 1)
        row["load_before"], row["load_after"] = round(load, 1), round(os.getloadavg()[0], 1)
        out.append(row)
    return out


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--notes", type=int, default=38_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--build", type=Path, action="append", help="a real vault to build, again")
    ap.add_argument("--runs", type=int, default=3, help="interleaved rounds of each build")
    ap.add_argument("--before", type=Path, help="a worktree of the code to compare with")


def run(args: argparse.Namespace) -> None:
    if args.build:
        emit(builds(args.build, args.runs, args.before), args.json)
        return
    emit(speed(args.notes, args.queries), args.json, 32)
