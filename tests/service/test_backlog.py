"""Writes never wait on the embedding backlog: a flush returns once its note is searchable by BM25,
and its vectors follow in the background (real SQLite, the real model in the background thread)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import wait_for_worker, write


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
        assert svc._vault.store.unembedded_chunks() > pending / 2  # vectors follow, not before
        print(f"one-note flush behind {pending} pending chunks: {elapsed * 1000:.0f} ms")


def _flush_timings_over_stdio(vault: Path) -> tuple[float, list[str], list[str], int]:
    import os
    import sys

    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    out: dict[str, object] = {}

    async def main() -> None:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "k0maru", "mcp", "--vault", str(vault)],
            env={**os.environ},
        )
        async with stdio_client(params) as (read, write_), ClientSession(read, write_) as s:
            await s.initialize()
            first = await s.call_tool("recall_memory", {"query": "lease"})
            out["first"] = first.structured_content.get("warnings", [])
            t0 = time.perf_counter()
            r = await s.call_tool(
                "flush_session",
                {"title": "Quorum reads", "body": "markerquorum reads go to two replicas."},
            )
            out["flush_s"] = time.perf_counter() - t0
            assert not r.is_error, r.content
            with Vault.open(vault) as v:  # the flush returned with the backlog still waiting
                out["pending"] = v.store.unembedded_chunks()
            hits = await s.call_tool("recall_memory", {"query": "markerquorum", "mode": "bm25"})
            out["hits"] = [h["path"] for h in hits.structured_content["hits"]]

    anyio.run(main)
    return out["flush_s"], out["hits"], out["first"], out["pending"]  # type: ignore[return-value]


@pytest.mark.slow
def test_cli_and_mcp_flush_and_ui_do_not_wait_for_the_backlog(tmp_path: Path) -> None:
    import json
    import os
    import re
    import subprocess
    import sys
    import urllib.request

    from tests.helpers import run_k0maru

    vault = tmp_path / "v"
    pending = backlog_vault(vault, 300)
    # the one-shot CLI: the note is searchable when the command returns; vectors go to the worker
    t0 = time.perf_counter()
    r = run_k0maru(
        "flush", "--vault", str(vault), "--kind", "decision", "--title", "Leader lease",
        input="markerlease the leader renews every 2 s\n",
    )  # fmt: skip
    cli_s = time.perf_counter() - t0
    assert r.returncode == 0, r.stderr
    r = run_k0maru("search", "markerlease", "--vault", str(vault), "--mode", "bm25", "--json")
    assert [h["path"] for h in json.loads(r.stdout)["hits"]], r.stderr
    # the MCP server: answers at once, says vectors are pending, flushes without waiting for them
    flush_s, hits, first_warnings, left = _flush_timings_over_stdio(vault)
    assert len(hits) == 1 and left > 0, (left, hits)
    assert any("embedded" in w or "vector" in w for w in first_warnings), first_warnings
    # the console listens before embedding anything, and says how much is pending
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "k0maru", "ui", "--vault", str(vault), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ},
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    try:
        m = re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stdout.readline())
        assert m, proc.stderr.read()
        with urllib.request.urlopen(f"{m.group(1)}api/status", timeout=60) as resp:
            status = json.loads(resp.read())
        ui_s = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert status["chunks_pending_embedding"] > 0
    print(
        f"{pending} pending: CLI flush {cli_s * 1000:.0f} ms (process included), "
        f"MCP flush_session {flush_s * 1000:.0f} ms, console status answered after {ui_s:.1f} s "
        f"with {status['chunks_pending_embedding']} pending"
    )
    wait_for_worker(vault, 120)  # the worker the CLI asked for
