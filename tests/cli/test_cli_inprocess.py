"""The command line in-process: `main([...])` with its output captured, through the real `Service`.

Fast-tier twins of the end-to-end tests in test_cli.py: every `cli/` handler module is exercised
here without starting a process (the subprocess tests keep checking what only a process shows: exit
codes of `entry()`, imports, terminals, signals)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from k0maru.cli.main import GROUPS, build_parser, main
from tests.helpers import REPO, write


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_init_scan_status_in_process(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(vault, "a.md", "# Alpha\n\nThe writer retries on SQLITE_BUSY. See [[b]].\n")
    write(vault, "b.md", "# Beta\n\nBackups run nightly.\n")
    code, out, _ = run(capsys, "init", "--vault", str(vault))
    assert code == 0 and f"vault {vault} ready" in out
    code, out, _ = run(capsys, "scan", "--no-embed", "--json", "--vault", str(vault))
    assert code == 0
    assert json.loads(out)["added"] == 2
    code, out, _ = run(capsys, "scan", "--no-embed", "--json", "--vault", str(vault))
    assert (json.loads(out)["added"], json.loads(out)["unchanged"]) == (0, 2)
    code, out, _ = run(capsys, "status", "--json", "--vault", str(vault))
    info = json.loads(out)
    assert (info["documents"], info["links_resolved"]) == (2, 1)
    code, out, _ = run(capsys, "status", "--vault", str(vault))
    assert code == 0 and "documents  2" in out


def test_search_prints_ranked_hits_and_explains_them(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "search", "--vault", str(demo), "--json", "--limit", "3", "E0502")
    assert code == 0
    hits = json.loads(out)["hits"]
    assert hits[0]["path"] == "00_Logs/2026-10-11-borrow-checker-e0502-in-scheduler.md"
    assert len(hits) <= 3
    code, out, _ = run(capsys, "search", "--vault", str(demo), "--explain", "SQLITE_BUSY")
    assert out.startswith("score = ") and "20_Cards/sqlite-busy-timeout.md" in out
    assert "bm25 #1" in out


def test_bad_input_is_one_line_and_an_exit_code(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "search", "--vault", str(demo), "--since", "yesterdayish", "x")
    assert code != 0 and out == ""
    assert err.startswith("k0maru: error: ") and err.count("\n") == 1
    for argv in (["--mode", "foo", "x"], ["--limit", "many", "x"], []):
        with pytest.raises(SystemExit) as exit_:
            main(["search", *argv])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and err.startswith("k0maru search: error: ")
        assert err.count("\n") == 1 and "`k0maru search --help`" in err


def test_offload_from_stdin_then_list_and_show(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    log = (REPO / "tests/data/logs/pytest_many_verbose.log").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(log)))
    code, out, err = run(capsys, "offload", "--vault", str(vault), "--json")
    assert code == 0
    record = json.loads(out)  # --json: the record on stdout, the summary on stderr
    assert record["error_codes"] == ["ZeroDivisionError"] and record["raw_lines"] == 332
    assert "test_many.py:5" in err and len(err) < len(log) / 10
    code, out, _ = run(capsys, "log", "list", "--vault", str(vault), "--json")
    assert [n["node_id"] for n in json.loads(out)] == [record["node_id"]]
    code, out, _ = run(capsys, "log", "show", record["node_id"], "--vault", str(vault))
    assert code == 0 and "ZeroDivisionError" in out


def test_an_offload_records_how_long_it_ran(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`duration_s` is in the record and in `log list`; a sidecar written before it loads with
    None."""
    from k0maru.index.store import Store

    log = (REPO / "tests/data/logs/pytest_many_verbose.log").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(log)))
    code, out, _ = run(capsys, "offload", "--vault", str(vault), "--json")
    record = json.loads(out)
    assert code == 0 and isinstance(record["duration_s"], float) and 0 <= record["duration_s"] < 60
    code, out, _ = run(capsys, "log", "list", "--vault", str(vault))
    from k0maru.cli.output import took

    assert f"{took(record['duration_s'])}  exit" in out
    log = vault / record["log_path"]
    sidecar = log.with_name(log.name.removesuffix(".log.gz") + ".json")
    old = json.loads(sidecar.read_text())
    del old["duration_s"]  # as written before durations were recorded
    sidecar.write_text(json.dumps(old))
    with Store.open(vault) as store:  # the index lost: the record comes back from its sidecar
        store.delete_offloads([record["node_id"]])
    code, out, _ = run(capsys, "log", "list", "--vault", str(vault), "--json")
    assert [(n["node_id"], n.get("duration_s")) for n in json.loads(out)] == [
        (record["node_id"], None)
    ]
    code, out, _ = run(capsys, "log", "list", "--vault", str(vault))
    assert code == 0 and f"{record['node_id']}  " in out and "  -  exit" in out


def test_conventions_human_form_explains_each_kind(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "conventions", "--vault", str(demo), "--explain")
    assert code == 0 and "layout:" in out and "evidence: AGENTS.md:" in out
    assert "card      -> 20_Cards/" in out and "           folder: 20_Cards/" in out


