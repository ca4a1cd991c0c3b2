"""A write-ahead log deleted under a process whose threads each hold a connection (#61): whichever
thread notices first (a console's request thread, opened after the log went, included) writes
what the log held into the index through a connection that still has it open, and closes every
thread's connection: one left open keeps the shared memory that counts the lost frames, and each
connection opened beside it fails or answers without them (real SQLite, in-process)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from k0maru.index.store import db_path
from k0maru.wiring.vault import Vault
from tests.helpers import write

REQUESTS = 4


def notes(vault: Vault) -> int:
    return int(vault.store.conn.execute("SELECT count(*) FROM documents").fetchone()[0])


def test_a_lost_log_closes_every_threads_connection(tmp_path: Path) -> None:
    for i in range(3):
        write(tmp_path, f"n{i}.md", f"# Note {i}\n\nlease {i}.\n")
    vault = Vault.open(tmp_path, embed=False)
    vault.index(embed=False)
    write(tmp_path, "late.md", "# Late\n\nlease late.\n")
    vault.index(embed=False)  # its rows are in the log alone
    reading, gone = threading.Event(), threading.Event()

    def long_read() -> None:  # a read in flight when the log goes
        conn = vault.store.conn
        conn.execute("BEGIN")
        conn.execute("SELECT count(*) FROM documents").fetchone()
        reading.set()
        gone.wait()

    held = threading.Thread(target=long_read)
    held.start()
    reading.wait()
    Path(f"{db_path(tmp_path)}-wal").unlink()
    answered: list[int | str] = []

    def request() -> None:  # a console request: a new thread, its own new connection
        try:
            vault.reopen_if_replaced()
            answered.append(notes(vault))
        except Exception as exc:
            answered.append(str(exc))

    started = time.monotonic()
    for _ in range(REQUESTS):
        thread = threading.Thread(target=request)
        thread.start()
        thread.join()
    took = time.monotonic() - started
    gone.set()
    held.join()
    vault.close()
    assert answered == [4] * REQUESTS
    assert took < 5  # the read in flight was closed, not waited for
    with Vault.open(tmp_path, embed=False) as again:
        assert notes(again) == 4
