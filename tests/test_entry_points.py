"""The entry points the end-to-end tests reach through a process, driven in-process: the MCP
server's tools as built, the console's start-up, the git hook, `python -m k0maru`, distill and the
loadout."""

from __future__ import annotations

import json
import runpy
import socket
from pathlib import Path

import pytest

from k0maru import __version__
from k0maru.cli.main import main
from k0maru.errors import K0maruError
from k0maru.layout import STATE_DIR
from k0maru.service.operations import Service
from tests.helpers import REPO


def test_distill_names_the_rust_error_and_where(
    demo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K0MARU_EMBED", "false")  # the card's vectors would start the worker
    trace = REPO / "tests/data/logs/rustc_e0502.log"
    code = main(["distill", "--vault", str(demo), "--trace-file", str(trace), "--json"])
    card = json.loads(capsys.readouterr().out)
    assert code == 0 and card["error_codes"] == ["E0502"] and card["stack"] == "rust"
    assert (demo / card["note_path"]).read_text(encoding="utf-8").count("E0502") >= 1


def test_loadout_fits_its_budget(demo: Path) -> None:
    with Service.open(demo, rescan=False) as service:
        loadout = service.loadout(600)
    assert 0 < loadout.tokens_used <= 600 and loadout.sections


def test_the_mcp_server_registers_every_tool(demo: Path) -> None:
    import anyio

    from k0maru.mcp.runner import LocalRunner
    from k0maru.mcp.server import build_server
    from k0maru.mcp.tools import TOOLS

    with Service.open(demo, rescan=False) as service:
        tools = anyio.run(build_server(LocalRunner(service)).list_tools)
    assert sorted(t.name for t in tools) == sorted(t.name for t in TOOLS)
    assert all(t.description and t.input_schema["properties"] is not None for t in tools)


def test_the_console_refuses_a_busy_port_in_one_line(vault: Path) -> None:
    from k0maru.console.server import serve

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(K0maruError, match="cannot listen on 127.0.0.1"):
            serve(str(vault), "127.0.0.1", busy.getsockname()[1], False)


def test_the_reindex_hook_only_asks_for_work(
    vault: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from k0maru.githooks.run import run_reindex

    monkeypatch.setenv("K0MARU_HOOK_EMBED", "off")
    assert run_reindex(str(vault), "post-commit", []) == 0
    assert (vault / STATE_DIR / "reindex-wanted").exists()
    assert "left to the next command" in (vault / STATE_DIR / "hooks.log").read_text()
    assert capsys.readouterr().err == ""


def test_python_m_k0maru_is_the_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.argv", ["k0maru", "--version"])
    with pytest.raises(SystemExit) as exit_:
        runpy.run_module("k0maru", run_name="__main__")
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"k0maru {__version__}"
