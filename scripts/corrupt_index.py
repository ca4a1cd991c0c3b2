"""The corruption table (#45, #61): kinds of damage done to a real index (and its offload
sidecars), each followed by `k0maru status` and `k0maru doctor` (detected: either exits non-zero
naming the damage, or status repairs it), `search` in each mode (traceback?), `log list`, `doctor
--fix`, then `scan --rebuild` (recovered: every note
indexed, every offload record listed; lost: offload records missing). Damage to the per-user caches
(a private `XDG_CACHE_HOME`, copied for each such kind) is detected when the damaged file is not
used: the vector search and the token count answer as before the damage.

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
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from k0maru.index import db

INDEX = Path(".k0maru/index.sqlite")
OFFLOADS = 3
ENV = {**os.environ, "K0MARU_EMBED": "false"}  # after the damage: no model needed to judge
MODES = ("bm25", "hybrid", "vector")
GARBAGE = b"\x00\xffnot json"
CACHE: dict[str, str] = {}  # the private per-user cache folder every run uses (main sets it)
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
            shutil.copy(vault / INDEX, root / "older.sqlite")  # this index before that note
        note(vault / "notes" / f"n{i}.md", i, notes)
    assert k0(vault, "search", "lease", "--mode", "bm25").returncode == 0
    other = root / "other"  # another vault, whose index is copied in
    note(other / "x.md", 0, 1)
    assert k0(other, "scan").returncode == 0
    for n in range(OFFLOADS):
        script = f"for i in $(seq 80); do echo l $i; done; echo 'x.py:{n}: error: boom {n}'; exit 1"
        k0(vault, "offload", "--", "sh", "-c", script)
    for _ in range(2):  # the first asks the worker for the last note's vectors: answers after it
        idle(vault)
        for name, args in ANSWERS.items():
            (root / name).write_text(answer(vault, args, dict(os.environ)), "utf-8")
    idle(vault)
    conn = db.connect(vault / INDEX)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with held_open(other):  # another index's log, holding a scan's frames
        note(other / "y.md", 1, 1)
        assert k0(other, "scan").returncode == 0
        (root / "other.wal").write_bytes((other / f"{INDEX}-wal").read_bytes())
    with held_open(vault) as conn:  # this index's own log, holding a write's frames
        conn.execute("INSERT INTO meta VALUES ('wal-probe', '1')")
        (root / "own.wal").write_bytes((vault / f"{INDEX}-wal").read_bytes())
    conn = db.connect(root / "older.sqlite")  # an older copy's log, with its shared memory
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("INSERT INTO meta VALUES ('wal-probe', '1')")
    for suffix in ("-wal", "-shm"):
        shutil.copy(root / f"older.sqlite{suffix}", root / f"older{suffix}")
    conn.close()
    return vault


def idle(vault: Path) -> None:
    """Until the vault's background worker (started by a command that left chunks without a
    vector) has exited: a copy of the vault is then whole."""
    from k0maru.service import worker

    deadline = time.monotonic() + 300
    while worker.running(vault) and time.monotonic() < deadline:
        time.sleep(0.2)


@contextmanager
def held_open(vault: Path) -> Iterator[Any]:
    """A connection held open (its log never merged meanwhile): a process closing the index
    beside it is not the last, so the log it wrote stays."""
    conn = db.connect(vault / INDEX)
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    try:
        yield conn
    finally:
        conn.close()


ANSWERS = {  # what the caches serve, answered before any damage
    "vector.answer": ("search", "lease renewal", "--mode", "vector", "--json"),
    "tokens.answer": ("-c", "from k0maru import llm_tokens; print(llm_tokens.count_tokens(TEXT))"),
}
# counted by the o200k ranks the token counter keeps per user: ASCII and a few other scripts
TEXT = "Lease renewal: naïve café, Grüße, 東京, ретрай\n" * 40


def answer(vault: Path, args: tuple[str, ...], env: dict[str, str]) -> str:
    """What the command answers (a k0maru command, or Python's `-c`), its vault's path left out."""
    if args[0] == "-c":
        code = args[1].replace("TEXT", repr(TEXT))
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        return run.stdout
    return k0(vault, *args, env=env).stdout.replace(str(vault), "VAULT")


def wal(source: str, salt: bool = False) -> Callable[[Path], object]:
    """Put a captured log (`other.wal`, `own.wal`) beside the index; `salt`: its salt changed."""

    def damage(vault: Path) -> None:
        data = bytearray((vault.parent / source).read_bytes())
        if salt:
            data[16:24] = bytes(b ^ 0xFF for b in data[16:24])
        (vault / f"{INDEX}-wal").write_bytes(bytes(data))

    return damage


def cache(kind: str, change: Callable[[bytearray], object]) -> Callable[[Path], object]:
    """Damage each file of the cache `kind` ("models/*/model.onnx.data", "tokens/*.marshal") in
    a copy of the private cache folder the case's commands use."""

    def damage(vault: Path) -> None:
        copy = xdg(vault)
        shutil.copytree(Path(os.environ["XDG_CACHE_HOME"]), copy)
        for path in (copy / "k0maru").glob(kind):
            data = bytearray(path.read_bytes())
            change(data)
            path.write_bytes(bytes(data))

    return damage


def xdg(vault: Path) -> Path:
    return vault.with_name(vault.name + ".xdg")


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
    """What `scan --rebuild` killed during its build leaves: beside the old index, untouched, a new
    one holding a few notes."""
    from k0maru.wiring.vault import Vault

    settings = Vault.open(vault, embed=False).settings
    with Vault(vault, settings, index=vault / f"{INDEX}.new") as v:
        v.index(only=[f"notes/n{i}.md" for i in range(3)], embed=False)


def swap_vectors(vault: Path) -> None:
    """Each chunk gets the next chunk's vector (valid, unit length, another chunk's)."""
    conn = db.connect(vault / INDEX)
    rows = conn.execute("SELECT rowid, embedding FROM vec_chunks ORDER BY rowid").fetchall()
    for (rowid, _), (_, vector) in zip(rows, rows[1:] + rows[:1], strict=True):
        conn.execute("UPDATE vec_chunks SET embedding = ? WHERE rowid = ?", (vector, rowid))
    conn.close()


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
    "one offload row deleted": sql(
        "DELETE FROM offloads WHERE rowid = (SELECT min(rowid) FROM offloads)"
    ),
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
    "WAL of another index": wal("other.wal"),
    "WAL with another salt": wal("own.wal", salt=True),
    "WAL and -shm of an older copy": lambda v: [
        shutil.copy(v.parent / f"older{x}", v / f"{INDEX}{x}") for x in ("-wal", "-shm")
    ],
    "model copy garbage": cache(
        "models/*/model.onnx.data",
        lambda d: d.__setitem__(slice(None), random.Random(2).randbytes(len(d))),
    ),
    "model copy truncated": cache(
        "models/*/model.onnx.data", lambda d: d.__delitem__(slice(len(d) // 2, None))
    ),
    "rank cache bit flipped": cache("tokens/*.marshal", lambda d: d.__setitem__(len(d) // 3, 0)),
    # found by `doctor` alone (it reads the notes and embeds a sample again; `status` stays cheap)
    "tag rows deleted": sql("DELETE FROM tags"),
    "link rows deleted": sql("DELETE FROM links"),
    "a note's last chunk deleted": sql(
        "DELETE FROM chunks WHERE id = (SELECT max(id) FROM chunks WHERE doc_id = 2)"
    ),
    "vectors swapped between chunks": swap_vectors,
    "half the vector rowid rows deleted": sql("DELETE FROM vec_chunks_rowids WHERE rowid % 2 = 0"),
}


HARMLESS = {"garbage WAL", "killed rebuild"}  # a killed rebuild leaves the old index whole


def last_line(text: str) -> str:
    lines = [x for x in text.splitlines() if x.strip() and not x.startswith("k0maru: vault")]
    return lines[-1][:150] if lines else ""


def try_case(
    base: Path, name: str, damage: Callable[[Path], object], notes: int
) -> dict[str, object]:
    vault = base / name.replace(" ", "_").replace("/", "_")
    shutil.copytree(base / "template", vault)
    damage(vault)
    private = {"XDG_CACHE_HOME": str(xdg(vault))} if xdg(vault).exists() else {}
    ENV.update(private)
    status = k0(vault, "status")
    embed = {**os.environ, **private}
    runs = [k0(vault, "search", "lease", "--mode", m, env=embed) for m in MODES]
    answered = all(
        answer(vault, args, embed) == (base / name).read_text(encoding="utf-8")
        for name, args in ANSWERS.items()
    )
    check = k0(vault, "doctor", env=embed)  # the notes read back, a sample of vectors made again
    runs += [status, check, k0(vault, "log", "list"), k0(vault, "doctor", "--fix")]
    fixed = whole(k0(vault, "status", "--json"), k0(vault, "log", "list", "--json"), notes)
    rebuild = k0(vault, "scan", "--rebuild")
    after = k0(vault, "status", "--json")
    listed = k0(vault, "log", "list", "--json")
    said = (status if status.returncode else check).stderr.splitlines()  # not doctor's advice
    line = last_line("\n".join(x for x in said if "--fix` to repair it" not in x))
    doctor = "rebuilt" if "moved" in runs[-1].stdout else "in place"
    doctor = doctor if fixed == OFFLOADS else ""  # after `doctor --fix`: in place or rebuilt
    # SQLite discards a WAL whose checksums fail: nothing is read wrong, nothing is lost
    harmless = name in HARMLESS and status.returncode == 0 and runs[0].returncode == 0
    # a damaged cache file is never used: the answers it serves are those made before the damage
    unused = bool(private) and answered and all(r.returncode == 0 for r in runs)
    ENV.pop("XDG_CACHE_HOME", None)
    ENV.update(CACHE)
    return {
        "damage": name,
        "detected": status.returncode != 0 or check.returncode != 0 or harmless or unused,
        "line": line
        if status.returncode or check.returncode
        else ("harmless" if harmless else "not used, answers unchanged" if unused else ""),
        "tracebacks": sum("Traceback" in r.stderr for r in runs),
        "doctor": doctor,  # fixed by it: the rebuild finds the index healthy
        "rebuild called it healthy": "healthy" in rebuild.stderr
        and "corrupt" in line
        and not doctor,
        "recovered": whole(after, listed, notes) == OFFLOADS and (answered or not private),
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
    parser.add_argument("--only", default="", help="only the kinds whose name holds one of these")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        CACHE["XDG_CACHE_HOME"] = os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        ENV.update(CACHE)
        template(Path(tmp), args.notes)
        parts = args.only.split(",")
        kinds = {n: damage for n, damage in CASES.items() if any(p in n for p in parts)}
        rows = [try_case(Path(tmp), n, damage, args.notes) for n, damage in kinds.items()]
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
