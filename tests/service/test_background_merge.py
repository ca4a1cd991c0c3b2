"""The BM25 merge runs only in the background (the worker process), never inside a query: a query
after an edit that makes a merge due reads the persisted segment plus the delta."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from k0maru.index.store import BM25_MERGE_MIN, Store
from k0maru.service import worker
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write

pytestmark = pytest.mark.slow  # a delta past the merge threshold: 2,000+ notes


def merge_due(root: Path) -> bool:
    with Store.open(root) as store:
        state = store.bm25_state()
        assert state is not None
        return state.merge_due


def test_a_query_never_merges_the_bm25_delta(vault: Path) -> None:
    for i in range(20):
        write(vault, f"base/n{i}.md", f"# Base {i}\n\nLease renewal {i}.\n")
    with Vault.open(vault, embed=False) as v:
        v.index(lexical=True)
    for i in range(BM25_MERGE_MIN + 100):
        write(vault, f"bulk/b{i:05d}.md", f"# Bulk {i}\n\nbulkword{i} retry backoff.\n")
    with Vault.open(vault, embed=False) as v:  # as a server's requests and a worker leave it
        v.index(lexical=True, merge=False)
    write(vault, "bulk/b02042.md", "# Bulk 2042\n\nbulkword2042 retry backoff, edited.\n")
    with Service(VaultSession(Vault.open(vault, embed=False), rescan_interval=0)) as svc:
        with worker.held(vault) as mine:  # the background merger is busy (as when a worker runs)
            assert mine
            t0 = time.perf_counter()
            hits = svc.recall("bulkword2042", mode="bm25").hits
            first_query_s = time.perf_counter() - t0
            assert [h.path for h in hits] == ["bulk/b02042.md"]
            assert merge_due(vault)  # the query answered from segment + delta, merging nothing
        print(f"first query after a merge-due edit: {first_query_s * 1000:.0f} ms (scan included)")
        write(vault, "base/n0.md", "# Base 0\n\nLease renewal, edited.\n")
        assert svc.recall("lease renewal edited", mode="bm25").hits
        deadline = time.monotonic() + 120
        while merge_due(vault) and time.monotonic() < deadline:
            time.sleep(0.2)
        while worker.running(vault) and time.monotonic() < deadline:
            time.sleep(0.2)  # the worker the session asked for: no process outlives the test
        assert not merge_due(vault), "the worker merged nothing"
        assert [h.path for h in svc.recall("bulkword17", mode="bm25").hits] == ["bulk/b00017.md"]
