"""Vectors keyed by content: renames, moves and branch switches reuse the vectors of unchanged text
instead of embedding it again (real SQLite + sqlite-vec, vectors from the real model)."""

from __future__ import annotations

import os
from pathlib import Path

from k0maru.index.store import Store
from k0maru.wiring.vault import Vault


def vectors_of(root: Path) -> dict[str, bytes]:
    """Chunk hash -> stored vector, for every embedded chunk."""
    with Store.open(root) as store:
        rows = store.conn.execute(
            "SELECT c.hash, v.embedding FROM chunks c JOIN vec_chunks v ON v.rowid = c.id"
        ).fetchall()
    return {h: bytes(e) for h, e in rows}


def test_renames_moves_and_branch_switches_reuse_vectors(demo: Path) -> None:
    before = vectors_of(demo)
    notes = sorted(p for p in demo.rglob("*.md") if ".k0maru" not in p.parts)[:6]
    (demo / "moved").mkdir()
    for i, note in enumerate(notes):  # as `git mv` does: same text, another path
        os.rename(note, demo / "moved" / f"renamed-{i}.md")
    with Vault.open(demo) as v:
        report = v.index(lexical=True)
        assert report.scan.added == 6 and report.scan.removed == 6
        assert report.reused > 0 and report.embedded == 0  # nothing went to the model
        assert v.store.unembedded_chunks() == 0
    assert vectors_of(demo) == before  # the same vectors, now on the moved chunks

    # a branch switch: the text changes, then comes back
    note = demo / "moved" / "renamed-0.md"
    original = note.read_text(encoding="utf-8")
    note.write_text("# Elsewhere\n\nThe other branch holds other text in this file.\n")
    with Vault.open(demo) as v:
        assert v.index(lexical=True).embedded >= 1  # new text: the model reads it
    note.write_text(original, encoding="utf-8")
    with Vault.open(demo) as v:
        report = v.index(lexical=True)
        assert report.scan.modified == 1 and report.reused >= 1
        assert report.embedded == 0 and v.store.unembedded_chunks() == 0
    assert vectors_of(demo).keys() >= before.keys()
