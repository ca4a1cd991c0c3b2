"""A reader never indexes a backlog inside itself (#45): a request indexes at most a few notes, the
latest edited first, answers from the index as it is and says how many are pending; the worker
indexes the rest (real SQLite, a real worker process)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from k0maru.config import load_settings
from k0maru.index.scanner import IncrementalScanner
from k0maru.index.store import Store
from k0maru.service.operations import Service
from k0maru.service.session import READ_INDEX_LIMIT, VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import wait_for_worker, write

BACKLOG = 2000
WORKER_BUDGET_S = 600  # the worker indexes the backlog within this (a loaded machine)


def copy_backlog(vault: Path, count: int) -> None:
    """`count` notes copied in an hour ago (older than any edit made after)."""
    old = time.time() - 3600
    for i in range(count):
        path = write(vault, f"copied/c{i:05d}.md", f"# Copied {i}\n\nLease {i} renews.\n")
        os.utime(path, (old, old))


def test_a_limited_scan_indexes_the_latest_edits_and_counts_the_rest(vault: Path) -> None:
    copy_backlog(vault, 30)
    write(vault, "notes/edited.md", "# Edited\n\nmarkeredit just now.\n")
    with Store.open(vault) as store:
        result = IncrementalScanner(store, load_settings(vault, embed=False)).scan(limit=5)
        paths = {p for _, p, _ in store.list_documents()}
    assert result.added == 5 and result.deferred == 26
    assert "notes/edited.md" in paths and len(paths) == 5
    assert result.walked is None  # not a complete walk: the next scan walks again


@pytest.mark.slow
def test_a_server_answers_at_once_behind_a_backlog_and_the_worker_indexes_it(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K0MARU_EMBED", "false")  # the spawned worker too: the backlog is lexical
    write(vault, "notes/seed.md", "# Seed\n\nThe first note.\n")
    with Vault.open(vault) as v:
        v.index(lexical=True)
    copy_backlog(vault, BACKLOG)
    write(vault, "notes/edited.md", "# Edited\n\nmarkeredit renews the lease.\n")
    try:
        with Service(VaultSession(Vault.open(vault), embed="thread")) as svc:
            t0 = time.perf_counter()
            first = svc.recall("markeredit", mode="bm25")
            first_s = time.perf_counter() - t0
            indexed = len(svc._vault.store.list_documents())
            assert [h.path for h in first.hits] == ["notes/edited.md"]  # the edit is searchable
            assert indexed <= 1 + READ_INDEX_LIMIT, indexed  # not the backlog
            assert any("not indexed yet" in w for w in first.warnings), first.warnings
            t0 = time.perf_counter()
            out = svc.flush("decision", "Quorum", "markerquorum reads go to two replicas.", [], [])
            flush_s = time.perf_counter() - t0
            assert [h.path for h in svc.recall("markerquorum", mode="bm25").hits] == [out.path]
            deadline = time.monotonic() + WORKER_BUDGET_S
            while len(svc._vault.store.list_documents()) < BACKLOG + 3:
                assert time.monotonic() < deadline, "the worker did not index the backlog"
                time.sleep(0.5)
            print(
                f"{BACKLOG} notes copied in: first answer {first_s:.2f} s with {indexed} indexed, "
                f"flush {flush_s:.2f} s"
            )
    finally:
        wait_for_worker(vault, 120)


def test_files_a_scan_always_skips_are_not_pending(vault: Path) -> None:
    write(vault, "notes/a.md", "# A\n\nLease.\n")
    (vault / "notes/binary.md").write_bytes(b"\x00\x01binary")
    (vault / "notes/latin1.md").write_bytes(b"caf\xe9\n")
    with Service(VaultSession(Vault.open(vault, embed=False), rescan_interval=0)) as svc:
        svc.scan()
        assert svc.backlog().pending == {"new": 0, "changed": 0, "removed": 0}
        (vault / "notes/latin1.md").write_bytes(b"caf\xe9 again\n")  # changed: pending again
        assert svc.backlog().pending["new"] == 1
