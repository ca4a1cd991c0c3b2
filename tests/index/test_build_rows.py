"""A new index's rows, pinned: the documents, chunks and terms of a small vault of every kind of
note are those the build wrote before its speed work (#62, main 87f060e). A change that means to
alter them updates the digests; one that only makes the build faster must leave them."""

import hashlib
import os
from pathlib import Path

from k0maru.index.prepare import file_bytes
from k0maru.index.store import Store
from k0maru.search.terms import INDEX, STEMS, tokenize
from tests.helpers import scan, write

NOTES = {
    "a.md": (
        "---\ntitle: Lease renewal\ntags: [ops, db]\naliases: [renewals]\ndate: 2024-05-01\n---\n"
        "# Lease renewal\n\nRetry on `SQLITE_BUSY` in `std::sync::Mutex`; see [[b]] and "
        "[c](sub/c.md).\n\n## BorrowMutError at src/worker.rs:42\n\nThe café's E0502 and "
        "`--force` #inline-tag with HTTPServer and parseJSON2x.\n\n```sh\nk0maru scan --full\n```\n"
    ),
    "fr/b.md": "# Connexions\n\nLes connexions sont ouvertes et fermées à nouveau, compressés.\n",
    "sub/c.md": "Ошибки в файле 数据库 и ΕΛΛΗΝΙΚΆ words, größe ＳＱＬＩＴＥ.\n\n# Two\n\ntext\n",
    "decisions/d.md": "# 0001 Use WAL\n\n%%hidden%% <!-- note --> Use the write-ahead log.\n"
    + "word " * 400,
    "e.md": "plain note without a heading, the and of\n",
}
ROWS = {
    "documents": "SELECT path, xxh3_64, title, stem, frontmatter, body, kind, note_date, lang,"
    " hex(copy_sig) FROM documents ORDER BY path",
    "chunks": "SELECT d.path, c.ord, c.heading, c.text, c.hash, c.section, c.line_start,"
    " c.line_end FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY d.path, c.ord",
    "links": "SELECT d.path, l.target, l.target_key, l.heading, l.display, t.path FROM links l"
    " JOIN documents d ON d.id = l.src_id LEFT JOIN documents t ON t.id = l.dst_id ORDER BY 1, 2",
    "tags": "SELECT d.path, t.tag FROM tags t JOIN documents d ON d.id = t.doc_id ORDER BY 1, 2",
}
PINNED = {
    "documents": "a4a8e3e2560cd373",
    "chunks": "ddf323f424ca6d5f",
    "links": "9d7d5173d4b1330e",
    "tags": "3f35ee252a27cd06",
    "index terms": "42d261da41d5a652",
    "query terms": "3dc6e92a6448afeb",
}


def digest(rows: object) -> str:
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


def test_a_small_vaults_rows_and_terms_are_the_ones_pinned(vault: Path) -> None:
    for rel, text in NOTES.items():
        write(vault, rel, text)
    assert scan(vault).added == len(NOTES)
    with Store.open(vault) as store:
        got = {name: digest(store.conn.execute(sql).fetchall()) for name, sql in ROWS.items()}
        corpus = list(store.lexical_corpus())
    texts = [(f"{title}\n{heading}\n{text}", lang) for _, _, title, heading, text, lang in corpus]
    got["index terms"] = digest([tokenize(text, INDEX, lang) for text, lang in texts])
    got["query terms"] = digest([tokenize(text, STEMS, lang) for text, lang in texts])
    assert got == PINNED


def test_a_file_is_read_whole_or_skipped_with_its_reason(tmp_path: Path) -> None:
    note = write(tmp_path, "a.md", "# A\n" + "é" * 5000)
    assert file_bytes(str(note), 4, 10**6) == note.read_bytes()  # more than the walk saw
    assert str(file_bytes(str(note), 10_005, 10_000)).startswith("10,005 bytes is above")
    assert str(file_bytes(str(tmp_path / "gone.md"), 1, 10)).startswith("it vanished")
    assert file_bytes(str(tmp_path), 1, 10) == "unreadable (is a folder); check its permissions"
    os.mkfifo(tmp_path / "pipe.md")  # became a FIFO since the walk: refused, never waited on
    assert file_bytes(str(tmp_path / "pipe.md"), 1, 10) == (
        "unreadable (not a regular file (a FIFO, socket or device)); check its permissions"
    )
    (tmp_path / "empty.md").touch()
    assert file_bytes(str(tmp_path / "empty.md"), 0, 10) == b""
