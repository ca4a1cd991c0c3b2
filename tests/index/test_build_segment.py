"""The BM25 main segment's build: what it holds is what bm25s builds from plain token lists."""

from pathlib import Path

import bm25s

from k0maru.search.lexical import K1, B, MainSegment
from k0maru.search.terms import INDEX, tokenize
from k0maru.wiring.vault import Vault
from tests.helpers import write


def plain_build(corpus: list[tuple[int, int, str, str, str, str]]) -> tuple[bm25s.BM25, float]:
    """bm25s over a list of token-id lists and a plain vocabulary, as its documentation shows."""
    vocab: dict[str, int] = {}
    docs = [
        [
            vocab.setdefault(t, len(vocab))
            for t in tokenize(f"{title}\n{heading}\n{text}", INDEX, lang)
        ]
        for _, _, title, heading, text, lang in corpus
    ]
    bm25 = bm25s.BM25(k1=K1, b=B, method="lucene")
    bm25.index((docs, vocab), show_progress=False)
    return bm25, max(sum(map(len, docs)) / len(docs), 1.0)


def test_the_built_segment_holds_what_bm25s_builds_from_token_lists(vault: Path) -> None:
    for i in range(12):
        body = f"retry the lease {'lease ' * i}renewal step {i}\n\n## Rollback\n\nundo step {i}\n"
        write(vault, f"n{i:02}.md", f"# Note {i}\n\n{body}")
    write(vault, "de.md", "# Anleitung\n\nDie Verbindungen werden wiederholt geöffnet.\n")
    write(vault, "short.md", "# a\n\nb\n")  # a chunk of no indexable term
    with Vault.open(vault) as v:
        v.index(embed=False, lexical=True)
        main = MainSegment.build(v.store)
        bm25, avgdl = plain_build(list(v.store.lexical_corpus()))
    assert main.built is not None
    assert main.size == bm25.scores["num_docs"] and main.avgdl == avgdl
    indptr, indices, data = (bm25.scores[k] for k in ("indptr", "indices", "data"))
    expected = {
        term: (
            indices[indptr[i] : indptr[i + 1]].astype("int32").tobytes(),
            data[indptr[i] : indptr[i + 1]].astype("float32").tobytes(),
        )
        for term, i in bm25.vocab_dict.items()
        if i + 1 < len(indptr)
    }
    assert len(expected) > 30
    assert dict(main.built.items()) == expected
