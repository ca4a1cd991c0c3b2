"""What a person waits for at the command line on a tldr-like vault (medians of fresh processes,
interleaved):

- `k0maru search --mode bm25` (with its freshness check), the same with `--no-scan`, and an FTS5
  query of the same words in a fresh Python process over a table of the same pages (built once,
  beside the vault);
- a no-change `k0maru scan` against a Python process that walks the tree with `os.scandir` and
  `stat()`;
- with `--code DIR` (repeatable), the same k0maru commands run from another checkout
  (`PYTHONPATH=DIR`) in the same rounds, so a before/after pair shares the machine's load;
- with `--after-edit`, on a copy of the vault: the first search after editing 1% of the notes in
  place (appending a line, so no folder's mtime moves) against a warm one, over three rounds, each
  command started once the background worker the one before asked for has finished.

Wall time and CPU time (user + system of the process) are both reported; on a loaded machine compare
CPU.

    python scripts/bench.py cli [--notes 7400] [--vault DIR] [--runs 9] [--code /work/main]
        [--after-edit] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from functools import partial
from pathlib import Path

from bench import FLOOR, Sample, interleave, k0, like_a_users_install, medians, wait_for_worker
from bench import timed as bench_timed
from vaultgen import tldr_like

QUERY = "extract files from a tar archive"
FTS = """import sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
words = " OR ".join(w for w in sys.argv[2].split() if w.isalnum())
rows = conn.execute("SELECT path FROM pages WHERE pages MATCH ? ORDER BY bm25(pages) LIMIT 10", (words,))
print(len(rows.fetchall()))
"""


def timed(cmd: list[str], env: dict[str, str]) -> Sample:
    """One process, run from /: `-m k0maru` then imports the checkout PYTHONPATH names."""
    return bench_timed(cmd, "/", env)


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


def after_edit(root: Path, rounds: int = 3) -> dict[str, float]:
    """CPU ms of a warm search and of the first one after editing 1% of the notes in place, on a
    copy of the vault."""
    import random
    import shutil
    import tempfile

    env = {**os.environ, "K0MARU_EMBED": "false"}
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "vault"
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".k0maru"))
        search = [sys.executable, "-m", "k0maru", "search", "--vault", str(copy), "--mode", "bm25"]
        timed([sys.executable, "-m", "k0maru", "scan", "--vault", str(copy), "--no-embed"], env)
        wait_for_worker(copy)
        timed([*search, QUERY], env)
        wait_for_worker(copy)
        warm = []
        for _ in range(5):
            warm.append(timed([*search, QUERY], env).cpu)
            wait_for_worker(copy)
        notes, rng, first = sorted(copy.rglob("*.md")), random.Random(3), []
        for n in range(rounds):
            for note in rng.sample(notes, max(1, len(notes) // 100)):
                with note.open("a", encoding="utf-8") as fh:
                    fh.write(f"\nedited in round {n}\n")
            first.append(timed([*search, QUERY], env).cpu)
            wait_for_worker(copy)
    w, f = statistics.median(warm) * 1000, statistics.median(first) * 1000
    return {
        "warm_cpu_ms": round(w, 1),
        "first_after_edit_cpu_ms": round(f, 1),
        "ratio": round(f / w, 2),
    }


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--notes", type=int, default=7400)
    ap.add_argument("--vault", type=Path, help="a tldr-like vault kept here (made if missing)")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--code", action="append", default=[], help="another checkout to compare")
    ap.add_argument("--after-edit", action="store_true", help="also the first search after an edit")


def run(args: argparse.Namespace) -> None:
    like_a_users_install()
    root = args.vault or Path(f"/tmp/k0bench-cli-{args.notes}")
    if not any(root.rglob("*.md")):
        tldr_like(root, args.notes)
    k0("scan", "--vault", str(root), "--no-embed", env={**os.environ, "K0MARU_EMBED": "false"})
    runs = commands(root, args.code)
    got = interleave(args.runs, {k: partial(timed, c, e) for k, (c, e) in runs.items()})
    result = {
        name: {"wall_ms": m["ms_median"], "cpu_ms": m["cpu_ms_median"]}
        for name, m in ((n, medians(s, "wall", "cpu")) for n, s in got.items())
    }
    edit = after_edit(root) if args.after_edit else None
    if args.json:
        print(json.dumps({"notes": args.notes, **result, **({"after_edit": edit} if edit else {})}))
        return
    fts, floor = result["fts5 query"]["cpu_ms"], result["scandir+stat floor"]["cpu_ms"]
    for name, r in result.items():
        base = floor if "scan" in name and "search" not in name else fts
        print(
            f"{name:45} wall {r['wall_ms']:7.1f} ms  CPU {r['cpu_ms']:7.1f} ms  ({r['cpu_ms'] / base:.2f}x)"
        )
    if edit:
        print(
            f"{'first search after a 1% edit':45} CPU {edit['first_after_edit_cpu_ms']:7.1f} ms"
            f" against a warm {edit['warm_cpu_ms']:.1f} ms ({edit['ratio']:.2f}x)"
        )
