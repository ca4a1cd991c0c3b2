"""The MCP server as a subprocess, driven by the official SDK's stdio client."""

import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import (
    CallToolResult,
    ErrorData,
    ReadResourceResult,
    Resource,
    TextContent,
    TextResourceContents,
)

from tests.helpers import write

pytestmark = pytest.mark.slow  # end-to-end: real processes (see CONTRIBUTING.md)

DATA = Path(__file__).parents[1] / "data" / "logs"
T = TypeVar("T")


def run_session(
    vault: Path, body: Callable[[ClientSession], Awaitable[T]], env: dict[str, str] | None = None
) -> T:
    async def main() -> T:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "k0maru", "mcp", "--vault", str(vault)],
            env={**os.environ, **(env or {})},
        )
        async with stdio_client(params) as (read, write_), ClientSession(read, write_) as session:
            await session.initialize()
            return await body(session)

    return anyio.run(main)


def test_tools_schemas_and_calls(demo: Path, tmp_path: Path) -> None:
    script = write(
        demo,
        "fail.py",
        "for i in range(2000):\n    print('tick', i)\nraise RuntimeError('lease lost')\n",
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "k0maru",
            "offload",
            "--vault",
            str(demo),
            "--task-id",
            "t",
            "--",
            sys.executable,
            str(script),
        ],
        capture_output=True,
        check=False,
    )
    from k0maru.offload import records
    from k0maru.wiring.vault import Vault

    with Vault.open(demo) as v:
        node = records.list_all(v.store)[0].node_id

    async def body(s: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {}
        tools = {t.name: t for t in (await s.list_tools()).tools}
        out["tools"] = tools
        out["loadout"] = await s.call_tool("get_project_loadout", {"token_budget": 800})
        out["recall"] = await s.call_tool(
            "recall_memory", {"query": "SQLITE_BUSY", "limit": 3, "explain": True}
        )
        out["recall_plain"] = await s.call_tool(
            "recall_memory", {"query": "SQLITE_BUSY", "limit": 3}
        )
        out["inspect"] = await s.call_tool(
            "inspect_log_node", {"node_id": node, "pattern": "RuntimeError", "context": 1}
        )
        out["inspect_lines"] = await s.call_tool(
            "inspect_log_node", {"node_id": node, "lines": "5:7"}
        )
        out["flush"] = await s.call_tool(
            "flush_session",
            {
                "title": "Batch lease renewals",
                "kind": "decision",
                "body": "One RenewLeases call per worker every 10 s.",
                "tags": ["locking"],
                "related_notes": ["lease-renewal-redesign"],
            },
        )
        out["flush_again"] = await s.call_tool(
            "flush_session",
            {
                "title": "Batch lease renewals",
                "kind": "decision",
                "body": "One RenewLeases call per worker every 10 s.",
                "tags": ["locking"],
                "related_notes": ["lease-renewal-redesign"],
            },
        )
        out["recall_new"] = await s.call_tool(
            "recall_memory", {"query": "RenewLeases call per worker", "mode": "bm25"}
        )
        out["distill"] = await s.call_tool(
            "distill_session_skill", {"trace": (DATA / "rustc_e0502.log").read_text()}
        )
        out["distill_node"] = await s.call_tool("distill_session_skill", {"node_id": node})
        out["listed"] = await s.call_tool("list_log_nodes", {"failed": True})
        out["note"] = await s.call_tool(
            "read_note", {"path": "20_Cards/sqlite-busy-timeout.md", "lines": "1:3"}
        )
        return out

    out = run_session(demo, body)
    tools = out["tools"]
    assert set(tools) == {
        "get_project_loadout",
        "recall_memory",
        "inspect_log_node",
        "flush_session",
        "distill_session_skill",
        "list_log_nodes",
        "read_note",
    }
    assert tools["recall_memory"].input_schema["required"] == ["query"]
    assert set(tools["recall_memory"].input_schema["properties"]) == {
        "query",
        "limit",
        "mode",
        "explain",
        "path",
        "tag",
        "kind",
        "lang",
        "since",
        "until",
        "min_score",
        "token_budget",
    }
    assert tools["flush_session"].input_schema["properties"]["kind"]["enum"] == [
        "adr",
        "decision",
        "card",
        "log",
        "skill",
    ]
    assert "have we seen this error before" in tools["recall_memory"].description
    assert all(t.output_schema for t in tools.values())

    loadout = out["loadout"].structured_content
    assert not out["loadout"].is_error and loadout["tokens_used"] <= 800
    assert loadout["sections"][0]["source"] == "AGENTS.md"
    assert any(s["kind"] == "conventions" for s in loadout["sections"])

    hits = out["recall"].structured_content["hits"]
    assert hits[0]["path"] == "20_Cards/sqlite-busy-timeout.md" and hits[0]["bm25_rank"] == 1
    plain = out["recall_plain"]
    assert plain.structured_content["hits"][0]["path"] == hits[0]["path"]
    assert not {"bm25_rank", "cosine", "bm25_part", "boost_links", "uri"} & set(
        plain.structured_content["hits"][0]
    )
    # the text block is the whole answer in a readable form, not a JSON copy of the structured
    # content
    assert len(plain.content) == 1 and not plain.content[0].text.lstrip().startswith("{")
    for hit in plain.structured_content["hits"]:
        assert f"{hit['path']}:{hit['lines']}" in plain.content[0].text
        assert hit["snippet"] in plain.content[0].text

    view = out["inspect"].structured_content
    assert view["matches"] == 2 and view["error_codes"] == [
        "RuntimeError"
    ]  # the raise line and the exception line
    assert [line["n"] for line in view["lines"]] == [2002, 2003, 2004]
    assert [line["text"] for line in out["inspect_lines"].structured_content["lines"]] == [
        "tick 4",
        "tick 5",
        "tick 6",
    ]
    assert (
        "truncated" not in out["inspect_lines"].structured_content
    )  # every line asked for came back
    assert all("match" not in line for line in out["inspect_lines"].structured_content["lines"])

    flushed = out["flush"].structured_content
    assert flushed["outcome"] == "created" and flushed["path"].startswith("decisions/")
    assert flushed["linked"] == ["lease-renewal-redesign"]
    assert out["flush_again"].structured_content["outcome"] == "up_to_date"
    assert out["recall_new"].structured_content["hits"][0]["path"] == flushed["path"]

    card = out["distill"].structured_content
    assert card["error_codes"] == ["E0502"] and card["location"] == "borrow.rs:4:5"
    assert "## Diagnosis path" in card["card_markdown"] and (demo / card["note_path"]).is_file()
    assert out["distill_node"].structured_content["error_codes"] == ["RuntimeError"]
    listed = out["listed"].structured_content["nodes"]
    assert listed[0]["node_id"] == node and listed[0]["exit_code"] == 1
    assert node in out["listed"].content[0].text
    note = out["note"].structured_content
    assert note["lines"] == "1-3" and note["text"] in out["note"].content[0].text
    assert all(t.annotations and t.annotations.open_world_hint is False for t in tools.values())


def test_resources_list_and_read(demo: Path) -> None:
    async def body(s: ClientSession) -> tuple[list[Resource], ReadResourceResult, str | None]:
        listed = (await s.list_resources()).resources
        read = await s.read_resource("k0maru://note/20_Cards/feature-flags.md")
        bad: str | None = None
        try:
            await s.read_resource("k0maru://note/../../etc/passwd")
        except Exception as exc:  # the SDK raises its protocol error type
            bad = str(exc)
        return listed, read, bad

    listed, read, bad = run_session(demo, body)
    uris = {str(r.uri) for r in listed}
    assert "k0maru://note/docs/adr/0002-lease-based-job-locking.md" in uris and len(uris) >= 49
    assert "# Feature flags" in cast(TextResourceContents, read.contents[0]).text
    assert bad is not None and "root:" not in bad  # refused, nothing outside the vault was read


def test_errors_are_tool_errors_and_server_survives(demo: Path) -> None:
    async def body(s: ClientSession) -> tuple[list[CallToolResult], CallToolResult]:
        results = [
            await s.call_tool("recall_memory", {"query": "   "}),
            await s.call_tool("inspect_log_node", {"node_id": "deadbeef"}),
            await s.call_tool("inspect_log_node", {"node_id": "deadbeef", "lines": "x:y"}),
            await s.call_tool("distill_session_skill", {}),
            await s.call_tool("flush_session", {"title": "t", "body": "b", "kind": "novel"}),
            await s.call_tool("recall_memory", {"query": "lease", "limit": 999}),
            await s.call_tool("recall_memory", {"query": "q" * 1_000_000}),
            await s.call_tool("inspect_log_node", {"node_id": "n" * 100_000}),
            await s.call_tool("flush_session", {"title": "t", "body": "b", "tags": ["a\nb"]}),
        ]
        ok = await s.call_tool("recall_memory", {"query": "lease"})
        return results, ok

    results, ok = run_session(demo, body)
    assert all(r.is_error for r in results)
    texts = [cast(TextContent, r.content[0]).text for r in results]
    assert "empty query" in texts[0] and "unknown log node" in texts[1] and "trace" in texts[3]
    assert (
        "k0maru" not in texts[1] and "none recorded yet" in texts[1]
    )  # no CLI an agent cannot run
    assert "list_log_nodes" in texts[1]
    assert texts[4].startswith("invalid arguments for flush_session: `kind`")
    assert (
        texts[5]
        == "invalid arguments for recall_memory: `limit`: Input should be less than or equal to 50"
    )
    assert "the limit is 2,000" in texts[6] and "tag" in texts[8]
    assert all(
        "pydantic.dev" not in t and len(t) < 300 for t in texts
    )  # nothing echoed back at length
    assert not ok.is_error and ok.structured_content["hits"]


def test_protocol_errors_carry_the_specs_codes_over_stdio(demo: Path) -> None:
    """Over stdio: a note that does not exist is -32002 (the client speaks
    MCP 2025-11-25) with its URI and the path meant; an unknown tool is -32602 naming the tools."""
    from mcp.shared.exceptions import MCPError

    async def body(s: ClientSession) -> tuple[list[ErrorData | None], CallToolResult]:
        errors: list[ErrorData | None] = []
        for call in (
            lambda: s.read_resource("k0maru://note/Home"),
            lambda: s.call_tool("recall", {"query": "lease"}),
        ):
            try:
                await call()
                errors.append(None)
            except MCPError as exc:
                errors.append(exc.error)
        return errors, await s.call_tool("recall_memory", {"query": "lease"})

    (missing, unknown), ok = run_session(demo, body)
    assert missing is not None and missing.code == -32002
    assert missing.data == {"uri": "k0maru://note/Home"} and "'00_Index/Home.md'" in missing.message
    assert unknown is not None and unknown.code == -32602
    assert "did you mean recall_memory?" in unknown.message and "read_note" in unknown.message
    assert not ok.is_error  # the server goes on


def test_concurrent_reindex_during_calls(demo: Path) -> None:
    """A writer rewrites notes and rescans while the agent calls recall: no error reaches the
    agent."""
    writer_code = (
        "import sys, time; from pathlib import Path; from k0maru.wiring.vault import Vault\n"
        "root = Path(sys.argv[1])\n"
        "for i in range(12):\n"
        "    (root / f'hook-note-{i % 3}.md').write_text(f'# Hook {i}\\nlease renewal churn {i}\\n')\n"
        "    with Vault.open(root, embed=False) as v: v.index()\n"
        "    time.sleep(0.05)\n"
    )

    async def body(s: ClientSession) -> tuple[list[CallToolResult], int | None]:
        writer = subprocess.Popen([sys.executable, "-c", writer_code, str(demo)])
        results: list[CallToolResult] = []
        deadline = time.time() + 60
        while writer.poll() is None and time.time() < deadline:
            results.append(
                await s.call_tool("recall_memory", {"query": "lease renewal churn", "mode": "bm25"})
            )
            results.append(
                await s.call_tool(
                    "flush_session", {"title": f"Note {len(results)}", "body": "x", "kind": "card"}
                )
            )
        writer.wait()
        return results, writer.returncode

    results, rc = run_session(demo, body, env={"K0MARU_BUSY_TIMEOUT_MS": "20000"})
    assert rc == 0 and len(results) >= 2
    assert not [cast(TextContent, r.content[0]).text for r in results if r.is_error]


def test_stdin_close_exits_cleanly(demo: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "k0maru", "mcp", "--vault", str(demo)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(init) + "\n").encode())
    proc.stdin.flush()
    line = proc.stdout.readline()
    assert json.loads(line)["id"] == 1  # stdout carries JSON-RPC only
    proc.stdin.close()
    try:
        assert proc.wait(timeout=20) == 0
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("server did not exit when stdin closed")


