"""A request for the worker is never left waiting (#45): a server's embedding thread hands the lock
and the embedding over to the worker when one is asked for (a BM25 merge, a git event), and the last
process out starts the worker for a request made while it held the lock (real worker processes, the
real model)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from k0maru.service import worker
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import wait_for_worker, write
from tests.service.test_backlog import backlog_vault

pytestmark = pytest.mark.slow
BUDGET_S = 120  # generous: a loaded machine (under the suite's per-test timeout)


def wait(condition: object, what: str) -> None:
    deadline = time.monotonic() + BUDGET_S
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_a_servers_embedder_hands_over_to_a_requested_worker(vault: Path) -> None:
    backlog_vault(vault, 300)
    try:
        with Service(VaultSession(Vault.open(vault), embed="thread")) as svc:
            svc._session.embed_later()
            wait(lambda: worker.running(vault), "the embedding thread never took the worker lock")
            assert not worker.request(vault)  # a git hook asks while the server embeds
            thread = svc._session._embedder_thread
            assert thread is not None
            thread.join(BUDGET_S)
            assert not thread.is_alive()
            left = svc._vault.store.unembedded_chunks()
            assert left > 0, "the server embedded everything before the worker got its turn"
            wait(lambda: not worker.wanted(vault), "no worker took the request")
    finally:
        wait_for_worker(vault, BUDGET_S)


def test_the_last_process_out_starts_the_worker_for_a_waiting_request(vault: Path) -> None:
    write(vault, "notes/a.md", "# A\n\nLease renewal.\n")
    try:
        with Service(VaultSession(Vault.open(vault, embed=False), embed="thread")) as svc:
            svc.recall("lease", mode="bm25")
            with worker.held(vault) as mine:  # as the server's embedding thread holds it
                assert mine
                assert not worker.request(vault)  # a git hook asks: no worker can start now
        wait(lambda: not worker.wanted(vault), "the request was left with no worker")
    finally:
        wait_for_worker(vault, BUDGET_S)
