"""Random interleavings of writers, deleters, flushes, searches, embedding and scans against a model
of the vault (hypothesis' state machines): after each step the index holds every note it owes (a
flushed note, a note a finished scan saw), never a vector out of place, and after a scan with
nothing beside it the index equals the files, links included. A scan can be overtaken: after its
walk, other writers write, delete and flush before it writes. Real SQLite + sqlite-vec, the real
model; in-process and bounded, so fast tier. The slow tier adds writer processes (`k0maru scan`,
`k0maru flush`) killed with SIGKILL at random points: nothing the index held is lost, and the next
scan makes it equal the files again."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from k0maru.config import load_settings
from k0maru.index.markdown import hash_bytes
from k0maru.index.scanner import IncrementalScanner
from k0maru.index.store import Store
from k0maru.index.walker import Entry
from k0maru.search import vectors
from k0maru.search.embedding import Embedder
from k0maru.wiring.vault import Vault
from tests.helpers import wait_for_worker, write

NAMES = ["a.md", "b.md", "c.md", "d.md", "sub/e.md", "sub/f.md"]
TEXTS = [
    "# Lease\n\nThe lease renews every minute.\n",
    "# Lease\n\nThe lease renews every minute.\n",  # the same text twice: vectors are reused
    "# Retry\n\nRetries back off; see [[a]] and [[e]].\n",
    "# Deploy\n\nRoll back the deploy when [[missing]] fails.\n",
    "---\naliases: [gone]\n---\n# Alias\n\nKnown as [[gone]] elsewhere.\n",
    "# Long\n\n" + "\n\n".join(f"Paragraph {i} about caches and leases." for i in range(12)),
]
names, texts = st.sampled_from(NAMES), st.sampled_from(TEXTS)
# what a writer beside an overtaken scan does: ("write" | "delete" | "flush", name, text)
side_steps = st.lists(
    st.tuples(st.sampled_from(["write", "delete", "flush"]), names, texts), max_size=3
)


def indexed(store: Store) -> dict[str, str]:
    return {path: doc.xxh3_64 for path, doc in store.cached_documents().items()}


def links_of(root: Path) -> set[tuple[str, str, str | None]]:
    """(linking note, target as written, the note it resolves to)."""
    with Store.open(root) as store:
        rows = store.conn.execute(
            "SELECT s.path, l.target, d.path FROM links l JOIN documents s ON s.id = l.src_id"
            " LEFT JOIN documents d ON d.id = l.dst_id"
        ).fetchall()
    return set(rows)


def vector_faults(store: Store) -> tuple[int, int, int]:
    """(vectors with no chunk, vectors on a chunk marked without one, chunks marked with one that
    lack it)."""
    ids = "SELECT rowid FROM vec_chunks_rowids"
    one = store.conn.execute
    return (
        one(f"SELECT count(*) FROM ({ids}) WHERE rowid NOT IN (SELECT id FROM chunks)").fetchone()[
            0
        ],
        one(f"SELECT count(*) FROM chunks WHERE embedded = 0 AND id IN ({ids})").fetchone()[0],
        one(f"SELECT count(*) FROM chunks WHERE embedded = 1 AND id NOT IN ({ids})").fetchone()[0],
    )


class Overtaken(IncrementalScanner):
    """A scan whose walk is overtaken: once it has listed the vault, `meanwhile` runs (other
    writers)."""

    def __init__(self, store: Store, root: Path, meanwhile: Any) -> None:
        super().__init__(store, load_settings(root))
        self.meanwhile = meanwhile

    def _entries(self, only: list[str] | None) -> Iterator[Entry]:
        listed = list(super()._entries(only))
        self.meanwhile()
        yield from listed


class VaultModel(RuleBasedStateMachine):
    embedder: Embedder

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp())
        self.root = self.tmp / "vault"
        self.root.mkdir()
        self.disk: dict[str, str] = {}  # the files
        self.owed: dict[str, str] = {}  # notes whose text the index must hold now
        self.scanner = Vault.open(self.root)  # the long scans
        self.other = Vault.open(self.root)  # flushes, embedding, searches: another connection
        self.scanner.index()  # the model recorded, so vectors are kept

    def teardown(self) -> None:
        self.scanner.close()
        self.other.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # ---- the writers -----------------------------------------------------------------------------
    def _write(self, name: str, text: str) -> None:
        write(self.root, name, text)
        self.disk[name] = text
        self.owed.pop(name, None)

    def _delete(self, name: str) -> None:
        (self.root / name).unlink(missing_ok=True)
        self.disk.pop(name, None)
        self.owed.pop(name, None)

    def _flush(self, name: str, text: str) -> None:
        """What a flush does: write its note, then index only it."""
        self._write(name, text)
        self.other.index(only=[name], embed=False)
        self.owed[name] = text

    @rule(name=names, text=texts)
    def write_note(self, name: str, text: str) -> None:
        self._write(name, text)

    @rule(name=names)
    def delete_note(self, name: str) -> None:
        self._delete(name)

    @rule(name=names, text=texts)
    def flush(self, name: str, text: str) -> None:
        self._flush(name, text)

    @rule()
    def embed(self) -> None:
        vectors.embed_pending(self.other.store, self.embedder, 4)

    @rule(query=st.sampled_from(["lease", "retry deploy", "caches", "alias"]))
    def search(self, query: str) -> None:
        hits = self.other.recall.search(query, mode="bm25").hits
        assert {h.path for h in hits} <= set(indexed(self.other.store))

    # ---- the scans -------------------------------------------------------------------------------
    @rule()
    def scan(self) -> None:
        """A scan with nothing beside it: the index then equals the files, links as a fresh
        index's."""
        self.scanner.index(embed=False, snapshot_first=False)
        self.owed = dict(self.disk)
        store = self.scanner.store
        assert indexed(store) == {n: hash_bytes(t.encode()) for n, t in self.disk.items()}
        fresh = self.tmp / "fresh"
        shutil.rmtree(fresh, ignore_errors=True)
        shutil.copytree(self.root, fresh, ignore=shutil.ignore_patterns(".k0maru"))
        with Store.open(fresh) as other:
            IncrementalScanner(other, load_settings(fresh, embed=False)).scan()
        assert links_of(self.root) == links_of(fresh)

    @rule(steps=side_steps)
    def overtaken_scan(self, steps: list[tuple[str, str, str]]) -> None:
        before = dict(self.disk)
        touched = {name for _, name, _ in steps}

        def meanwhile() -> None:
            for verb, name, text in steps:
                if verb == "write":
                    self._write(name, text)
                elif verb == "delete":
                    self._delete(name)
                else:
                    self._flush(name, text)

        Overtaken(self.scanner.store, self.root, meanwhile).scan()
        # what the walk saw and nobody touched after it is now indexed as it is
        self.owed.update({n: t for n, t in before.items() if n not in touched})

    @invariant()
    def index_holds_what_it_owes(self) -> None:
        held = indexed(self.other.store)
        for name, text in self.owed.items():
            assert held.get(name) == hash_bytes(text.encode()), name
        assert vector_faults(self.other.store) == (0, 0, 0)


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    root = tmp_path_factory.mktemp("model")
    with Vault.open(root) as v:
        loaded = v.embedder
    assert loaded is not None
    return loaded