def test_unembedded_vault_answers_at_once_and_embeds_in_background(tmp_path: Path) -> None:
    """A fresh vault is not embedded on the request path: recall answers from BM25 right away, says
    vectors are missing, and the vectors appear while the server keeps answering."""
    import shutil

    from tests.helpers import DEMO_VAULT

    vault = tmp_path / "fresh"
    shutil.copytree(DEMO_VAULT, vault, ignore=shutil.ignore_patterns(".k0maru"))

    async def body(s: ClientSession) -> tuple[CallToolResult, float, CallToolResult | None]:
        t0 = time.perf_counter()
        first = await s.call_tool("recall_memory", {"query": "SQLITE_BUSY", "limit": 3})
        first_s = time.perf_counter() - t0
        deadline = time.time() + 180
        while time.time() < deadline:
            later = await s.call_tool(
                "recall_memory", {"query": "SQLITE_BUSY", "limit": 3, "explain": True}
            )
            if not later.structured_content.get("warnings"):
                return first, first_s, later
            await anyio.sleep(1)
        return first, first_s, None

    first, first_s, later = run_session(vault, body)
    assert (
        not first.is_error
        and first.structured_content["hits"][0]["path"] == "20_Cards/sqlite-busy-timeout.md"
    )
    assert any(
        "no chunk has a vector yet" in w or "not embedded yet" in w
        for w in first.structured_content["warnings"]
    )
    assert later is not None, "background embedding did not finish"
    assert later.structured_content["hits"][0]["vector_rank"] == 1
    print(f"first recall answered after {first_s:.1f} s, before the vectors")


