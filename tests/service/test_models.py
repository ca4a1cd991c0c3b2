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


def test_timestamps_and_counts_are_never_rounded_only_scores() -> None:
    from k0maru.service.models import LogNode, TokenScoreboard

    node = LogNode(
        node_id="n", task_id="t", created_at=1796404635.13, command="pytest", exit_code=1,
        log_path=".k0maru/refs/n.log", raw_lines=123457, raw_tokens=9876543, summary_tokens=1234,
        saved_tokens=9875309, estimator="o200k", stack="python", error_codes=[],
        first_location=None, failures=[],
    )  # fmt: skip
    out = node.payload()
    assert out["created_at"] == 1796404635.13 and out["raw_tokens"] == 9876543
    board = TokenScoreboard(
        offloads=3, raw_tokens=9876543, summary_tokens=1234, saved_tokens=9875309,
        ratio=8003.6815235, price_per_mtok=3.0, saved_usd=29.625927,
        points=[{"created_at": 1796404635.13, "saved_tokens": 9875309}],
    )  # fmt: skip
    sent = board.payload()
    assert sent["saved_usd"] == 29.625927 and sent["points"][0]["created_at"] == 1796404635.13
    hit = RecallHit(path="a.md", title="A", score=0.0163934426, snippet="s", cosine=0.712345678)
    assert hit.payload()["score"] == 0.01639 and hit.payload()["cosine"] == 0.7123
