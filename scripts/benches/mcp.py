"""MCP benchmark: server start to the first `recall_memory` answer, sent right after `initialize`
(as agents call it), beside the same call to a bare MCPServer with no-op tools of the same names
(what the SDK alone costs to answer it; the rest is k0maru's), median of interleaved starts and the
ratio, each server's CPU seconds by then (steadier than the wall time on a busy machine) and the
load average; the server's RSS and CPU per second once initialized and idle, and its RSS after the
first vector query; warm `recall_memory` round trips (p50/p95) over stdio; and what each 8-hit
answer costs the agent (o200k tokens of the part a host passes the model: structured content or
text, the larger), on a generated vault or the demo vault (`--vault examples/vault` is copied
first, so the checkout stays clean). The figures against a bare `import mcp` and after an idle
second came from `git show bb736b0:scripts/benches/mcp.py`.

    python scripts/bench.py mcp [--vault DIR | --keep DIR | --notes 5000] [--starts 5] [--calls 100]
        [--json]

Index the vault first (`--keep DIR` generates it there once and uses it in place; `k0maru scan
--vault DIR` indexes it), or the first start pays for it. k0maru's bytecode is compiled first, as an
installed wheel has it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import numpy as np
from bench import emit, interleave, like_a_users_install
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


def server_proc(args: list[str]) -> Path | None:
    """The /proc folder of the server started as `python ARGS` (not the worker of the same
    vault)."""
    want = [a.encode() for a in args]
    for proc in Path("/proc").iterdir():
        try:
            if (proc / "cmdline").read_bytes().split(b"\0")[1:-1] == want:
                return proc
        except OSError:
            continue
    return None


def server_rss_mb(vault: Path) -> float | None:
    """VmRSS of `k0maru mcp --vault VAULT`."""
    proc = server_proc(["-m", "k0maru", "mcp", "--vault", str(vault)])
    try:
        status = (proc / "status").read_text().splitlines() if proc else []
        return next(round(int(ln.split()[1]) / 1024, 1) for ln in status if ln.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return None


def server_cpu_s(args: list[str]) -> float | None:
    """The CPU seconds so far (user + system, all its threads) of the server started as `python
    ARGS`: steadier than the wall time on a machine other work keeps busy."""
    proc = server_proc(args)
    try:
        fields = (proc / "stat").read_text().rsplit(")", 1)[1].split() if proc else []
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") if fields else None


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


def server_params(args: list[str]) -> StdioServerParameters:
    """`python ARGS` as the SDK's client starts it, on the k0maru this process imported (the
    checkout PYTHONPATH names, for the code before in a worktree): the client passes a server only
    a few variables, and `python -m` looks in its working folder first, so without both a server
    would run whichever checkout it was started in."""
    import k0maru

    home = str(Path(k0maru.__file__).resolve().parents[1])
    return StdioServerParameters(
        command=sys.executable, args=args, env={"PYTHONPATH": home}, cwd=home
    )


async def immediate_start(server: list[str]) -> tuple[float, float | None]:
    """Server start to the answer of a `recall_memory` sent right after `initialize`, as agents call
    it, and the server's CPU seconds by then."""
    params = server_params(server)
    t0 = time.perf_counter()
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        res = await s.call_tool("recall_memory", {"query": "lease renewal", "limit": 8})
        took = time.perf_counter() - t0
        cpu = server_cpu_s(server)
        assert not res.is_error, res.content
    return took, cpu


async def warm_calls(vault: Path, calls: int) -> dict[str, Any]:
    """RSS idle and after a first vector query, then `calls` warm recalls: latencies and tokens."""
    params = server_params(["-m", "k0maru", "mcp", "--vault", str(vault)])
    lat: list[float] = []
    sizes: list[int] = []
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        await anyio.sleep(1.0)  # idle: whatever the server warms up on its own is done
        idle_rss = server_rss_mb(vault)
        args = ["-m", "k0maru", "mcp", "--vault", str(vault)]
        before = server_cpu_s(args)
        await anyio.sleep(2.0)  # what the server costs while no request comes
        after = server_cpu_s(args)
        idle_cpu = (after - before) / 2 * 1000 if before is not None and after is not None else None
        await s.call_tool("recall_memory", {"query": "lease renewal", "limit": 8})
        rss = server_rss_mb(vault)
        for i in range(calls):
            q = f"{WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]}" if i % 3 else SYMBOLS[i % len(SYMBOLS)]  # fmt: skip
            t1 = time.perf_counter()
            res = await s.call_tool("recall_memory", {"query": q, "limit": 8})
            lat.append((time.perf_counter() - t1) * 1000)
            assert not res.is_error
            sizes.append(answer_tokens(res))
    return {
        "idle_rss_mb": idle_rss,
        "idle_cpu_ms_per_s": round(idle_cpu, 1) if idle_cpu is not None else None,
        "rss_after_vector_query_mb": rss,
        "warm_recall_p50_ms": round(float(np.percentile(lat, 50)), 2),
        "warm_recall_p95_ms": round(float(np.percentile(lat, 95)), 2),
        "warm_calls": len(lat),
        "answer_tokens_median": int(np.median(sizes)),
        "answer_tokens_max": max(sizes),
        "answer_tokens_total": sum(sizes),
        "answer_tokens_per_query": sizes,
    }


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
        vault = vault / "vault"
        shutil.copytree(args.vault, vault, ignore=shutil.ignore_patterns(".k0maru"))
    if not any(vault.rglob("*.md")):
        generate(vault, args.notes, seed=11, min_kb=0.3, max_kb=1.5)
    from k0maru.mcp.tools import TOOLS

    noop = Path(tempfile.mkdtemp(prefix="k0bench-noop-")) / "server.py"
    noop.write_text(NOOP_SERVER.format(names=[spec.name for spec in TOOLS]), encoding="utf-8")
    got = interleave(args.starts, {
        "noop": partial(anyio.run, immediate_start, [str(noop)]),
        "k0maru": partial(anyio.run, immediate_start, ["-m", "k0maru", "mcp", "--vault", str(vault)]),
    })  # fmt: skip
    shutil.rmtree(noop.parent)
    wall = {name: [w for w, _ in runs] for name, runs in got.items()}
    cpu = {name: [c for _, c in runs if c is not None] for name, runs in got.items()}
    ours, floor = statistics.median(wall["k0maru"]), statistics.median(wall["noop"])
    out = {
        "notes": sum(1 for _ in vault.rglob("*.md")),
        "load_average": [round(x, 1) for x in os.getloadavg()],
        "noop_sdk_server_first_recall_s_median": round(floor, 3),
        "first_recall_s_median": round(ours, 3),
        "ratio_to_noop_sdk_server": round(ours / floor, 3),
        "first_recall_runs_s": [round(c, 3) for c in wall["k0maru"]],
        "server_cpu_s_median": {
            name: round(statistics.median(c), 3) if c else None for name, c in cpu.items()
        },
        **anyio.run(warm_calls, vault, args.calls),
    }
    emit(out, args.json, 38)
