"""Documents, their tags and aliases: what the index knows of each note file."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from k0maru.index.base_store import BaseStore
from k0maru.index.link_resolution import note_names


@dataclass(frozen=True, slots=True)
class CachedDoc:
    id: int
    mtime_ns: int
    size: int
    xxh3_64: str
    ctime_ns: int = 0
    inode: int = 0


@dataclass(frozen=True, slots=True)
class DocRow:
    id: int
    path: str
    title: str
    frontmatter: dict[str, Any]
    body: str
    mtime_ns: int
    size: int


@dataclass(frozen=True, slots=True)
class NoteRecord:
    """One note file as a `documents` row holds it."""

    path: str
    mtime_ns: int
    size: int
    digest: str  # xxh3_64 of the file's bytes
    title: str
    stem: str  # the file name, lower-cased, without `.md`
    frontmatter: dict[str, Any]
    body: str
    kind: str | None = None
    note_date: float | None = None
    ctime_ns: int = 0
    inode: int = 0
    lang: str = ""  # the language its words are stemmed in, "" for English
    copy_sig: bytes = b""  # its near-copy sketch (index/copies.py)


class DocumentStore(BaseStore):
    """The `documents`, `tags` and `aliases` tables."""

    def cached_documents(self, paths: Iterable[str] | None = None) -> dict[str, CachedDoc]:
        """path -> what the index knows of it; all documents, or just `paths` (the git hook's few
        files)."""
        sql = "SELECT id, path, mtime_ns, size, xxh3_64, ctime_ns, inode FROM documents"
        if paths is None:
            rows = self.conn.execute(sql).fetchall()
        else:
            wanted = list(paths)
            rows = []
            for start in range(0, len(wanted), 500):
                part = wanted[start : start + 500]
                rows += self.conn.execute(
                    f"{sql} WHERE path IN ({','.join('?' * len(part))})", part
                ).fetchall()
        return {
            path: CachedDoc(doc_id, mtime, size, digest, ctime, inode)
            for doc_id, path, mtime, size, digest, ctime, inode in rows
        }

    def upsert_document(self, note: NoteRecord, doc_id: int | None) -> int:
        """The document's id (`doc_id`, else a new one). A note whose language changed has its
        chunks marked for the BM25 delta, so their words are tokenised again in the new language."""
        n = note
        fm = json.dumps(n.frontmatter, default=str, ensure_ascii=False)
        values: tuple[object, ...] = (n.path, n.mtime_ns, n.size, n.digest, n.title, n.stem, fm)
        values += (
            n.body,
            time.time(),
            n.kind,
            n.note_date,
            n.ctime_ns,
            n.inode,
            n.lang,
            n.copy_sig,
        )
        if doc_id is None:
            cur = self.conn.execute(
                "INSERT INTO documents(path, mtime_ns, size, xxh3_64, title, stem, frontmatter, body, indexed_at,"
                " kind, note_date, ctime_ns, inode, lang, copy_sig) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                values,
            )
            return int(cur.lastrowid)
        (was,) = self.conn.execute("SELECT lang FROM documents WHERE id=?", (doc_id,)).fetchone()
        self.conn.execute(
            "UPDATE documents SET mtime_ns=?, size=?, xxh3_64=?, title=?, stem=?, frontmatter=?, body=?,"
            " indexed_at=?, kind=?, note_date=?, ctime_ns=?, inode=?, lang=?, copy_sig=? WHERE id=?",
            (*values[1:], doc_id),  # the path is the row's: found by it
        )
        if was != n.lang:
            self.conn.execute(
                "INSERT OR IGNORE INTO lexical_stale(chunk_id) SELECT id FROM chunks WHERE doc_id=?",
                (doc_id,),
            )
        return doc_id

    def set_tags(self, doc_id: int, tags: Iterable[str], new: bool = False) -> None:
        if not new:
            self.conn.execute("DELETE FROM tags WHERE doc_id = ?", (doc_id,))
        self.conn.executemany(
            "INSERT OR IGNORE INTO tags(doc_id, tag) VALUES (?, ?)", [(doc_id, t) for t in tags]
        )

    def tags_of(self, doc_id: int) -> list[str]:
        return [
            t
            for (t,) in self.conn.execute(
                "SELECT tag FROM tags WHERE doc_id = ? ORDER BY tag", (doc_id,)
            )
        ]

    def filter_documents(
        self,
        path_prefix: str | None = None,
        tag: str | None = None,
        kind: str | None = None,
        since: float | None = None,
        until: float | None = None,
        lang: tuple[str | None, str] | None = None,
    ) -> set[int]:
        """Ids of the notes under `path_prefix`, tagged `tag` (or a nested `tag/...`), of `kind`,
        dated (the frontmatter or file name date, else the mtime) within [since, until] in epoch
        seconds."""
        where: list[str] = []
        args: list[Any] = []
        if path_prefix:
            where.append("d.path LIKE ? ESCAPE '\\'")
            args.append(
                path_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            )
        if kind:
            where.append("d.kind = ?")
            args.append(kind.lower())
        if lang is not None:  # (the stemmer's language: '' English, None none; the folder code)
            where.append("(d.lang = ? OR '/' || lower(d.path) LIKE ? OR lower(d.path) LIKE ?)")
            args += [lang[0], f"%/{lang[1]}/%", f"%.{lang[1]}.md"]
        if since is not None:
            where.append("coalesce(d.note_date, d.mtime_ns / 1e9) >= ?")
            args.append(since)
        if until is not None:
            where.append("coalesce(d.note_date, d.mtime_ns / 1e9) <= ?")
            args.append(until)
        if tag:
            where.append(
                "EXISTS (SELECT 1 FROM tags t WHERE t.doc_id = d.id"
                " AND (t.tag = ? OR t.tag LIKE ? ESCAPE '\\'))"
            )
            args += [tag.lower(), _like_escaped(tag.lower()) + "/%"]
        sql = "SELECT d.id FROM documents d" + (" WHERE " + " AND ".join(where) if where else "")
        return {i for (i,) in self.conn.execute(sql, args)}

    def touch_document(
        self, doc_id: int, mtime_ns: int, size: int, ctime_ns: int = 0, inode: int = 0
    ) -> None:
        """A file whose stat moved but whose content did not: only its stat signature is stored."""
        self.conn.execute(
            "UPDATE documents SET mtime_ns=?, size=?, ctime_ns=?, inode=? WHERE id=?",
            (mtime_ns, size, ctime_ns, inode, doc_id),
        )

    def delete_documents(self, doc_ids: Sequence[int]) -> None:
        self.conn.executemany("DELETE FROM documents WHERE id = ?", [(i,) for i in doc_ids])

    def set_aliases(self, doc_id: int, aliases: Iterable[str]) -> set[str]:
        """Replace a document's aliases; returns those added or dropped (links of those names may
        resolve differently). BM25 reads aliases beside the title: its chunks are read again."""
        new = {a.lower() for a in aliases}
        old = {
            a for (a,) in self.conn.execute("SELECT alias FROM aliases WHERE doc_id = ?", (doc_id,))
        }
        if new == old:
            return set()
        self.conn.execute("DELETE FROM aliases WHERE doc_id = ?", (doc_id,))
        self.conn.execute(
            "INSERT OR IGNORE INTO lexical_stale(chunk_id) SELECT id FROM chunks WHERE doc_id = ?",
            (doc_id,),
        )
        self.conn.executemany(
            "INSERT INTO aliases(doc_id, alias) VALUES (?, ?)", [(doc_id, a) for a in sorted(new)]
        )
        return new ^ old

    def document(self, doc_id: int) -> DocRow | None:
        row = self.conn.execute(
            "SELECT id, path, title, frontmatter, body, mtime_ns, size FROM documents WHERE id = ?",
            (doc_id,),
        ).fetchone()
        return _doc_row(row) if row else None

    def document_by_path(self, path: str) -> DocRow | None:
        row = self.conn.execute(
            "SELECT id, path, title, frontmatter, body, mtime_ns, size FROM documents WHERE path = ?",
            (path,),
        ).fetchone()
        return _doc_row(row) if row else None

    def list_documents(self) -> list[tuple[int, str, str]]:
        return list(self.conn.execute("SELECT id, path, title FROM documents ORDER BY path"))

    def paths_named(self, name: str) -> list[str]:
        """The paths of the notes a link names by `name` (lower case, no `/`): by their file name,
        or an index.md or README.md by its folder's (`link_resolution.note_names`)."""
        rows = self.conn.execute(
            "SELECT path FROM documents WHERE stem = ? OR stem IN ('index', 'readme') ORDER BY path",
            (name,),
        )
        return [path for (path,) in rows if name in note_names(path)]

    def note_kinds(self) -> set[str]:
        """The kinds the indexed notes have (frontmatter `kind`/`type`, else their folder's)."""
        return {k for (k,) in self.conn.execute("SELECT DISTINCT kind FROM documents") if k}

    def kind_counts(self) -> dict[str, int]:
        """kind -> how many notes are of it: what `filter_documents(kind=...)` selects."""
        return dict(
            self.conn.execute(
                "SELECT kind, count(*) FROM documents WHERE kind IS NOT NULL AND kind != ''"
                " GROUP BY kind ORDER BY kind"
            )
        )

    def tag_counts(self) -> dict[str, int]:
        """tag -> how many notes `filter_documents(tag=...)` selects for it: those tagged it or a
        tag nested under it (`a` counts the notes tagged `a/b`)."""
        pairs = list(self.conn.execute("SELECT DISTINCT tag, doc_id FROM tags"))
        tags = {t for t, _ in pairs}
        notes: dict[str, set[int]] = {t: set() for t in tags}
        for tag, doc_id in pairs:
            parts = tag.split("/")
            for depth in range(1, len(parts) + 1):
                if (prefix := "/".join(parts[:depth])) in notes:
                    notes[prefix].add(doc_id)
        return {t: len(notes[t]) for t in sorted(tags)}

    def kind_sources(self) -> list[tuple[int, str, str, str | None]]:
        """(id, path, frontmatter JSON, kind) of every note: what deciding the kinds again reads."""
        return list(self.conn.execute("SELECT id, path, frontmatter, kind FROM documents"))

    def set_kinds(self, kinds: Sequence[tuple[str | None, int]]) -> None:
        """(kind, id) pairs: the notes' kinds decided again."""
        self.conn.executemany("UPDATE documents SET kind = ? WHERE id = ?", kinds)

    def titles(self, doc_ids: Sequence[int]) -> dict[int, str]:
        if not doc_ids:
            return {}
        marks = ",".join("?" * len(doc_ids))
        return dict(
            self.conn.execute(
                f"SELECT id, title FROM documents WHERE id IN ({marks})", list(doc_ids)
            )
        )

    def copy_signatures(self, doc_ids: Sequence[int]) -> dict[int, tuple[str, bytes]]:
        """(path, MinHash signature of the body) of these documents: what tells recall which are
        copies."""
        if not doc_ids:
            return {}
        marks = ",".join("?" * len(doc_ids))
        rows = self.conn.execute(
            f"SELECT id, path, copy_sig FROM documents WHERE id IN ({marks})", list(doc_ids)
        )
        return {int(i): (path, bytes(sig)) for i, path, sig in rows}

    def paths_and_frontmatter(self, doc_ids: Sequence[int]) -> dict[int, tuple[str, str, str]]:
        """(path, frontmatter as JSON, the language it was read in) of these documents: what tells
        recall which are translations."""
        if not doc_ids:
            return {}
        marks = ",".join("?" * len(doc_ids))
        rows = self.conn.execute(
            f"SELECT id, path, frontmatter, lang FROM documents WHERE id IN ({marks})",
            list(doc_ids),
        )
        return {int(i): (path, fm, lang) for i, path, fm, lang in rows}

    def path_and_title(self, doc_id: int) -> tuple[str, str]:
        path, title = self.conn.execute(
            "SELECT path, title FROM documents WHERE id = ?", (doc_id,)
        ).fetchone()
        return path, title

    def document_id_by_title(self, title: str) -> int | None:
        """The note with this title (case-insensitive), the shortest path first."""
        row = self.conn.execute(
            "SELECT id FROM documents WHERE title = ? COLLATE NOCASE"
            " ORDER BY length(path), path LIMIT 1",
            (title,),
        ).fetchone()
        return row[0] if row else None

    def latest_under(self, folder: str, limit: int) -> list[tuple[int, str, str]]:
        """(id, path, title) of the notes under `folder/`, by path descending (newest numbered
        first)."""
        prefix = folder.rstrip("/") + "/"
        return list(
            self.conn.execute(
                "SELECT id, path, title FROM documents WHERE path LIKE ? ESCAPE '\\' ORDER BY path DESC LIMIT ?",
                (prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%", limit),
            )
        )


def _doc_row(row: tuple[Any, ...]) -> DocRow:
    return DocRow(row[0], row[1], row[2], json.loads(row[3]), row[4], row[5], row[6])


def _like_escaped(text: str) -> str:
    """`text` matched literally by `LIKE ... ESCAPE '\\'` (`_` and `%` are wildcards there)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
