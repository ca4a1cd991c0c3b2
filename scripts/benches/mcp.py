"""MCP benchmark: server start to the first `recall_memory` answer, sent right after `initialize`
(as agents call it) and after 1 s idle (initialize + recall, the idle second not counted), each
beside the floor of a bare `import mcp` process in the same run (median of interleaved runs, and the
ratios), and beside the same immediate call to a bare MCPServer with no-op tools of the same names
(what the SDK alone costs to answer it; the rest is k0maru's); the RSS of the server, once
initialized and idle, and after the first vector query; warm `recall_memory` round trips (p50/p95)
over stdio; and what each 8-hit answer costs the agent (o200k tokens of the part a host passes the
model: structured content or text, the larger), per query and in total, on a generated vault or the
demo vault (`--vault examples/vault` is copied first, so the checkout stays clean).

    python scripts/bench.py mcp [--vault DIR | --keep DIR | --notes 5000] [--starts 5] [--calls 100]
        [--json]

Index the vault first (`--keep DIR` generates it there once and uses it in place; `k0maru scan
--vault DIR` indexes it), or the first start pays for it. k0maru's bytecode is compiled first, as an
installed wheel has it (the SDK's is, from its install): an editable checkout run with
PYTHONDONTWRITEBYTECODE set would otherwise compile every module of the server at each start.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
import numpy as np
from bench import emit, like_a_users_install, median, timed
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent
from vaultgen import SYMBOLS, WORDS, generate


def answer_tokens(res: CallToolResult) -> int:  # an mcp CallToolResult
    """What a host passes the model: the structured content as JSON (Claude Code, VS Code, Codex) or
    the text blocks (text-only clients), whichever is larger, since each part holds the whole
    answer."""
    from k0maru.llm_tokens import count_tokens

    # as the SDK sends it (pydantic's JSON: other scripts as UTF-8, not \u escapes)
    sent = (
        json.dumps(res.structured_content, separators=(",", ":"), ensure_ascii=False)
        if res.structured_content
        else ""
    )
    text = "".join(c.text for c in res.content if isinstance(c, TextContent))
    return max(count_tokens(sent), count_tokens(text))


def server_rss_mb(vault: Path) -> float | None:
    """VmRSS of `k0maru mcp --vault VAULT` (found by its command line in /proc; the processes of an
    older build that ran the tools in an engine process are counted with it)."""
    total = None
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
            server = b"mcp" in cmd or any(b"k0maru.mcp.engine" in part for part in cmd)
            if server and str(vault).encode() in cmd:
                for line in (proc / "status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total = (total or 0.0) + int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


def import_floor_s() -> float:
    """A fresh interpreter that only imports the MCP SDK's server and client parts: the floor of any
    start."""
    return timed([sys.executable, "-c", "import mcp.server.mcpserver, mcp.server.stdio"]).wall


# A bare MCPServer with no-op tools of k0maru's names: what the SDK alone costs to answer a first
# call
NOOP_SERVER = """
from mcp.server.mcpserver import MCPServer

server = MCPServer("noop", log_level="WARNING")
for name in {names!r}:
    def tool(query: str = "", limit: int = 8) -> dict[str, object]:
        return {{"hits": [], "query": query[:40]}}
    server.tool(name=name)(tool)
