"""Readers never wait for writers: each request reads through its own connection; a slow write
delays only itself. Real `k0maru ui` over real HTTP, a real MCP server over stdio."""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def timed_get(url: str) -> float:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as resp:
        assert resp.status == 200
        json.loads(resp.read())
    return time.perf_counter() - t0


def test_parallel_console_searches(console_url: str) -> None:
    queries = ["lease renewal", "retry backoff", "sqlite busy", "deploy rollback", "flaky test"]
    urls = [
        f"{console_url}api/search?q={urllib.parse.quote(q)}&mode=bm25&k={i}"
        for i, q in enumerate(queries * 10)
    ]
    for url in urls[:5]:
        timed_get(url)  # warm: BM25 loaded
    single = statistics.median(timed_get(url) for url in urls[:15])
    with ThreadPoolExecutor(max_workers=50) as pool:
        parallel = list(pool.map(timed_get, urls))
    # how it compares: git show bb736b0:scripts/benches/console_parallel.py
    p50 = statistics.median(parallel)
    print(f"single {single * 1000:.1f} ms, 50 parallel p50 {p50 * 1000:.1f} ms")
    assert len(parallel) == len(urls)  # every one answered 200 with JSON (timed_get)


def test_mcp_reads_behind_a_1mb_flush(demo: Path) -> None:
    """A recall sent right behind a 1 MB `flush_session` on the same stdio session answers before
    the flush does: it does not wait for the write."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    body = "\n\n".join(
        f"## Part {i}\n\n" + " ".join(f"word{i}x{j} lease renewal" for j in range(60))
        for i in range(800)
    )
    assert len(body.encode()) > 1_000_000
    timings: dict[str, float] = {}
    answered: list[str] = []

    async def main() -> None:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "k0maru", "mcp", "--vault", str(demo)],
            env={**os.environ},
        )
        async with stdio_client(params) as (read_, write_), ClientSession(read_, write_) as s:
            await s.initialize()
            await s.call_tool("recall_memory", {"query": "lease", "mode": "bm25"})  # warm

            async def flush() -> None:
                t0 = time.perf_counter()
                r = await s.call_tool(
                    "flush_session", {"title": "Big design", "body": body, "kind": "decision"}
                )
                assert not r.is_error, r.content
                timings["flush"] = time.perf_counter() - t0
                answered.append("flush")

            async def read() -> None:
                await anyio.sleep(0)  # the flush is sent first
                t0 = time.perf_counter()
                r = await s.call_tool("recall_memory", {"query": "retry backoff", "mode": "bm25"})
                assert not r.is_error, r.content
                timings["recall"] = time.perf_counter() - t0
                answered.append("recall")
                t0 = time.perf_counter()
                r = await s.call_tool("get_project_loadout", {"token_budget": 500})
                assert not r.is_error, r.content
                timings["loadout"] = time.perf_counter() - t0

            async with anyio.create_task_group() as tg:
                tg.start_soon(flush)
                tg.start_soon(read)

    anyio.run(main)
    print({k: f"{v * 1000:.0f} ms" for k, v in timings.items()})
    assert answered[0] == "recall", (answered, timings)
