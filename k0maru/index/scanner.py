"""IncrementalScanner: known path? -> same stat signature (mtime, size, ctime, inode)? -> same
xxh3_64? Only then parse.

Unchanged files cost one stat() and no read. A scan writes in batches of at most `BATCH_SECONDS` of
work, each one transaction, so another process (a git hook) never waits long for the write lock; a
document is indexed whole (row, chunks, links) or not at all, and a scan killed midway resumes where
it stopped, since the files it did not reach still differ from the index. When notes appear or
vanish, the links of their names are re-resolved once all documents are in (the names wait in
`meta`, so the next scan finishes that step if this one died first).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k0maru.config import Settings
from k0maru.index import PARSER_VERSION
from k0maru.index.document_store import NoteRecord
from k0maru.index.kind_rules import KIND_FOLDERS_META, decide_again, decided_kind
from k0maru.index.link_resolution import note_names
from k0maru.index.markdown import Link
from k0maru.index.prepare import Job, Prepared, prepare
from k0maru.index.scan_result import REBUILDING, SKIPPED, WALK_SKIPS, ProgressFn, ScanResult
from k0maru.index.snapshot import Walk
from k0maru.index.store import CachedDoc, Store
from k0maru.index.walker import Entry, VaultWalker

BATCH_SECONDS = 0.5
GROUP = 64  # files re-checked against the index with one query
LINKS_DIRTY = "links_dirty"  # key names whose links to re-resolve (JSON), "1" for every link
MAX_DIRTY_NAMES = 2000  # more names than this (a first scan): every link is re-resolved once


def same_stat(known: CachedDoc | None, entry: Entry) -> bool:
    """Whether a file's stat signature (mtime, size, ctime, inode, as git's index) is the one
    indexed."""
    return (
        known is not None
        and known.mtime_ns == entry.mtime_ns
        and known.size == entry.size
        and known.ctime_ns == entry.ctime_ns
        and known.inode == entry.inode
    )


@dataclass(frozen=True)
class _Ending:
    """What a scan records at its end: when it began, whether it keeps its counts (`record`), read
    every note for a new parser (`reparse_all`), left every file of the vault indexed (`whole`,
    through `walk` where the walk snapshot knew the walk)."""

    started: float
    t0: float
    record: bool
    reparse_all: bool
    whole: bool
    walk: Walk | None

    def writes(self, store: Store) -> bool:
        """Whether the end writes to the index even when no note changed."""
        return self.record or self.reparse_all or (self.whole and not store.readonly)


class IncrementalScanner:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        kind_rules: Callable[[Path], dict[str, str]] | None = None,
    ):
        """`kind_rules`: the folders the vault's rules name for each kind (folder -> kind), read
        at each scan; without it, those the last scan read."""
        self.store = store
        self.kind_rules = kind_rules
        self.settings = settings
        self.root: Path = store.vault
        self.walker = VaultWalker(self.root, settings.include, settings.exclude)
        # names of notes that appeared or vanished, and aliases added or dropped: the links of those
        # names are re-resolved at the end of the scan; an edit that keeps the names costs only its
        # own links
        self.changed_names: set[str] = set()
        self.skipped_now: dict[str, list[Any]] = {}  # the files this scan skipped: stat and why
        # folder -> kind, as the vault's rules files name them (`kind_rules`); read by a scan that
        # stores notes or walks the whole vault
        self.kind_folders: dict[str, str] | None = None

    def scan(
        self,
        full: bool = False,
        only: list[str] | None = None,
        progress: ProgressFn | None = None,
        record: bool = True,
        limit: int | None = None,
        walk: Walk | None = None,
    ) -> ScanResult:
        """Bring the index in line with the vault.

        full: re-read and re-parse every file. only: restrict to these vault-relative paths
        (a note just written by flush or distill); files of `only` that no longer exist are removed.
        limit: index at most this many new or changed files, the most recently modified first (a
        reader's bounded share of a backlog); the rest are counted in `deferred`. walk: the whole
        walk, known from the walk snapshot's check (`snapshot.known_walk`): only the files it
        found changed are read, and the scan then counts as a whole one.
        """
        started = time.time()
        t0 = time.perf_counter()
        reparse = self.store.get_meta("parser_version") != PARSER_VERSION
        walk = None if reparse else walk
        if walk is not None:
            only = walk.changed  # the other files are as the snapshot's walk found them
        reparse_all = reparse and only is None
        full = full or reparse_all  # the parser learned something: every note is read again, once
        # before the walk: what changes after it is another's
        known = self.store.cached_documents(only)
        entries = list(self._entries(only))
        result, work, gone = self._diff(entries, known, full, only)
        gone = self._listed(gone)
        work = self._bounded(work, limit, result)
        if only is None:
            self._walk_skips(result)
        links_dirty = dirty_names(self.store.get_meta(LINKS_DIRTY)) != set()
        kinds_due = self._kinds_due(work, only, walk)
        if work:
            self._write_batches(work, result, progress, full)
        ending = _Ending(
            started,
            t0,
            record=record,
            reparse_all=reparse_all,
            # every file of the vault is indexed: the walk snapshot records this scan
            whole=(only is None or walk is not None) and not result.deferred,
            walk=walk,
        )
        if any(
            (
                gone,
                result.changed,
                result.skipped,
                links_dirty,
                kinds_due,
                ending.writes(self.store),
            )
        ):
            with self.store.transaction():
                if gone:  # re-diff deletions under the write lock: another writer may have moved on
                    result.removed += self._remove(self._still_gone(entries, known, only))
                self._record_skips(only, work)
                self._resolve_dirty_links()
                if kinds_due:
                    decide_again(self.store, self.kind_folders or {})
                self._end(result, ending)
        result.elapsed_ms = (time.perf_counter() - t0) * 1000
        return result

    def _kinds_due(self, work: list[Any], only: list[str] | None, walk: Walk | None) -> bool:
        """The folders the rules name, read by a scan with notes to store or a whole walk; whether
        they changed since the notes' kinds were decided (every note's kind is then decided
        again)."""
        if not work and (only is not None or walk is not None):
            return False
        known = self.store.get_meta(KIND_FOLDERS_META) or "{}"
        if self.kind_rules is None:
            self.kind_folders = json.loads(known)
            return False
        self.kind_folders = self.kind_rules(self.root)
        return known != json.dumps(self.kind_folders, sort_keys=True)

    def _end(self, result: ScanResult, ending: _Ending) -> None:
        """What a scan records last, in its last transaction: the parser version that read every
        note, the scan's counts, the walk."""
        if ending.reparse_all:
            self.store.set_meta("parser_version", PARSER_VERSION)
        result.elapsed_ms = (time.perf_counter() - ending.t0) * 1000
        if ending.record:
            self.store.record_scan(ending.started, result.elapsed_ms, result.counts())
        if ending.whole:
            self._record_walk(result, ending.walk)

    @staticmethod
    def _bounded(
        work: list[tuple[Entry, CachedDoc | None]], limit: int | None, result: ScanResult
    ) -> list[tuple[Entry, CachedDoc | None]]:
        """At most `limit` of the files to read, the most recently edited first; the rest are
        counted as deferred."""
        if limit is None or len(work) <= limit:
            return work
        work.sort(key=lambda item: item[0].mtime_ns, reverse=True)  # just edited first
        result.deferred = len(work) - limit
        return work[:limit]

    def _walk_skips(self, result: ScanResult) -> None:
        """What the whole walk did not follow or list: counted, and named in the warnings."""
        result.symlinks = self.walker.linked
        result.skipped += len(self.walker.skips)
        result.warnings += [f"skipped {rel}: {why}" for rel, why in self.walker.skips]

    def _record_walk(self, result: ScanResult, walk: Walk | None) -> None:
        """A scan that left every file of the vault indexed: what the walk snapshot records."""
        result.corpus_version = self.store.corpus_version()
        if walk is not None:
            result.walked, result.folders = walk.walked, walk.folders
            result.signatures = walk.signatures
            result.unchanged += walk.files - len(walk.changed)
            return
        self.store.set_meta(REBUILDING, "0")  # every note is in: a rebuild is complete
        result.walked, result.folders = self.walker.walked, self.walker.folders
        result.signatures = self.walker.signatures

    def _remove(self, gone: list[tuple[str, int]]) -> int:
        """Delete the vanished notes (less those in folders the walk could not list); how many."""
        gone = self._listed(gone)
        if gone:
            gone_ids = [doc_id for _, doc_id in gone]
            self.changed_names |= self.store.link_names_of(gone_ids)
            self._mark_links_dirty()
            self.store.delete_documents(gone_ids)
            self.store.bump_corpus_version()
        return len(gone)

    def _resolve_dirty_links(self) -> None:
        """Re-resolve the links of the names waiting in `meta` (in the scan's last transaction)."""
        dirty = dirty_names(self.store.get_meta(LINKS_DIRTY))
        if dirty != set():
            self.store.reresolve_links(dirty)
            self.store.set_meta(LINKS_DIRTY, "0")

    def _still_gone(
        self, entries: list[Entry], known: dict[str, CachedDoc], only: list[str] | None
    ) -> list[tuple[str, int]]:
        """Under the write lock: the indexed notes this walk did not find, less those another writer
        (a flush, a hook's scan) indexed or changed since this scan began: it saw the file after
        this walk."""
        seen = {e.rel for e in entries}
        cached = self.store.cached_documents(only)
        scope = cached.keys() if only is None else {p for p in only if p in cached}
        return [(p, cached[p].id) for p in scope if p not in seen and known.get(p) == cached[p]]

    def _write_batches(
        self,
        work: list[tuple[Entry, CachedDoc | None]],
        result: ScanResult,
        progress: ProgressFn | None,
        full: bool,
    ) -> None:
        """Apply the work in transactions of about BATCH_SECONDS each; each file is re-checked under
        the lock (another writer may have indexed it meanwhile). Each group's files are read and
        parsed (index/prepare.py) before its writes."""
        total = len(work)
        cap, chars = self.settings.max_file_bytes, self.settings.chunk_chars
        jobs = [
            Job(e.rel, e.abspath, e.size, cap, k.xxh3_64 if k else None, full, chars)
            for e, k in work
        ]
        done = 0
        ready = map(prepare, jobs)
        while done < total:
            with self.store.transaction():
                t_batch = time.perf_counter()
                batch_changed = False
                links: list[tuple[int, Link]] = []
                while done < total and time.perf_counter() - t_batch < BATCH_SECONDS:
                    group = [entry for entry, _ in work[done : done + GROUP]]
                    done += len(group)
                    prepared = [next(ready) for _ in group]
                    batch_changed |= self._apply_group(group, prepared, result, full, links)
                    if progress is not None:
                        progress(done, total)
                if links:  # links to notes of later batches are resolved at the end of the scan
                    self.store.insert_links(links)
                if batch_changed or links:
                    self.store.bump_corpus_version()
                self._mark_links_dirty()

    def _apply_group(
        self,
        group: list[Entry],
        prepared: list[Prepared],
        result: ScanResult,
        full: bool,
        links: list[tuple[int, Link]],
    ) -> bool:
        """Index the files of `group` (read and parsed ahead: `prepared`) that differ from the
        index, re-checked under the lock; their links are added to `links`. Whether any document
        changed."""
        changed = False
        cached = self.store.cached_documents([e.rel for e in group])
        for entry, ready in zip(group, prepared, strict=True):
            known = cached.get(entry.rel)
            if not full and same_stat(known, entry):
                result.unchanged += 1
                continue
            one_changed, new_links = self._apply_one(entry, known, result, full, ready)
            changed |= one_changed
            links.extend(new_links)
        return changed

    def _mark_links_dirty(self) -> None:
        """Add the names that changed to those whose links the end of the scan re-resolves (call it
        inside the transaction that changed them)."""
        if not self.changed_names:
            return
        dirty = dirty_names(self.store.get_meta(LINKS_DIRTY))
        if dirty is not None:
            dirty |= self.changed_names
        value = "1" if dirty is None or len(dirty) > MAX_DIRTY_NAMES else json.dumps(sorted(dirty))
        self.store.set_meta(LINKS_DIRTY, value)
        self.changed_names = set()

    def _record_skips(
        self, only: list[str] | None, work: list[tuple[Entry, CachedDoc | None]]
    ) -> None:
        """Keep the stat of the files skipped (in the transaction): until one changes, it is not
        pending."""
        known = {} if only is None else self._skipped_files()
        for entry, _ in work:
            known.pop(entry.rel, None)
        known.update(self.skipped_now)
        if known or only is None:
            self.store.set_meta(SKIPPED, json.dumps(known))
        if only is None:
            self.store.set_meta(WALK_SKIPS, json.dumps(self.walker.skips))

    def _skipped_files(self) -> dict[str, list[Any]]:
        try:
            found: dict[str, list[Any]] = json.loads(self.store.get_meta(SKIPPED) or "{}")
        except ValueError:
            return {}
        return found

    def _unskipped(
        self, work: list[tuple[Entry, CachedDoc | None]]
    ) -> list[tuple[Entry, CachedDoc | None]]:
        """The work less the new files a scan skipped that have not changed since (binary, too
        big)."""
        skipped = self._skipped_files()
        return [
            (e, k)
            for e, k in work
            if k is not None or skipped.get(e.rel, [])[:2] != [e.mtime_ns, e.size]
        ]

    def pending_paths(self) -> list[str]:
        """Without writing: the paths of files that are new, possibly changed or gone."""
        entries = list(self._entries(None))
        _, work, gone = self._diff(entries, self.store.cached_documents(), False, None)
        work = self._unskipped(work)
        return [e.rel for e, _ in work] + [p for p, _ in self._listed(gone)]

    def pending(self) -> dict[str, int]:
        """Without writing: files that are new, possibly changed (mtime or size moved) or gone."""
        entries = list(self._entries(None))
        cached = self.store.cached_documents()
        _, work, gone = self._diff(entries, cached, False, None)
        work, gone = self._unskipped(work), self._listed(gone)
        return {
            "new": sum(1 for _, k in work if k is None),
            "changed": sum(1 for _, k in work if k is not None),
            "removed": len(gone),
        }

    @staticmethod
    def _diff(
        entries: list[Entry], cached: dict[str, CachedDoc], full: bool, only: list[str] | None
    ) -> tuple[ScanResult, list[tuple[Entry, CachedDoc | None]], list[tuple[str, int]]]:
        """Level 1 and 2 of the filter: unknown path -> work; same stat signature -> unchanged."""
        result = ScanResult()
        seen: set[str] = set()
        work: list[tuple[Entry, CachedDoc | None]] = []
        for entry in entries:
            seen.add(entry.rel)
            known = cached.get(entry.rel)
            if not full and same_stat(known, entry):
                result.unchanged += 1
                continue
            work.append((entry, known))
        scope = cached.keys() if only is None else {p for p in only if p in cached}
        gone = [(p, cached[p].id) for p in scope if p not in seen]
        return result, work, gone

    def _entries(self, only: list[str] | None) -> Iterator[Entry]:
        if only is None:
            yield from self.walker.walk()
            return
        allowed = {e.rel: e for e in self.walker.walk_paths(only)}
        yield from allowed.values()

    def _apply_one(
        self, entry: Entry, known: CachedDoc | None, result: ScanResult, full: bool, ready: Prepared
    ) -> tuple[bool, list[tuple[int, Link]]]:
        """Index one file as read and parsed ahead (`ready`); returns whether the index changed,
        and its links. Its outcomes in order: skipped unread (too big, gone, unreadable), the same
        bytes, skipped (not UTF-8 text, unparsable), parsed."""
        if ready.read < 0:
            self._skip(result, entry, known, ready.skip or "unreadable")
            return known is not None, []
        result.files_read += 1
        result.bytes_read += ready.read
        if known is not None and known.xxh3_64 == ready.digest and not full:
            self.store.touch_document(
                known.id, entry.mtime_ns, entry.size, entry.ctime_ns, entry.inode
            )
            result.unchanged += 1
            result.touched += 1
            return False, []
        if ready.note is None and ready.skip is None:  # left unparsed for a digest since replaced
            cap, chars = self.settings.max_file_bytes, self.settings.chunk_chars
            ready = prepare(Job(entry.rel, entry.abspath, entry.size, cap, None, True, chars))
        if ready.note is None:
            self._skip(result, entry, known, ready.skip or "unreadable")
            return known is not None, []
        return True, self._store_note(entry, known, result, ready)

    def _store_note(
        self, entry: Entry, known: CachedDoc | None, result: ScanResult, ready: Prepared
    ) -> list[tuple[int, Link]]:
        """Write a parsed note (row, tags, aliases, chunks); returns its links."""
        store, note, digest = self.store, ready.note, ready.digest
        assert note is not None
        result.warnings.extend(note.warnings)
        record = NoteRecord(
            entry.rel,
            entry.mtime_ns,
            entry.size,
            digest,
            note.title,
            entry.rel.rsplit("/", 1)[-1].removesuffix(".md").lower(),
            note.frontmatter,
            note.body,
            decided_kind(note.kind, note.frontmatter, entry.rel, self.kind_folders or {}),
            note.date,
            entry.ctime_ns,
            entry.inode,
            note.lang,
            ready.sig,
        )
        doc_id = store.upsert_document(record, known.id if known else None)
        if known is not None or note.tags:
            store.set_tags(doc_id, note.tags, new=known is None)
        if known is not None or note.aliases:
            self.changed_names |= store.set_aliases(doc_id, note.aliases)
        chunks = ready.chunks
        if known is None:
            store.insert_chunks(chunks, doc_id)
            result.new_chunks += len(chunks)
            result.added += 1
            self.changed_names |= note_names(entry.rel)
        else:
            result.new_chunks += store.replace_chunks(doc_id, chunks)
            store.delete_links_from([doc_id])
            if known.xxh3_64 == digest:
                result.unchanged += 1  # --full re-parse of identical content
            else:
                result.modified += 1
        return [(doc_id, link) for link in note.links]

    def _listed(self, gone: list[tuple[str, int]]) -> list[tuple[str, int]]:
        """The vanished notes, less those in a folder the walk could not list (not known to be
        gone)."""
        folders = tuple(self.walker.unreadable)
        return [g for g in gone if not g[0].startswith(folders)] if folders else gone

    def _skip(self, result: ScanResult, entry: Entry, known: CachedDoc | None, why: str) -> None:
        self.skipped_now[entry.rel] = [entry.mtime_ns, entry.size, why]
        result.skipped += 1
        result.warnings.append(f"skipped {entry.rel}: {why}")
        if known is not None:
            self.changed_names |= self.store.link_names_of([known.id])
            self.store.delete_documents([known.id])
            result.removed += 1


def why_not_indexed(
    root: Path, settings: Settings, recorded: list[tuple[str, str]], rel: str
) -> str | None:
    """Why the vault path `rel` holds no note of the index: the scans' own record of why they
    skipped it (`recorded`: binary, too big, not UTF-8, ...), else why the walk leaves it out, else
    that it waits for the next scan; None when there is no such file."""
    why = dict(recorded).get(rel)
    if why is not None:
        return why
    walker = VaultWalker(root, settings.include, settings.exclude)
    why = walker.why_left_out(rel)
    if why is None and os.path.isfile(root / rel):
        return "not indexed yet: the next scan reads it"
    return why


def dirty_names(value: str | None) -> set[str] | None:
    """The key names whose links wait to be re-resolved, as kept in `meta`; None: every link."""
    if not value or value == "0":
        return set()
    if value == "1":
        return None
    names: list[str] = json.loads(value)
    return set(names)
