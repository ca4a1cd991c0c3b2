"""The ranking's pure steps, each alone against values worked out by hand: the graph's boost, the
passage that answers for a note, the vector vote while vectors are pending, and the collapse of
chunk hits into notes. (Fusion and folding have their own tests: test_recall.py,
test_folding.py.)"""

from __future__ import annotations

import pytest

from k0maru.search.lexical import LexicalHit
from k0maru.search.recall import _doc_ranking, centred, graph_boosts, passage_scores, pending_weight
from k0maru.search.vectors import VectorHit


def test_the_graph_boost_is_the_best_linked_score_capped_at_the_own_score() -> None:
    fused = {1: 0.8, 2: 0.2, 3: 0.5, 4: 0.9}
    titles = {1: "One", 2: "Two", 3: "Three"}
    boosts = graph_boosts([(1, 2), (3, 1)], 0.5, fused, titles)
    # 1 is linked with 2 (0.2) and 3 (0.5): the best is 0.5, under its own 0.8
    assert boosts[1] == (0.5 * 0.5, ["linked from [[Three]]", "links to [[Two]]"])
    # 2 is linked with 1 (0.8), capped at its own 0.2: a link at most doubles a score
    assert boosts[2] == (0.5 * 0.2, ["linked from [[One]]"])
    assert boosts[3] == (0.5 * 0.5, ["links to [[One]]"])
    assert 4 not in boosts  # no link among the candidates, no boost and no reason
    # a boost of 0 still reports the links, so --explain shows the graph
    assert graph_boosts([(1, 2)], 0.0, fused, titles)[1] == (0.0, ["links to [[Two]]"])


def test_the_passage_is_the_chunk_with_the_best_fused_score() -> None:
    bm25 = [LexicalHit(10, 1, 4.0), LexicalHit(11, 1, 2.0), LexicalHit(20, 2, 1.0)]
    vec = [VectorHit(11, 1, 0.9), VectorHit(21, 2, 0.1), VectorHit(30, 3, 0.6)]
    best = passage_scores(bm25, vec, {1, 2}, w_bm25=0.5, floor=0.2)
    # note 1: chunk 10 = 0.5*4/4 = 0.5; chunk 11 = 0.5*2/4 + 0.5*(0.9-0.2)/0.8 = 0.25 + 0.4375
    assert best[1] == 11
    # note 2: chunk 21's cosine is under the floor and casts no vote: chunk 20 answers
    assert best[2] == 20
    assert 3 not in best  # not a candidate


def test_while_vectors_are_pending_the_vector_vote_is_centred_on_the_median() -> None:
    parts = {1: (0.5, 0.3), 2: (0.2, 0.1), 3: (0.0, 0.2), 4: (0.4, 0.25)}
    out, borrowed = centred(parts, unembedded={4})
    # the median of the embedded candidates' votes (0.1, 0.2, 0.3) is 0.2; note 4, without a
    # vector, takes the vote of note 1, the nearest in BM25 (0.5 against its 0.4)
    assert out == {
        1: (0.5, pytest.approx(0.1)),
        2: (0.2, pytest.approx(-0.1)),
        3: (0.0, 0.0),
        4: (0.4, pytest.approx(0.1)),
    }
    assert borrowed == {4: 1}
    assert centred({4: (0.4, 0.25)}, unembedded={4}) == ({4: (0.4, 0.0)}, {})
    # BM25's weight grows as the share embedded falls, with its square
    assert pending_weight(0.4, 1.0) == pytest.approx(0.4)
    assert pending_weight(0.4, 0.5) == pytest.approx(1 - 0.6 * 0.25)
    assert pending_weight(0.4, 0.0) == 1.0


def test_chunk_hits_collapse_into_notes_ranked_by_their_best_chunk() -> None:
    hits = [LexicalHit(5, 2, 3.0), LexicalHit(6, 1, 2.5), LexicalHit(7, 2, 2.0)]
    order, best = _doc_ranking(hits)
    assert order == [2, 1]
    assert best[2].chunk_id == 5 and best[1].chunk_id == 6
