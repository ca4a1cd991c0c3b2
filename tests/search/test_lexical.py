"""The incremental BM25 index: a persisted main segment plus a delta scored at query time."""

import dataclasses
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from k0maru.index.bm25_blob import SegmentBlob
from k0maru.index.store import BM25_MERGE_MIN as MERGE_MIN
from k0maru.index.store import Bm25State
from k0maru.search.lexical import LexicalCache, LexicalIndex, MainSegment
from k0maru.search.lexical_arrays import ArrayIndex
from k0maru.wiring.vault import Vault
from tests.helpers import write


def fresh_process(code: str) -> list[str]:
    """The lines a fresh Python process running `code` prints."""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return run.stdout.splitlines()


@pytest.fixture
def indexed(vault: Path) -> Path:
    for i in range(30):
        write(
            vault,
            f"n{i:02}.md",
            f"# Note {i}\n\nthe lease renewal runbook part {i} {'quokka ' * (i % 4)}\n",
        )
    with Vault.open(vault) as v:
        v.index(embed=False, lexical=True)
        state = v.store.bm25_state()
        assert state is not None
        assert state.backlog == 0
    return vault


def test_a_change_is_served_from_the_delta_without_a_rebuild(indexed: Path) -> None:
    write(indexed, "n01.md", "# Note 1\n\nnow about SQLITE_BUSY retries\n")
    (indexed / "n03.md").unlink()
    write(indexed, "new.md", "# New\n\nquokka quokka quokka quokka\n")
    with Vault.open(indexed) as v:
        v.index(embed=False, lexical=True)  # a small delta: scan leaves the main segment as it is
        state = v.store.bm25_state()
        assert state is not None
        assert state.backlog == 4  # n01's new chunk, new.md's chunk, and the two deleted chunks
        cache = LexicalCache()
        index = cache.get(v.store)
        assert cache.last_build_ms is None and index.delta_size == 4
        hits = {v.store.path_and_title(h.doc_id)[0]: h for h in index.search("quokka", 50)}
        assert (
            "n03.md" not in hits and "n01.md" not in hits
        )  # deleted, and edited away from the term
        assert next(iter(hits)) == "new.md"  # the delta's chunk ranks with the main segment's
        assert [v.store.path_and_title(h.doc_id)[0] for h in index.search("sqlite_busy", 5)] == [
            "n01.md"
        ]


