"""The index connection every per-concern store shares, and its lifecycle.

`BaseStore` is the connection to `<vault>/.k0maru/index.sqlite` as a table family sees it
(transactions, `meta` rows); the `*_store` modules add one table family each on it. Closing the
connection, the file's and its write-ahead log's identity, the migrations and the checks are
`IndexConnection`'s, which only `store.Store` (all the families in one) inherits: a caller handed a
family's type cannot close or migrate the index, mypy says so.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Self

from k0maru.errors import (
    IndexCorruptError,
    IndexNewerError,
    IndexReadOnlyError,
    IndexReplacedError,
)
from k0maru.index import db, integrity_store
from k0maru.index.schema import MIGRATIONS
from k0maru.layout import DB_FILE, STATE_DIR

VAULT_META = "vault"  # "device:inode path" of the vault folder the index was built in
SAMPLE_NOTES = 16  # notes of an index from elsewhere looked for in this vault
REPAIRED = {  # what happens next to each part `integrity_store.heal` rebuilt
    "documents": "their notes are indexed again from the files",
    "bm25": "the BM25 segment is built again from the chunks",
    "vectors": "their chunks are embedded again",
    "version": "it moves on, and queries score the chunks changed since the segment again",
}
CHECK_ROWS = 50_000  # rows of each table a deep check decodes (every row of most vaults)
JSON_COLUMNS = {  # columns a reader parses as JSON
    "documents": ("frontmatter",),
    "offloads": ("stack", "error_codes", "failures"),
}


SCHEMA_TABLES = {  # the tables the migrations leave
    m.group(1)
    for m in re.finditer(
        r"CREATE (?:VIRTUAL )?TABLE (?:IF NOT EXISTS )?(\w+)", "\n".join(MIGRATIONS)
    )
}
SCHEMA_TRIGGERS = set(re.findall(r"CREATE TRIGGER (\w+)", "\n".join(MIGRATIONS)))


def db_path(vault: Path) -> Path:
    return vault / STATE_DIR / DB_FILE


class BaseStore:
    """One connection to the index as a table family sees it: its transactions and `meta` rows.
    No lifecycle here (closing, migrating, the file's and its write-ahead log's identity, the
    checks): that is `IndexConnection`'s, which only the whole `Store` (held by `wiring/` and the
    service) has, so a caller typed with a family's store cannot close or migrate the index."""

    def __init__(self, vault: Path, conn: Any, path: Path, wait_s: float = 10.0):
        self.vault = vault
        self.conn = conn
        self.path = path
        self.wait_s = wait_s  # how long a write waits for another process's lock, in all
        self.readonly = False  # the state folder or file is not writable: reads only
        self.readonly_why: IndexReadOnlyError | None = None  # another reason (a full disk)
        self.identity: tuple[int, int] | None = (
            None  # the file this connection holds (db.file_identity)
        )

    def _moved(self) -> bool:
        """The file at the index's path is no longer the one this connection holds (one stat())."""
        return db.file_identity(self.path) != self.identity

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """BEGIN IMMEDIATE (retrying while another writer holds the lock) ... COMMIT, or ROLLBACK.
        Under the lock, the file must still be the one at the index's path: a rebuild moves it aside
        holding that lock, so no write ever lands in a moved-aside file (IndexReplacedError
        instead)."""
        self.require_writable()
        db.retry_locked(lambda: self.conn.execute("BEGIN IMMEDIATE"), self.path, self.wait_s)
        if self._moved():
            self.conn.execute("ROLLBACK")
            raise IndexReplacedError(
                f"{self.path} was moved aside or replaced (a rebuild?) before this write; "
                "nothing was written to the old file: run the command again"
            )
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            db.retry_locked(lambda: self.conn.execute("COMMIT"), self.path, self.wait_s)

    @contextmanager
    def transaction_if_free(self) -> Iterator[bool]:
        """A write transaction when the lock is free now, else none (False): for a write that
        may be skipped, such as a cache, on a path that must not wait for another writer."""
        if self.readonly or self.conn.in_transaction or db.known_corrupt(self.path) is not None:
            yield False  # inside a read snapshot: no write
            return
        self.conn.execute("PRAGMA busy_timeout = 0")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except db.DatabaseError:  # busy: another writer holds the lock
            yield False
            return
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(self.wait_s * 1000)}")
        if self._moved():
            self.conn.execute("ROLLBACK")
            yield False
            return
        try:
            yield True
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            try:
                self.conn.execute("COMMIT")
            except db.DatabaseError:
                self.conn.execute("ROLLBACK")

    def require_writable(self) -> None:
        """Refuse to write an index that cannot be written, or that a reader found corrupt."""
        corrupt = db.known_corrupt(self.path)
        if corrupt is not None:
            raise corrupt
        if self.readonly and self.readonly_why is not None:
            raise self.readonly_why
        if self.readonly:
            raise IndexReadOnlyError(
                f"{self.path}: the index is read-only here (its folder or file is not "
                "writable); reads work, to update it make .k0maru/ writable (chmod u+w)"
            )

    @contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """One read transaction: every read inside sees the index as one commit left it (a writer
        committing meanwhile is not seen half). Inside a transaction already: that one."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def corpus_version(self) -> int:
        return int(self.get_meta("corpus_version", "0") or 0)

    def bump_corpus_version(self) -> None:
        self.set_meta("corpus_version", str(self.corpus_version() + 1))

    def release_mapped_pages(self) -> None:
        """Unmap the pages of the index file this connection has read: they count in the process's
        RSS until then (a server's warm-up reads the BM25 segment's pages, which it keeps as arrays
        anyway; a build reads every chunk once). Later reads map what they touch again."""
        mapped = self.conn.execute("PRAGMA mmap_size").fetchone()[0]
        if mapped:
            self.conn.execute("PRAGMA mmap_size = 0")
            self.conn.execute(f"PRAGMA mmap_size = {int(mapped)}")


class IndexConnection(BaseStore):
    """The index file's lifecycle, over the connection: close, the file's and its write-ahead log's
    identity (a rebuild or a deletion replaced them), the schema's migrations, the checks of what
    the file holds, its size and the copies rebuilds kept."""

    def __init__(self, vault: Path, conn: Any, path: Path, wait_s: float = 10.0):
        super().__init__(vault, conn, path, wait_s)
        self.wal_identity: tuple[int, int] | None = (
            None  # the write-ahead log this connection writes
        )
        self.set_aside: list[str] = []  # what opening moved aside (a stray write-ahead log)
        # (the index's state, what `damage` found in it)
        self._checked: tuple[tuple[int, int], list[integrity_store.Finding]] | None = None

    def close(self) -> None:
        self.conn.close()

    def replaced(self) -> bool:
        """Whether the file at the index's path is no longer the one this connection holds (moved
        aside by a rebuild, deleted, replaced): a long-running process then reopens. One stat(), no
        SQL."""
        return self._moved()

    def wal_lost(self) -> bool:
        """Whether the write-ahead log this connection writes was deleted or replaced under it
        (while a connection is open, SQLite never removes it): its changes are only in this
        process's open file."""
        wal = self.path.with_name(self.path.name + "-wal")
        return self.wal_identity is not None and db.file_identity(wal) != self.wal_identity

    def save_lost_wal(self) -> None:
        """Copy what a deleted write-ahead log holds into the index file, through the log this
        connection still has open, so no change it held is lost."""
        with suppress(db.DatabaseError):
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def schema_version(self) -> int:
        row = self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name='schema_version'"
        ).fetchone()
        if not row:
            return 0
        return int(
            self.conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()[0]
        )

    def migrate(self) -> None:
        """Bring the schema up to this version's; an index from a newer k0maru is refused, never
        written."""
        found = self.schema_version()
        if found > len(MIGRATIONS):
            raise IndexNewerError(
                f"{self.path}: this index was written by a newer k0maru (schema {found}, this one "
                f"knows {len(MIGRATIONS)}); upgrade k0maru or run `k0maru scan --rebuild`"
            )
        if found == len(MIGRATIONS):
            return
        with self.transaction():
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
            )
            current = self.schema_version()
            for version, script in enumerate(MIGRATIONS[current:], start=current + 1):
                for statement in _split_sql(script):
                    self.conn.execute(statement)
                self.conn.execute(
                    "INSERT INTO schema_version VALUES (?, ?)", (version, time.time())
                )

    def open_checks(self) -> list[str]:
        """What every open checks, in one read transaction (well under a millisecond at 1,000
        notes): that the index is this vault's (else `IndexCorruptError`: it is never answered
        from) and the counts that tie its derived rows to the notes' (`integrity_store.cheap`),
        repaired when they differ; returns one line per repair. An index too damaged to be read
        is left to `reader_problem`. A write-ahead log set aside on opening is said first."""
        said, self.set_aside = self.set_aside, []
        try:
            with self.read_snapshot():
                foreign, adopt, copied = self._vault_identity()
                findings = integrity_store.cheap(self.conn)
        except db.DatabaseError:
            return said
        if foreign is not None:
            raise IndexCorruptError(
                f"{self.path}: this index was built for another vault ({foreign}); none of its "
                "notes is here, so it is never answered from",
                hint="run `k0maru scan --rebuild` (or `k0maru doctor --fix`)",
                damage=f"built for another vault ({foreign})",
            )
        said += self._adopt(copied) if adopt else []
        return said + (self.repair(integrity_store.cheap) if findings else [])

    def _adopt(self, copied: str | None) -> list[str]:
        """Record this vault as the index's; one `copied` from another vault's folder also drops
        the offload records whose log is not in this vault's `.k0maru/refs` (the index came
        without them: another vault's, or copied alone) and says so (the caller then walks every
        note again). A whole vault copied, its logs with it, says nothing."""
        with self.transaction_if_free() as free:
            if not free:
                return []
            self.set_meta(VAULT_META, _vault_id(self.vault))
            if copied is None:
                return []
            refs = self.vault / STATE_DIR / "refs"
            logs = self.conn.execute("SELECT node_id, log_path FROM offloads").fetchall()
            gone = [(n,) for n, path in logs if not (refs / Path(path).name).is_file()]
            self.conn.executemany("DELETE FROM offloads WHERE node_id = ?", gone)
        if not gone:
            return []
        return [
            f"took over the index built for {copied} (most of its notes are here: a copied vault)"
            f" without {len(gone)} offload record(s) whose log it did not bring; every note is"
            " checked again by the next scan"
        ]

    def damage(self) -> list[integrity_store.Finding]:
        """What the whole check of the derived rows finds (`integrity_store.deep`), decoded once per
        state of the index: `reader_problem` and `doctor` share it until a commit (this
        connection's or another's) changes what it would read."""
        state = (self.conn.execute("PRAGMA data_version").fetchone()[0], self.conn.total_changes)
        if self._checked is None or self._checked[0] != state:
            self._checked = (state, integrity_store.deep(self.conn, self.vault))
        return list(self._checked[1])

    def repair(self, check: integrity_store.Check) -> list[str]:
        """Run `check` again under the write lock and rebuild what it finds damaged
        (`integrity_store.heal`); one line per repair. A read-only index is only reported."""
        if self.readonly or db.known_corrupt(self.path) is not None:
            return [
                f"the index is damaged: {f.what} (read-only: not repaired)"
                for f in check(self.conn, self.vault)
            ]
        with self.transaction():
            findings = check(self.conn, self.vault)
            integrity_store.heal(self.conn, findings)
        return [f"repaired the index: {f.what}; {REPAIRED[f.part]}" for f in findings]

    def _vault_identity(self) -> tuple[str | None, bool, str | None]:
        """(the other vault when the index is another vault's, else None; whether this vault's
        identity is to be recorded; the folder of the vault it was copied from). The index is this
        vault's when it was built here, in this folder since moved (its inode), or when most of a
        sample of its notes are here (a copied vault)."""
        here = _vault_id(self.vault)
        stored = self.get_meta(VAULT_META)
        if stored == here:
            return None, False, None
        inode, _, root = (stored or "").partition(" ")
        if stored and (root == str(self.vault) or inode == here.partition(" ")[0]):
            return None, True, None
        paths = [
            p
            for (p,) in self.conn.execute(
                f"SELECT path FROM documents ORDER BY random() LIMIT {SAMPLE_NOTES}"
            )
        ]
        found = sum(1 for p in paths if _present(self.vault / p))
        if 2 * found >= len(paths):
            return None, True, root or None  # None: an index that never recorded its vault
        return root or "its notes are not here", False, None

    def require_sound(self) -> None:
        """Raise the corrupt-index error when SQLite's quick_check finds damage."""
        problem = self.integrity_problem()
        if problem:
            raise db.corrupt_error(self.path, problem)

    def integrity_problem(self) -> str | None:
        """None when SQLite's quick_check finds the file sound, else its first complaint."""
        row = self.conn.execute("PRAGMA quick_check(1)").fetchone()
        if row and row[0] == "ok":
            return None
        text = " ".join(
            str(row[0] if row else "no answer").replace("*** in database main ***", "").split()
        )
        return text[:120] or "quick_check failed"

    def reader_problem(self) -> str | None:
        """None when the index reads back whole, else what is wrong: the file (`file_problem`),
        then the derived rows a reader could not decode (the BM25 segment and its terms, the
        stored vectors: `damage`'s unreadable findings). Damage inside a row (flipped bytes) passes
        quick_check but not this."""
        try:
            return self.file_problem() or next(
                (f.what for f in self.damage() if f.unreadable), None
            )
        except (db.DatabaseError, ValueError) as exc:
            return " ".join(str(exc).split())[:120] or type(exc).__name__

    def file_problem(self) -> str | None:
        """None when SQLite's quick_check passes, every table is there and every row decodes (its
        text as UTF-8, its JSON), else the first complaint."""
        return self.integrity_problem() or self.missing_tables() or self._undecodable_rows()

    def require_readable(self) -> None:
        """Raise the corrupt-index error when `reader_problem` finds damage."""
        problem = self.reader_problem()
        if problem:
            raise db.corrupt_error(self.path, problem)

    def missing_tables(self) -> str | None:
        """The first table or trigger of the schema that is not there (a trigger keeps the
        vectors and the BM25 segment in step with the chunks)."""
        have = set(self.conn.execute("SELECT type, name FROM sqlite_master"))
        schema = {("table", t) for t in SCHEMA_TABLES} | {("trigger", t) for t in SCHEMA_TRIGGERS}
        missing = sorted(schema - have)
        return f"{missing[0][0]} {missing[0][1]} is missing" if missing else None

    def _undecodable_rows(self) -> str | None:
        tables = [
            name
            for (name,) in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
            )
        ]
        for table in tables:
            try:
                problem = self._undecodable_row(table)
            except db.DatabaseError as exc:  # a text column's bytes are not UTF-8
                problem = f"table {table}: {' '.join(str(exc).split())[:80]}"
            if problem:
                return problem
        return None

    def _undecodable_row(self, table: str) -> str | None:
        parsed = JSON_COLUMNS.get(table, ())
        cursor = self.conn.execute(f'SELECT * FROM "{table}" LIMIT {CHECK_ROWS}')
        names = [d[0] for d in cursor.description]
        for row in cursor:  # text columns are decoded as UTF-8 here
            for name, value in zip(names, row, strict=True):
                if name in parsed and value is not None:
                    try:
                        json.loads(value)
                    except ValueError:
                        return f"table {table}: column {name} holds broken JSON"
        return None

    def db_size_bytes(self) -> int:
        """The live index: its file, WAL and shared-memory file (not the copies rebuilds kept)."""
        return sum(_size(self.path.with_name(self.path.name + s)) for s in ("", "-wal", "-shm"))

    def old_copies(self) -> list[Path]:
        """The index files rebuilds moved aside (`.old-*`, `.corrupt-*`), oldest first."""
        return old_copies(self.path)


