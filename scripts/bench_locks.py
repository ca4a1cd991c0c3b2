"""Lock and fault benchmark: what a commit costs while another k0maru holds the index's write lock,
and whether anything is lost under concurrent writers and kill -9.

    python scripts/bench_locks.py [--notes 2000] [--runs 5] [--writers 20] [--kills 4] [--json]

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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchenv import like_a_users_install  # noqa: E402
from vaultgen import generate  # noqa: E402

like_a_users_install()

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "b@example.com",
    "K0MARU_HOOK_EMBED": "off",
}
K0 = [sys.executable, "-m", "k0maru"]


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=root, env=ENV, check=True, capture_output=True, text=True)


def timed_commit(root: Path, path: Path, n: int) -> float:
    path.write_text(path.read_text() + f"\nedit {n}\n")
    run(root, "git", "add", "-A")
    t0 = time.perf_counter()
    run(root, "git", "commit", "-qm", f"edit {n}")
    return (time.perf_counter() - t0) * 1000


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
    run(root, "git", "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".k0maru/\n")
    run(root, "git", "add", "-A")
    run(root, "git", "commit", "-qm", "init")
    run(root, *K0, "scan", "--vault", str(root), "--no-embed")
    plain = [timed_commit(root, paths[i], i) for i in range(runs)]
    run(root, *K0, "hooks", "install", "--vault", str(root))
    hooked = [timed_commit(root, paths[runs + i], runs + i) for i in range(runs)]
    locked = []
    for i in range(runs):
        holder = hold_lock(root, 60)
        try:
            locked.append(timed_commit(root, paths[2 * runs + i], 2 * runs + i))
        finally:
            holder.kill()
            holder.wait()
    subprocess.run(
        [*K0, "worker", "--vault", str(root)],
        cwd=root,
        env={**ENV, "K0MARU_EMBED": "false"},
        check=True,
        capture_output=True,
    )  # what the hooks asked for (embedding is not what is measured)
    from k0maru.index.store import Store

    with Store.open(root) as store:
        indexed = {path: store.document_by_path(path).body for path in store.cached_documents()}
    edited = paths[: 3 * runs]
    caught_up = all(
        f"edit {i}" in indexed[p.relative_to(root).as_posix()] for i, p in enumerate(edited)
    )
    return {
        "commit_no_hooks_ms_median": round(statistics.median(plain), 1),
        "commit_hooks_ms_median": round(statistics.median(hooked), 1),
        "commit_hooks_lock_held_ms_median": round(statistics.median(locked), 1),
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
    run(root, *K0, "scan", "--vault", str(root), "--no-embed")
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
    indexed = json.loads(
        run(
            root,
            *K0,
            "search",
            "--vault",
            str(root),
            "--no-scan",
            "--mode",
            "bm25",
            "--json",
            "--limit",
            "50",
            "body card",
        ).stdout
    )["hits"]
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
    run(root, *K0, "scan", "--vault", str(root), "--no-embed")
    status = json.loads(run(root, *K0, "status", "--vault", str(root), "--json").stdout)
    files = sum(1 for p in root.rglob("*.md") if ".k0maru" not in p.parts)
    return {
        "kills": kills,
        "files": files,
        "documents_after_rescan": status["documents"],
        "documents_lost": files - status["documents"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--notes", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--writers", type=int, default=20)
    ap.add_argument("--kills", type=int, default=4)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = {
            **commit_latency(Path(tmp), args.notes, args.runs),
            **concurrent_writers(Path(tmp), args.writers),
            **killed_scans(Path(tmp), args.kills, args.notes),
        }
    print(json.dumps(out) if args.json else "\n".join(f"{k:>34}: {v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
