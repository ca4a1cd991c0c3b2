"""The integrity check (#61): each kind of damage to a derived part of the index is found (by the
open check or `doctor`), no query tracebacks on it, and `doctor --fix` rebuilds that part from the
notes' rows; an index copied from another vault is never answered from (real SQLite, in-process)."""

from __future__ import annotations

import math
import random
import shutil
import struct
from pathlib import Path

import pytest

from k0maru.errors import IndexCorruptError
from k0maru.index import db, integrity_store
from k0maru.index.store import Store, db_path
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write

NOTES = 8


def service(vault: Path) -> Service:
    return Service(VaultSession(Vault.open(vault, embed=False), rescan_interval=0, embed="worker"))


def unit_vector(rng: random.Random) -> bytes:
    values = [rng.gauss(0, 1) for _ in range(384)]
    norm = math.sqrt(sum(v * v for v in values))
    return struct.pack("384f", *(v / norm for v in values))


def indexed(vault: Path) -> None:
    """NOTES notes, their BM25 segment, a kept delta (the last note came after it) and a vector
    for every chunk (random unit vectors: no model needed)."""
    for i in range(NOTES):
        write(
            vault, f"notes/n{i}.md", f"# Note {i}\n\nLease renewal {i}.\n\n## More\n\nRetry {i}.\n"
        )
        if i == NOTES - 2:
            with service(vault) as svc:
                svc.scan()
    with service(vault) as svc:
        assert svc.recall("lease", mode="bm25").hits  # indexes the last note, keeps the delta
    rng = random.Random(7)
    with Store.open(vault) as store:
        chunks = store.conn.execute("SELECT id, hash FROM chunks").fetchall()
        assert store.write_vectors([(i, h, unit_vector(rng)) for i, h in chunks]) == len(chunks)
        assert store.conn.execute("SELECT count(*) FROM bm25_delta").fetchone()[0] == 1


def damage(vault: Path, *statements: str) -> None:
    conn = db.connect(db_path(vault))
    for statement in statements:
        conn.execute(statement)
    conn.close()


