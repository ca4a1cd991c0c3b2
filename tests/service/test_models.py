"""The one wire shape: empty and default fields left out, floats at 4 significant digits."""

from k0maru.service.models import LogLine, LogNodeView, RecallHit, RecallResult


def test_payload_is_compact() -> None:
    hit = RecallHit(path="a.md", title="A", score=0.016393442622950821, snippet="s")
    out = RecallResult(query="q", mode="hybrid", hits=[hit]).payload()
    assert out == {
        "query": "q",
        "mode": "hybrid",
        "hits": [{"path": "a.md", "title": "A", "score": 0.01639, "snippet": "s"}],
    }


def test_log_lines_carry_match_only_when_grepping() -> None:
    view = LogNodeView(
        node_id="n", command="c", exit_code=1, raw_lines=3, lines=[LogLine(n=1, text="x")]
    )
    assert view.payload()["lines"] == [{"n": 1, "text": "x"}] and "truncated" not in view.payload()
    grep = LogLine(n=2, text="y", match=False).payload()
    assert grep == {"n": 2, "text": "y", "match": False}
