"""What a person waits for at the command line on a tldr-like vault (medians of fresh processes,
interleaved):

- `k0maru search --mode bm25` (with its freshness check), the same with `--no-scan`, and an FTS5
  query of the same words in a fresh Python process over a table of the same pages (built once,
  beside the vault);
- a no-change `k0maru scan` against a Python process that walks the tree with `os.scandir` and
  `stat()`;
- with `--code DIR` (repeatable), the same k0maru commands run from another checkout
  (`PYTHONPATH=DIR`) in the same rounds, so a before/after pair shares the machine's load.

Wall time and CPU time (user + system of the process) are both reported; on a loaded machine compare
CPU.

    python scripts/bench_cli.py [--notes 7400] [--vault DIR] [--runs 9] [--code /work/main] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchenv import like_a_users_install  # noqa: E402
from vaultgen import tldr_like  # noqa: E402

like_a_users_install()

QUERY = "extract files from a tar archive"
FLOOR = """import os, sys
def walk(d):
    n = 0
    with os.scandir(d) as it:
        for e in it:
            if e.is_dir(follow_symlinks=False):
                if e.name not in ('.git', '.k0maru'):
                    n += walk(e.path)
            elif e.name.endswith('.md'):
                e.stat(); n += 1
    return n
print(walk(sys.argv[1]))
"""
FTS = """import sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
words = " OR ".join(w for w in sys.argv[2].split() if w.isalnum())
rows = conn.execute("SELECT path FROM pages WHERE pages MATCH ? ORDER BY bm25(pages) LIMIT 10", (words,))
print(len(rows.fetchall()))
"""


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(  # run from /: `-m k0maru` then imports the checkout PYTHONPATH names
        cmd, env=env, cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    assert os.waitstatus_to_exitcode(status) == 0, cmd
    return wall, usage.ru_utime + usage.ru_stime


def fts_table(root: Path) -> Path:
    import sqlite3

    path = root.with_name(root.name + ".fts.sqlite")
    if not path.exists():
        conn = sqlite3.connect(path)
        conn.execute("CREATE VIRTUAL TABLE pages USING fts5(path UNINDEXED, body)")
        conn.executemany(
            "INSERT INTO pages VALUES (?, ?)",
            ((str(p), p.read_text(encoding="utf-8")) for p in sorted(root.rglob("*.md"))),
        )
        conn.commit()
        conn.close()
    return path


def commands(root: Path, codes: list[str]) -> dict[str, tuple[list[str], dict[str, str]]]:
    env = {**os.environ, "K0MARU_EMBED": "false"}
    k0 = [sys.executable, "-m", "k0maru"]
    out = {
        "fts5 query": ([sys.executable, "-c", FTS, str(fts_table(root)), QUERY], env),
        "scandir+stat floor": ([sys.executable, "-c", FLOOR, str(root)], env),
    }
    for code in ["", *codes]:
        run_env = {**env, "PYTHONPATH": code} if code else env
        tag = f" [{code}]" if code else ""
        vault = ["--vault", str(root)]
        out[f"search bm25{tag}"] = ([*k0, "search", *vault, "--mode", "bm25", QUERY], run_env)
        out[f"search bm25 --no-scan{tag}"] = (
            [*k0, "search", *vault, "--no-scan", "--mode", "bm25", QUERY],
            run_env,
        )
        out[f"no-change scan{tag}"] = ([*k0, "scan", *vault, "--no-embed"], run_env)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--notes", type=int, default=7400)
    ap.add_argument("--vault", type=Path, help="a tldr-like vault kept here (made if missing)")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--code", action="append", default=[], help="another checkout to compare")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    root = args.vault or Path(f"/tmp/k0bench-cli-{args.notes}")
    if not any(root.rglob("*.md")):
        tldr_like(root, args.notes)
    subprocess.run(
        [sys.executable, "-m", "k0maru", "scan", "--vault", str(root), "--no-embed"],
        env={**os.environ, "K0MARU_EMBED": "false"},
        check=True,
        capture_output=True,
    )
    runs = commands(root, args.code)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for _ in range(args.runs):  # interleaved: each round runs every command once
        for name, (cmd, env) in runs.items():
            times[name].append(timed(cmd, env))
    result = {
        name: {
            "wall_ms": round(statistics.median(w for w, _ in got) * 1000, 1),
            "cpu_ms": round(statistics.median(c for _, c in got) * 1000, 1),
        }
        for name, got in times.items()
    }
    if args.json:
        print(json.dumps({"notes": args.notes, **result}))
        return
    fts, floor = result["fts5 query"]["cpu_ms"], result["scandir+stat floor"]["cpu_ms"]
    for name, r in result.items():
        base = floor if "scan" in name and "search" not in name else fts
        print(
            f"{name:45} wall {r['wall_ms']:7.1f} ms  CPU {r['cpu_ms']:7.1f} ms  ({r['cpu_ms'] / base:.2f}x)"
        )


if __name__ == "__main__":
    main()
