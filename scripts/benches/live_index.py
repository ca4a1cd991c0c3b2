"""The index under a long-running server, measured on a generated vault (issue #31's figures).

    python scripts/bench.py live-index --notes 5000 --dir /tmp/bench-vault
    python scripts/bench.py live-index --notes 38000 --base /tmp/vault-38k --dir /tmp/bench-vault

With `--base`, the generated and indexed vault is kept there and copied to `--dir` for each run (the
copy's files are read once more, not parsed: their inode changed), so a 38k vault is built only
once.

Generates `--notes` notes of three sections each, indexes them without vectors (so every chunk is in
the embedding backlog), then drives one server session (as the MCP server and the console hold it)
and prints: a one-note flush with the whole backlog pending, the time from an edit on disk to a hit,
a recall sent while a 1 MB flush writes, and the first query after an edit that makes a BM25 merge
due. Only the public service API is used, so the same script measures an older checkout
(PYTHONPATH=that checkout)."""

from __future__ import annotations

import argparse
import shutil
import statistics
import threading
import time
from pathlib import Path

WORDS = ["lease", "renewal", "quorum", "replica", "backoff", "retry", "timeout", "leader",
         "follower", "snapshot", "compaction"]  # fmt: skip


def note(i: int) -> str:
    w = [WORDS[(i * 7 + k) % len(WORDS)] for k in range(6)]
    return (
        f"# Note {i}\n\n## Context\n\nnote{i} {' '.join(w)} decided in review {i % 97}.\n\n"
        f"## Decision\n\nWe keep {w[0]} and {w[1]} for service {i % 41}.\n\n"
        f"## Consequences\n\nOperators watch {w[2]} alerts on shard {i % 13}.\n"
    )


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--notes", type=int, default=5000)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/k0maru-bench-live"))
    ap.add_argument("--base", type=Path, help="keep the generated, indexed vault here; copy it")
    ap.add_argument("--skip-flush", action="store_true", help="no flush behind the backlog")
    ap.add_argument("--skip-big-flush", action="store_true", help="no recall behind a 1 MB flush")


def run(args: argparse.Namespace) -> None:
    pending = make_vault(args)
    live_edits(args)
    due_merge(args.dir, pending)


def make_vault(args: argparse.Namespace) -> int:
    """The generated vault at `args.dir`, indexed without vectors; its chunks pending vectors."""
    from k0maru.wiring.vault import Vault

    root: Path = args.dir
    shutil.rmtree(root, ignore_errors=True)
    made = args.base or root
    if not (made / ".k0maru").is_dir():
        for i in range(args.notes):
            path = made / f"notes/{i // 500:03d}/n{i:06d}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(note(i), encoding="utf-8")
    if args.base:
        with Vault.open(args.base, embed=False) as v:
            v.index(lexical=True)  # once, or nothing when it is current
        shutil.copytree(args.base, root, symlinks=True)
    t0 = time.perf_counter()
    with Vault.open(root, embed=False) as v:
        v.index(lexical=True)
        pending = v.store.counts()["chunks"]
    print(f"vault: {args.notes:,} notes, {pending:,} chunks pending vectors (indexed in "
          f"{time.perf_counter() - t0:.1f} s)", flush=True)  # fmt: skip
    return int(pending)


def live_edits(args: argparse.Namespace) -> None:
    """A server's first recall, flushes behind the backlog, edits found by the next query, and a
    recall sent during a large flush."""
    from k0maru.service.operations import Service
    from k0maru.service.session import VaultSession
    from k0maru.wiring.vault import Vault

    root: Path = args.dir
    svc = Service(VaultSession(Vault.open(root)))
    try:
        t0 = time.perf_counter()
        svc.recall("lease renewal", mode="bm25")
        print(f"first recall of the server (walk, BM25 load): {ms(time.perf_counter() - t0)}")
        if not args.skip_flush:
            flushes = []
            for k in range(5):
                t0 = time.perf_counter()
                out = svc.flush("decision", f"Bench {k}", f"markerbench{k} flushed now.", [], [])
                flushes.append(time.perf_counter() - t0)
                hits = svc.recall(f"markerbench{k}", mode="bm25").hits
                assert [h.path for h in hits] == [out.path], hits
            print(f"one-note flush behind the backlog: median {ms(statistics.median(flushes))}, "
                  f"max {ms(max(flushes))} (5 flushes, each searchable by BM25 on return)")  # fmt: skip

        time.sleep(2.1)
        waits, first = [], 0
        for k in range(5):
            path = root / f"edits/e{k}.md"
            path.parent.mkdir(exist_ok=True)
            path.write_text(f"# Edit {k}\n\nmarkeredit{k} just saved.\n", encoding="utf-8")
            t0 = time.perf_counter()
            tries = 0
            while not svc.recall(f"markeredit{k}", mode="bm25").hits:
                tries += 1
                time.sleep(0.005)
            first += tries == 0
            waits.append(time.perf_counter() - t0)
            time.sleep(0.3)
        print(f"edit on disk -> hit: median {ms(statistics.median(waits))}, max {ms(max(waits))}; "
              f"found by the first query after the write: {first}/5")  # fmt: skip
        if not args.skip_big_flush:
            body = "\n\n".join(
                f"## Part {i}\n\n" + " ".join(f"w{i}x{j} lease renewal" for j in range(60))
                for i in range(800)
            )
            done: dict[str, float] = {}

            def big_flush() -> None:
                t = time.perf_counter()
                svc.flush("decision", "Big design", body, [], [])
                done["flush"] = time.perf_counter() - t

            writer = threading.Thread(target=big_flush)
            writer.start()
            time.sleep(0.2)
            t0 = time.perf_counter()
            svc.recall("retry backoff", mode="bm25")
            read_s = time.perf_counter() - t0
            writer.join()
            print(f"recall sent 0.2 s into a {len(body.encode()) / 1e6:.1f} MB flush: {ms(read_s)} "
                  f"(the flush took {ms(done['flush'])})")  # fmt: skip
    finally:
        svc.close()


def due_merge(root: Path, pending: int) -> None:
    """The first query after an edit that makes a BM25 merge due, and the query after it."""
    from k0maru.index.store import BM25_MERGE_FRACTION, BM25_MERGE_MIN
    from k0maru.service.operations import Service
    from k0maru.service.session import VaultSession
    from k0maru.wiring.vault import Vault

    bulk = max(BM25_MERGE_MIN, int(pending * BM25_MERGE_FRACTION)) + 200  # one chunk each: due

    # a session without vectors: the query's figure is not shared with the background embedding
    svc = Service(VaultSession(Vault.open(root, embed=False)))
    try:
        svc.recall("lease renewal", mode="bm25")
        for i in range(bulk):
            path = root / f"bulk/b{i:05d}.md"
            path.parent.mkdir(exist_ok=True)
            path.write_text(f"# Bulk {i}\n\nbulkword{i} added in one go.\n", encoding="utf-8")
        time.sleep(2.1)  # past a walk's throttle, and the watcher's batch
        t0 = time.perf_counter()
        hits = svc.recall("bulkword1234", mode="bm25").hits
        print(f"first query after an edit that makes a BM25 merge due ({bulk:,} new "
              f"notes, their indexing included): {ms(time.perf_counter() - t0)}, hit {bool(hits)}")  # fmt: skip
        t0 = time.perf_counter()
        svc.recall("bulkword77", mode="bm25")
        print(f"the query after it: {ms(time.perf_counter() - t0)}")
    finally:
        svc.close()
