"""What a person waits for at the command line on a real tree of notes (medians of fresh processes,
interleaved):

- `k0maru search --mode bm25` (with its freshness check), the same with `--no-scan`, and an FTS5
  query of the same words in a fresh Python process over a table of the same pages (built once,
  beside the vault);
- a no-change `k0maru scan` against its floor (#62): a Python process that imports argparse, sqlite3
  and json, walks the tree with `os.scandir` and `stat()`s every note;
- with `--code DIR` (repeatable), the same k0maru commands run from another checkout
  (`PYTHONPATH=DIR`) in the same rounds, so a before/after pair shares the machine's load;
- with `--after-edit`, on a copy of the vault: the first search after editing 1% of the notes in
  place (appending a line, so no folder's mtime moves), over `--edit-rounds` rounds, each checkout
  in turn, against a warm one (five, nothing changed since the one before); each command starts
  once the background worker the one before asked for has finished.

The vault is a real tree, never copies of a few pages: the tldr pages, 7,400 English ones under
`pages/` and ~38,000 with every language's `pages.*/` (`git --git-dir=TLDR.git archive HEAD pages |
tar -x -C DIR`). Wall time and CPU time (user + system of the process) are both reported; on a
loaded machine compare CPU.

    python scripts/bench.py cli --vault DIR [--runs 9] [--code /tmp/base] [--after-edit]
        [--edit-rounds 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from functools import partial
from pathlib import Path

from bench import FLOOR, Sample, interleave, k0, like_a_users_install, medians, wait_for_worker
from bench import timed as bench_timed

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


def after_edit(root: Path, codes: list[str], rounds: int) -> dict[str, dict[str, float]]:
    """CPU and wall ms of a warm search and of the first one after editing 1% of the notes in
    place, for each checkout (`""`: this one), each on its own copy of the vault with the same
    edits: one checkout's background worker never prepares another's first search."""
    import random
    import shutil
    import tempfile

    env = {**os.environ, "K0MARU_EMBED": "false"}
    got: dict[str, dict[str, list[Sample]]] = {code: {"warm": [], "first": []} for code in codes}
    with tempfile.TemporaryDirectory() as tmp:
        copies = {code: Path(tmp) / f"vault{i}" for i, code in enumerate(codes)}

        def waited(code: str, words: list[str]) -> Sample:
            copy = copies[code]
            argv = [sys.executable, "-m", "k0maru", *words[:1], "--vault", str(copy), *words[1:]]
            got = timed(argv, {**env, "PYTHONPATH": code} if code else env)
            wait_for_worker(copy)
            return got

        search = ["search", "--mode", "bm25", QUERY]
        for code, copy in copies.items():  # each checkout's first runs: its index, its caches
            shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".k0maru"))
            waited(code, ["scan", "--no-embed"])
            waited(code, search)
        for _ in range(5):  # warm: nothing changed since the last search
            for code in codes:
                got[code]["warm"].append(waited(code, search))
        notes = sorted(p.relative_to(root) for p in root.rglob("*.md"))
        rng = random.Random(3)
        for n in range(rounds):
            edited = rng.sample(notes, max(1, len(notes) // 100))
            for code in codes:
                for rel in edited:
                    with (copies[code] / rel).open("a", encoding="utf-8") as fh:
                        fh.write(f"\nedited in round {n}\n")
                got[code]["first"].append(waited(code, search))
    out = {}
    for code, samples in got.items():
        warm, first = (
            medians(samples["warm"], "wall", "cpu"),
            medians(samples["first"], "wall", "cpu"),
        )
        out[code or "this checkout"] = {
            "warm_cpu_ms": warm["cpu_ms_median"],
            "first_after_edit_cpu_ms": first["cpu_ms_median"],
            "ratio": round(first["cpu_ms_median"] / warm["cpu_ms_median"], 2),
            "warm_wall_ms": warm["ms_median"],
            "first_after_edit_wall_ms": first["ms_median"],
        }
    return out


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--vault", type=Path, required=True, help="a real tree of notes (see above)")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--code", action="append", default=[], help="another checkout to compare")
    ap.add_argument("--after-edit", action="store_true", help="also the first search after an edit")
    ap.add_argument("--edit-rounds", type=int, default=3, help="rounds of --after-edit")


def run(args: argparse.Namespace) -> None:
    like_a_users_install()
    root = args.vault
    notes = sum(1 for _ in root.rglob("*.md"))
    if not notes:
        raise SystemExit(f"no notes under {root}: --vault takes a real tree of notes")
    k0("scan", "--vault", str(root), "--no-embed", env={**os.environ, "K0MARU_EMBED": "false"})
    runs = commands(root, args.code)
    got = interleave(args.runs, {k: partial(timed, c, e) for k, (c, e) in runs.items()})
    result = {
        name: {"wall_ms": m["ms_median"], "cpu_ms": m["cpu_ms_median"]}
        for name, m in ((n, medians(s, "wall", "cpu")) for n, s in got.items())
    }
    edit = after_edit(root, ["", *args.code], args.edit_rounds) if args.after_edit else None
    load = [round(x, 1) for x in os.getloadavg()]
    if args.json:
        print(
            json.dumps(
                {"notes": notes, "load": load, **result, **({"after_edit": edit} if edit else {})}
            )
        )
        return
    print(f"{notes} notes; load average {load} (CPU counts; wall waits on the load)")
    fts, floor = result["fts5 query"], result["scandir+stat floor"]
    for name, r in result.items():
        base = floor if "scan" in name and "search" not in name else fts
        print(
            f"{name:45} wall {r['wall_ms']:7.1f} ms ({r['wall_ms'] / base['wall_ms']:.2f}x)"
            f"  CPU {r['cpu_ms']:7.1f} ms ({r['cpu_ms'] / base['cpu_ms']:.2f}x)"
        )
    for code, e in (edit or {}).items():
        print(
            f"{'first search after a 1% edit [' + code + ']':45} CPU"
            f" {e['first_after_edit_cpu_ms']:7.1f} ms against a warm {e['warm_cpu_ms']:.1f} ms"
            f" ({e['ratio']:.2f}x); wall {e['first_after_edit_wall_ms']:.1f} / {e['warm_wall_ms']:.1f} ms"
        )