def test_random_interleavings_keep_the_index_equal_to_the_files(embedder: Embedder) -> None:
    VaultModel.embedder = embedder
    run_state_machine_as_test(
        VaultModel,
        settings=settings(
            max_examples=20,
            stateful_step_count=12,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )


BULK = 2500  # notes a killed scan rewrites: its batches span seconds, so a kill can land in them
EXAMPLES = 4  # runs of the state machine with killed writers
KILL_AFTER_S = [
    0.0,
    0.6,
    1.0,
    1.3,
    1.6,
    1.9,
    2.2,
    2.6,
    3.0,
    4.0,
]  # from the start: in the imports, the walk, the batches


def files_of(root: Path) -> dict[str, str]:
    """The vault's notes as they are on disk (a killed flush may or may not have written its
    note)."""
    found = {}
    for path in root.rglob("*.md"):
        rel = path.relative_to(root).as_posix()
        if not rel.startswith(".k0maru/"):
            found[rel] = path.read_text(encoding="utf-8")
    return found


class KilledWriters(VaultModel):
    """The same vault with writer processes killed (SIGKILL) at random points beside the in-process
    writers: a scan of freshly rewritten bulk notes, or a flush. After each, the index still holds
    what it owed and no vector out of place, and a scan makes it equal the files again."""

    rounds = 0  # writer processes started ...
    killed = 0  # ... and killed before they finished
    progress: list[int] = []  # notes indexed as on disk when a scan's process ended

    @initialize(after=st.sampled_from(KILL_AFTER_S), text=texts)
    def killed_first(self, after: float, text: str) -> None:
        self.killed_writer("scan", after, text)

    @rule(after=st.sampled_from(KILL_AFTER_S), text=texts)
    def killed_scan(self, after: float, text: str) -> None:
        self.killed_writer("scan", after, text)

    @rule(after=st.sampled_from(KILL_AFTER_S), text=texts)
    def killed_flush(self, after: float, text: str) -> None:
        self.killed_writer("flush", after, text)

    def killed_writer(self, verb: str, after: float, text: str) -> None:
        """Start a `k0maru scan` or `flush` process, SIGKILL it `after` seconds on unless it ended,
        then check what the index holds and recover with a scan."""
        KilledWriters.rounds += 1
        k0maru = [sys.executable, "-m", "k0maru"]
        if verb == "scan":
            for i in range(BULK):
                self._write(f"bulk/n{i:03d}.md", f"# Bulk {i}\n\nround {self.rounds} {text}")
            cmd = [*k0maru, "scan", "--vault", str(self.root), "--no-embed"]
        else:
            title = f"Killed {self.rounds}"
            cmd = [
                *k0maru,
                "flush",
                "--vault",
                str(self.root),
                "--kind",
                "decision",
                "--title",
                title,
            ]
        env = {**os.environ, "K0MARU_EMBED": "false"}  # no worker to embed after it
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert proc.stdin is not None
        proc.stdin.write(text.encode())
        proc.stdin.close()
        try:
            proc.wait(timeout=after)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            KilledWriters.killed += 1
        wait_for_worker(self.root, 120)
        self.disk = files_of(self.root)
        if verb == "scan":  # how far the killed scan got: the bulk notes it indexed as rewritten
            held = indexed(self.other.store)
            done = sum(held.get(n) == hash_bytes(t.encode()) for n, t in self.disk.items())
            KilledWriters.progress.append(done)
        self.index_holds_what_it_owes()  # nothing the index held is lost, no vector out of place
        self.scan()  # recovery: the next scan makes the index equal the files, links included


@pytest.mark.slow
@pytest.mark.timeout(0)  # bounded work (EXAMPLES runs of 8 steps, each wait bounded): no clock
def test_killed_writers_lose_nothing_and_a_scan_recovers(embedder: Embedder) -> None:
    KilledWriters.embedder = embedder
    KilledWriters.rounds = KilledWriters.killed = 0
    KilledWriters.progress = []
    run_state_machine_as_test(
        KilledWriters,
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=8,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
            phases=[Phase.generate],  # where a kill lands varies: a shrunk run would not replay
            database=None,
        ),
    )
    print(
        f"{KilledWriters.killed} of {KilledWriters.rounds} writer processes killed before the end;"
        f" notes indexed as on disk when a scan ended: {sorted(KilledWriters.progress)}"
    )
    assert KilledWriters.rounds >= EXAMPLES  # one at least in each run
