"""`read_note` of a note that is one 1.9 MB token, or one 1.9 MB line of CJK without a space, over
the SDK's stdio client: an answer within 10 s (it took 48-74 s and 29 s when the token count merged
such a piece whole; `k0maru.llm_tokens.count_tokens` now counts it in slices)."""

import time
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.types import CallToolResult

from tests.helpers import scan, write
from tests.mcp.test_mcp import run_session

pytestmark = pytest.mark.slow  # end-to-end: a real server process (see CONTRIBUTING.md)

NOTES = {
    "token.md": "# one token\n\nhostile " + "a" * 1_900_000 + "\n",
    "cjk.md": "# cjk line\n\nhostile " + "漢字" * 316_000 + "\n",  # 1.9 MB of UTF-8
}


def test_read_note_of_a_huge_token_or_cjk_line_answers_within_ten_seconds(vault: Path) -> None:
    for name, text in NOTES.items():
        write(vault, name, text)
    assert scan(vault).added == len(NOTES)

    async def body(s: ClientSession) -> dict[tuple[str, str], tuple[CallToolResult, float]]:
        answers = {}
        for name in NOTES:
            for lines in ("", "3"):  # the whole note (its lines that fit), the huge line alone
                started = time.perf_counter()
                answer = await s.call_tool("read_note", {"path": name, "lines": lines or None})
                answers[name, lines] = answer, time.perf_counter() - started
        return answers

    for (name, lines), (answer, seconds) in run_session(vault, body).items():
        assert not answer.is_error, answer.content
        got = answer.structured_content
        assert got is not None and got["truncated"] is True, (name, lines)
        first = NOTES[name].splitlines()[int(lines or 1) - 1]
        assert 0 < len(got["text"]) < 20_000 and got["text"].startswith(first[:20])
        assert seconds < 10, (name, lines, seconds)
