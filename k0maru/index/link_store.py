"""Links between notes: stored as written, resolved to documents (`link_resolution`), queried as a
graph."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from k0maru.index.document_store import DocumentStore
from k0maru.index.link_resolution import (
    INDEX_STEMS,
    Resolver,
    build_resolver,
    key_name,
    note_names,
)

if TYPE_CHECKING:  # the parser loads with a scan, not with a query
    from k0maru.index.markdown import Link


class LinkStore(DocumentStore):
    """The `links` table, over the notes it links (a link resolves to a document)."""

    def delete_links_from(self, doc_ids: Sequence[int]) -> None:
        self.conn.executemany("DELETE FROM links WHERE src_id = ?", [(i,) for i in doc_ids])

    def insert_links(self, rows: Sequence[tuple[int, Link]]) -> None:
        """Store (linking note id, link) rows, each resolved against the notes indexed so far."""
        resolve = self.link_resolver({key_name(link.key) for _, link in rows}, {s for s, _ in rows})
        self.conn.executemany(
            "INSERT INTO links(src_id, target, target_key, target_name, heading, display, dst_id)"
            " VALUES (?,?,?,?,?,?,?)",
            [
                (
                    src,
                    link.target,
                    link.key,
                    key_name(link.key),
                    link.heading,
                    link.display,
                    resolve(link.key, src),
                )
                for src, link in rows
            ],
        )

    def link_resolver(
        self, names: Collection[str] | None = None, sources: Collection[int] = ()
    ) -> Resolver:
        """A function mapping a link key to a document id, as Obsidian resolves it
        (`link_resolution`). With `names`, it knows only the notes and aliases of those key names
        (and the `sources`, the linking notes, whose folders rank the candidates): right for keys of
        those names only, and read through the indexes instead of every note."""
        if names is None:
            return build_resolver(
                self.conn.execute("SELECT id, path, stem FROM documents").fetchall(),
                self.conn.execute(
                    "SELECT a.doc_id, a.alias FROM aliases a JOIN documents d ON d.id = a.doc_id"
                    " ORDER BY d.path"
                ),
            )
        named, ids = json.dumps(sorted(names)), json.dumps(sorted(sources))
        return build_resolver(
            self.conn.execute(
                "SELECT id, path, stem FROM documents WHERE stem IN (SELECT value FROM json_each(?))"
                f" OR stem IN {INDEX_STEMS!r} OR id IN (SELECT value FROM json_each(?))",
                (named, ids),
            ).fetchall(),
            self.conn.execute(
                "SELECT a.doc_id, a.alias FROM aliases a JOIN documents d ON d.id = a.doc_id"
                " WHERE a.alias IN (SELECT value FROM json_each(?)) ORDER BY d.path",
                (named,),
            ),
        )

    def link_names_of(self, doc_ids: Sequence[int]) -> set[str]:
        """The key names under which these documents are found: file names, folder names of index
        notes, aliases (what re-resolves when they vanish)."""
        ids = json.dumps(list(doc_ids))
        paths = self.conn.execute(
            "SELECT path FROM documents WHERE id IN (SELECT value FROM json_each(?))", (ids,)
        )
        names = {n for (path,) in paths for n in note_names(path)}
        aliases = self.conn.execute(
            "SELECT alias FROM aliases WHERE doc_id IN (SELECT value FROM json_each(?))", (ids,)
        )
        return names | {a for (a,) in aliases}

    def reresolve_links(self, names: Collection[str] | None = None) -> int:
        """Re-point existing links after documents appeared, vanished or changed aliases: those
        whose key is of one of `names`, or every link (None).

        Only rows whose target actually changes are written; returns how many.
        """
        if names is None:
            rows = self.conn.execute("SELECT rowid, target_key, src_id, dst_id FROM links")
        else:
            rows = self.conn.execute(
                "SELECT rowid, target_key, src_id, dst_id FROM links"
                " WHERE target_name IN (SELECT value FROM json_each(?))",
                (json.dumps(sorted(names)),),
            )
        found = rows.fetchall()
        resolve = self.link_resolver(names, {src for _, _, src, _ in found})
        changes = [
            (new, rowid) for rowid, key, src, dst in found if (new := resolve(key, src)) != dst
        ]
        self.conn.executemany("UPDATE links SET dst_id = ? WHERE rowid = ?", changes)
        return len(changes)

    def links_from(self, doc_id: int) -> list[dict[str, Any]]:
        return [
            {"target": t, "heading": h, "display": d, "path": p, "title": title, "doc_id": dst}
            for t, h, d, dst, p, title in self.conn.execute(
                "SELECT l.target, l.heading, l.display, l.dst_id, d.path, d.title FROM links l"
                " LEFT JOIN documents d ON d.id = l.dst_id WHERE l.src_id = ? ORDER BY l.rowid",
                (doc_id,),
            )
        ]

    def dangling_links(self, limit: int) -> list[tuple[str, str, str | None]]:
        """(target, linking note's path, heading) of links that lead to no note, by target: at most
        `limit`. Same-note heading links (`[[#Heading]]`, no target) are not dangling."""
        return list(
            self.conn.execute(
                "SELECT l.target, d.path, l.heading FROM links l JOIN documents d ON d.id = l.src_id"
                " WHERE l.dst_id IS NULL AND l.target != '' ORDER BY l.target_key, d.path LIMIT ?",
                (limit,),
            )
        )

    def heading_links(self, limit: int) -> list[tuple[str, str, str, int]]:
        """(target, linking note's path, heading, target note's id) of the wikilinks to a heading
        of a note found, by target: at most `limit`. A Markdown link's `#anchor` (its target holds
        it; a wikilink's never does) is left out: it names an anchor of the rendered page, which
        the renderer makes (MkDocs and GitHub slug a heading apart, `{#id}`, `<span id=…>`)."""
        return list(
            self.conn.execute(
                "SELECT l.target, d.path, l.heading, l.dst_id FROM links l"
                " JOIN documents d ON d.id = l.src_id WHERE l.dst_id IS NOT NULL"
                " AND l.heading IS NOT NULL AND l.heading != '' AND instr(l.target, '#') = 0"
                " ORDER BY l.target_key, d.path LIMIT ?",
                (limit,),
            )
        )

    def headings_of(self, doc_ids: Sequence[int]) -> dict[int, set[str]]:
        """Each note's headings, as its chunks record them: each chunk's heading and those above
        it (`A > B`), so a heading over no text of its own is there too."""
        found: dict[int, set[str]] = {}
        for doc_id, heading, section in self.conn.execute(
            "SELECT doc_id, heading, section FROM chunks"
            " WHERE doc_id IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(set(doc_ids))),),
        ):
            found.setdefault(doc_id, set()).update([heading, *section.split(" > ")])
        return found

    def backlinks(self, doc_id: int) -> list[dict[str, Any]]:
        return [
            {"doc_id": src, "path": p, "title": t}
            for src, p, t in self.conn.execute(
                "SELECT DISTINCT l.src_id, d.path, d.title FROM links l JOIN documents d ON d.id = l.src_id"
                " WHERE l.dst_id = ? AND l.src_id != ? ORDER BY d.path",
                (doc_id, doc_id),
            )
        ]

    def edges_among(self, doc_ids: Sequence[int]) -> list[tuple[int, int]]:
        """Resolved links (src, dst) whose both ends are in `doc_ids`, self-links excluded."""
        if not doc_ids:
            return []
        marks = ",".join("?" * len(doc_ids))
        return list(
            self.conn.execute(
                f"SELECT DISTINCT src_id, dst_id FROM links WHERE src_id IN ({marks}) AND dst_id IN ({marks})"
                " AND src_id != dst_id",
                [*doc_ids, *doc_ids],
            )
        )

    def hub_documents(self, limit: int) -> list[tuple[int, str, str, int]]:
        return list(
            self.conn.execute(
                "SELECT d.id, d.path, d.title, count(DISTINCT l.src_id) AS n FROM links l JOIN documents d ON d.id = l.dst_id"
                " WHERE l.src_id != l.dst_id GROUP BY d.id ORDER BY n DESC, d.path LIMIT ?",
                (limit,),
            )
        )