def test_threads_asking_at_once_share_one_load(indexed: Path) -> None:
    """A server's warm-up and its first query ask the process's cache at the same moment: the
    segment is read once and both get the same index (each load costs a query the time of reading
    the blob)."""
    with Vault.open(indexed) as v:
        cache = LexicalCache()
        start = threading.Barrier(4)
        got: list[LexicalIndex] = []

        def ask() -> None:
            store = v.store  # this thread's own connection
            start.wait()
            got.append(cache.get(store))

        threads = [threading.Thread(target=ask) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(got) == 4 and all(index.main is got[0].main for index in got)


def test_an_index_loaded_by_a_thread_that_ended_still_answers(indexed: Path) -> None:
    """A server's warm-up thread loads the index and ends; the first query comes later, on a thread
    whose own connection closes the ended thread's: the index must not read through that one."""
    with Vault.open(indexed) as v:
        cache = LexicalCache()
        loader = threading.Thread(target=lambda: cache.get(v.store))
        loader.start()
        loader.join()
        answers: list[object] = []

        def query() -> None:
            try:
                answers.append(cache.get(v.store).search("quokka", 5))
            except Exception as exc:  # the assertion below names it
                answers.append(exc)

        asker = threading.Thread(target=query)
        asker.start()
        asker.join()
    assert isinstance(answers[0], list) and answers[0], answers


def test_a_query_reads_only_its_own_terms(indexed: Path) -> None:
    """The stored segment is a row per term: a query reads the rows of its words (as written and
    stemmed), not the whole segment."""
    with Vault.open(indexed) as v:
        index = LexicalCache().get(v.store)
        index.search("quokka runbook", 5)
        read = {t for t, p in index.main._read.items() if p}  # the terms read, held
        assert read == {"quokka", "=quokka", "runbook", "=runbook"}


@pytest.mark.slow
def test_a_bm25_search_never_imports_numpy(indexed: Path) -> None:
    """A fresh process's BM25 search scores its terms in plain Python: numpy (a slow import) and
    bm25s load only to build a segment."""
    out = fresh_process(
        "import sys; from k0maru.cli.main import main\n"
        f"main(['search', '--vault', {str(indexed)!r}, '--mode', 'bm25', '--json', 'quokka'])\n"
        "print('numpy' in sys.modules, 'bm25s' in sys.modules)"
    )
    assert out[-1] == "False False"
    assert '"n03.md"' in out[0]  # a note with "quokka" three times leads


@pytest.mark.parametrize("delta", [False, True])
def test_plain_python_and_array_scoring_rank_alike(indexed: Path, delta: bool) -> None:
    """A one-shot command scores in plain Python, a server over numpy arrays: the same notes,
    chunks, scores and shares of the query held, with or without a delta and stale chunks, a
    filter, and a query stemmed in two languages."""
    from k0maru.search.lexical import MainSegment, NoteEvidence

    for i in range(8):
        write(
            indexed, f"fr{i}.md", f"# Renouvellement {i}\n\nle bail est renouvelé, les baux {i}\n"
        )
    with Vault.open(indexed) as v:
        v.index(embed=False, lexical=True)
        MainSegment.build(v.store).save(v.store)
        if delta:
            write(indexed, "n05.md", "# Note 5\n\nquokka lease quokka renewals\n")
            (indexed / "n06.md").unlink()
            write(indexed, "fr9.md", "# Bail\n\nrenouvellement du bail\n")
            v.index(embed=False, lexical=True)
        plain, arrays = LexicalCache().get(v.store), LexicalCache(ArrayIndex).get(v.store)
        assert isinstance(arrays, ArrayIndex) and plain.delta_size == arrays.delta_size
        assert (plain.delta_size > 0) == delta
        allowed = {h.doc_id for h in plain.search("runbook", 12)}
        for query, docs in [
            ("quokka", None),
            ("lease renewal runbook", None),
            ("renewals", None),
            ("bail renouvelé", None),
            ("quokka lease", allowed),
        ]:
            for a, b in [(plain.search(query, 9, docs), arrays.search(query, 9, docs))]:
                assert [(h.chunk_id, h.matched) for h in a] == [(h.chunk_id, h.matched) for h in b]
                assert [h.score for h in a] == pytest.approx([h.score for h in b], rel=1e-9)
            evidence = NoteEvidence(0.35, 1.0)
            (pn, pc), (an, ac) = (
                plain.search_notes(query, 6, 9, evidence, docs),
                arrays.search_notes(query, 6, 9, evidence, docs),
            )
            assert [(n.doc_id, n.best.chunk_id) for n in pn] == [
                (n.doc_id, n.best.chunk_id) for n in an
            ], query
            assert [x for n in pn for x in (n.score, n.whole)] == pytest.approx(
                [x for n in an for x in (n.score, n.whole)], rel=1e-9
            )
            assert [h.chunk_id for h in pc] == [h.chunk_id for h in ac]


def test_a_segment_rebuilt_or_damaged_under_a_loaded_one_is_read_again(indexed: Path) -> None:
    """Another process merges after this one loaded the segment (its terms' rows now describe
    other chunk positions), or a term's row is damaged: the query reads or builds the segment
    again instead of answering from rows that do not match."""
    from k0maru.index import db
    from k0maru.index.store import db_path
    from k0maru.search.lexical import MainSegment, SegmentUnreadable

    with Vault.open(indexed) as v:
        loaded = LexicalCache().get(v.store)  # no term read yet
        write(indexed, "new.md", "# New\n\nquokka numbat numbat\n")
        v.index(embed=False, lexical=True)
        MainSegment.build(v.store).save(v.store)  # the other process's merge
        with pytest.raises(SegmentUnreadable) as moved:
            loaded.search("numbat", 5)
        assert not moved.value.damaged
        hits = v.recall.search("numbat", limit=3, mode="bm25").hits
        assert [h.path for h in hits] == ["new.md"]
    conn = db.connect(db_path(indexed))
    conn.execute("UPDATE bm25_terms SET scores = x'00' WHERE term = 'numbat'")
    conn.close()
    with Vault.open(indexed) as v:
        assert [h.path for h in v.recall.search("numbat", limit=3, mode="bm25").hits] == ["new.md"]
        assert v.recall.lexical.last_build_ms is not None  # the damaged segment was rebuilt


def test_the_first_process_keeps_the_delta_and_the_next_reads_it(indexed: Path) -> None:
    """Each one-shot query tokenised every chunk of the delta again (100 ms per query at 38,000
    notes after a 1% edit); the first to compute it for a corpus version keeps it in the index, the
    next reads it, and a new version or a merge computes it again."""
    write(indexed, "n04.md", "# Note 4\n\nquokka numbat\n")
    with Vault.open(indexed) as v:
        v.index(embed=False, lexical=True)
        version = v.store.corpus_version()
        first = LexicalCache().get(v.store)
        main = first.main.version
        assert v.store.bm25_delta(version, main) is not None
        hits = [(h.chunk_id, h.score) for h in first.search("numbat quokka", 9)]
        # the kept delta is the one read: a chunk's text changed behind the version's back is
        # not tokenised again
        v.store.conn.execute(
            "UPDATE chunks SET text = 'wombat' WHERE id > ?", (first.main.max_chunk_id,)
        )
        second = LexicalCache().get(v.store)
        assert [(h.chunk_id, h.score) for h in second.search("numbat quokka", 9)] == hits
        assert second.search("wombat", 9) == []
        write(indexed, "n05.md", "# Note 5\n\nnumbat\n")
        v.index(embed=False, lexical=True)
        now = v.store.corpus_version()
        assert now != version and v.store.bm25_delta(now, main) is None
        assert [h.doc_id for h in LexicalCache().get(v.store).search("wombat", 9)]  # computed again
        assert v.store.bm25_delta(now, main) is not None
        MainSegment.build(v.store).save(v.store)
        assert v.store.conn.execute("SELECT count(*) FROM bm25_delta").fetchone()[0] == 0


def test_a_query_never_waits_for_the_lock_to_keep_the_delta(indexed: Path) -> None:
    """Keeping the delta is a cache: with another writer holding the lock the query answers at
    once and keeps nothing (the index's busy timeout is 10 s)."""
    import time

    from k0maru.index import db
    from k0maru.index.store import db_path

    write(indexed, "n04.md", "# Note 4\n\nquokka numbat\n")
    with Vault.open(indexed) as v:
        v.index(embed=False, lexical=True)
        other = db.connect(db_path(indexed))
        other.execute("BEGIN IMMEDIATE")
        try:
            t0 = time.monotonic()
            index = LexicalCache().get(v.store)
            assert [h.chunk_id for h in index.search("numbat", 3)]
            assert time.monotonic() - t0 < 5
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert v.store.bm25_delta(v.store.corpus_version(), index.main.version) is None
        LexicalCache().get(v.store)
        assert v.store.bm25_delta(v.store.corpus_version(), index.main.version) is not None


def test_a_delta_chunk_scores_as_the_same_text_in_the_main_segment(indexed: Path) -> None:
    write(indexed, "copy.md", (indexed / "n07.md").read_text().replace("# Note 7", "# Note 7"))
    with Vault.open(indexed) as v:
        v.index(embed=False)
        hits = {
            v.store.path_and_title(h.doc_id)[0]: h.score
            for h in LexicalCache().get(v.store).search("quokka", 50)
        }
    assert hits["copy.md"] == pytest.approx(hits["n07.md"], rel=1e-6)


def test_the_delta_merges_once_it_grows_past_the_threshold(vault: Path) -> None:
    def due(chunks: int, backlog: int) -> bool:
        return Bm25State(1, 0, chunks, backlog).merge_due

    assert not due(100_000, 9_999) and due(100_000, 10_001) and not due(10, MERGE_MIN)
    write(vault, "seed.md", "# Seed\n\nfirst note\n")
    with Vault.open(vault) as v:
        v.index(embed=False, lexical=True)
        for i in range(MERGE_MIN + 1):
            write(vault, f"bulk/{i}.md", f"# Bulk {i}\n\nwombat {i}\n")
        v.index(embed=False, lexical=True)
        state = v.store.bm25_state()
        assert state is not None
        assert state.backlog == 0 and state.chunks == MERGE_MIN + 2
        assert v.store.lexical_stale() == []


@pytest.mark.slow
def test_a_scan_with_no_merge_due_does_not_load_the_lexical_index(indexed: Path) -> None:
    code = (
        "import sys; from k0maru.wiring.vault import Vault\n"
        f"with Vault.open({str(indexed)!r}) as v: v.index(embed=False, lexical=True)\n"
        "print('bm25s' in sys.modules, 'numpy' in sys.modules)"
    )
    assert fresh_process(code) == ["False False"]
    write(
        indexed, "n05.md", "# Note 5\n\nedited after the last merge\n"
    )  # a small delta: no merge due either
    assert fresh_process(code) == ["False False"]
    with Vault.open(indexed) as v:
        state = v.store.bm25_state()
        assert state is not None
        assert state.backlog == 2  # the edit's chunk replaced one: served as a delta


def test_the_delta_ranks_as_a_full_rebuild_would(indexed: Path) -> None:
    """IDF is exact for the corpus as it is now; only the average chunk length is the main
    segment's."""
    from k0maru.search.lexical import MainSegment

    for i in (0, 9, 18):  # a tenth of the notes, as when a merge is due
        write(
            indexed, f"n{i:02}.md", f"# Note {i}\n\nquokka renewal backlog {'lease ' * (i % 4)}\n"
        )
    (indexed / "n01.md").unlink()
    with Vault.open(indexed) as v:
        v.index(embed=False)
        incremental = LexicalCache().get(v.store)
        assert incremental.delta_size == 7  # 3 new chunks, 3 replaced and 1 deleted
        full = LexicalIndex(MainSegment.build(v.store), None, v.store.corpus_version())
        for query in ("quokka", "lease renewal", "runbook part", "backlog quokka lease"):
            got = {h.chunk_id: h.score for h in incremental.search(query, 100)}
            want = {h.chunk_id: h.score for h in full.search(query, 100)}
            assert set(got) == set(want)
            for chunk, score in want.items():
                assert got[chunk] == pytest.approx(score, rel=0.05)


def test_a_word_as_written_outranks_its_other_forms_which_still_count(vault: Path) -> None:
    """`files` scores a chunk by `files` itself; a chunk with only `file` gets a share of the stem's
    score; a word no chunk holds as written (`retries`) counts its other forms fully."""
    write(vault, "plural.md", "# Sync\n\ncopy the files to the mirror\n")
    write(vault, "singular.md", "# Paths\n\nfile file file: a file path per file\n")
    write(vault, "retry.md", "# Retry\n\nretry the job with backoff\n")
    write(vault, "other.md", "# Other\n\nnothing relevant here at all\n")
    with Vault.open(vault) as v:
        v.index(embed=False, lexical=True)
        index = LexicalCache().get(v.store)
        ranked = [v.store.path_and_title(h.doc_id)[0] for h in index.search("files", 5)]
        assert ranked == ["plural.md", "singular.md"]
        retry = index.search("retries", 5)
        stems_only = index.search("retry", 5)
        assert [h.doc_id for h in retry] == [h.doc_id for h in stems_only]
        assert retry[0].score == pytest.approx(stems_only[0].score, rel=1e-9)


def test_notes_in_other_scripts_are_found_by_their_words(vault: Path) -> None:
    """Before terms of any script, these notes had no BM25 term but `café`'s `caf`; an index of that
    older term format is rebuilt once by the next query."""
    notes = {
        "ru.md": "# Блокировка базы\n\nПри ошибке SQLITE_BUSY увеличьте busy_timeout и повторите запрос.\n",
        "zh.md": "# 数据库锁\n\n出现 SQLITE_BUSY 时，增加 busy_timeout 并重试事务。\n",
        "ja.md": "# アーカイブ\n\nアーカイブを作成し、それをファイルに書き込む。\n",
        "fr.md": "# Café\n\nLe café du matin règle la réunion.\n",
        "en.md": "# Retry\n\nretry the transaction\n",
    }
    for name, text in notes.items():
        write(vault, name, text)
    with Vault.open(vault) as v:
        v.index(embed=False, lexical=True)
        main = v.store.bm25_blob()
        assert main is not None
        older = dataclasses.replace(SegmentBlob.unpack(main[1]), terms_format=3)  # ASCII-only
        assert v.store.save_bm25(main[0], older.pack(), [("caf", b"", b"")], 10**9, 5)
        cache = LexicalCache()

        def top(query: str) -> str:
            return v.store.path_and_title(cache.get(v.store).search(query, 5)[0].doc_id)[0]

        assert top("повторите запрос") == "ru.md"
        assert cache.last_build_ms is not None  # the older segment was rebuilt, not read
        assert (
            top("重试事务") == "zh.md"
            and top("ファイルに書き込む") == "ja.md"
            and top("reunion cafe") == "fr.md"
        )
        assert [
            h.path for h in v.recall.search("увеличьте busy_timeout", limit=3, mode="bm25").hits
        ][0] == "ru.md"
        assert "重试事务" in v.recall.search("重试事务", limit=1, mode="bm25").hits[0].snippet


def test_the_lexical_channel_matches_plain_bm25s_on_every_labelled_set(tmp_path: Path) -> None:
    """The BM25 channel alone scores at least plain bm25s over whole notes (nDCG@10), on all four
    sets."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
    from eval_retrieval import DEFAULT_SETS, load_set, materialise, ndcg_at, plain_bm25s

    for n, (folder, demo) in enumerate(DEFAULT_SETS):
        queries, qrels = load_set(folder)
        work = tmp_path / str(n)
        work.mkdir()
        root, mapping = materialise(folder, demo, work)
        baseline = plain_bm25s(root)
        with Vault.open(root, embed=False) as v:
            v.index(embed=False, lexical=True)
            ours = plain = 0.0
            for qid, text in queries.items():
                hits = v.recall.search(text, limit=10, mode="bm25").hits
                ours += ndcg_at([mapping.get(h.path, h.path) for h in hits], qrels.get(qid, {}))
                plain += ndcg_at([mapping.get(p, p) for p in baseline(text)], qrels.get(qid, {}))
        assert ours >= plain, (folder.name, ours / len(queries), plain / len(queries))


def test_each_note_is_stemmed_in_its_language(vault: Path) -> None:
    """A German note's `Dateien` is found by `Datei` (German stems), in a German folder or by its
    text; an English stem would not match. A query that names no language is stemmed in English and
    in the vault's languages; one in German is stemmed in German only."""
    write(vault, "de/aufraeumen.md", "# Aufräumen\n\nAlte Dateien werden jede Nacht gelöscht.\n")
    write(vault, "en/cleanup.md", "# Cleanup\n\nOld files are deleted every night.\n")
    write(
        vault,
        "notiz.md",
        "# Notiz\n\nDie Sicherungen werden mit dem Skript in die Ablage kopiert.\n",
    )
    write(vault, "en/backups.md", "# Backups\n\nThe backups are copied to the store by a script.\n")
    with Vault.open(vault) as v:
        v.index(embed=False, lexical=True)

        def paths(query: str) -> list[str]:
            return [h.path for h in v.recall.search(query, limit=5, mode="bm25").hits]

        assert paths("Datei") == ["de/aufraeumen.md"]  # no language said: English and German
        assert paths("eine Datei") == ["de/aufraeumen.md"]  # said: German
        assert paths("Sicherung kopieren") == ["notiz.md"]  # detected by its text
        assert paths("file deleted")[0] == "en/cleanup.md"


def test_a_changed_language_tokenises_the_note_again(vault: Path) -> None:
    """The note's text is unchanged (its chunks are kept), only its frontmatter language: its words
    are tokenised again in the new language."""
    text = "# Dateien\n\nDateien löschen\n"
    write(vault, "a.md", text)
    write(vault, "b.md", "# Other\n\nsomething else entirely\n")
    with Vault.open(vault) as v:
        v.index(embed=False, lexical=True)
        assert v.store.document_by_path("a.md") is not None
        assert [h.path for h in v.recall.search("Datei", limit=5, mode="bm25").hits] == []
    write(vault, "a.md", "---\nlang: de\n---\n" + text)
    with Vault.open(vault) as v:
        v.index(embed=False, lexical=True)
        assert [h.path for h in v.recall.search("Datei", limit=5, mode="bm25").hits] == ["a.md"]
