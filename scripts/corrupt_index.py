"""The corruption table (#45, #61): kinds of damage done to a real index (and its offload
sidecars), each followed by `k0maru status` (detected: exits non-zero naming the damage, or repairs
it), `search` in each mode (traceback?), `log list`, then `scan --rebuild` (recovered: every note
indexed, every offload record listed; lost: offload records missing).

    python scripts/corrupt_index.py [--notes 30] [--json]"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from k0maru.index import db

INDEX = Path(".k0maru/index.sqlite")
OFFLOADS = 3
ENV = {**os.environ, "K0MARU_EMBED": "false"}  # after the damage: no model needed to judge
MODES = ("bm25", "hybrid", "vector")
GARBAGE = b"\x00\xffnot json"
Run = subprocess.CompletedProcess[str]


def k0(vault: Path, *args: str, env: dict[str, str] = ENV) -> Run:
    at = args.index("--") if "--" in args else len(args)
    argv = [sys.executable, "-m", "k0maru", *args[:at], "--vault", str(vault), *args[at:]]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)


def note(path: Path, i: int, notes: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\ntags: [t{i % 3}]\n---\n# Note {i}\n\nLease renewal {i} links [[Note {(i + 1) % notes}]].\n"
        f"\n## Retries\n\nRetry backoff {i}.\n",
        encoding="utf-8",
    )


def template(root: Path, notes: int) -> Path:
    vault = root / "template"
    (vault / "notes").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(vault)], check=True)
    for i in range(notes):
        if i == notes - 1:  # with vectors; the last note is a kept BM25 delta's
            assert k0(vault, "scan", env=dict(os.environ)).returncode == 0
        note(vault / "notes" / f"n{i}.md", i, notes)
    assert k0(vault, "search", "lease", "--mode", "bm25").returncode == 0
    other = root / "other"  # another vault, whose index is copied in
    note(other / "x.md", 0, 1)
    assert k0(other, "scan").returncode == 0
    for n in range(OFFLOADS):
        script = f"for i in $(seq 80); do echo l $i; done; echo 'x.py:{n}: error: boom {n}'; exit 1"
        k0(vault, "offload", "--", "sh", "-c", script)
    conn = db.connect(vault / INDEX)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return vault


def sql(*statements: str) -> Callable[[Path], object]:
    def damage(vault: Path) -> None:
        conn = db.connect(vault / INDEX)
        for s in statements:
            conn.execute(s)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()

    return damage


def edit(change: Callable[[bytearray], object]) -> Callable[[Path], object]:
    """Damage the index file's bytes in place with `change`."""

    def damage(vault: Path) -> None:
        data = bytearray((vault / INDEX).read_bytes())
        change(data)
        (vault / INDEX).write_bytes(bytes(data))

    return damage


def flip(count: int, start: int = 4096, end: int | None = None) -> Callable[[Path], object]:
    def change(data: bytearray) -> None:
        rng = random.Random(count)
        for i in [rng.randrange(start, end or len(data)) for _ in range(count)]:
            data[i] ^= 0xFF

    return edit(change)


