"""The MCP tools through the SDK's in-memory client (fast tier): each answer complete in its text
block and in its structured content, within budget in either, with nothing sent twice; the listing
tools, annotations, paginated resources and one-line errors."""

from __future__ import annotations

import dataclasses
import io
import json
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client

from k0maru.llm_tokens import count_tokens
from k0maru.mcp.runner import LocalRunner
from k0maru.mcp.server import PAGE_SIZE, build_server, instructions
from k0maru.mcp.tools import TOOLS
from k0maru.service.operations import Service
from tests.helpers import write

LOGS = Path(__file__).parents[1] / "data" / "logs"


def sent(result: Any) -> tuple[str, str]:
    """(text block, structured content as the SDK serialises it) of a tool result."""
    structured = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
    assert len(result.content) == 1
    return result.content[0].text, structured


@pytest.fixture
def service(demo: Path) -> Iterator[Service]:
    with Service.open(str(demo)) as svc:
        yield svc


def call(service: Service, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with Client(build_server(LocalRunner(service))) as client:
            return await body(client)

    return anyio.run(main)


def offload_log(vault: Path, name: str, command: str) -> str:
    """Offload a captured log as `k0maru offload` does with piped input; its node id."""
    from k0maru.offload import records
    from k0maru.offload.runner import run_offload
    from k0maru.wiring.vault import Vault

    with Vault.open(vault, writes_state=True) as v, (LOGS / name).open("rb") as log:
        outcome = run_offload(
            v.root,
            None,
            threshold=50,
            stdin=log,
            out=io.BytesIO(),
            err=io.BytesIO(),
            save_record=lambda rec: records.save(
                v.store, dataclasses.replace(rec, command=command)
            ),
        )
    assert outcome.record is not None
    return outcome.record.node_id


def test_every_tool_is_annotated_and_named_in_the_instructions(service: Service) -> None:
    tools = call(service, lambda c: c.list_tools()).tools
    assert {t.name for t in tools} == {s.name for s in TOOLS} >= {"list_log_nodes", "read_note"}
    text = instructions()
    for t in tools:
        a = t.annotations
        # idempotent, each: a host may send a call again
        assert a is not None and a.open_world_hint is False and a.idempotent_hint is True
        assert a.read_only_hint is (t.name not in ("flush_session", "distill_session_skill"))
        assert a.read_only_hint or a.destructive_hint is False
        assert t.output_schema and t.name in text
    assert "`k0maru offload -- CMD`" in text and "pytest" in text and "inspect_log_node" in text


def test_tool_descriptions_are_the_docstrings_without_their_layout(service: Service) -> None:
    """The model reads each tool's docstring word for word, one line a paragraph: the indentation
    and line breaks of the source cost tokens and say nothing."""
    tools = {t.name: t.description or "" for t in call(service, lambda c: c.list_tools()).tools}
    for spec in TOOLS:
        sent_text = tools[spec.name]
        assert sent_text.split() == (spec.fn.__doc__ or "").split()
        assert "  " not in sent_text and "\n " not in sent_text
    paid = sum(count_tokens(d) for d in tools.values())
    assert paid < sum(count_tokens(s.fn.__doc__ or "") for s in TOOLS)


def test_recall_text_is_the_whole_answer_within_budget(service: Service) -> None:
    async def body(c: Client) -> Any:
        return await c.call_tool(
            "recall_memory", {"query": "SQLITE_BUSY during the nightly backup"}
        )

    result = call(service, body)
    text, structured = sent(result)
    hits = result.structured_content["hits"]
    assert len(hits) == 8
    for rank, hit in enumerate(hits, 1):  # every field the structured hit carries is in the text
        assert f"{rank}. {hit['title']} · {hit['path']}:{hit['lines']}" in text
        assert hit["snippet"].split("\n")[0] in text
        if "heading" in hit:
            assert f"section: {hit['heading']}" in text
    assert count_tokens(text) <= 1000 and count_tokens(structured) <= 1000
    assert text.count(hits[0]["snippet"]) == 1 and structured.count(hits[0]["snippet"]) == 1


def test_an_off_topic_recall_is_one_line(service: Service) -> None:
    async def body(c: Client) -> Any:
        return await c.call_tool("recall_memory", {"query": "recipe for banana bread"})

    result = call(service, body)
    text, _ = sent(result)
    assert result.structured_content["hits"] == []
    assert "\n" not in text and text.startswith("nothing in the vault answers"), text


def test_a_pasted_backtrace_is_not_echoed_back(service: Service) -> None:
    trace = (LOGS / "python_raise_from.log").read_text()
    trace = (trace * (2000 // len(trace) + 1))[:2000]

    async def body(c: Client) -> Any:
        return await c.call_tool("recall_memory", {"query": trace, "limit": 3})

    result = call(service, body)
    text, structured = sent(result)
    assert len(result.structured_content["query"]) <= 81
    for part in (text, structured):  # the longest run of the query sent back is the short echo
        assert trace[:200] not in part and count_tokens(part) < 700


def test_min_score_leaves_out_weaker_hits(service: Service) -> None:
    async def body(c: Client) -> Any:
        every = await c.call_tool("recall_memory", {"query": "lease renewal", "limit": 8})
        floor = every.structured_content["hits"][2]["score"]
        strong = await c.call_tool(
            "recall_memory", {"query": "lease renewal", "limit": 8, "min_score": floor}
        )
        return every, floor, strong

    every, floor, strong = call(service, body)
    kept = strong.structured_content["hits"]
    assert 3 <= len(kept) < len(every.structured_content["hits"])
    assert all(h["score"] >= floor for h in kept)


def test_log_summary_goes_out_once_per_part_and_hints_name_tools(
    demo: Path, service: Service
) -> None:
    node = offload_log(demo, "pytest_many_verbose.log", "pytest -v")

    async def body(c: Client) -> Any:
        return await c.call_tool("inspect_log_node", {"node_id": node})

    result = call(service, body)
    text, structured = sent(result)
    summary = result.structured_content["summary"]
    assert text == summary and "mermaid" not in result.structured_content
    assert "```mermaid" not in text and "k0maru log show" not in text
    assert f'inspect_log_node(node_id="{node}"' in text
    first_line = summary.splitlines()[0]
    assert text.count(first_line) == 1 and structured.count(first_line) == 1
    assert count_tokens(text) < result.structured_content["raw_tokens"] / 4


def test_list_log_nodes_newest_first_with_filters(demo: Path, service: Service) -> None:
    failing = offload_log(demo, "pytest_many_verbose.log", "pytest -v")
    time.sleep(1.1)
    cargo = offload_log(demo, "cargo_test_many.log", "cargo test")

    async def body(c: Client) -> Any:
        return [
            await c.call_tool("list_log_nodes", args)
            for args in ({}, {"command": "CARGO"}, {"since": "1h"}, {"since": "yesterday"})
        ]

    every, cargo_only, recent, bad = call(service, body)
    ids = [n["node_id"] for n in every.structured_content["nodes"]]
    assert ids[:2] == [cargo, failing]  # newest first
    text, _ = sent(every)
    assert text.index(cargo) < text.index(failing)
    assert len(recent.structured_content["nodes"]) == 2
    listed = cargo_only.structured_content["nodes"]
    assert [n["node_id"] for n in listed] == [cargo] or all("cargo" in n["command"] for n in listed)
    assert bad.is_error and bad.content[0].text.startswith("since 'yesterday' is not an age")


def test_read_note_range_heading_and_budget(demo: Path) -> None:
    long = "# Long\n\n## Alpha\n\n" + "".join(f"alpha line {i}\n" for i in range(3000))
    long += "\n## Beta\n\nbeta only\n"
    write(demo, "long-note.md", long)

    async def body(c: Client) -> Any:
        return [
            await c.call_tool("read_note", args)
            for args in (
                {"path": "20_Cards/sqlite-busy-timeout.md"},
                {"path": "20_Cards/sqlite-busy-timeout.md", "lines": "2:4"},
                {"path": "long-note.md", "heading": "beta"},
                {"path": "long-note.md", "token_budget": 300},
                {"path": "../../etc/passwd"},
            )
        ]

    with Service.open(str(demo)) as service:
        service.scan()
        whole, part, beta, cut, outside = call(service, body)
    note = (demo / "20_Cards/sqlite-busy-timeout.md").read_text().splitlines()
    assert whole.structured_content["text"] == "\n".join(note)
    assert part.structured_content["text"] == "\n".join(note[1:4])
    assert part.structured_content["lines"] == "2-4"
    text, _ = sent(part)
    assert text.endswith("\n".join(note[1:4])) and "lines 2-4 of" in text
    assert beta.structured_content["text"] == "## Beta\n\nbeta only"
    assert cut.structured_content["truncated"] is True
    for part_sent in sent(cut):
        assert count_tokens(part_sent) <= 300
    assert outside.is_error and "root:" not in outside.content[0].text

    async def missing(c: Client) -> Any:
        return await c.call_tool("read_note", {"path": "no/such-note.md"})

    with Service.open(str(demo)) as service:
        gone = call(service, missing)
    assert gone.is_error and "take the path from a recall_memory hit" in gone.content[0].text


def test_resources_come_a_page_at_a_time(tmp_path: Path) -> None:
    from k0maru.wiring.vault import Vault

    root = tmp_path / "many"
    for i in range(PAGE_SIZE + 57):
        write(root, f"n/{i:04d}.md", f"# Note {i}\n\nbody {i}\n")
    with Vault.open(root, embed=False) as v:
        v.index(embed=False)

    async def body(c: Client) -> Any:
        pages = [await c.list_resources()]
        while pages[-1].next_cursor:
            pages.append(await c.list_resources(cursor=pages[-1].next_cursor))
        try:
            await c.list_resources(cursor="not-a-cursor")
            bad = None
        except Exception as exc:  # the SDK raises its protocol error type
            bad = str(exc)
        return pages, bad

    with Service.open(str(root)) as svc:
        pages, bad = call(svc, body)
    assert [len(p.resources) for p in pages] == [PAGE_SIZE, 57]
    uris = {str(r.uri) for p in pages for r in p.resources}
    assert len(uris) == PAGE_SIZE + 57 and "k0maru://note/n/0000.md" in uris
    assert bad is not None and "cursor" in bad


def test_an_unforeseen_failure_is_one_line_with_its_cause(demo: Path, service: Service) -> None:
    (demo / "decisions").rename(demo / "decisions-moved")
    (demo / "decisions").write_text("a file where the decisions folder was\n")

    async def body(c: Client) -> Any:
        return await c.call_tool(
            "flush_session", {"title": "Batch renewals", "body": "One call per worker."}
        )

    result = call(service, body)
    message = result.content[0].text
    assert result.is_error and "\n" not in message and len(message) < 300
    assert "Error executing tool" not in message
    assert message.startswith("flush_session failed: FileExistsError: ")


def test_distill_never_cites_a_card_it_wrote(service: Service) -> None:
    """Two E0502 failures in a row, then the first again: no card cites or links a distilled card
    (the first would be "Fixed before" in the second), and the third call is the first card,
    unchanged."""
    traces = [(LOGS / n).read_text() for n in ("rustc_e0502.log", "cargo_build_color_e0502.log")]

    async def body(c: Client) -> Any:
        return [
            await c.call_tool("distill_session_skill", {"trace": t}) for t in (*traces, traces[0])
        ]

    first, second, again = (r.structured_content for r in call(service, body))
    stem = first["note_path"].rsplit("/", 1)[-1].removesuffix(".md")
    assert first["note_outcome"] == second["note_outcome"] == "created"
    assert stem not in second["related_notes"] and f"[[{stem}]]" not in second["card_markdown"]
    fixed = [line for line in second["card_markdown"].splitlines() if "Fixed before" in line]
    assert fixed and all("e0502-cannot-borrow" not in line for line in fixed)  # human notes only
    assert again["note_outcome"] == "up_to_date" and again["note_path"] == first["note_path"]


@pytest.mark.filterwarnings("ignore:open_binary is deprecated")  # bpe-openai's own call
def test_the_token_counter_keeps_its_vocabulary_cut_once_per_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The counter's ranks come from the user's cache after the first build (reading the vocabulary
    was most of the first answer's wait), identical to a fresh read, and a damaged cache file is
    read past; one left by an older install (its vocabulary file not recorded) is removed."""
    from k0maru import llm_tokens

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    old = tmp_path / "k0maru" / "tokens" / "o200k_base-0123456789abcdef.marshal"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"x" * 1000)
    fresh = llm_tokens._read_ranks(llm_tokens.vocabulary_file(), llm_tokens._COMMON)
    assert llm_tokens._cached_ranks(llm_tokens._COMMON) == fresh
    (kept,) = (tmp_path / "k0maru" / "tokens").glob("*.marshal")
    assert kept != old
    assert llm_tokens._cached_ranks(llm_tokens._COMMON) == fresh
    kept.write_bytes(b"\x00damaged")
    assert llm_tokens._cached_ranks(llm_tokens._COMMON) == fresh
    import bpe_openai

    text = "SQLITE_BUSY · lease renewal → retry"
    encoder = llm_tokens._Encoder(llm_tokens._COMMON)
    assert encoder.count(text) == len(bpe_openai.get_encoding("o200k_base").encode(text))


def test_the_token_counters_cache_keeps_a_few_cuts_not_one_per_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first text a process counts decides the bytes of its vocabulary cut, and each cut was
    kept for good: a user's cache grew by 2 MB for every new mix of characters (43 cuts, 87 MB, on
    this machine in a day). Only the most recently used few are kept."""
    from k0maru import llm_tokens

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = tmp_path / "k0maru" / "tokens"
    for letter in "éñøßçå":  # six processes, each starting on a text with a letter of its own
        monkeypatch.setattr(llm_tokens, "_encoder", None)
        assert llm_tokens.count_tokens(f"naïve {letter} retry") > 0
    cuts = sorted(folder.glob("*.marshal"))
    assert len(cuts) == llm_tokens.CACHED_CUTS
    assert all(c.with_name(c.name + ".source").is_file() for c in cuts)
    assert len(list(folder.glob("*.source"))) == len(cuts)


@pytest.mark.filterwarnings("ignore:open_binary is deprecated")  # bpe-openai's own call
def test_every_text_is_counted_exactly_by_the_counters_own_merges() -> None:
    """The counter applies o200k's byte-pair merges itself (tiktoken's encoder held 35 MB more):
    the same count as bpe-openai's encoder on every log of the test data cut to answer-sized
    texts, on other scripts, on a lone surrogate (replaced, as tiktoken does) and on long runs
    of one character, whose single BPE piece a quadratic merge took seconds over."""
    import bpe_openai

    from k0maru import llm_tokens

    texts = [
        text[i : i + 3000]
        for log in sorted(LOGS.glob("*.log"))
        for text in [log.read_text(errors="replace")]
        for i in range(0, min(len(text), 30_000), 3000)
    ]
    texts += ["déjà vu — ✓", "日本語のログ 🚀", "Ключ аренды: `SQLITE_BUSY`", " " * 200, "=" * 200]
    texts += ["-" * 20_000, "ab" * 5000 + "\n", "x" * 100_000]
    reference = bpe_openai.get_encoding("o200k_base")
    encoder = llm_tokens._Encoder(llm_tokens._EVERY_BYTE)
    assert [encoder.count(t) for t in texts] == [len(reference.encode(t)) for t in texts]
    surrogate = "lease \udc80 renewal"
    assert encoder.count(surrogate) == len(reference.encode("lease \ufffd renewal"))
    assert "tiktoken" not in sys.modules


@pytest.mark.slow
def test_the_first_answer_builds_the_token_counter_once(demo: Path) -> None:
    """After the warm-up, a recall and its text block need no second build of the counter over the
    whole vocabulary (a separator outside the bytes it covers once built it twice for the first
    answer)."""
    import subprocess
    import sys

    code = (
        "from k0maru import llm_tokens\n"
        "from k0maru.mcp import render\nfrom k0maru.mcp.tools import recall_memory\n"
        "from k0maru.service.operations import Service\n"
        f"svc = Service.open({str(demo)!r})\nsvc.warm_up()\nbuilt = llm_tokens.loaded_vocabulary()\n"
        "r = recall_memory(svc, 'SQLITE_BUSY during the nightly backup')\n"
        "llm_tokens.count_tokens(render.recall_text(r))\n"
        "print(built, llm_tokens.loaded_vocabulary(), len(r.hits))\nsvc.close()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    built, after, hits = map(int, out.stdout.split())
    assert hits == 8 and 0 < built == after < 199_998


def test_the_loadout_fits_its_budget_in_either_part(service: Service) -> None:
    async def body(c: Client) -> Any:
        return [
            await c.call_tool("get_project_loadout", {"token_budget": b}) for b in (300, 800, 2000)
        ]

    for budget, result in zip((300, 800, 2000), call(service, body), strict=True):
        text, structured = sent(result)
        assert count_tokens(text) <= budget and count_tokens(structured) <= budget
        assert result.structured_content["sections"]
        for section in result.structured_content["sections"]:
            assert section["text"] in text  # the text block holds every section whole


def test_the_model_loads_beside_the_warm_up(demo: Path) -> None:
    """A server starts loading the embedding model in a thread of its own (onnxruntime builds its
    session without the interpreter lock); none is started with embeddings off."""
    with Service.open(str(demo)) as svc:
        thread = svc.load_model_early()
        assert thread is not None
        thread.join(timeout=60)
        vault = svc._vault
        assert vault._embedder_loaded and vault._embedder is not None
        assert vault.embedder is vault._embedder  # the warm-up and the first query take this one
    with Service.open(str(demo), settings={"embed": False}) as svc:
        assert svc.load_model_early() is None


def test_inspect_log_node_pages_matches_and_greps_within_lines(
    demo: Path, service: Service
) -> None:
    """299 PASSED lines: the first page says how to get the next, `skip` pages on to the last one,
    and `lines` with `pattern` searches only the range."""
    node = offload_log(demo, "pytest_many_verbose.log", "pytest -v")
    raw = (LOGS / "pytest_many_verbose.log").read_text().splitlines()
    passed = [n for n, line in enumerate(raw, 1) if "PASSED" in line]
    ranged = [n for n in passed if 100 <= n <= 140]

    async def body(c: Client) -> Any:
        pages = []
        args: dict[str, Any] = {"node_id": node, "pattern": "PASSED", "context": 0}
        while True:
            pages.append(await c.call_tool("inspect_log_node", args))
            following = pages[-1].structured_content.get("next_skip")
            if following is None or len(pages) > 10:
                break
            args = {**args, "skip": following}
        grep = {"node_id": node, "pattern": "PASSED", "lines": "100:140", "context": 0}
        return pages, await c.call_tool("inspect_log_node", grep)

    pages, within = call(service, body)
    seen = [line["n"] for p in pages for line in p.structured_content["lines"] if line.get("match")]
    assert seen == passed and len(pages) == 6  # 50 a page, each match once
    first, _ = sent(pages[0])
    assert "299 match(es); matches 1-50 shown" in first and "skip=50" in first
    last, _ = sent(pages[-1])
    assert "matches 251-299 shown" in last and "call again" not in last
    got = [line["n"] for line in within.structured_content["lines"]]
    assert got == ranged and within.structured_content["matches"] == len(ranged)
    text, _ = sent(within)
    assert f"{len(ranged)} match(es) in lines 100:140" in text


def test_recall_says_what_it_cut_to_fit_and_how_to_get_it(service: Service) -> None:
    """`limit: 50` finds more than 1,000 tokens hold: the lower hits go before any kept passage
    becomes a stub, and the answer says how many went, how many passages were shortened and the
    token_budget that returns them whole (which does). Each hit's score names the mode it is on the
    scale of."""

    async def body(c: Client) -> Any:
        cut = await c.call_tool("recall_memory", {"query": "lease renewal", "limit": 50})
        big = {"query": "lease renewal", "limit": 50, "token_budget": 32000}
        whole = await c.call_tool("recall_memory", big)
        explained = await c.call_tool("recall_memory", {"query": "lease renewal", "explain": True})
        bm25 = await c.call_tool("recall_memory", {"query": "lease renewal", "mode": "bm25"})
        return cut, whole, explained, bm25

    cut, whole, explained, bm25 = call(service, body)
    got, found = cut.structured_content, whole.structured_content
    assert "left_out" not in found and "passages_cut" not in found
    assert got["left_out"] > 0 and len(got["hits"]) + got["left_out"] == len(found["hits"])
    assert [h["path"] for h in got["hits"]] == [h["path"] for h in found["hits"]][
        : len(got["hits"])
    ]
    for kept, full in zip(got["hits"], found["hits"], strict=False):
        assert kept["snippet"] == full["snippet"] or len(kept["snippet"]) >= 150  # never a stub
    text, structured = sent(cut)
    assert count_tokens(text) <= 1000 and count_tokens(structured) <= 1000
    assert f"the {got['left_out']} lower hit(s) left out" in text
    assert f"token_budget={got['whole_tokens']} returns them whole" in text and "read_note(" in text
    again = {"query": "lease renewal", "limit": 50, "token_budget": got["whole_tokens"]}
    assert call(service, lambda c: c.call_tool("recall_memory", again)).structured_content == found
    explained_text, _ = sent(explained)
    left = explained.structured_content.get("left_out", 0)
    assert len(explained.structured_content["hits"]) + left == 8
    assert not left or f"the {left} lower hit(s) left out" in explained_text
    bm25_text, _ = sent(bm25)
    assert "· bm25 score 1\n" in bm25_text and "· hybrid score " in text


def test_errors_carry_the_specs_codes_and_say_what_was_meant(service: Service) -> None:
    """A note that does not exist is JSON-RPC -32002 for a client on MCP 2025-11-25 and -32602 (with
    data.uri) from 2026-07-28 on; an unknown tool is -32602 naming the likely tool and every one; a
    wrong note path or kind gets the one meant and the valid ones, in the tool's one line."""
    from mcp.shared.exceptions import MCPError

    async def errors(mode: str) -> dict[str, Any]:
        async with Client(build_server(LocalRunner(service)), mode=mode) as c:
            out: dict[str, Any] = {"version": c.protocol_version}
            for key, call_it in (
                ("resource", lambda: c.read_resource("k0maru://note/Home")),
                ("tool", lambda: c.call_tool("recall", {"query": "lease"})),
            ):
                with pytest.raises(MCPError) as raised:
                    await call_it()
                out[key] = raised.value.error
            out["note"] = await c.call_tool("read_note", {"path": "Home"})
            out["kind"] = await c.call_tool("recall_memory", {"query": "lease", "kind": "banana"})
            out["cards"] = await c.call_tool("recall_memory", {"query": "lease", "kind": "cards"})
            return out

    legacy = anyio.run(errors, "legacy")
    modern = anyio.run(errors, "2026-07-28")
    assert (legacy["version"], modern["version"]) == ("2025-11-25", "2026-07-28")
    assert legacy["resource"].code == -32002 and modern["resource"].code == -32602
    for answer in (legacy, modern):
        missing = answer["resource"]
        assert missing.data == {"uri": "k0maru://note/Home"}
        assert "did you mean '00_Index/Home.md'?" in missing.message
        tool = answer["tool"]
        assert tool.code == -32602 and "did you mean recall_memory?" in tool.message
        assert all(spec.name in tool.message for spec in TOOLS)
    note = legacy["note"]
    assert note.is_error and note.content[0].text == (
        "no note 'Home' in the index; did you mean '00_Index/Home.md'? "
        "Else take the path from a recall_memory hit"
    )
    kind, cards = legacy["kind"], legacy["cards"]
    assert kind.is_error and kind.content[0].text.startswith("unknown kind 'banana'; the kinds")
    assert "adr, card, decision, log" in kind.content[0].text
    assert cards.is_error and "did you mean card?" in cards.content[0].text


def test_text_answers_carry_no_control_or_bidi_characters(demo: Path) -> None:
    """A title with ESC, BEL and U+202E and a file name with a newline: the text block keeps none of
    them, and each hit stays on its own line (before: raw, and the name split the hit line); the
    path is shown escaped, and `read_note` opens it so."""
    write(demo, "evil\nname.md", "# Quokka \x1b[31mred\x07 \u202etxt.exe\n\nquokka zebu marmot\n")
    with Service.open(str(demo)) as svc:
        result = call(svc, lambda c: c.call_tool("recall_memory", {"query": "quokka zebu marmot"}))
        text, _ = sent(result)
        assert not any(ch in text for ch in "\x1b\x07\u202e")
        hit = next(line for line in text.splitlines() if "Quokka" in line)
        assert "evil\\x0aname.md" in hit and "section: Quokka \\x1b[31mred\\x07 \\u202etxt" in hit
        read = call(svc, lambda c: c.call_tool("read_note", {"path": "evil\\x0aname.md"}))
    assert "quokka zebu marmot" in sent(read)[0]


def test_the_cli_and_the_mcp_tool_give_the_same_loadout(
    service: Service, capsys: pytest.CaptureFixture[str]
) -> None:
    """`k0maru loadout` prints what the tool's text block says, at the same default budget, and a
    focus reaches both and is named in the answer."""
    from k0maru.cli.main import main
    from k0maru.limits import LOADOUT_BUDGET

    async def body(c: Client) -> Any:
        plain = await c.call_tool("get_project_loadout", {})
        focused = await c.call_tool("get_project_loadout", {"focus": "the job store's SQLite"})
        return plain, focused

    plain, focused = call(service, body)
    assert plain.structured_content["token_budget"] == LOADOUT_BUDGET
    assert focused.structured_content["focus"] == "the job store's SQLite"
    assert main(["loadout", "--vault", str(service.root)]) == 0
    printed = capsys.readouterr().out
    assert printed.strip() == sent(plain)[0].strip()
    assert main(["loadout", "--vault", str(service.root), "--focus", "the job store's SQLite"]) == 0
    assert capsys.readouterr().out.strip() == sent(focused)[0].strip()
