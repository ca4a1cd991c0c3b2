"""Lock and fault benchmark: what a commit costs while another k0maru holds the index's write lock,
and whether anything is lost under concurrent writers and kill -9.

    python scripts/bench.py locks [--notes 2000] [--runs 5] [--writers 20] [--kills 4] [--json]

Baseline in the same run: the same commit with no hooks installed."""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import GIT_ENV, K0, clock, emit, k0, like_a_users_install, median
from vaultgen import generate

ENV = {**os.environ, **GIT_ENV, "K0MARU_HOOK_EMBED": "off"}


def sh(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=root, env=ENV, check=True, capture_output=True, text=True)


def timed_commit(root: Path, path: Path, n: int) -> float:
    path.write_text(path.read_text() + f"\nedit {n}\n")
    sh(root, "git", "add", "-A")
    return clock(lambda: sh(root, "git", "commit", "-qm", f"edit {n}"))[0] * 1000


def hold_lock(root: Path, seconds: float) -> subprocess.Popen[str]:
    code = (
        "import time\nfrom pathlib import Path\nfrom k0maru.index.store import Store\n"
        f"s = Store.open(Path({str(root)!r}))\ns.conn.execute('BEGIN IMMEDIATE')\nprint('locked', flush=True)\n"
        f"time.sleep({seconds})\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def commit_latency(tmp: Path, notes: int, runs: int) -> dict[str, float]:
    root = tmp / "repo"
    root.mkdir()
    paths = generate(root, notes, min_kb=1, max_kb=6)
    sh(root, "git", "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".k0maru/\n")
    sh(root, "git", "add", "-A")
    sh(root, "git", "commit", "-qm", "init")
    sh(root, *K0, "scan", "--vault", str(root), "--no-embed")
    plain = [timed_commit(root, paths[i], i) for i in range(runs)]
    sh(root, *K0, "hooks", "install", "--vault", str(root))
    hooked = [timed_commit(root, paths[runs + i], runs + i) for i in range(runs)]
    locked = []
    for i in range(runs):
        holder = hold_lock(root, 60)
        try:
            locked.append(timed_commit(root, paths[2 * runs + i], 2 * runs + i))
        finally:
            holder.kill()
            holder.wait()
    # what the hooks asked for (embedding is not what is measured)
    k0("worker", "--vault", str(root), cwd=root, env={**ENV, "K0MARU_EMBED": "false"})
    from k0maru.index.store import Store

    with Store.open(root) as store:
        docs = {path: store.document_by_path(path) for path in store.cached_documents()}
    indexed = {path: doc.body for path, doc in docs.items() if doc is not None}
    edited = paths[: 3 * runs]
    caught_up = all(
        f"edit {i}" in indexed[p.relative_to(root).as_posix()] for i, p in enumerate(edited)
    )
    return {
        "commit_no_hooks_ms_median": median(plain),
        "commit_hooks_ms_median": median(hooked),
        "commit_hooks_lock_held_ms_median": median(locked),
        "commit_hooks_lock_held_ms_max": round(max(locked), 1),
        "lock_held_over_no_hooks_ms": round(
            statistics.median(locked) - statistics.median(plain), 1
        ),
        "worker_indexed_every_commit": caught_up,
    }


def concurrent_writers(tmp: Path, writers: int) -> dict[str, int]:
    root = tmp / "writers"
    root.mkdir()
    (root / "a.md").write_text("# A\n")
    sh(root, *K0, "scan", "--vault", str(root), "--no-embed")
    procs = [
        subprocess.Popen(
            [*K0, "flush", "--vault", str(root), "--kind", "card", "--title", f"Card {i}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**ENV, "K0MARU_EMBED": "false"},
        )
        for i in range(writers)
    ]
    for i, p in enumerate(procs):
        p.communicate(f"body of card {i}\n")
    ok = sum(p.returncode == 0 for p in procs)
    files = [p for p in root.rglob("*.md") if ".k0maru" not in p.parts and p.name != "a.md"]
    query = ["--no-scan", "--mode", "bm25", "--json", "--limit", "50", "body card"]
    indexed = json.loads(k0("search", "--vault", str(root), *query, env=ENV))["hits"]
    return {
        "writers": writers,
        "writers_ok": ok,
        "notes_written": len(files),
        "notes_indexed": len(indexed),
        "notes_lost": writers - min(len(files), len(indexed)),
    }


def killed_scans(tmp: Path, kills: int, notes: int) -> dict[str, int]:
    root = tmp / "killed"
    root.mkdir()
    generate(root, notes, min_kb=1, max_kb=6)
    rng = random.Random(7)
    for _ in range(kills):
        proc = subprocess.Popen(
            [*K0, "scan", "--vault", str(root), "--no-embed"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.8, 2.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    sh(root, *K0, "scan", "--vault", str(root), "--no-embed")
    status = json.loads(sh(root, *K0, "status", "--vault", str(root), "--json").stdout)
    files = sum(1 for p in root.rglob("*.md") if ".k0maru" not in p.parts)
    return {
        "kills": kills,
        "files": files,
        "documents_after_rescan": status["documents"],
        "documents_lost": files - status["documents"],
    }


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--notes", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--writers", type=int, default=20)
    ap.add_argument("--kills", type=int, default=4)


def run(args: argparse.Namespace) -> None:
    like_a_users_install()
    with tempfile.TemporaryDirectory() as tmp:
        out = {
            **commit_latency(Path(tmp), args.notes, args.runs),
            **concurrent_writers(Path(tmp), args.writers),
            **killed_scans(Path(tmp), args.kills, args.notes),
        }
    emit(out, args.json, 34)
