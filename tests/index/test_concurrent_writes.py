"""Writes that depend on what they read re-check it inside their transaction: vector reuse beside an
embedder, a long scan beside a flush (real SQLite + sqlite-vec, the real model, real threads)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest

from k0maru.config import load_settings
from k0maru.index.scanner import IncrementalScanner
from k0maru.index.store import Store
from k0maru.index.walker import Entry
from k0maru.search import vectors
from k0maru.wiring.vault import Vault
from tests.helpers import scan, write

TEXTS = [
    f"# Repeated {i}\n\nThe same paragraph about topic {i} repeats across notes.\n"
    for i in range(6)
]


def vector_rows(root: Path) -> tuple[int, int, int]:
    """(vectors with no chunk, vectors on a chunk marked unembedded, chunks marked embedded with
    none)."""
    with Store.open(root) as store:
        ids = "SELECT rowid FROM vec_chunks_rowids"
        return (
            store.conn.execute(
                f"SELECT count(*) FROM ({ids}) WHERE rowid NOT IN (SELECT id FROM chunks)"
            ).fetchone()[0],
            store.conn.execute(
                f"SELECT count(*) FROM chunks WHERE embedded = 0 AND id IN ({ids})"
            ).fetchone()[0],
            store.conn.execute(
                f"SELECT count(*) FROM chunks WHERE embedded = 1 AND id NOT IN ({ids})"
            ).fetchone()[0],
        )


def test_a_vector_left_on_an_unembedded_chunk_heals_on_the_next_index_run(vault: Path) -> None:
    """What the race below left behind (a vector at the id of a chunk that has none) no longer
    wedges every later scan and embedding run with `UNIQUE constraint failed on vec_chunks primary
    key`."""
    write(vault, "n0.md", TEXTS[0])
    with Vault.open(vault) as v:
        v.index()  # the model is recorded: later runs keep the vectors they find
    for i in range(1, 4):
        write(vault, f"n{i}.md", TEXTS[i])
    with Vault.open(vault) as v:
        v.index(embed=False)
        stray = v.store.chunks_to_embed()[0][0]
        v.store.conn.execute(
            "INSERT INTO vec_chunks(rowid, embedding) VALUES (?, ?)", (stray, bytes(384 * 4))
        )
        v.store.conn.commit()
    assert vector_rows(vault) == (0, 1, 0)
    with Vault.open(vault) as v:
        report = v.index()
        assert report.embedded >= 3 and v.store.unembedded_chunks() == 0
    assert vector_rows(vault) == (0, 0, 0)


class FlushDuringWalk(IncrementalScanner):
    """A scanner whose walk is overtaken: once it has listed the vault, another writer writes a note
    and indexes it (what a flush does), before this scan reaches its deletions."""

    def __init__(self, store: Store, root: Path) -> None:
        super().__init__(store, load_settings(root, embed=False))

    def _entries(self, only: list[str] | None) -> Iterator[Entry]:
        listed = list(super()._entries(only))
        write(self.root, "flushed.md", "# Flushed\n\nWritten while a scan was under way.\n")
        with Store.open(self.root) as other:
            IncrementalScanner(other, self.settings).scan(only=["flushed.md"])
        yield from listed


def test_a_scan_keeps_a_note_another_writer_indexed_after_its_walk(vault: Path) -> None:
    for i in range(3):
        write(vault, f"n{i}.md", TEXTS[i])
    scan(vault)
    (vault / "n0.md").unlink()  # so the scan has deletions to re-check
    with Store.open(vault) as store:
        result = FlushDuringWalk(store, vault).scan()
        assert result.removed == 1
        assert set(store.cached_documents()) == {"n1.md", "n2.md", "flushed.md"}


def repeat_until(stop: threading.Event, body: Callable[[], object], errors: list[str]) -> None:
    """`body` run again and again until `stop` is set, each failure kept in `errors`."""
    while not stop.is_set():
        try:
            body()
        except Exception as exc:  # every failure is the finding
            errors.append(repr(exc))


@pytest.mark.slow
def test_concurrent_writers_reuse_and_embed_without_wedging(vault: Path) -> None:
    """Notes whose text repeats written every few ms (some deleted) while two scans reuse vectors
    and an embedder writes them: no write fails, and the index ends whole (a fixed budget of
    seconds)."""
    for i in range(20):
        write(vault, f"n{i}.md", TEXTS[i % len(TEXTS)])
    with Vault.open(vault) as v:
        v.index()
    stop = threading.Event()
    errors: list[str] = []

    def guarded(body: Callable[[], object]) -> Callable[[], None]:
        return lambda: repeat_until(stop, body, errors)

    rng = random.Random(45)
    count = iter(range(10**6))

    def write_some() -> None:
        write(vault, f"w{next(count)}.md", rng.choice(TEXTS) + f"\nvariant {rng.randrange(3)}\n")
        if rng.random() < 0.3 and (files := sorted(vault.glob("w*.md"))):
            rng.choice(files).unlink(missing_ok=True)
        time.sleep(0.003)

    scanners = [Vault.open(vault) for _ in range(2)]
    embedding = Vault.open(vault)
    embedder = embedding.embedder
    assert embedder is not None
    threads = [
        threading.Thread(target=guarded(write_some)),
        *(
            threading.Thread(
                target=guarded(partial(s.index, embed=False, snapshot_first=False, record=False))
            )
            for s in scanners
        ),
        threading.Thread(
            target=guarded(lambda: vectors.embed_pending(embedding.store, embedder, 16))
        ),
    ]
    for t in threads:
        t.start()
    time.sleep(15)
    stop.set()
    for t in threads:
        t.join()
    for v in (*scanners, embedding):
        v.close()
    assert errors == []
    with Vault.open(vault) as v:
        v.index()
        assert v.store.unembedded_chunks() == 0
        on_disk = {p.name for p in vault.glob("*.md")}
        assert set(v.store.cached_documents()) == on_disk
    assert vector_rows(vault) == (0, 0, 0)
