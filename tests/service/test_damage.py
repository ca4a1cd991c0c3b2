"""Damage that reads as health (#45): `status` decodes what a reader reads, a rebuild says what it
found, keeps every offload record (from the sidecars, or the old index when a sidecar is garbage),
keeps two old copies of the index, and a stopped rebuild is reported (real SQLite, in-process)."""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import pytest

from k0maru.errors import IndexCorruptError
from k0maru.index import db
from k0maru.index.store import db_path
from k0maru.offload import records
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write


def service(vault: Path) -> Service:
    return Service(VaultSession(Vault.open(vault, embed=False), rescan_interval=0, embed="worker"))


def indexed(vault: Path, notes: int = 6) -> None:
    for i in range(notes):
        write(vault, f"notes/n{i}.md", f"# Note {i}\n\nLease renewal {i}.\n")
    with service(vault) as svc:
        svc.scan()


def offload(vault: Path, node: str) -> records.OffloadRecord:
    log = vault / ".k0maru/refs" / f"main_{node}.log.gz"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(gzip.compress(b"x.py:1: error: boom\n"))
    rec = records.OffloadRecord(
        node_id=node, task_id="main", created_at=time.time(), command="make", exit_code=1,
        log_path=str(log.relative_to(vault)), raw_lines=1, raw_bytes=20, raw_tokens=9,
        summary_tokens=5, estimator="bpe", stack=[], error_codes=[], first_location=None,
        failures=[], mermaid="", summary="boom",
    )  # fmt: skip
    with Vault.open(vault, embed=False) as v:
        records.save(v.store, rec)
    records.write_sidecar(vault, rec)
    return rec


def damage(vault: Path, statement: str) -> None:
    conn = db.connect(db_path(vault))
    conn.execute(statement)
    conn.close()


@pytest.mark.parametrize(
    ("statement", "found"),
    [
        ("UPDATE chunks SET text = CAST(x'c328' AS TEXT) WHERE id = 2", "UTF-8"),
        ("UPDATE bm25_index SET blob = randomblob(3000)", "BM25 segment"),
        ("UPDATE bm25_terms SET chunks = x'00'", "BM25 segment"),
        ("UPDATE documents SET frontmatter = '{' WHERE id = 1", "broken JSON"),
        ("DROP TABLE links", "links"),
    ],
)
def test_status_and_rebuild_name_damage_that_quick_check_passes(
    vault: Path, statement: str, found: str
) -> None:
    indexed(vault)
    with service(vault) as svc:
        svc.recall("lease", mode="bm25")  # the BM25 segment is built and stored
    damage(vault, statement)
    with service(vault) as svc, pytest.raises(IndexCorruptError, match=found) as raised:
        svc.status()
    assert "scan --rebuild" in str(raised.value)
    with service(vault) as svc:
        report = svc.scan(rebuild=True)
        assert report.moved_aside is not None and report.moved_aside.why.startswith("corrupt")
        assert svc.status().documents == 6


def test_a_rebuild_keeps_every_offload_record_and_reports_a_garbage_sidecar(vault: Path) -> None:
    indexed(vault)
    good, bad = offload(vault, "aaaa1111"), offload(vault, "bbbb2222")
    records.sidecar_of(vault, bad).write_bytes(b"\x00\xffnot json")
    with service(vault) as svc:
        assert any("bbbb2222" in p and "not a readable" in p for p in svc.status().problems)
        report = svc.scan(rebuild=True)
        assert any("written again" in w for w in report.warnings), report.warnings
        assert {n.node_id for n in svc.log_list()} == {good.node_id, bad.node_id}
        assert svc.status().problems == []  # the sidecar was written again from the record


def test_a_rebuild_killed_before_its_swap_leaves_the_old_index_whole(vault: Path) -> None:
    indexed(vault)
    new = db_path(vault).with_name("index.sqlite.new")
    settings = Vault.open(vault, embed=False).settings
    with Vault(vault, settings, index=new) as v:  # what a rebuild killed during its build leaves
        v.index(only=["notes/n0.md"], embed=False)
    with service(vault) as svc:
        assert svc.status().problems == [] and svc.status().documents == 6
        svc.scan(rebuild=True)
        assert svc.status().documents == 6
    assert not new.exists()


def test_rebuilds_keep_two_old_copies_and_status_counts_the_live_index_alone(vault: Path) -> None:
    indexed(vault)
    for _ in range(4):
        with service(vault) as svc:
            svc.scan(rebuild=True)
        time.sleep(1.1)  # copies are named by the second they were moved aside
    with service(vault) as svc:
        info = svc.status()
    copies = sorted(db_path(vault).parent.glob("index.sqlite.old-*"))
    assert len([c for c in copies if not c.name.endswith(("-wal", "-shm"))]) == 2
    assert info.old_copies == 2 and info.old_copies_bytes > 0
    assert info.db_size_bytes < info.old_copies_bytes  # the live file alone, not the copies


def test_a_garbage_sidecar_whose_row_is_damaged_too_loses_no_record(vault: Path) -> None:
    indexed(vault)
    rec = offload(vault, "cccc3333")
    records.sidecar_of(vault, rec).write_bytes(b"\x00\xffnot json")
    damage(vault, "UPDATE offloads SET summary = CAST(x'626f6fff6d' AS TEXT), failures = '{'")
    with service(vault) as svc:
        svc.scan(rebuild=True)
        assert [n.node_id for n in svc.log_list()] == ["cccc3333"]
        assert svc.log_view("cccc3333").summary == "boo\ufffdm"


def test_a_row_whose_lists_do_not_read_back_still_lists(vault: Path) -> None:
    indexed(vault)
    offload(vault, "dddd4444")
    damage(vault, "UPDATE offloads SET failures = '{not json', stack = '['")
    with service(vault) as svc:
        listed = svc.log_list()
    assert [(n.node_id, list(n.failures)) for n in listed] == [("dddd4444", [])]