def test_answers_fit_their_token_budget_and_carry_the_passage(demo: Path) -> None:
    """A recall answer on the demo vault costs <= 1,000 o200k tokens in either part (structured
    content, text block), each hit with a passage of the note; a query nothing supports gets no
    hits."""
    from k0maru.mcp.tools import TOOLS, recall_memory
    from k0maru.service.operations import Service, answer_tokens

    text_of = next(t.text for t in TOOLS if t.name == "recall_memory")
    from k0maru.llm_tokens import count_tokens

    with Service.open(str(demo)) as service:
        for query in ("SQLITE_BUSY during the nightly backup", "why do leases expire", "E0502"):
            result = recall_memory(service, query)
            assert len(result.hits) >= 5 and all(len(h.snippet) > 30 for h in result.hits)
            assert answer_tokens(result) <= 1000 and count_tokens(text_of(result)) <= 1000
        top = recall_memory(service, "SQLITE_BUSY during the nightly backup").hits[0]
        assert (
            "database is locked" in top.snippet
            and "#" not in top.snippet
            and "[[" not in top.snippet
        )
        small = recall_memory(service, "SQLITE_BUSY", token_budget=200)
        assert answer_tokens(small) <= 200 and count_tokens(text_of(small)) <= 200 and small.hits
        for noise in ("!!!???", "\x01\x02\x03"):
            empty = recall_memory(service, noise)
            assert (
                empty.hits == []
                and len(empty.warnings) == 1
                and "nothing in the vault answers" in empty.warnings[0]
                and text_of(empty) == empty.warnings[0]  # the text block is that one line
            )