def zero_page(data: bytearray) -> None:
    middle = (len(data) // 2) // 4096 * 4096
    data[middle : middle + 4096] = bytes(4096)


def write_file(rel: str, data: bytes | None) -> Callable[[Path], object]:
    return lambda vault: (vault / rel).unlink() if data is None else (vault / rel).write_bytes(data)


def index_is_a_folder(vault: Path) -> None:
    (vault / INDEX).unlink()
    (vault / INDEX).mkdir()


def first_sidecar(vault: Path) -> Path:
    return sorted((vault / ".k0maru/refs").glob("*.json"))[0]


def killed_rebuild(vault: Path) -> None:
    """What `scan --rebuild` killed during its scan leaves: a new index holding a few notes."""
    from k0maru.wiring.vault import Vault

    with Vault.open(vault, embed=False) as v:
        v.rebuild()
        v.mark_rebuilding()
        v.index(only=[f"notes/n{i}.md" for i in range(3)], embed=False)


CASES: dict[str, Callable[[Path], object]] = {
    "100 flipped bytes": flip(100),
    "1000 flipped bytes": flip(1000),
    "flipped header bytes": flip(20, 0, 100),
    "a zeroed page": edit(zero_page),
    "truncated to half": edit(lambda d: d.__delitem__(slice(len(d) // 2, None))),
    "truncated to 0 bytes": edit(bytearray.clear),
    "random bytes": write_file(str(INDEX), random.Random(1).randbytes(200_000)),
    "index deleted": write_file(str(INDEX), None),
    "index is a folder": index_is_a_folder,
    "garbage WAL": write_file(f"{INDEX}-wal", b"\x37\x7f\x06\x82" + bytes(5000)),
    "BM25 segment garbage": sql("UPDATE bm25_index SET blob = randomblob(3000)"),
    "BM25 segment flipped": sql(
        "UPDATE bm25_index SET blob = substr(blob, 1, 400) || randomblob(60) || substr(blob, 461)"
    ),
    "vector blob short": sql("UPDATE vec_chunks_vector_chunks00 SET vectors = zeroblob(100)"),
    "offload JSON broken": sql("UPDATE offloads SET failures = '{not json'"),
    "offload text not UTF-8": sql("UPDATE offloads SET command = CAST(x'ff41fe' AS TEXT)"),
    "chunk text not UTF-8": sql("UPDATE chunks SET text = CAST(x'c328' AS TEXT) WHERE id = 3"),
    "frontmatter JSON broken": sql("UPDATE documents SET frontmatter = '{' WHERE id = 2"),
    "links table dropped": sql("DROP TABLE links"),
    "offload rows deleted": sql("DELETE FROM offloads"),
    "schema from the future": sql("INSERT INTO schema_version VALUES (99, 0)"),
    "garbage sidecar": lambda v: first_sidecar(v).write_bytes(GARBAGE),
    "truncated sidecar": lambda v: first_sidecar(v).write_bytes(first_sidecar(v).read_bytes()[:40]),
    "garbage sidecar + flipped index": lambda v: (
        flip(100)(v),
        first_sidecar(v).write_bytes(GARBAGE),
    ),
    "killed rebuild": killed_rebuild,
    "index of another vault": lambda v: (v / INDEX).write_bytes(
        (v.parent / "other" / INDEX).read_bytes()
    ),
    "BM25 term rows deleted": sql("DELETE FROM bm25_terms WHERE rowid % 2 = 0"),
    "BM25 delta flipped": sql(
        "UPDATE bm25_delta SET blob = substr(blob, 1, 60) || randomblob(40) || substr(blob, 101)"
    ),
    "vector rows deleted": sql("DELETE FROM vec_chunks WHERE rowid % 2 = 0"),
    "vectors NaN": sql(f"UPDATE vec_chunks SET embedding = x'{'0000c07f' * 384}' WHERE rowid = 2"),
    "vectors garbage": sql("UPDATE vec_chunks SET embedding = randomblob(1536)"),
    "a document row deleted": sql(
        "PRAGMA foreign_keys = OFF", "DELETE FROM documents WHERE id = 2"
    ),
}


HARMLESS = {"garbage WAL"}


def last_line(text: str) -> str:
    lines = [x for x in text.splitlines() if x.strip() and not x.startswith("k0maru: vault")]
    return lines[-1][:150] if lines else ""


def try_case(
    base: Path, name: str, damage: Callable[[Path], object], notes: int
) -> dict[str, object]:
    vault = base / name.replace(" ", "_").replace("/", "_")
    shutil.copytree(base / "template", vault)
    damage(vault)
    status = k0(vault, "status")
    runs = [k0(vault, "search", "lease", "--mode", m, env=dict(os.environ)) for m in MODES]
    runs += [status, k0(vault, "log", "list"), k0(vault, "doctor", "--fix")]
    fixed = whole(k0(vault, "status", "--json"), k0(vault, "log", "list", "--json"), notes)
    rebuild = k0(vault, "scan", "--rebuild")
    after = k0(vault, "status", "--json")
    listed = k0(vault, "log", "list", "--json")
    line = last_line(status.stderr)
    doctor = "rebuilt" if "moved" in runs[-1].stdout else "in place"
    doctor = doctor if fixed == OFFLOADS else ""  # after `doctor --fix`: in place or rebuilt
    restored_on_read = name == "offload rows deleted" and status.returncode == 0
    # SQLite discards a WAL whose checksums fail: nothing is read wrong, nothing is lost
    harmless = name in HARMLESS and status.returncode == 0 and runs[0].returncode == 0
    return {
        "damage": name,
        "detected": status.returncode != 0 or restored_on_read or harmless,
        "line": line
        if status.returncode
        else ("restored on read" if restored_on_read else "harmless" if harmless else ""),
        "tracebacks": sum("Traceback" in r.stderr for r in runs),
        "doctor": doctor,  # fixed by it: the rebuild finds the index healthy
        "rebuild called it healthy": "healthy" in rebuild.stderr
        and "corrupt" in line
        and not doctor,
        "recovered": whole(after, listed, notes) == OFFLOADS,
        "lost": OFFLOADS - whole(after, listed, notes, any_count=True),
        "after": "" if after.returncode == 0 else last_line(after.stderr),
    }


def whole(status: Run, listed: Run, notes: int, any_count: bool = False) -> int:
    """Offload records listed when status is clean with every note indexed (any_count: always)."""
    info = json.loads(status.stdout) if status.returncode in (0, 1) and status.stdout else {}
    records = len(json.loads(listed.stdout)) if listed.returncode == 0 and listed.stdout else 0
    sound = info.get("documents") == notes and status.returncode == 0
    return records if sound or any_count else -1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        template(Path(tmp), args.notes)
        rows = [try_case(Path(tmp), n, damage, args.notes) for n, damage in CASES.items()]
    for r in rows if not args.json else []:
        print(
            f"{r['damage']:<30} detected={'yes' if r['detected'] else 'NO ':<3} "
            f"tracebacks={r['tracebacks']} doctor --fix={r['doctor'] or 'NO':<8} "
            f"recovered={'yes' if r['recovered'] else 'NO ':<3} lost={r['lost']}  "
            f"{'REBUILD SAID HEALTHY ' if r['rebuild called it healthy'] else ''}| {r['line']}"
            + (f" | after: {r['after']}" if r["after"] else "")
        )
    print(json.dumps(rows, indent=1) if args.json else "", end="")
    count = {k: sum(1 for r in rows if r[k]) for k in ("detected", "doctor", "recovered")}
    in_place = sum(1 for r in rows if r["doctor"] == "in place")
    tracebacks = sum(1 for r in rows if r["tracebacks"])
    lost = sum(int(r["lost"]) for r in rows)  # type: ignore[call-overload]
    print(
        f"{len(rows)} kinds of damage: {count['detected']} detected, {tracebacks} with a "
        f"traceback, {count['doctor']} fixed by `doctor --fix` ({in_place} in place), "
        f"{count['recovered']} recovered by `scan --rebuild`, "
        f"{lost} offload record(s) lost"
    )
    return 1 if len(rows) > min(count.values()) or lost or tracebacks else 0


if __name__ == "__main__":
    sys.exit(main())