NAN = "0000c07f" * 384
DAMAGE = {
    "BM25 term rows deleted": ("DELETE FROM bm25_terms WHERE rowid % 2 = 0",),
    "BM25 term names chunks it lacks": ("UPDATE bm25_terms SET chunks = x'ffffff7f'",),
    "BM25 delta flipped": (
        "UPDATE bm25_delta SET blob = substr(blob, 1, 40) || zeroblob(8) || substr(blob, 49)",
    ),
    "BM25 segment garbage": ("UPDATE bm25_index SET blob = randomblob(300)",),
    "vector rows deleted": ("DELETE FROM vec_chunks WHERE rowid % 2 = 0",),
    "a vector holding NaN": (f"UPDATE vec_chunks SET embedding = x'{NAN}' WHERE rowid = 2",),
    "garbage vectors": ("UPDATE vec_chunks SET embedding = zeroblob(1536) WHERE rowid < 4",),
    "a document row deleted": ("PRAGMA foreign_keys = OFF", "DELETE FROM documents WHERE id = 2"),
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_each_damage_is_found_answered_around_and_repaired(vault: Path, kind: str) -> None:
    indexed(vault)
    damage(vault, *DAMAGE[kind])
    with service(vault) as svc:
        try:  # the open check repairs, the whole check names it, a reader's names it corrupt
            problems = svc.status().problems
            assert problems and all("repair" in p for p in problems), problems
        except IndexCorruptError as exc:
            assert "BM25" in str(exc) or "bm25" in str(exc)
        assert svc.recall("lease", mode="bm25").hits  # answered, no traceback
        report = svc.doctor(fix=True)
        assert report.moved_aside is None  # repaired from the notes, not rebuilt
        again = svc.doctor()
        assert again.sound and again.findings == [], again.findings
        assert svc.status().problems == []
        hits = svc.recall("retry", mode="bm25", limit=20).hits
        assert len({h.path for h in hits}) == NOTES  # every note answers again
    with Store.open(vault) as store:
        assert integrity_store.deep(store.conn) == []
        assert store.counts()["documents"] == NOTES


def test_a_repair_drops_only_the_damaged_vectors(vault: Path) -> None:
    indexed(vault)
    damage(vault, f"UPDATE vec_chunks SET embedding = x'{NAN}' WHERE rowid = 3")
    with Store.open(vault) as store:
        before = store.unembedded_chunks()
        lines = store.repair(integrity_store.deep)
        assert lines == [
            "repaired the index: 1 vector(s) are damaged; their chunks are embedded again"
        ]
        assert store.unembedded_chunks() == before + 1
        assert store.unembedded_among([3]) == {3}


def test_a_healthy_index_passes_every_check(vault: Path) -> None:
    indexed(vault)
    with service(vault) as svc:
        assert svc.status().problems == []
        report = svc.doctor()
        assert report.sound and report.findings == [] and report.repaired == []


def test_an_index_copied_from_another_vault_is_never_answered_from(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    write(first, "notes/alpha.md", "# Alpha\n\nmarkeralpha lease.\n")
    write(second, "notes/bravo.md", "# Bravo\n\nmarkerbravo lease.\n")
    for root in (first, second):
        with service(root) as svc:
            svc.scan()
    shutil.copy(db_path(first), db_path(second))
    with service(second) as svc:
        with pytest.raises(IndexCorruptError, match="built for another vault"):
            svc.recall("markeralpha", mode="bm25")
        with pytest.raises(IndexCorruptError, match="another vault"):
            svc.status()
        report = svc.doctor(fix=True)
        assert report.moved_aside is not None
        assert [h.path for h in svc.recall("markerbravo", mode="bm25").hits] == ["notes/bravo.md"]
        assert svc.recall("markeralpha", mode="bm25").hits == []


def test_a_vault_copied_or_moved_with_its_notes_keeps_its_index(tmp_path: Path) -> None:
    first = tmp_path / "first"
    write(first, "notes/alpha.md", "# Alpha\n\nmarkeralpha lease.\n")
    with service(first) as svc:
        svc.scan()
    copied, moved = tmp_path / "copied", tmp_path / "moved"
    shutil.copytree(first, copied)
    first.rename(moved)
    for root in (copied, moved):
        with service(root) as svc:
            assert [h.path for h in svc.recall("markeralpha", mode="bm25").hits] == [
                "notes/alpha.md"
            ]
            assert svc.status().problems == []


def test_doctor_fix_writes_an_unreadable_sidecar_again_from_the_index(vault: Path) -> None:
    from k0maru.offload import records
    from tests.service.test_damage import offload

    indexed(vault)
    rec = offload(vault, "dddd4444")
    records.sidecar_of(vault, rec).write_bytes(b"\x00\xffnot json")
    with service(vault) as svc:
        assert svc.status().problems
        report = svc.doctor(fix=True)
        assert report.moved_aside is None
        assert any("written again" in line for line in report.repaired), report.repaired
        assert svc.status().problems == []


def test_an_index_copied_alone_from_a_vault_of_the_same_notes_says_so(tmp_path: Path) -> None:
    """An index copied from another vault whose notes are mostly here too (a copied vault, or
    its index alone) is taken over; the offload records whose log it did not bring are dropped,
    with one line, and every note is walked again (the other vault's extra note goes)."""
    from tests.service.test_damage import offload

    first, second = tmp_path / "first", tmp_path / "second"
    for root in (first, second):
        for i in range(4):
            write(root, f"notes/n{i}.md", f"# N{i}\n\nshared lease {i}.\n")
    write(first, "notes/only-there.md", "# Only\n\nmarkeronly lease.\n")
    with service(first) as svc:
        svc.scan()
    offload(first, "eeee5555")
    (db_path(second).parent).mkdir(parents=True)
    shutil.copy(db_path(first), db_path(second))
    with service(second) as svc:
        line, *rest = svc.status().problems  # and the other vault's note, not here
        assert rest == [
            "the index is damaged: 1 note(s) are indexed unlike their files; `k0maru doctor "
            "--fix` repairs it"
        ]
        assert line == (
            f"took over the index built for {first} (most of its notes are here: a copied vault)"
            " without 1 offload record(s) whose log it did not bring; every note is checked again"
            " by the next scan"
        )
        assert svc.recall("markeronly", mode="bm25").hits == []  # walked again: it is gone
        after = svc.status()
        assert after.problems == [] and (after.offloads, after.documents) == (0, 4)
