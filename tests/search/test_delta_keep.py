"""The background worker's index run keeps the BM25 delta of the version it leaves (`keep_delta`),
so the first query after it tokenises only what changed since, not the notes the worker indexed."""

import subprocess
import sys
from pathlib import Path

import pytest

from k0maru.search.lexical import Delta, LexicalCache, MainSegment, _Block, _Kept
from k0maru.wiring.vault import Vault
from tests.helpers import write


@pytest.fixture
def indexed(vault: Path) -> Path:
    for i in range(12):
        write(vault, f"n{i:02}.md", f"# Note {i}\n\nthe lease renewal runbook part {i}\n")
    with Vault.open(vault) as v:
        v.index(embed=False, lexical=True)
        assert v.store.bm25_version() == v.store.corpus_version()
    return vault


def test_a_run_with_keep_delta_keeps_the_delta_a_query_would_compute(indexed: Path) -> None:
    write(indexed, "n03.md", "# Note 3\n\nquokka numbat\n")
    (indexed / "n05.md").unlink()
    with Vault.open(indexed) as v:
        v.index(embed=False, lexical=True, keep_delta=True)
        version, main = v.store.corpus_version(), v.store.bm25_version()
        assert main is not None and main != version
        kept = v.store.bm25_delta(version, main)
        assert kept is not None
        found = LexicalCache().get(v.store).search("quokka", 9)
        assert v.store.path_and_title(found[0].doc_id)[0] == "n03.md"
        hits = [(h.chunk_id, h.score) for h in found]
        # the same as the query's own, computed from scratch
        v.store.conn.execute("DELETE FROM bm25_delta")
        row = v.store.bm25_blob()
        assert row is not None
        Delta.of(MainSegment.from_blob(row[1], row[0]), v.store, version)
        assert v.store.bm25_delta(version, main) == kept
        assert [
            (h.chunk_id, h.score) for h in LexicalCache().get(v.store).search("quokka", 9)
        ] == hits


def test_a_run_that_changes_nothing_or_is_no_workers_keeps_no_delta(indexed: Path) -> None:
    with Vault.open(indexed) as v:
        v.index(embed=False, lexical=True, keep_delta=True)  # nothing changed
        assert v.store.conn.execute("SELECT count(*) FROM bm25_delta").fetchone()[0] == 0
        write(indexed, "n01.md", "# Note 1\n\nwombat\n")
        v.index(embed=False, lexical=True)  # a run without it (a query's, a scan's)
        assert v.store.bm25_delta(v.store.corpus_version(), v.store.bm25_version() or 0) is None


def test_the_worker_tokenises_only_what_changed_and_joins_the_blocks(indexed: Path) -> None:
    """The chunks of the delta kept before are carried over, not tokenised again (a term planted
    in its block is still there), and the blocks are joined: a query never pays for the join."""
    write(indexed, "n02.md", "# Note 2\n\nquokka\n")
    with Vault.open(indexed) as v:
        v.index(embed=False, lexical=True)
        main = v.store.bm25_version()
        assert main is not None
        version = v.store.corpus_version()
        LexicalCache().get(v.store)  # a query keeps this version's delta
        kept = _Kept(v.store.bm25_delta(version, main) or b"")
        n = v.store.conn.execute("SELECT chunks FROM bm25_index").fetchone()[0]
        kept.blocks.append(_Block.of({"planted": ([n], [0.5])}))
        v.store.keep_bm25_delta(version, main, kept.pack())
        write(indexed, "n04.md", "# Note 4\n\nnumbat\n")
        v.index(embed=False, lexical=True, keep_delta=True)
        now = _Kept(v.store.bm25_delta(v.store.corpus_version(), main) or b"")
        assert len(now.blocks) == 1
        planted = now.postings("planted")
        assert planted is not None and list(planted[0]) == [n]
        got = now.postings("=numbat")
        assert got is not None and len(got[0]) == 1


@pytest.mark.slow
def test_keeping_the_delta_imports_no_numpy(indexed: Path) -> None:
    write(indexed, "n06.md", "# Note 6\n\nquokka\n")
    code = (
        "import sys; from k0maru.wiring.vault import Vault\n"
        f"with Vault.open({str(indexed)!r}) as v:\n"
        "    v.index(embed=False, lexical=True, keep_delta=True)\n"
        "    print(v.store.bm25_delta(v.store.corpus_version(), v.store.bm25_version()) is not None)\n"
        "print('bm25s' in sys.modules, 'numpy' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.splitlines() == ["True", "False False"]
