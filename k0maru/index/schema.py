"""The index schema, as an ordered list of migrations. Never edit a shipped step: append one."""

from __future__ import annotations

EMBED_DIM = 384

MIGRATIONS: list[str] = [
    # 1: documents, chunks, links, vectors, persisted BM25, scan history
    f"""
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE documents (
        id          INTEGER PRIMARY KEY,
        path        TEXT NOT NULL UNIQUE,
        mtime_ns    INTEGER NOT NULL,
        size        INTEGER NOT NULL,
        xxh3_64     TEXT NOT NULL,
        title       TEXT NOT NULL,
        stem        TEXT NOT NULL,
        frontmatter TEXT NOT NULL,
        body        TEXT NOT NULL,
        indexed_at  REAL NOT NULL
    );
    CREATE INDEX documents_stem ON documents(stem);
    CREATE TABLE aliases (
        doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        alias  TEXT NOT NULL
    );
    CREATE INDEX aliases_alias ON aliases(alias);
    CREATE INDEX aliases_doc ON aliases(doc_id);
    CREATE TABLE chunks (
        id       INTEGER PRIMARY KEY,
        doc_id   INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ord      INTEGER NOT NULL,
        heading  TEXT NOT NULL,
        text     TEXT NOT NULL,
        hash     TEXT NOT NULL,
        embedded INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX chunks_doc ON chunks(doc_id);
    CREATE INDEX chunks_pending ON chunks(embedded) WHERE embedded = 0;
    CREATE TABLE links (
        src_id     INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        target     TEXT NOT NULL,
        target_key TEXT NOT NULL,
        heading    TEXT,
        display    TEXT,
        dst_id     INTEGER REFERENCES documents(id) ON DELETE SET NULL
    );
    CREATE INDEX links_src ON links(src_id);
    CREATE INDEX links_dst ON links(dst_id);
    CREATE VIRTUAL TABLE vec_chunks USING vec0(embedding float[{EMBED_DIM}] distance_metric=cosine);
    CREATE TRIGGER chunks_drop_vector AFTER DELETE ON chunks WHEN old.embedded = 1
    BEGIN
        DELETE FROM vec_chunks WHERE rowid = old.id;
    END;
    CREATE TABLE bm25_index (
        id             INTEGER PRIMARY KEY CHECK (id = 1),
        corpus_version INTEGER NOT NULL,
        built_at       REAL NOT NULL,
        blob           BLOB NOT NULL
    );
    CREATE TABLE scans (
        id         INTEGER PRIMARY KEY,
        started_at REAL NOT NULL,
        elapsed_ms REAL NOT NULL,
        added      INTEGER NOT NULL,
        modified   INTEGER NOT NULL,
        unchanged  INTEGER NOT NULL,
        removed    INTEGER NOT NULL,
        skipped    INTEGER NOT NULL
    );
    """,
    # 2: offloaded logs
    """
    CREATE TABLE offloads (
        node_id        TEXT PRIMARY KEY,
        task_id        TEXT NOT NULL,
        created_at     REAL NOT NULL,
        command        TEXT NOT NULL,
        exit_code      INTEGER,
        log_path       TEXT NOT NULL,
        raw_lines      INTEGER NOT NULL,
        raw_bytes      INTEGER NOT NULL,
        raw_tokens     INTEGER NOT NULL,
        summary_tokens INTEGER NOT NULL,
        estimator      TEXT NOT NULL,
        stack          TEXT NOT NULL,
        error_codes    TEXT NOT NULL,
        first_location TEXT,
        failures       TEXT NOT NULL,
        mermaid        TEXT NOT NULL,
        summary        TEXT NOT NULL
    );
    CREATE INDEX offloads_created ON offloads(created_at);
    """,
    # 3: tags, kind and date of each note, for filters
    """
    ALTER TABLE documents ADD COLUMN kind TEXT;
    ALTER TABLE documents ADD COLUMN note_date REAL;
    CREATE TABLE tags (
        doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        tag    TEXT NOT NULL,
        PRIMARY KEY (doc_id, tag)
    ) WITHOUT ROWID;
    CREATE INDEX tags_tag ON tags(tag);
    CREATE INDEX documents_kind ON documents(kind);
    CREATE INDEX documents_date ON documents(note_date);
    """,
    # 4: each chunk's heading path and file lines (section answers); incremental BM25: the persisted
    # index is a main segment up to `max_chunk_id`; chunks above it and chunks deleted since it was
    # built (`lexical_stale`) form a delta scored at query time
    """
    ALTER TABLE bm25_index ADD COLUMN max_chunk_id INTEGER NOT NULL DEFAULT -1;
    ALTER TABLE bm25_index ADD COLUMN chunks INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE lexical_stale (chunk_id INTEGER PRIMARY KEY);
    ALTER TABLE chunks ADD COLUMN section TEXT NOT NULL DEFAULT '';
    ALTER TABLE chunks ADD COLUMN line_start INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE chunks ADD COLUMN line_end INTEGER NOT NULL DEFAULT 0;
    CREATE TRIGGER chunks_lexical_stale AFTER DELETE ON chunks
    BEGIN
        INSERT OR IGNORE INTO lexical_stale(chunk_id) VALUES (old.id);
    END;
    """,
    # 5: the BM25 segment's small columns before its blob, so reading them no longer walks the
    # blob's overflow pages (on every query after an edit); the old segment, of an older term
    # format, is dropped and rebuilt once
    """
    DROP TABLE bm25_index;
    CREATE TABLE bm25_index (
        id             INTEGER PRIMARY KEY CHECK (id = 1),
        corpus_version INTEGER NOT NULL,
        built_at       REAL NOT NULL,
        max_chunk_id   INTEGER NOT NULL DEFAULT -1,
        chunks         INTEGER NOT NULL DEFAULT 0,
        blob           BLOB NOT NULL
    );
    DELETE FROM lexical_stale;
    -- a new corpus version: the walk snapshot no longer vouches for the index, so the next scan rebuilds
    -- the segment instead of the first query
    UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'corpus_version';
    """,
    # 6: what a scan compares, as a covering index: reading every document's stat no longer pages
    # through the note bodies, which would otherwise be mapped into the scanning process
    """
    CREATE INDEX documents_stat ON documents(path, mtime_ns, size, xxh3_64);
    """,
    # 7: vectors keyed by content: a chunk's vector outlives its row, under the hash of the text the
    # model read, so a rename, a move or a branch switch back finds it instead of embedding the text
    # again
    """
    CREATE TABLE vector_keep (
        hash       TEXT PRIMARY KEY,
        embedding  BLOB NOT NULL,
        dropped_at REAL NOT NULL
    );
    CREATE INDEX vector_keep_age ON vector_keep(dropped_at);
    CREATE INDEX chunks_hash ON chunks(hash);
    DROP TRIGGER chunks_drop_vector;
    CREATE TRIGGER chunks_drop_vector AFTER DELETE ON chunks WHEN old.embedded = 1
    BEGIN
        INSERT OR REPLACE INTO vector_keep(hash, embedding, dropped_at)
            SELECT old.hash, embedding, julianday('now') FROM vec_chunks WHERE rowid = old.id;
        DELETE FROM vec_chunks WHERE rowid = old.id;
    END;
    """,
    # 8: a file's stat signature is git's: mtime, size, ctime and inode, so an edit that keeps the
    # size and restores the mtime (`cp -p`, `rsync -a`, `tar x`, `touch -r`) is seen; every file is
    # read (not re-parsed) once, on the first scan after this step
    """
    ALTER TABLE documents ADD COLUMN ctime_ns INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE documents ADD COLUMN inode INTEGER NOT NULL DEFAULT 0;
    DROP INDEX documents_stat;
    CREATE INDEX documents_stat ON documents(path, mtime_ns, size, xxh3_64, ctime_ns, inode);
    """,
    # 9: how long an offloaded command ran (NULL for the records kept before)
    """
    ALTER TABLE offloads ADD COLUMN duration_s REAL;
    """,
    # 10: the language each note's words are stemmed in ('' for English) and the MinHash signature
    # of its body that folds near-identical notes (index/copies.py); the parser's version moves, so
    # the next scan fills both, and the BM25 segment, of a new term format, is rebuilt
    """
    ALTER TABLE documents ADD COLUMN lang TEXT NOT NULL DEFAULT '';
    ALTER TABLE documents ADD COLUMN copy_sig BLOB NOT NULL DEFAULT x'';
    CREATE INDEX documents_lang ON documents(lang);
    """,
    # 11: each link's key name (its last path component), so a note that appears or vanishes
    # re-resolves only the links that could mean it, not every link of the vault
    """
    ALTER TABLE links ADD COLUMN target_name TEXT NOT NULL DEFAULT '';
    UPDATE links SET target_name = substr(target_key, length(rtrim(target_key, replace(target_key, '/', ''))) + 1);
    CREATE INDEX links_name ON links(target_name);
    """,
    # 12: the BM25 main segment's postings, one row per term, so a query reads only its own terms
    # (its blob keeps the chunks' ids); the segment of the older format is rebuilt once
    """
    CREATE TABLE bm25_terms (
        term   TEXT PRIMARY KEY,
        chunks BLOB NOT NULL,
        scores BLOB NOT NULL
    );
    DELETE FROM bm25_index;
    DELETE FROM lexical_stale;
    UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'corpus_version';
    """,
    # 13: the BM25 delta's postings, kept for the corpus version and main segment they were
    # computed over, so every process after the first reads them instead of tokenising its chunks
    """
    CREATE TABLE bm25_delta (
        id             INTEGER PRIMARY KEY CHECK (id = 1),
        corpus_version INTEGER NOT NULL,
        main_version   INTEGER NOT NULL,
        blob           BLOB NOT NULL
    );
    """,
]
