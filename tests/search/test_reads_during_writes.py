"""Readers never fail on writers (#61): a search reads chunks, vectors and notes in one SQLite read
transaction, so a writer that replaces notes and writes vectors meanwhile is seen whole or not at
all (real SQLite and threads, each with its own connection)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

from k0maru.wiring.vault import Vault
from tests.helpers import write
from tests.index.test_integrity import unit_vector

NOTES = 30


def note(vault: Path, i: int, turn: int) -> None:
    body = "\n\n".join(f"## Part {k}\n\nLease renewal {i} turn {turn} part {k}." for k in range(3))
    write(vault, f"notes/n{i}.md", f"# Note {i}\n\n{body}\n")


def writer(v: Vault, vault: Path, stop: threading.Event, errors: list[str]) -> Callable[[], None]:
    """Rewrite, delete and bring back notes, and give their new chunks vectors, until `stop`."""

    def run() -> None:
        rng = random.Random(3)
        turn = 0
        try:
            while not stop.is_set():
                turn += 1
                i = rng.randrange(NOTES)
                if turn % 3 == 0:
                    (vault / f"notes/n{i}.md").unlink(missing_ok=True)
                else:
                    note(vault, i, turn)
                v.index(only=[f"notes/n{i}.md"], embed=False)
                todo = v.store.conn.execute("SELECT id, hash FROM chunks WHERE embedded = 0")
                v.store.write_vectors([(c, h, unit_vector(rng)) for c, h in todo.fetchall()])
        except Exception as exc:  # noqa: BLE001 - the assertion names it
            errors.append(f"writer: {exc!r}")

    return run


def reader(
    v: Vault, stop: threading.Event, errors: list[str], reads: list[int]
) -> Callable[[], None]:
    def run() -> None:
        while not stop.is_set():
            try:
                v.recall.search("lease renewal part", limit=10, mode="bm25")
                reads.append(1)
            except Exception as exc:  # noqa: BLE001 - the assertion names it
                errors.append(f"reader: {exc!r}")

    return run


def test_searches_beside_a_writer_of_notes_and_vectors_never_fail(vault: Path) -> None:
    for i in range(NOTES):
        note(vault, i, 0)
    errors: list[str] = []
    reads: list[int] = []
    stop = threading.Event()
    with Vault.open(vault, embed=False) as v:
        v.index(embed=False, lexical=True)
        threads = [threading.Thread(target=writer(v, vault, stop, errors))]
        threads += [threading.Thread(target=reader(v, stop, errors, reads)) for _ in range(3)]
        for t in threads:
            t.start()
        time.sleep(4)
        stop.set()
        for t in threads:
            t.join(30)
    assert errors == []
    assert len(reads) > 10
