"""IncrementalScanner: known path? -> same mtime and size? -> same xxh3_64? Only then parse.

Unchanged files cost one stat() and no read. A scan's writes form one transaction: if the
process dies halfway, the index is exactly as it was before the scan.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from k0maru.config import Settings
from k0maru.index.markdown import Link, chunk_note, hash_bytes, parse_note
from k0maru.index.store import CachedDoc, Store
from k0maru.index.walker import Entry, VaultWalker

ProgressFn = Callable[[int, int], None]
_BINARY_PROBE = 8192


@dataclass(slots=True)
class ScanResult:
    added: int = 0
    modified: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: int = 0
    touched: int = 0  # mtime changed, content identical: counted in unchanged, not re-parsed
    files_read: int = 0
    bytes_read: int = 0
    new_chunks: int = 0
    elapsed_ms: float = 0.0
    warnings: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.modified or self.removed)

    def counts(self) -> dict[str, int]:
        return {"added": self.added, "modified": self.modified, "unchanged": self.unchanged,
                "removed": self.removed, "skipped": self.skipped}


class IncrementalScanner:
    def __init__(self, store: Store, settings: Settings):
        self.store = store
        self.settings = settings
        self.root: Path = store.vault
        self.walker = VaultWalker(self.root, settings.include, settings.exclude)

    def scan(self, full: bool = False, only: list[str] | None = None, progress: ProgressFn | None = None,
             record: bool = True) -> ScanResult:
        """Bring the index in line with the vault.

        full: re-read and re-parse every file. only: restrict to these vault-relative paths
        (the git hook's changed files); files of `only` that no longer exist are removed.
        """
        started = time.time()
        t0 = time.perf_counter()
        entries = list(self._entries(only))
        result, work, gone = self._diff(entries, self.store.cached_documents(only), full, only)
        if work or gone:
            with self.store.transaction():
                # re-diff under the write lock: another writer (a hook, the MCP server) may have moved on
                result, work, gone = self._diff(entries, self.store.cached_documents(only), full, only)
                structural, new_links = self._apply(work, result, progress, full)
                if gone:
                    self.store.delete_documents([doc_id for _, doc_id in gone])
                    result.removed += len(gone)
                    structural = True
                if structural or new_links:
                    resolve = self.store.link_resolver()
                    if structural:
                        self.store.reresolve_links(resolve)
                    self.store.insert_links(new_links, resolve)
                if result.changed:
                    self.store.bump_corpus_version()
                result.elapsed_ms = (time.perf_counter() - t0) * 1000
                if record:
                    self.store.record_scan(started, result.elapsed_ms, result.counts())
        else:
            result.elapsed_ms = (time.perf_counter() - t0) * 1000
            if record:
                with self.store.transaction():
                    self.store.record_scan(started, result.elapsed_ms, result.counts())
        return result

    def pending(self) -> dict[str, int]:
        """Without writing: files that are new, possibly changed (mtime or size moved) or gone."""
        entries = list(self._entries(None))
        cached = self.store.cached_documents()
        _, work, gone = self._diff(entries, cached, False, None)
        return {"new": sum(1 for _, k in work if k is None), "changed": sum(1 for _, k in work if k is not None),
                "removed": len(gone)}

    @staticmethod
    def _diff(entries: list[Entry], cached: dict[str, CachedDoc], full: bool, only: list[str] | None
              ) -> tuple[ScanResult, list[tuple[Entry, CachedDoc | None]], list[tuple[str, int]]]:
        """Level 1 and 2 of the filter: unknown path -> work; same mtime and size -> unchanged."""
        result = ScanResult()
        seen: set[str] = set()
        work: list[tuple[Entry, CachedDoc | None]] = []
        for entry in entries:
            seen.add(entry.rel)
            known = cached.get(entry.rel)
            if known is not None and not full and known.mtime_ns == entry.mtime_ns and known.size == entry.size:
                result.unchanged += 1
                continue
            work.append((entry, known))
        scope = cached.keys() if only is None else {p for p in only if p in cached}
        gone = [(p, cached[p].id) for p in scope if p not in seen]
        return result, work, gone

    def _entries(self, only: list[str] | None):
        if only is None:
            yield from self.walker.walk()
            return
        allowed = {e.rel: e for e in self.walker.walk_paths(only)}
        yield from allowed.values()

    def _apply(self, work: list[tuple[Entry, CachedDoc | None]], result: ScanResult,
               progress: ProgressFn | None, full: bool) -> tuple[bool, list[tuple[int, Link]]]:
        """Read, hash and (if needed) parse each candidate.

        Returns whether link targets may have moved (documents added, removed or re-aliased),
        and the links of the (re)parsed documents, inserted once all documents are known.
        """
        store = self.store
        cap = self.settings.max_file_bytes
        structural = False
        new_links: list[tuple[int, Link]] = []
        total = len(work)
        for done, (entry, known) in enumerate(work, start=1):
            if progress is not None and (done % 64 == 0 or done == total):
                progress(done, total)
            if entry.size > cap:
                self._skip(result, entry, known, f"{entry.size:,} bytes is above max_file_bytes={cap:,}; "
                           "raise it in .k0maru/config.toml or exclude the file")
                structural |= known is not None
                continue
            try:
                with open(entry.abspath, "rb") as fh:
                    data = fh.read()
            except OSError as exc:
                self._skip(result, entry, known, f"unreadable ({exc.strerror}); check its permissions")
                structural |= known is not None
                continue
            result.files_read += 1
            result.bytes_read += len(data)
            digest = hash_bytes(data)
            if known is not None and known.xxh3_64 == digest and not full:
                store.touch_document(known.id, entry.mtime_ns, entry.size)
                result.unchanged += 1
                result.touched += 1
                continue
            if b"\x00" in data[:_BINARY_PROBE]:
                self._skip(result, entry, known, "binary content (NUL bytes); exclude it or remove it from the vault")
                structural |= known is not None
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                self._skip(result, entry, known, f"not valid UTF-8 (byte {exc.start}); re-save it as UTF-8")
                structural |= known is not None
                continue
            if text.startswith("\ufeff"):
                text = text[1:]
            note = parse_note(entry.rel, text)
            result.warnings.extend(note.warnings)
            stem = entry.rel.rsplit("/", 1)[-1].removesuffix(".md").lower()
            doc_id = store.upsert_document(entry.rel, entry.mtime_ns, entry.size, digest, note.title, stem,
                                           note.frontmatter, note.body, known.id if known else None)
            if (known is not None or note.aliases) and store.set_aliases(doc_id, note.aliases):
                structural = True
            new_links.extend((doc_id, link) for link in note.links)
            chunks = chunk_note(note.title, note.body, self.settings.chunk_chars)
            if known is None:
                store.insert_chunks([(doc_id, c.ord, c.heading, c.text, c.hash) for c in chunks])
                result.new_chunks += len(chunks)
                result.added += 1
                structural = True
            else:
                result.new_chunks += store.replace_chunks(doc_id, chunks)
                store.delete_links_from([doc_id])
                if known.xxh3_64 == digest:
                    result.unchanged += 1  # --full re-parse of identical content
                else:
                    result.modified += 1
        return structural, new_links

    def _skip(self, result: ScanResult, entry: Entry, known: CachedDoc | None, why: str) -> None:
        result.skipped += 1
        result.warnings.append(f"skipped {entry.rel}: {why}")
        if known is not None:
            self.store.delete_documents([known.id])
            result.removed += 1