def _vault_id(vault: Path) -> str:
    """ "device:inode path" of the vault folder."""
    try:
        st = vault.stat()
    except OSError:
        return f"? {vault}"
    return f"{st.st_dev}:{st.st_ino} {vault}"


def old_copies(path: Path) -> list[Path]:
    """The copies of the index at `path` that rebuilds moved aside, oldest first (by the time in
    their name), without their -wal and -shm files."""
    found = [
        p
        for label in ("old", "corrupt")
        for p in path.parent.glob(f"{path.name}.{label}-*")
        if not p.name.endswith(("-wal", "-shm"))
    ]
    return sorted(found, key=lambda p: (p.name.rsplit("-", 1)[-1], p.name))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies (BEGIN ... END;) whole."""
    statements: list[str] = []
    buf: list[str] = []
    in_trigger = False
    for line in script.strip().splitlines():
        buf.append(line)
        stripped = line.strip().upper()
        if stripped.startswith("CREATE TRIGGER"):
            in_trigger = True
        if (in_trigger and stripped == "END;") or (not in_trigger and stripped.endswith(";")):
            statements.append("\n".join(buf).strip())
            buf = []
            in_trigger = False
    if "".join(buf).strip():
        statements.append("\n".join(buf).strip())
    return statements


def _present(path: Path) -> bool:
    """Whether a note is there; one that cannot be looked at (an unreadable folder) counts as
    there: only a missing one says the index is another vault's."""
    try:
        path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:  # it is there, out of sight
        pass
    return True
