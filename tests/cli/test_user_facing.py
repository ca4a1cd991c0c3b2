"""What the person at the keyboard sees: the vault named, nothing created where it was not asked
for, bad arguments refused before any work, files under the umask, JSON on stdout, warnings once,
and help for every flag. In-process (`main([...])`), no embeddings (K0MARU_EMBED=0), no child
processes."""

from __future__ import annotations

import argparse
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from k0maru.cli.main import GROUPS, build_parser, main
from tests.helpers import scan, write


@pytest.fixture(autouse=True)
def lexical_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K0MARU_EMBED", "0")  # no model, no worker: these tests are about the CLI
    monkeypatch.delenv("K0MARU_VAULT", raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        rc = main(list(argv))
    except SystemExit as exc:  # argparse refusing an argument
        rc = int(exc.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


def test_every_command_names_its_vault_on_stderr_but_not_with_json(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    write(vault, "a.md", "# Alpha\n\nlease renewal\n")
    rc, _, err = run(capsys, "init", "--vault", str(vault))
    assert rc == 0 and f"k0maru: vault {vault}\n" in err
    rc, out, err = run(capsys, "search", "lease", "--vault", str(vault))
    assert rc == 0 and err.startswith(f"k0maru: vault {vault}\n") and "Alpha" in out
    rc, _, err = run(capsys, "scan", "--vault", str(vault))  # the no-change path opens nothing
    assert rc == 0 and f"k0maru: vault {vault}\n" in err
    rc, out, err = run(capsys, "status", "--vault", str(vault), "--json")
    assert rc == 0 and "k0maru: vault" not in err and json.loads(out)["documents"] == 1


def test_no_vault_is_created_where_none_was_asked_for(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "downloads"
    plain.mkdir()
    monkeypatch.chdir(plain)
    for argv in (["status"], ["scan"], ["search", "x"], ["log", "list"]):
        rc, _, err = run(capsys, *argv)
        assert rc == 2 and "not a k0maru vault nor inside a git repository" in err, argv
        assert "`k0maru init`" in err and err.count("\n") == 1
    assert not (plain / ".k0maru").exists()
    rc, _, err = run(capsys, "init")  # asked for: the folder becomes a vault ...
    assert rc == 0 and (plain / ".k0maru" / "index.sqlite").exists()
    sub = plain / "deeper"
    sub.mkdir()
    monkeypatch.chdir(sub)  # ... and is found from below it, without a repository
    rc, _, err = run(capsys, "status")
    assert rc == 0 and f"k0maru: vault {plain}\n" in err


def test_a_vault_inside_a_repository_is_the_one_used_from_inside_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    notes = repo / "examples" / "vault"
    (notes / ".k0maru").mkdir(parents=True)
    monkeypatch.chdir(notes)
    rc, out, _ = run(capsys, "init")
    assert rc == 0 and f"vault {notes} ready" in out
    assert not (repo / ".k0maru").exists()  # no second index at the repository's root


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["search", "x", "--since", "yesterday"], "bad date 'yesterday'"),
        (["search", "x", "--until", "soon"], "bad date 'soon'"),
        (["search", "x", "--since", "2026-02-01", "--until", "2026-01-01"], "--since is after"),
        (["search", "x", "--limit", "0"], "must be at least 1, not 0"),
        (["search", "x", "--budget", "-5"], "must be at least 1"),
        (["search", "x", "--no-scan"], "no index yet"),
        (["log", "show", "deadbeef"], "unknown log node 'deadbeef'"),
        (["log", "show", "deadbeef", "--lines", "9:3"], "bad line range"),
        (["log", "show", "deadbeef", "--grep", "("], "bad pattern"),
        (["log", "show", "deadbeef", "--context", "-1"], "must be at least 0"),
        (["log", "list", "--limit", "0"], "must be at least 1"),
        (["offload", "--threshold", "0", "--", "true"], "must be at least 1"),
        (["scan", "--max-file-bytes", "0"], "at least 1"),
    ],
)
def test_bad_arguments_are_refused_before_any_work(
    capsys: pytest.CaptureFixture[str], vault: Path, argv: list[str], needle: str
) -> None:
    write(vault, "a.md", "# A\n")
    rc, out, err = run(capsys, *argv, "--vault", str(vault))
    assert rc != 0 and needle in err and "Traceback" not in err
    assert not (vault / ".k0maru" / "index.sqlite").exists()  # nothing indexed, no worker started


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_written_files_follow_the_umask(vault: Path, umask: int, mode: int) -> None:
    from k0maru.fsutil import atomic_write_text
    from k0maru.wiring.vault import Vault

    old = os.umask(umask)
    try:
        with Vault.open(vault) as v:
            v.init()
        atomic_write_text(vault / "notes" / "adr.md", "# ADR\n")
    finally:
        os.umask(old)
    assert (vault / ".k0maru" / "config.toml").stat().st_mode & 0o777 == mode
    assert (vault / "notes" / "adr.md").stat().st_mode & 0o777 == mode
    (vault / "notes" / "adr.md").chmod(0o664)  # a mode the user chose is kept on rewrite
    atomic_write_text(vault / "notes" / "adr.md", "# ADR 2\n")
    assert (vault / "notes" / "adr.md").stat().st_mode & 0o777 == 0o664


class Stdin(io.TextIOWrapper):
    def isatty(self) -> bool:
        return False


def test_offload_json_is_on_stdout_alone(
    capsys: pytest.CaptureFixture[str], vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = "".join(f"collecting item {i} of the suite\n" for i in range(400)) + "error: it broke\n"
    monkeypatch.setattr("sys.stdin", Stdin(io.BytesIO(log.encode())))
    rc, out, err = run(capsys, "offload", "--json", "--threshold", "10", "--vault", str(vault))
    record = json.loads(out)  # stdout is the JSON and nothing else
    assert rc == 0 and record["raw_lines"] == 401 and record["node_id"]
    assert "saved" in err  # the human summary went to stderr
    monkeypatch.setattr("sys.stdin", Stdin(io.BytesIO(b"short\n")))
    rc, out, err = run(capsys, "offload", "--json", "--vault", str(vault))
    assert json.loads(out) == {"offloaded": False, "exit_code": 0, "lines": 1}
    assert "short" in err


def test_a_skipped_file_is_warned_about_once_per_change(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    write(vault, "a.md", "# A\n\nlease\n")
    (vault / "blob.md").write_bytes(b"\x89PNG\x00\x00binary")
    run(capsys, "init", "--vault", str(vault))
    warnings = []
    for _ in range(3):
        _, _, err = run(capsys, "search", "lease", "--vault", str(vault))
        warnings.append(err.count("skipped blob.md"))
    assert warnings == [1, 0, 0]
    (vault / "blob.md").write_bytes(b"\x89PNG\x00\x00binary, changed")
    _, _, err = run(capsys, "search", "lease", "--vault", str(vault))
    assert err.count("skipped blob.md") == 1


def test_utf16_notes_are_told_to_be_resaved_not_removed(vault: Path) -> None:
    (vault / "bom.md").write_text("# Notes\n\nsaved by Notepad\n", encoding="utf-16")
    (vault / "nobom.md").write_bytes("# Notes\n\nno byte-order mark\n".encode("utf-16-le"))
    (vault / "bin.md").write_bytes(bytes(range(256)) * 4)
    warnings = "\n".join(scan(vault).warnings)
    assert "skipped bom.md: UTF-16/UTF-32 text; re-save it as UTF-8" in warnings
    assert "skipped nobom.md: UTF-16/UTF-32 text; re-save it as UTF-8" in warnings
    assert "skipped bin.md: binary content" in warnings


def test_an_empty_vault_says_why_there_are_no_results(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    (vault / ".git").mkdir()  # a repository root, as `git init` leaves it
    rc, out, err = run(capsys, "search", "anything", "--vault", str(vault))
    assert rc == 0 and out == ""
    assert "no notes are indexed in this vault: k0maru reads **/*.md" in err


def test_typos_get_a_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(capsys, "serch", "x")
    assert rc == 2 and "unknown command 'serch'; did you mean `k0maru search`?" in err
    rc, _, err = run(capsys, "log", "shw", "abc")
    assert rc == 2 and "did you mean 'show'?" in err
    rc, _, err = run(capsys, "zzzzzz")
    assert rc == 2 and "`k0maru --help` lists them" in err


def _actions(
    parser: argparse.ArgumentParser, name: str = "k0maru"
) -> Iterator[tuple[str, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from _actions(sub, f"{name} {sub_name}")
        elif not isinstance(action, argparse._HelpAction | argparse._VersionAction):
            yield name, action


def test_every_flag_has_help_and_names_its_default() -> None:
    parser = build_parser()
    formatter = parser._get_formatter()
    seen = 0
    for name, action in _actions(parser):
        if action.help == argparse.SUPPRESS:
            assert (name, action.dest) == ("k0maru worker", "after_scan")
            continue
        seen += 1
        assert action.help, f"{name} {action.option_strings or action.dest} has no help text"
        # SUPPRESS: an action's --json/--vault, whose default is the command's (`log --json list`)
        if action.option_strings and action.default not in (None, False, True, argparse.SUPPRESS):
            text = formatter._expand_help(action)
            assert f"default: {action.default}" in text or "default" in action.help, (
                f"{name} {action.option_strings} hides its default"
            )
    assert seen > 40


@pytest.mark.parametrize("command", ["mcp", "ui", "worker"])
def test_no_flag_that_means_nothing(capsys: pytest.CaptureFixture[str], command: str) -> None:
    rc, _, err = run(capsys, command, "--json")
    assert rc == 2 and f"unknown flag '--json' for `k0maru {command}`" in err
    assert command in {c for cs in GROUPS.values() for c in cs}


def test_offload_names_the_vault_only_when_it_is_not_the_working_folder(
    capsys: pytest.CaptureFixture[str], vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every offload's summary reaches an agent: the vault line is sent only when the vault-relative
    log path would otherwise be ambiguous."""
    log = "".join(f"step {i}\n" for i in range(400)) + "error: it broke\n"
    monkeypatch.setattr("sys.stdin", Stdin(io.BytesIO(log.encode())))
    (vault / ".git").mkdir()  # a repository root, where a bare `k0maru offload` keeps its logs
    monkeypatch.chdir(vault)
    rc, out, err = run(capsys, "offload", "--threshold", "10")
    assert rc == 0 and "k0maru: vault" not in out + err and ".k0maru/refs/" in out
    monkeypatch.setattr("sys.stdin", Stdin(io.BytesIO(log.encode())))
    monkeypatch.chdir(vault.parent)
    rc, _, err = run(capsys, "offload", "--threshold", "10", "--vault", str(vault))
    assert rc == 0 and err.startswith(f"k0maru: vault {vault}\n")
