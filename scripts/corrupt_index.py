"""The corruption table (#45): kinds of damage done to a real index (and its offload sidecars), each
followed by what a user runs: `k0maru status` (is it detected, with which line), `search`, `log
list`, then `k0maru scan --rebuild` (are the notes and every offload record back).

    python scripts/corrupt_index.py [--notes 30] [--json]

Columns: detected (status exits non-zero with a line naming the damage and what to run), the line,
recovered (after the rebuild: every note indexed, every offload record listed), lost (offload
records missing after the rebuild)."""

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


def k0(
    vault: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    at = args.index("--") if "--" in args else len(args)
    return subprocess.run(
        [sys.executable, "-m", "k0maru", *args[:at], "--vault", str(vault), *args[at:]],
        capture_output=True,
        text=True,
        env=env or ENV,
        timeout=300,
    )


def template(root: Path, notes: int) -> Path:
    vault = root / "template"
    (vault / "notes").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(vault)], check=True)
    for i in range(notes):
        (vault / "notes" / f"n{i}.md").write_text(
            f"---\ntags: [t{i % 3}]\n---\n# Note {i}\n\nLease renewal {i} links [[Note {(i + 1) % notes}]].\n"
            f"\n## Retries\n\nRetry backoff {i}.\n",
            encoding="utf-8",
        )
    assert k0(vault, "scan", env=dict(os.environ)).returncode == 0  # with vectors
    for n in range(OFFLOADS):
        script = (
            f"for i in $(seq 80); do echo line $i; done; echo 'x.py:{n}: error: boom {n}'; exit 1"
        )
        k0(vault, "offload", "--", "sh", "-c", script)
    conn = db.connect(vault / INDEX)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return vault


def sql(*statements: str) -> Callable[[Path], None]:
    def damage(vault: Path) -> None:
        conn = db.connect(vault / INDEX)
        for s in statements:
            conn.execute(s)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()

    return damage


def flip(count: int, start: int = 4096, end: int | None = None) -> Callable[[Path], None]:
    def damage(vault: Path) -> None:
        path = vault / INDEX
        data = bytearray(path.read_bytes())
        rng = random.Random(count)
        for _ in range(count):
            i = rng.randrange(start, end or len(data))
            data[i] ^= 0xFF
        path.write_bytes(bytes(data))

    return damage


def write_file(rel: str, data: bytes | None) -> Callable[[Path], None]:
    def damage(vault: Path) -> None:
        path = vault / rel
        if data is None:
            path.unlink()
        else:
            path.write_bytes(data)

    return damage


def truncate(fraction: float) -> Callable[[Path], None]:
    def damage(vault: Path) -> None:
        path = vault / INDEX
        os.truncate(path, int(path.stat().st_size * fraction))

    return damage


def zero_page(vault: Path) -> None:
    path = vault / INDEX
    data = bytearray(path.read_bytes())
    middle = (len(data) // 2) // 4096 * 4096
    data[middle : middle + 4096] = bytes(4096)
    path.write_bytes(bytes(data))


def index_is_a_folder(vault: Path) -> None:
    (vault / INDEX).unlink()
    (vault / INDEX).mkdir()


def first_sidecar(vault: Path) -> Path:
    return sorted((vault / ".k0maru/refs").glob("*.json"))[0]


def garbage_sidecar(vault: Path) -> None:
    first_sidecar(vault).write_bytes(b"\x00\xffnot json")


def truncated_sidecar(vault: Path) -> None:
    path = first_sidecar(vault)
    path.write_bytes(path.read_bytes()[:40])


def garbage_sidecar_and_index(vault: Path) -> None:
    garbage_sidecar(vault)
    flip(100)(vault)


def killed_rebuild(vault: Path) -> None:
    """What `scan --rebuild` killed during its scan leaves: a new index holding a few notes."""
    from k0maru.wiring.vault import Vault

    with Vault.open(vault, embed=False) as v:
        v.rebuild()
        v.mark_rebuilding()
        v.index(only=[f"notes/n{i}.md" for i in range(3)], embed=False)


CASES: dict[str, Callable[[Path], None]] = {
    "100 flipped bytes": flip(100),
    "1000 flipped bytes": flip(1000),
    "flipped header bytes": flip(20, 0, 100),
    "a zeroed page": zero_page,
    "truncated to half": truncate(0.5),
    "truncated to 0 bytes": truncate(0),
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
    "garbage sidecar": garbage_sidecar,
    "truncated sidecar": truncated_sidecar,
    "garbage sidecar + flipped index": garbage_sidecar_and_index,
    "killed rebuild": killed_rebuild,
}


HARMLESS = {"garbage WAL"}


def last_line(text: str) -> str:
    lines = [
        x for x in text.strip().splitlines() if x.strip() and not x.startswith("k0maru: vault")
    ]
    return lines[-1][:150] if lines else ""


def try_case(
    base: Path, name: str, damage: Callable[[Path], None], notes: int
) -> dict[str, object]:
    vault = base / name.replace(" ", "_").replace("/", "_")
    shutil.copytree(base / "template", vault)
    damage(vault)
    status = k0(vault, "status")
    search = k0(vault, "search", "lease", "--mode", "bm25")
    logs = k0(vault, "log", "list")
    rebuild = k0(vault, "scan", "--rebuild")
    after = k0(vault, "status", "--json")
    listed = k0(vault, "log", "list", "--json")
    info = json.loads(after.stdout) if after.returncode in (0, 1) and after.stdout else {}
    records = len(json.loads(listed.stdout)) if listed.returncode == 0 and listed.stdout else 0
    line = last_line(status.stderr)
    restored_on_read = name == "offload rows deleted" and status.returncode == 0
    # SQLite discards a WAL whose checksums fail: nothing is read wrong, nothing is lost
    harmless = name in HARMLESS and status.returncode == 0 and search.returncode == 0
    return {
        "damage": name,
        "detected": status.returncode != 0 or restored_on_read or harmless,
        "line": line
        if status.returncode
        else ("restored on read" if restored_on_read else "harmless" if harmless else ""),
        "search": "ok" if search.returncode == 0 else last_line(search.stderr),
        "log list": "ok" if logs.returncode == 0 else last_line(logs.stderr),
        "rebuild called it healthy": "healthy" in rebuild.stderr and "corrupt" in line,
        "recovered": info.get("documents") == notes
        and records == OFFLOADS
        and after.returncode == 0,
        "lost": OFFLOADS - records,
        "after": "" if after.returncode == 0 else last_line(after.stderr),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        template(base, args.notes)
        rows = [try_case(base, name, damage, args.notes) for name, damage in CASES.items()]
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for r in rows:
            print(
                f"{r['damage']:<32} detected={'yes' if r['detected'] else 'NO ':<3} "
                f"recovered={'yes' if r['recovered'] else 'NO ':<3} lost={r['lost']}  "
                f"{'REBUILD SAID HEALTHY ' if r['rebuild called it healthy'] else ''}| {r['line']}"
                + (f" | after: {r['after']}" if r["after"] else "")
            )
    undetected = sum(1 for r in rows if not r["detected"])
    lost = sum(int(r["lost"]) for r in rows)  # type: ignore[call-overload]
    unrecovered = sum(1 for r in rows if not r["recovered"])
    print(
        f"{len(rows)} kinds of damage: {len(rows) - undetected} detected, {undetected} undetected, "
        f"{len(rows) - unrecovered} recovered, {lost} offload record(s) lost"
    )
    return 1 if undetected or lost or unrecovered else 0


if __name__ == "__main__":
    sys.exit(main())
