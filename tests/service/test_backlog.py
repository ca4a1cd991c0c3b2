"""Writes never wait on the embedding backlog: a flush returns once its note is searchable by BM25, and
its vectors follow in the background (real SQLite, the real model in the background thread)."""

from __future__ import annotations

import time
from pathlib import Path

from k0maru.index.vault import Vault
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from tests.helpers import write


def backlog_vault(root: Path, notes: int) -> int:
    """`notes` notes of two sections each, indexed without vectors; returns the chunks pending."""
    for i in range(notes):
        write(
            root,
            f"notes/n{i:04d}.md",
            f"# Note {i}\n\n## Leases\n\nLease {i} renews every {i % 7 + 1} s.\n\n"
            f"## Retries\n\nRetry {i} backs off after SQLITE_BUSY.\n",
        )
    with Vault.open(root, embed=False) as v:
        v.index(lexical=True)
    with Vault.open(root) as v:
        return v.store.unembedded_chunks()


def test_a_flush_returns_when_its_note_is_searchable_not_after_the_backlog(vault: Path) -> None:
    pending = backlog_vault(vault, 300)
    assert pending >= 600
    with Service(VaultSession(Vault.open(vault), embed="thread")) as svc:
        t0 = time.perf_counter()
        out = svc.flush(
            "decision", "Quorum reads", "markerquorum reads go to two replicas.", [], []
        )
        elapsed = time.perf_counter() - t0
        hits = svc.recall("markerquorum", mode="bm25").hits
        assert [h.path for h in hits] == [out.path]
        assert svc.vault.store.unembedded_chunks() > pending / 2  # vectors follow, not before
        print(f"one-note flush behind {pending} pending chunks: {elapsed * 1000:.0f} ms")
        assert elapsed < 1.0, f"flush took {elapsed:.2f} s behind {pending} pending chunks"
