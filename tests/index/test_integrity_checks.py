"""One check of the derived rows serves `status`, `doctor` and a rebuild (#61): the BM25 segment
and the vectors are decoded once per state of the index, what a reader cannot decode is the index's
`reader_problem` (status: corrupt, a rebuild: `.corrupt-*`), what is merely wrong is a repairable
finding, and a commit from any connection is seen by the next check (real SQLite, in-process)."""

from __future__ import annotations

from pathlib import Path

import pytest

from k0maru.errors import IndexCorruptError
from k0maru.index import integrity_store
from k0maru.index.store import Store
from tests.index.test_integrity import NAN, damage, indexed, service

SEGMENT_GARBAGE = "UPDATE bm25_index SET blob = randomblob(300)"
SHORT_VECTOR = "UPDATE vec_chunks_vector_chunks00 SET vectors = zeroblob(100)"


@pytest.mark.parametrize(
    ("statement", "named"),
    [(SEGMENT_GARBAGE, "the BM25 segment is not readable"), (SHORT_VECTOR, "do not read back")],
)
def test_what_a_reader_cannot_decode_is_named_once_by_one_check(
    vault: Path, statement: str, named: str
) -> None:
    indexed(vault)
    damage(vault, statement)
    with Store.open(vault) as store:
        found = store.damage()
        unreadable = [f for f in found if f.unreadable]
        assert len(unreadable) == 1 and named in unreadable[0].what, found
        assert store.reader_problem() == unreadable[0].what  # the same finding, not a twin
        assert store.damage() == found  # the same state: the same answer
    with service(vault) as svc, pytest.raises(IndexCorruptError, match="scan --rebuild"):
        svc.status()
    with service(vault) as svc:
        moved = svc.scan(rebuild=True).moved_aside
        assert moved is not None and moved.why.startswith("corrupt"), moved
        assert svc.status().problems == []


def test_a_wrong_but_readable_vector_is_a_repairable_finding_not_corruption(vault: Path) -> None:
    indexed(vault)
    damage(vault, f"UPDATE vec_chunks SET embedding = x'{NAN}' WHERE rowid = 2")
    with Store.open(vault) as store:
        assert store.reader_problem() is None
        assert [f.what for f in store.damage()] == ["1 vector(s) are damaged"]
    with service(vault) as svc:
        assert svc.status().problems == [
            "the index is damaged: 1 vector(s) are damaged; `k0maru doctor --fix` repairs it"
        ]
        report = svc.doctor(fix=True)
        assert report.moved_aside is None and report.sound
        assert svc.status().problems == []


def test_the_kept_check_sees_a_commit_from_this_connection_or_another(vault: Path) -> None:
    indexed(vault)
    with Store.open(vault) as store:
        assert store.damage() == []
        damage(vault, SEGMENT_GARBAGE)  # another connection commits
        assert store.reader_problem() == "the BM25 segment is not readable"
        store.repair(integrity_store.deep)  # this connection's own commit
        assert store.damage() == [] and store.reader_problem() is None


ROWS = {  # damage to a note's own rows (found outside by h4, #61)
    "a path altered": "UPDATE documents SET path = 'nowhere/renamed.md' WHERE id = 2",
    "a title altered": "UPDATE documents SET title = 'Totally wrong title' WHERE id = 2",
    "a chunk's text altered": "UPDATE chunks SET text = 'qqq zzz unrelated' WHERE doc_id = 2",
    "a chunk row deleted": "DELETE FROM chunks WHERE doc_id = 2 AND ord = 0",
    "a chunk's lines altered": "UPDATE chunks SET line_start = -5, line_end = -9 WHERE doc_id = 2",
    "a chunk moved to another note": "UPDATE chunks SET doc_id = 3 WHERE doc_id = 2 AND ord = 0",
    "a chunk duplicated": (
        "INSERT INTO chunks(doc_id, ord, heading, text, hash, section, line_start, line_end)"
        " SELECT doc_id, ord, heading, text, hash, section, line_start, line_end FROM chunks"
        " WHERE doc_id = 2 AND ord = 0"
    ),
    "every chunk row of a note deleted": "DELETE FROM chunks WHERE doc_id = 2",
    "a ghost note": (
        "INSERT INTO documents(id, path, mtime_ns, size, xxh3_64, title, stem, frontmatter, body,"
        " indexed_at) VALUES (99, 'ghost/not-here.md', 0, 0, '', 'Ghost', 'not-here', '{}',"
        " 'lease', 0)"
    ),
}


def fresh_counts(vault: Path) -> tuple[int, int]:
    with Store.open(vault) as store:
        c = store.counts()
        return c["documents"], c["chunks"]


@pytest.mark.parametrize("kind", list(ROWS))
def test_a_notes_rows_unlike_its_file_are_found_and_indexed_again(vault: Path, kind: str) -> None:
    indexed(vault)
    want = fresh_counts(vault)
    damage(vault, ROWS[kind])
    with service(vault) as svc:
        found = svc.doctor().findings
        assert any("indexed unlike their files" in f for f in found), found
        report = svc.doctor(fix=True)
        assert report.moved_aside is None and report.sound, report
        hits = svc.recall("retry", mode="bm25", limit=20).hits  # the scan indexes them again
        assert len({h.path for h in hits}) == 8 and "qqq" not in str(hits)
        assert {h.title for h in hits} == {f"Note {i}" for i in range(8)}
        assert svc.doctor().findings == []
    assert fresh_counts(vault) == want


def test_a_dropped_trigger_is_named(vault: Path) -> None:
    indexed(vault)
    damage(vault, "DROP TRIGGER chunks_lexical_stale")
    with Store.open(vault) as store:
        assert store.reader_problem() == "trigger chunks_lexical_stale is missing"


@pytest.mark.parametrize("kept", [6, 0])
def test_an_index_whose_version_rows_were_lost_is_called_corrupt_and_rebuilt(
    vault: Path, kept: int
) -> None:
    """Its tables are this version's while its version says older: a migration would fail on
    a table already there; the index is named corrupt, and `doctor --fix` rebuilds it."""
    indexed(vault)
    damage(vault, f"DELETE FROM schema_version WHERE version > {kept}")
    with service(vault) as svc:
        with pytest.raises(IndexCorruptError, match="do not match its version"):
            svc.status()
        report = svc.doctor(fix=True)
        assert report.moved_aside is not None and report.sound
        assert svc.status().documents == 8


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE vec_chunks_vector_chunks00 SET vectors = substr(vectors, 1, length(vectors) / 2)",
        "UPDATE vec_chunks_chunks SET validity = zeroblob(length(validity))",
    ],
)
def test_vectors_a_query_cannot_use_are_found_and_embedded_again(
    vault: Path, statement: str
) -> None:
    """sqlite-vec's own blobs are read only by a vector query: the check makes one."""
    indexed(vault)
    damage(vault, statement)
    with Store.open(vault) as store:
        assert [f.part for f in store.damage()] == ["vectors"], store.damage()
    with service(vault) as svc:
        report = svc.doctor(fix=True)
        assert report.moved_aside is None and report.sound
        assert svc.doctor().findings == []
    with Store.open(vault) as store:
        assert store.unembedded_chunks() == store.counts()["chunks"]  # all embedded again


def test_a_note_deleted_since_its_scan_is_no_damage(vault: Path) -> None:
    """A deletion the next scan will see is not named as damage in the meantime."""
    indexed(vault)
    (vault / "notes" / "n3.md").unlink()
    with Store.open(vault) as store:
        assert store.damage() == []