server.run("stdio")
"""


async def immediate_start(server: list[str]) -> float:
    """Server start to the answer of a `recall_memory` sent right after `initialize`, as agents call
    it."""
    params = StdioServerParameters(command=sys.executable, args=server)
    t0 = time.perf_counter()
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        res = await s.call_tool("recall_memory", {"query": "lease renewal", "limit": 8})
        took = time.perf_counter() - t0
        assert not res.is_error, res.content
    return took


async def one_start(
    vault: Path, calls: int, sizes: list[int], stats: dict[str, list[float]]
) -> tuple[float, list[float]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "k0maru", "mcp", "--vault", str(vault)]
    )
    t0 = time.perf_counter()
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        stats["initialize_s"].append(time.perf_counter() - t0)
        await anyio.sleep(1.0)  # idle: whatever the server warms up on its own is done
        stats["idle_rss_mb"].append(server_rss_mb(vault) or 0.0)
        t1 = time.perf_counter()
        res = await s.call_tool("recall_memory", {"query": "lease renewal", "limit": 8})
        stats["first_recall_s"].append(time.perf_counter() - t1)
        stats["rss_after_vector_query_mb"].append(server_rss_mb(vault) or 0.0)
        cold = stats["initialize_s"][-1] + stats["first_recall_s"][-1]
        assert not res.is_error, res.content
        lat = []
        for i in range(calls):
            q = (
                WORDS[i % len(WORDS)] + " " + WORDS[(i * 7) % len(WORDS)]
                if i % 3
                else SYMBOLS[i % len(SYMBOLS)]
            )
            t1 = time.perf_counter()
            res = await s.call_tool("recall_memory", {"query": q, "limit": 8})
            lat.append((time.perf_counter() - t1) * 1000)
            assert not res.is_error
            sizes.append(answer_tokens(res))
    return cold, lat


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--vault", type=Path, help="a vault to copy (its index is not copied)")
    ap.add_argument(
        "--keep", type=Path, help="generate the vault here once and use it in place, index included"
    )
    ap.add_argument("--notes", type=int, default=5000)
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--calls", type=int, default=100)


def run(args: argparse.Namespace) -> None:
    like_a_users_install()
    vault = args.keep or Path(tempfile.mkdtemp(prefix="k0bench-mcp-"))
    vault.mkdir(parents=True, exist_ok=True)
    if args.vault and not args.keep:
        import shutil

        vault = vault / "vault"
        shutil.copytree(args.vault, vault, ignore=shutil.ignore_patterns(".k0maru"))
    if not any(vault.rglob("*.md")):
        generate(vault, args.notes, seed=11, min_kb=0.3, max_kb=1.5)
    colds: list[float] = []
    warm: list[float] = []
    answers: list[int] = []
    stats: dict[str, list[float]] = {
        "initialize_s": [],
        "idle_rss_mb": [],
        "first_recall_s": [],
        "rss_after_vector_query_mb": [],
    }
    from k0maru.mcp.tools import TOOLS

    noop = Path(tempfile.mkdtemp(prefix="k0bench-noop-")) / "server.py"
    noop.write_text(NOOP_SERVER.format(names=[spec.name for spec in TOOLS]), encoding="utf-8")
    floors, immediate, noop_immediate = [], [], []
    for i in range(args.starts):  # interleaved, so a change in the machine's load touches all four
        floors.append(import_floor_s())
        noop_immediate.append(anyio.run(immediate_start, [str(noop)]))
        immediate.append(anyio.run(immediate_start, ["-m", "k0maru", "mcp", "--vault", str(vault)]))
        cold, lat = anyio.run(
            one_start, vault, args.calls if i == args.starts - 1 else 0, answers, stats
        )
        colds.append(cold)
        warm.extend(lat)
    noop.unlink()
    noop.parent.rmdir()
    floor = statistics.median(floors)
    out = {
        "notes": sum(1 for _ in vault.rglob("*.md")),
        "bare_sdk_import_s_median": round(floor, 3),
        "noop_sdk_server_immediate_s_median": median(noop_immediate, digits=3),
        "noop_sdk_server_ratio_to_sdk_import": round(statistics.median(noop_immediate) / floor, 3),
        "immediate_first_recall_s_median": median(immediate, digits=3),
        "immediate_ratio_to_sdk_import": round(statistics.median(immediate) / floor, 3),
        "immediate_runs_s": [round(c, 3) for c in immediate],
        "idle_cold_start_to_first_recall_s_median": median(colds, digits=3),
        "idle_ratio_to_sdk_import": round(statistics.median(colds) / floor, 3),
        "idle_runs_s": [round(c, 3) for c in colds],
        **{f"{k}_median": median(v, digits=3) for k, v in stats.items()},
        "warm_recall_p50_ms": round(float(np.percentile(warm, 50)), 2),
        "warm_recall_p95_ms": round(float(np.percentile(warm, 95)), 2),
        "warm_calls": len(warm),
        "answer_tokens_median": int(np.median(answers)),
        "answer_tokens_max": int(max(answers)),
        "answer_tokens_total": int(sum(answers)),
        "answer_tokens_per_query": answers,
    }
    emit(out, args.json, 38)
