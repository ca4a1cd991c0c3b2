"""MCP benchmark: server start to `initialize` and to the first `recall_memory` answer (cold, model load
included, median of runs) beside the floor of a bare `import mcp` in the same run; the server's RSS once
initialized and idle, and after the first vector query; warm `recall_memory` round trips (p50/p95) over
stdio; and what each 8-hit answer costs the agent (o200k tokens of everything the tool returns: structured
content and text), per query and in total, on a generated vault or the demo vault (`--vault
examples/vault` is copied first, so the checkout stays clean).

    python scripts/bench_mcp.py [--vault DIR | --keep DIR | --notes 5000] [--starts 5] [--calls 100] [--json]

Index the vault first (`--keep DIR` generates it there once and uses it in place; `k0maru scan --vault DIR`
indexes it), or the first start pays for it.
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
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vaultgen import SYMBOLS, WORDS, generate  # noqa: E402


def answer_tokens(res) -> int:  # noqa: ANN001 - an mcp CallToolResult
    from k0maru.llm_tokens import count_tokens

    # as the SDK sends it (pydantic's JSON: other scripts as UTF-8, not \u escapes)
    sent = (
        json.dumps(res.structured_content, separators=(",", ":"), ensure_ascii=False)
        if res.structured_content
        else ""
    )
    return count_tokens(sent) + sum(
        count_tokens(c.text) for c in res.content if getattr(c, "text", None)
    )


def server_rss_mb(vault: Path) -> float | None:
    """VmRSS of the `k0maru mcp --vault VAULT` process (found by its command line in /proc)."""
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
            if b"mcp" in cmd and str(vault).encode() in cmd:
                for line in (proc / "status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            continue
    return None


def import_floor_s() -> float:
    """A fresh interpreter that only imports the MCP SDK's server and client parts: the floor of any start."""
    import subprocess

    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "import mcp.server.mcpserver, mcp.server.stdio"], check=True
    )
    return time.perf_counter() - t0


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--vault", type=Path, help="a vault to copy (its index is not copied)")
    ap.add_argument(
        "--keep", type=Path, help="generate the vault here once and use it in place, index included"
    )
    ap.add_argument("--notes", type=int, default=5000)
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
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
    sizes: list[int] = []
    stats: dict[str, list[float]] = {
        "initialize_s": [],
        "idle_rss_mb": [],
        "first_recall_s": [],
        "rss_after_vector_query_mb": [],
    }
    floors = []
    for i in range(args.starts):
        floors.append(import_floor_s())
        cold, lat = anyio.run(
            one_start, vault, args.calls if i == args.starts - 1 else 0, sizes, stats
        )
        colds.append(cold)
        warm.extend(lat)
    out = {
        "notes": sum(1 for _ in vault.rglob("*.md")),
        "cold_start_to_first_recall_s_median": round(statistics.median(colds), 3),
        "cold_runs_s": [round(c, 3) for c in colds],
        "bare_sdk_import_s_median": round(statistics.median(floors), 3),
        **{f"{k}_median": round(statistics.median(v), 3) for k, v in stats.items()},
        "warm_recall_p50_ms": round(float(np.percentile(warm, 50)), 2),
        "warm_recall_p95_ms": round(float(np.percentile(warm, 95)), 2),
        "warm_calls": len(warm),
        "answer_tokens_median": int(np.median(sizes)),
        "answer_tokens_max": int(max(sizes)),
        "answer_tokens_total": int(sum(sizes)),
        "answer_tokens_per_query": sizes,
    }
    print(json.dumps(out) if args.json else "\n".join(f"{k:>38}: {v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