def test_conventions_and_flush(
    demo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K0MARU_EMBED", "false")  # the new note's vectors would start the worker
    code, out, _ = run(capsys, "conventions", "--vault", str(demo), "--json")
    assert code == 0 and "adr" in json.loads(out)["kinds"]
    body = demo / "body.md"
    body.write_text("Retry the backup when the lock is held.\n", encoding="utf-8")
    code, out, _ = run(
        capsys,
        "flush",
        "--vault",
        str(demo),
        "--kind",
        "card",
        "--title",
        "Backup lock retry",
        "--body-file",
        str(body),
        "--json",
    )
    assert code == 0
    written = json.loads(out)
    assert written["outcome"] == "created" and (demo / written["path"]).is_file()


def test_flush_says_when_the_rules_template_was_refused(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """#32 item 7: a refused template is one warning line from `flush` (stderr) and
    `flush_session`."""
    from k0maru.mcp import render
    from k0maru.service.operations import Service
    from k0maru.service.session import VaultSession
    from k0maru.wiring.vault import Vault

    monkeypatch.setenv("K0MARU_EMBED", "false")
    write(vault, "CONVENTIONS.md", "- card template: templates/ca\x00rd.md\n")
    write(vault, "templates/card.md", "---\nowner: ada\n---\n")
    body = vault / "body.md"
    body.write_text("Retry the backup when the lock is held.\n", encoding="utf-8")
    argv = ["flush", "--vault", str(vault), "--kind", "card", "--body-file", str(body)]
    code, out, err = run(capsys, *argv, "--title", "Backup lock retry")
    line = (
        "k0maru: warning: CONVENTIONS.md:1: template 'templates/ca\\x00rd.md' refused (a NUL byte "
        "in the path); the note was written without the template's fields\n"
    )
    assert code == 0 and out.startswith("created: ") and line in err and err.count("warning") == 1
    code, out, err = run(capsys, *argv, "--title", "Another retry", "--json")
    assert json.loads(out)["warnings"] == [line.removeprefix("k0maru: warning: ").rstrip()]
    service = Service(VaultSession(Vault.open(vault)))
    try:
        text = render.flush_text(service.flush("card", "Third", "Text.", [], []))
    finally:
        service.close()
    assert text.splitlines()[1] == line.replace("k0maru: ", "").rstrip()
    write(vault, "CONVENTIONS.md", "- card template: templates/card.md\n")  # fixed: no warning
    code, out, err = run(capsys, *argv, "--title", "Fourth retry")
    assert code == 0 and "warning" not in err


def test_connect_print_writes_nothing(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "connect", "claude-code", "--print", "--vault", str(vault))
    assert code == 0 and '"k0maru"' in out
    assert f"k0maru: would write {vault / '.mcp.json'}:\n" in err
    assert list(vault.iterdir()) == []
    code, _, err = run(capsys, "connect", "no-such-host", "--vault", str(vault))
    assert code != 0 and "unknown host" in err


def test_hooks_outside_a_repository_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "hooks", "status", "--vault", str(tmp_path))
    assert code != 0 and "not inside a git repository" in err


def test_every_group_module_registers_its_commands() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert sub.choices is not None
    assert sorted(sub.choices) == sorted(c for cs in GROUPS.values() for c in cs)


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys)
    assert code == 0 and "usage: k0maru" in out


