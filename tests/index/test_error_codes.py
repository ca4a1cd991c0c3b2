"""SQLite errors are told apart by their result code, not their wording, and k0maru's errors carry
what is wrong and what to do as fields that front ends read instead of cutting the message
(issue #56)."""

from __future__ import annotations

from pathlib import Path

import pytest

from k0maru.errors import (
    IndexCorruptError,
    IndexLockedError,
    IndexReadOnlyError,
    K0maruError,
)
from k0maru.index import db


def test_an_error_is_its_reason_then_its_hint() -> None:
    error = K0maruError("the file is odd", hint="fix it; then again")
    assert str(error) == "the file is odd; fix it; then again"
    assert (error.reason, error.hint) == ("the file is odd", "fix it; then again")
    plain = K0maruError("a; b")
    assert (str(plain), plain.reason, plain.hint) == ("a; b", "a; b", "")


def test_a_busy_index_is_known_by_its_code(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite"
    holder = db.sqlite3.connect(str(path), isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    other = db.sqlite3.connect(str(path), timeout=0, isolation_level=None)
    try:
        with pytest.raises(db.OperationalError) as caught:
            other.execute("INSERT INTO t VALUES (1)")
    finally:
        other.close()
        holder.close()
    assert db.sqlite_code(caught.value) == db.SQLITE_BUSY and db.is_busy(caught.value)
    error = db.translate_error(caught.value, path)
    assert isinstance(error, IndexLockedError)
    assert error.hint == "retry in a moment" and str(error).endswith("; retry in a moment")


def test_words_alone_do_not_make_an_index_locked(tmp_path: Path) -> None:
    """An error that only says "locked" (an extension's, or a note's text in a message) carries no
    SQLite code: it is no lock, and is not retried."""
    words = db.OperationalError("the row is locked busy and readonly")
    assert db.sqlite_code(words) is None and not db.is_busy(words)
    error = db.translate_error(words, tmp_path / "x.sqlite")
    assert type(error) is K0maruError and "SQLite error" in str(error)
    calls = []

    def fails() -> None:
        calls.append(1)
        raise words

    with pytest.raises(K0maruError):
        db.retry_locked(fails, tmp_path / "x.sqlite", wait_s=5)
    assert calls == [1]


def test_a_read_only_index_is_known_by_its_code(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite"
    db.sqlite3.connect(str(path)).execute("CREATE TABLE t (x)").connection.close()
    ro = db.sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        with pytest.raises(db.OperationalError) as caught:
            ro.execute("INSERT INTO t VALUES (1)")
    finally:
        ro.close()
    assert db.sqlite_code(caught.value) == db.SQLITE_READONLY
    error = db.translate_error(caught.value, path)
    assert isinstance(error, IndexReadOnlyError) and error.hint == "make .k0maru/ writable"


def test_not_a_database_is_corrupt_with_its_damage_as_a_field(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    path.write_bytes(b"this is no SQLite file; just text\n" * 200)
    with pytest.raises(IndexCorruptError) as caught:
        db.connect(path)
    error = caught.value
    assert error.damage == "file is not a database"
    assert error.reason == f"{path}: index is corrupt (file is not a database)"
    assert error.hint == "run `k0maru scan --rebuild` (your notes are untouched)"


def test_the_corrupt_mark_keeps_the_fields(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    path.write_bytes(b"")
    made = db.corrupt_error(path, "row 3 (of t); then more")
    found = db.known_corrupt(path)
    assert found is not None and str(found) == str(made)
    assert (found.reason, found.hint, found.damage) == (made.reason, made.hint, made.damage)
    assert found.damage == "row 3 (of t); then more"


def test_a_mark_from_before_the_fields_reads_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    path.write_bytes(b"")
    line = f"{path}: index is corrupt (x); run `k0maru scan --rebuild` (your notes are untouched)"
    (tmp_path / db.CORRUPT_MARK).write_text(f"{path.stat().st_ino}\n{line}\n", encoding="utf-8")
    found = db.known_corrupt(path)
    assert found is not None and str(found) == line


def test_status_names_the_damage_whatever_its_words(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vault's health is the damage field: words with `);` in them are not cut there."""
    from k0maru.index.store import db_path
    from k0maru.wiring.vault import Vault

    v = Vault.open(vault)
    v.index(embed=False)

    def damaged() -> str | None:
        raise db.corrupt_error(db_path(vault), "row 3 (of t); then more")

    monkeypatch.setattr(v.store, "reader_problem", damaged)
    assert v.health() == "row 3 (of t); then more"
    v.close()