def test_the_warm_up_loads_the_model_only_for_an_index_with_vectors(
    demo: Path, tmp_path: Path
) -> None:
    """A hybrid recall embeds its query, so the warm-up loads the model when the index has vectors
    (the first recall needs it either way); an index without any keeps that memory and answers from
    BM25. The collector, off while the server starts, is on again afterwards, what the start made
    frozen."""
    import shutil

    from tests.helpers import DEMO_VAULT

    def warm(vault: Path) -> list[str]:
        code = (
            "import gc\n"
            "from k0maru.service.operations import Service\n"
            f"gc.disable()\nsvc = Service.open({str(vault)!r}, embed='off')\nsvc.warm_up()\n"
            "print(svc._vault._embedder_loaded, gc.isenabled(), gc.get_freeze_count() > 0)\n"
            "svc.close()\n"
        )
        r = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
        )
        assert r.returncode == 0, r.stderr
        return r.stdout.split()

    assert warm(demo) == ["True", "True", "True"]
    fresh = tmp_path / "fresh"
    shutil.copytree(DEMO_VAULT, fresh, ignore=shutil.ignore_patterns(".k0maru"))
    assert warm(fresh) == ["False", "True", "True"]


def test_the_warm_up_loads_the_token_counter_for_the_vaults_scripts(tmp_path: Path) -> None:
    """The first answer is fitted without building the counter again: the warm-up builds it for what
    a sample of the vault's chunks holds (widening it at the first recall made that recall wait); an
    English vault keeps the smaller one."""

    def warm(vault: Path, passage: Path) -> tuple[int, int]:
        code = (
            "from k0maru import llm_tokens\n"
            "from k0maru.service.operations import Service\n"
            f"svc = Service.open({str(vault)!r})\nsvc.warm_up()\nloaded = llm_tokens.loaded_vocabulary()\n"
            f"llm_tokens.count_tokens(open({str(passage)!r}, encoding='utf-8').read())\n"
            "print(loaded, llm_tokens.loaded_vocabulary())\nsvc.close()\n"
        )
        r = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
        )
        assert r.returncode == 0, r.stderr
        loaded, after = map(int, r.stdout.split())
        return loaded, after

    english = write(
        tmp_path / "en", "lease.md", "# Lease\n\nA lease renewal that never came — `SQLITE_BUSY`.\n"
    )
    small, after = warm(english.parent, english)
    assert (
        100_000 < small == after
    )  # ASCII and common punctuation only, and enough for its passages
    russian = write(
        tmp_path / "ru",
        "ru.md",
        "# Ключ аренды\n\nПродление аренды не пришло: `SQLITE_BUSY`, 中文 日志.\n",
    )
    write(tmp_path / "ru", "en.md", "# Lease\n\nA lease renewal that never came.\n")
    whole, after = warm(russian.parent, russian)
    assert (
        whole > small and after == whole
    )  # every token from the start: no second build for the passage
