"""`k0maru distill` with no failure text names the command's own flags (`--trace-file`, `--node`),
not the MCP tool's parameters (`trace`, `node_id`)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from k0maru.cli.main import main


@pytest.mark.parametrize("empty_file", [False, True])
def test_distill_without_a_trace_names_the_cli_flags(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    empty_file: bool,
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # as `</dev/null`
    args = ["distill", "--vault", str(vault)]
    if empty_file:
        (vault / "trace.txt").write_text(" \n", encoding="utf-8")
        args += ["--trace-file", str(vault / "trace.txt")]
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--trace-file FILE" in err and "--node NODE_ID" in err
    assert "`trace`" not in err and "node_id" not in err
    assert ("trace.txt is empty" if empty_file else "stdin is empty") in err
