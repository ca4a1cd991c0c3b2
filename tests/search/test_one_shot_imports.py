"""What a one-shot `k0maru search --mode bm25` imports (#62): the lexical path only. Each module
named here costs a start-up such a search never uses: the vector channel and its libraries, the
server's watcher, the scan's parser (nothing changed), the `regex` module (ASCII query and notes),
the token counter (no --budget), the service's models but recall's (no filter flag)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from tests.helpers import write
from tests.test_start_time import fresh_imports, within

NOT_ON_A_BM25_SEARCH = (
    "k0maru.search.vectors",
    "k0maru.search.embedding",
    "k0maru.search.lexical_arrays",
    "k0maru.search.wordpiece",
    "k0maru.service.watcher",
    "k0maru.service.models",
    "k0maru.service.scan_report",
    "k0maru.index.scanner",
    "k0maru.index.markdown",
    "k0maru.llm_tokens",
    "k0maru.mcp",
    "regex",
    "numpy",
    "onnxruntime",
    "tokenizers",
    "bm25s",
    "sqlite_vec",
    "pydantic",
    "yaml",
    "mcp",
)


def test_a_bm25_search_imports_only_the_lexical_path(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from k0maru.cli.main import main

    monkeypatch.setenv("K0MARU_EMBED", "false")
    for i, topic in enumerate(["tar archives", "network ports", "git commits"]):
        write(vault, f"notes/n{i}.md", f"# Note {i}\n\nHow to list {topic}. Then undo it.\n")
    argv = ["search", "--mode", "bm25", "--vault", str(vault), "--json", "list network ports"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["scan", "--vault", str(vault), "--no-embed"]) == 0
        assert main(argv) == 0  # the settings' cache is written: the search a user repeats
    out = io.StringIO()
    with fresh_imports() as seen, contextlib.redirect_stdout(out):
        from k0maru.cli.main import main as fresh_main

        assert fresh_main(argv) == 0
    answer = json.loads(out.getvalue())
    assert [h["path"] for h in answer["hits"]][:1] == ["notes/n1.md"]
    assert {"k0maru.search.lexical", "k0maru.search.snippets"} <= seen
    assert sorted(n for n in seen if within(n, NOT_ON_A_BM25_SEARCH)) == []
