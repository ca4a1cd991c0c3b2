"""50 console searches at once against one alone, with the floor this machine allows (issue #31).

    python scripts/bench.py console-parallel [--rounds 3] [--dir /tmp/bench-console]

Copies the demo vault, indexes and embeds it, starts a real `k0maru ui` and sends BM25 searches over
HTTP: the median of 15 sent one at a time, then 50 sent at once (the median and the slowest),
alternating for `--rounds`. The server's CPU seconds over the 50 (from /proc) give the CPU one
search costs; on this machine's cores, and with the interpreter lock serialising the Python part of
each search, the median of 50 arrivals at once cannot beat the 25th search's turn: 25.5 x that CPU
(one core for Python), nor 25.5 x CPU / cores however the work is spread. The client's 50 threads
share the same cores."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

DEMO = Path(__file__).resolve().parents[2] / "examples" / "vault"
QUERIES = ["lease renewal", "retry backoff", "sqlite busy", "deploy rollback", "flaky test"]


def timed_get(url: str) -> float:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as resp:
        json.loads(resp.read())
    return time.perf_counter() - t0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/k0maru-bench-console"))


def run(args: argparse.Namespace) -> None:
    root: Path = args.dir
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".k0maru"))
    cmd = [sys.executable, "-m", "k0maru"]
    subprocess.run([*cmd, "scan", "--vault", str(root)], check=True, capture_output=True)
    proc = subprocess.Popen(
        [*cmd, "ui", "--vault", str(root), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        found = re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stdout.readline())
        assert found, "the console did not start"
        base = found.group(1)
        urls = [
            f"{base}api/search?q={urllib.parse.quote(q)}&mode=bm25&k={i}"
            for i, q in enumerate(QUERIES * 10)
        ]
        for url in urls[:10]:
            timed_get(url)  # warm: BM25 loaded, connections opened
        singles, p50s, maxes, cpus = [], [], [], []
        with ThreadPoolExecutor(max_workers=50) as pool:
            for _ in range(args.rounds):
                singles.append(statistics.median(timed_get(u) for u in urls[:15]))
                c0 = cpu_seconds(proc.pid)
                times = list(pool.map(timed_get, urls))
                cpus.append((cpu_seconds(proc.pid) - c0) / len(urls))
                p50s.append(statistics.median(times))
                maxes.append(max(times))
        single, p50, cpu = (
            statistics.median(singles),
            statistics.median(p50s),
            statistics.median(cpus),
        )
        cores = os.cpu_count() or 1
        print(
            f"one search alone: median {ms(single)} (rounds: {', '.join(ms(s) for s in singles)})"
        )
        print(f"50 at once: median {ms(p50)} = {p50 / single:.1f}x alone, slowest {ms(max(maxes))} "
              f"(rounds: {', '.join(ms(p) for p in p50s)})")  # fmt: skip
        print(f"server CPU per search: {ms(cpu)}; floors for the median of 50 on {cores} cores: "
              f"{ms(25.5 * cpu)} = {25.5 * cpu / single:.1f}x alone (Python serialised), "
              f"{ms(25.5 * cpu / cores)} (all of it parallel); 3x alone is {ms(3 * single)}")  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(timeout=30)