def test_search_lines_carry_no_bidi_override(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K0MARU_EMBED", "false")
    write(vault, "a.md", "# Invoice \u202egpj.exe\n\nquokka invoice\n")
    code, out, _ = run(capsys, "search", "--vault", str(vault), "quokka")
    assert code == 0 and "Invoice gpj.exe" in out and "\u202e" not in out


def indexed_paths(root: Path) -> set[str]:
    from k0maru.index.store import Store

    with Store.open(root) as store:
        return {p for _, p, _ in store.list_documents()}


def test_a_bad_node_or_path_is_refused_before_indexing(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`distill --node` of an unknown node and `search --path` outside the vault fail before the
    vault is indexed (a new note stays unindexed) and before any worker is asked for."""
    write(demo, "20_Cards/fresh.md", "# Fresh\n\nnot indexed yet\n")
    code, out, err = run(capsys, "distill", "--vault", str(demo), "--node", "nonexistent")
    assert code == 2 and out == "" and "unknown log node 'nonexistent'" in err
    code, out, err = run(capsys, "search", "--vault", str(demo), "--path", "../..", "lease")
    assert code == 2 and out == "" and "--path '../..' is not a folder inside the vault" in err
    assert err.count("\n") == 1
    assert "20_Cards/fresh.md" not in indexed_paths(demo)
    assert not (demo / ".k0maru" / "reindex-wanted").exists()


def test_an_empty_title_is_refused_before_the_index_is_created(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("body"))
    code, _, err = run(capsys, "flush", "--vault", str(vault), "--kind", "card", "--title", " ")
    assert code == 2 and "empty title" in err
    assert not (vault / ".k0maru").exists()


def test_json_given_before_the_action_is_honoured(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "log", "--json", "list", "--vault", str(demo))
    assert code == 0 and json.loads(out) == []
    code, out, _ = run(capsys, "log", "--vault", str(demo), "--json", "list")
    assert code == 0 and json.loads(out) == []


def test_a_misspelt_flag_gets_a_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "search", "--limt", "3", "x")
    assert code == 2 and out == ""
    assert err == (
        "k0maru: error: unknown flag '--limt' for `k0maru search`; did you mean --limit? "
        "`k0maru search --help` lists its flags\n"
    )
    code, _, err = run(capsys, "log", "list", "--jsn")
    assert code == 2 and "did you mean --json?" in err and "`k0maru log list --help`" in err


def test_search_lines_fit_the_terminal(
    demo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 80 columns no line of `search --explain` is wider; wrapped, not cut: every word is
    kept."""
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, "search", "--vault", str(demo), "--explain", "lease", "timeout")
    assert code == 0 and out.count("score=") >= 3
    assert max(len(line) for line in out.splitlines()) <= 80
    code, wide, _ = run(capsys, "search", "--vault", str(demo), "--json", "lease", "timeout")
    first = json.loads(wide)["hits"][0]
    assert " ".join(out.split()).count(" ".join(first["snippet"].split())) == 1


def test_the_vault_line_names_the_vault(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`connect` prints the vault line the README promises (stderr), like every command."""
    code, _, err = run(capsys, "connect", "--list", "--vault", str(vault))
    assert code == 0 and f"k0maru: vault {vault}\n" in err


def test_the_embedding_bar_keeps_one_total(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`k0maru scan` hands its embedding to the worker, which embeds in slices: the bar's total is
    the whole backlog from the start, not one slice more each round."""
    from k0maru.service import worker
    from tests.helpers import scan

    for i in range(12):
        write(vault, f"n{i}.md", f"# Note {i}\n\nbody {i}\n\n## Part\n\nmore {i}\n")
    scan(vault)
    monkeypatch.setattr(worker, "EMBED_SLICE", 5)  # several rounds over a small vault
    seen: list[tuple[int, int]] = []
    done = worker.run(vault, lambda n, total: seen.append((n, total)))
    assert done is not None and done.rounds > 2 and done.embedded >= 24
    assert {total for _, total in seen} == {done.embedded}, seen
    assert seen[-1] == (done.embedded, done.embedded)


def test_last_scan_is_the_one_that_changed_the_index(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A worker's catch-up that finds nothing new is recorded too; `status` names the scan that
    added the notes, not that look."""
    from k0maru.service import worker

    write(vault, "a.md", "# A\n\nalpha\n")
    write(vault, "b.md", "# B\n\nbeta\n")
    assert run(capsys, "scan", "--no-embed", "--vault", str(vault))[0] == 0
    assert worker.run(vault) is not None  # embeds, after a look that finds no new note
    code, out, _ = run(capsys, "status", "--json", "--vault", str(vault))
    assert code == 0 and json.loads(out)["last_scan"]["added"] == 2


def test_every_flag_reaches_its_command() -> None:
    """Each command's handler is called from an explicit table: a flag its parser takes but its
    `run` never reads would be accepted and silently ignored (as `search --lang` once was)."""
    import argparse
    import inspect
    import re

    from k0maru.cli.main import build_parser

    unread: list[str] = []

    def walk(p: argparse.ArgumentParser, name: str) -> None:
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, child in action.choices.items():
                    walk(child, f"{name} {sub}")
        run = p.get_default("run")
        if run is None:
            return
        read = set(re.findall(r"\ba\.(\w+)", inspect.getsource(run)))
        dests = {a.dest for a in p._actions if not isinstance(a, argparse._SubParsersAction)}
        unread.extend(f"{name} {d}" for d in dests - read - {"help", "vault", "as_json", "run"})

    walk(build_parser(), "k0maru")
    assert unread == []


def test_durations_read_in_the_unit_a_person_reads(capsys: pytest.CaptureFixture[str]) -> None:
    """A 26-minute embedding run's scan line said `in 1590411.8 ms` (#42)."""
    from k0maru.cli.index_cmds import print_scan
    from k0maru.cli.output import took
    from k0maru.service.models import ScanReport

    assert [took(s) for s in (None, 0.0842, 12.34, 1590.4118)] == [
        "-", "84.2 ms", "12.3 s", "26 min 30 s",
    ]  # fmt: skip
    counts: dict[str, Any] = dict.fromkeys(
        ("added", "modified", "unchanged", "removed", "skipped", "symlinks", "touched"), 0
    )
    report = ScanReport(**counts, elapsed_ms=1590411.8, files_read=0, embedded=5211)
    print_scan(report, as_json=False)
    assert capsys.readouterr().out.rstrip().endswith("in 26 min 30 s")
