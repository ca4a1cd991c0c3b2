"""`doctor` reads the notes back (#61): rows a note's file gives but the index lost (its tags, its
links, its last chunk) and vectors that sit on another chunk's row are found by `doctor` alone
(never `status`), and `doctor --fix` brings back the answers of the index before the damage (real
SQLite, the real model, in-process)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from k0maru.index import db, integrity_store
from k0maru.index.store import Store, db_path
from k0maru.search.vectors import embed_pending
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write
from tests.index.test_integrity import damage

NOTES = 6


def service(vault: Path, embed: bool = False) -> Service:
    session = VaultSession(Vault.open(vault, embed=embed), rescan_interval=0, embed="foreground")
    return Service(session)


def tagged(vault: Path) -> None:
    """NOTES notes with tags, links to each other and two chunks each, scanned."""
    for i in range(NOTES):
        write(
            vault,
            f"notes/n{i}.md",
            f"---\ntags: [t{i % 2}]\n---\n# Note {i}\n\nLease renewal {i} #topic/x{i}, see"
            f" [[n{(i + 1) % NOTES}]] and [[n{(i + 2) % NOTES}#More|more]].\n\n## More\n\n"
            + f"Retry {i}. " * 120
            + "\n",
        )
    with service(vault) as svc:
        svc.scan()


def rows(vault: Path) -> dict[str, Any]:
    with Store.open(vault) as store:
        conn = store.conn
        return {
            t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("documents", "chunks", "tags", "links")
        } | {"resolved": conn.execute("SELECT count(dst_id) FROM links").fetchone()[0]}


def answers(svc: Service, query: str, mode: str) -> list[tuple[object, ...]]:
    """The hits' notes, passages and scores; ties in any order (chunk ids change on a re-index)."""
    hits = svc.recall(query, mode=mode, limit=20).hits
    return sorted((h.path, h.title, h.heading, h.snippet, h.lines, round(h.score, 4)) for h in hits)


NOTE_ROWS = {
    "every tag row deleted": "DELETE FROM tags",
    "every link row deleted": "DELETE FROM links",
    "a note's last chunk deleted": (
        "DELETE FROM chunks WHERE id = (SELECT max(id) FROM chunks WHERE doc_id = 2)"
    ),
}


@pytest.mark.parametrize("kind", list(NOTE_ROWS))
def test_rows_a_notes_file_gives_are_found_by_doctor_and_indexed_again(
    vault: Path, kind: str
) -> None:
    tagged(vault)
    want = rows(vault)
    with service(vault) as svc:
        answer = answers(svc, "lease renewal", "bm25")
    damage(vault, NOTE_ROWS[kind])
    assert rows(vault) != want
    with service(vault) as svc:
        # `status` stays cheap: it does not read the notes (a deleted chunk left a BM25 stale
        # row behind at the same corpus version, which its open check moves on)
        problems = svc.status().problems
        assert all("corpus version" in p for p in problems), problems
        found = svc.doctor().findings
        assert any("lack tags, links or chunks their files give" in f for f in found), found
        report = svc.doctor(fix=True)
        assert report.sound and report.moved_aside is None, report
        assert rows(vault) == want  # indexed again by the fix itself
        assert answers(svc, "lease renewal", "bm25") == answer
        assert svc.doctor().findings == []


def test_a_note_changed_since_its_scan_is_no_damage(vault: Path) -> None:
    """A file whose bytes moved since it was indexed is the next scan's, not damage."""
    tagged(vault)
    write(vault, "notes/n1.md", "# Note 1\n\nNo tags, no links now.\n")
    with Store.open(vault) as store:
        assert integrity_store.note_files(store.conn, vault, 1000, 2_000_000) == []


def rotate_vectors(vault: Path) -> None:
    """Each chunk gets the next chunk's (valid, unit-length) vector."""
    conn = db.connect(db_path(vault))
    stored = conn.execute("SELECT rowid, embedding FROM vec_chunks ORDER BY rowid").fetchall()
    for (rowid, _), (_, vector) in zip(stored, stored[1:] + stored[:1], strict=True):
        conn.execute("UPDATE vec_chunks SET embedding = ? WHERE rowid = ?", (vector, rowid))
    conn.close()


def half_the_rowids(vault: Path) -> None:
    damage(vault, "DELETE FROM vec_chunks_rowids WHERE rowid % 2 = 0")


VECTORS: dict[str, Callable[[Path], None]] = {
    "vectors swapped between chunks": rotate_vectors,
    "half the vector rowid rows deleted": half_the_rowids,
}


def embed_all(vault: Path) -> int:
    """What the worker does: the chunks without a vector embedded; how many."""
    with Vault.open(vault) as opened:
        embedder = opened.embedder
        assert embedder is not None
        return embed_pending(opened.store, embedder, 32)


@pytest.mark.parametrize("kind", list(VECTORS))
def test_vectors_on_the_wrong_chunk_are_found_and_embedded_again(demo: Path, kind: str) -> None:
    query = "nightly backup locks"
    with service(demo, embed=True) as svc:
        answer = answers(svc, query, "vector")
        assert answer
    VECTORS[kind](demo)
    embed_all(demo)  # the open check's repair of the rows deleted, then the worker's run
    with service(demo, embed=True) as svc:
        assert answers(svc, query, "vector") != answer  # the damage shows
        found = svc.doctor().findings
        assert any("vector" in f for f in found), found
        report = svc.doctor(fix=True)
        assert report.sound and report.moved_aside is None, report
    assert embed_all(demo) > 0
    with service(demo, embed=True) as svc:
        assert answers(svc, query, "vector") == answer
        assert svc.doctor().findings == []
