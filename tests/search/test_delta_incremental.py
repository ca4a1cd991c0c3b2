"""A new corpus version's BM25 delta is built from the one kept for the version before: only the
chunks that one lacks are tokenised (a block of their own; its chunks gone since are stale), and
the result holds what the delta computed from scratch holds."""

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k0maru.index.bm25_store import Bm25Store
from k0maru.search.lexical import MAX_BLOCKS, Delta, LexicalIndex, MainSegment, _Block, _Kept
from k0maru.wiring.vault import Vault
from tests.helpers import write

WORDS = ["quokka", "lease", "renewal", "runbook", "tar", "archive", "files", "extract", "numbat"]
FRENCH = "le bail est renouvelé et les baux sont archivés dans le dossier"
QUERIES = ["quokka lease", "extract files", "bail renouvelé", "numbat archive runbook"]

# an edit: (note, what: 0 rewrite, 1 delete, 2 retitle, 3 French; words drawn for its body)
Edit = tuple[int, int, list[int]]
edits = st.lists(
    st.tuples(
        st.integers(0, 7), st.integers(0, 3), st.lists(st.integers(0, len(WORDS) - 1), max_size=12)
    ),
    min_size=1,
    max_size=6,
)


def _note(i: int, what: int, words: list[int], step: int) -> str:
    body = " ".join(WORDS[w] for w in words) or "empty"
    if what == 3:
        body = f"{FRENCH} {body}"
    title = f"Note {i}" if what != 2 else f"Retitled {i} {step}"
    return f"# {title}\n\n{body}\n\n## Part\n\n{body} {step}\n"


def _apply(root: Path, step: int, edit: Edit) -> None:
    i, what, words = edit
    path = root / f"n{i}.md"
    if what == 1:
        path.unlink(missing_ok=True)
    elif what == 2 and path.exists():  # the same sections under a new title
        first, rest = path.read_text().split("\n", 1)
        path.write_text(f"# Retitled {i} {step}\n{rest}")
    else:
        write(root, path.name, _note(i, what, words, step))


def _postings(blob: bytes | None, n: int) -> tuple[object, ...]:
    """What a kept delta holds, whatever its layout: each live chunk's id, note and terms' tf
    components (by chunk id), the main segment's stale positions and the size."""
    assert blob is not None
    kept = _Kept(blob)
    stale = set(kept.stale)
    chunks: dict[int, tuple[int, dict[str, float]]] = {
        c: (d, {})
        for p, (c, d) in enumerate(zip(kept.chunk_ids, kept.doc_ids, strict=True))
        if n + p not in stale
    }
    for block in kept.blocks:
        for term in block.starts:
            where, part = block.postings(term) or ([], [])
            for p, s in zip(where, part, strict=True):
                if p not in stale:
                    chunks[kept.chunk_ids[p - n]][1][term] = s
    return chunks, sorted(p for p in stale if p < n), kept.size


def _scores(main: MainSegment, delta: Delta, version: int) -> list[object]:
    index = LexicalIndex(main, delta, version)
    return [[(h.chunk_id, h.score) for h in index.search(q, 20)] for q in QUERIES]


def _step(store: Bm25Store, main: MainSegment) -> tuple[object, object]:
    """(postings, scores) of the delta built from the kept one, then of one from scratch."""
    version = store.corpus_version()
    n = len(main.chunk_ids)
    built = Delta.of(main, store, version)
    kept = store.bm25_delta(version, main.version)
    incremental = _postings(kept, n), _scores(main, built, version)
    store.conn.execute("DELETE FROM bm25_delta")
    scratch = Delta.of(main, store, version)
    assert store.bm25_delta(version, main.version) is not None
    return incremental, (
        _postings(store.bm25_delta(version, main.version), n),
        _scores(main, scratch, version),
    )


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds=st.lists(edits, min_size=2, max_size=4))
def test_an_incremental_delta_equals_one_computed_from_scratch(rounds: list[list[Edit]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for i in range(6):
            write(root, f"n{i}.md", _note(i, 0, [i, i + 1, 2], 0))
        with Vault.open(root) as v:
            v.index(embed=False, lexical=True)
            main = MainSegment.build(v.store)
            main.save(v.store)
            for step, edits_of_round in enumerate(rounds, 1):
                for edit in edits_of_round:
                    _apply(root, step, edit)
                v.index(embed=False, lexical=False)
                incremental, scratch = _step(v.store, main)
                assert incremental == scratch


def test_only_the_chunks_the_kept_delta_lacks_are_tokenised(vault: Path) -> None:
    """A second edit tokenises the edited note's chunks and carries the first edit's postings over
    from the kept delta: a term planted there for them is still there."""
    for i in range(6):
        write(vault, f"n{i}.md", _note(i, 0, [i, 2], 0))
    with Vault.open(vault) as v:
        v.index(embed=False, lexical=True)
        main = MainSegment.build(v.store)
        main.save(v.store)
        write(vault, "n1.md", _note(1, 0, [4, 5], 1))
        v.index(embed=False, lexical=False)
        version = v.store.corpus_version()
        Delta.of(main, v.store, version)
        kept = _Kept(v.store.bm25_delta(version, main.version) or b"")
        n = len(main.chunk_ids)
        kept.blocks.append(_Block.of({"planted": ([n], [0.5])}))
        v.store.keep_bm25_delta(version, main.version, kept.pack())
        write(vault, "n2.md", _note(2, 0, [7, 8], 2))
        v.index(embed=False, lexical=False)
        delta = Delta.of(main, v.store, v.store.corpus_version())
        assert len(delta.chunk_ids) == 4  # both notes' two chunks
        planted = delta.postings("planted")  # n1's first chunk: carried over
        assert planted is not None and list(planted[0]) == [n] and list(planted[1]) == [0.5]
        got = delta.postings("numbat")  # n2's new word: tokenised
        assert got is not None and list(got[0]) == [n + 2, n + 3]


def test_a_chunk_gone_from_the_kept_delta_is_stale_and_its_postings_stay(vault: Path) -> None:
    """Editing a note of the kept delta again leaves its old chunks where they were, stale (no
    posting is rewritten), and the note's new chunks come after them; past MAX_BLOCKS versions the
    blocks are joined into one, to the same postings."""
    for i in range(3):
        write(vault, f"n{i}.md", _note(i, 0, [i, 2], 0))
    with Vault.open(vault) as v:
        v.index(embed=False, lexical=True)
        main = MainSegment.build(v.store)
        main.save(v.store)
        n = len(main.chunk_ids)
        for step in range(1, MAX_BLOCKS + 2):
            write(vault, "n1.md", _note(1, 0, [step % 9], step))
            v.index(embed=False, lexical=False)
            delta = Delta.of(main, v.store, v.store.corpus_version())
            kept = _Kept(v.store.bm25_delta(v.store.corpus_version(), main.version) or b"")
            assert len(delta.chunk_ids) == 2 * step  # every version's two chunks, the last live
            assert set(range(n, n + 2 * step - 2)) <= delta.stale
            assert len(kept.blocks) == (step if step <= MAX_BLOCKS else 1)
            got = delta.postings("=" + WORDS[step % 9])
            assert got is not None and n + 2 * step - 1 in got[0]
        incremental, scratch = _step(v.store, main)  # the joined blocks hold the same postings
        assert incremental == scratch
