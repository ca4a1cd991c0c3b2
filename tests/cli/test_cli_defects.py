"""The command line's defects of #60, each checked where it showed: global flags before the command,
abbreviated flags taken as others, no command to print a note, no `--min-score`, warnings said
twice or about a channel the mode does not use, scans made by a search never recorded, a hook whose
Python is gone reported as fine, and scripts/test.sh giving up on a busy apt lock."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from k0maru.cli.main import build_parser, main
from tests.helpers import REPO, write

TEST_SH = REPO / "scripts" / "test.sh"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def notes(vault: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    """A scanned vault of two notes, without vectors (no worker process is started)."""
    monkeypatch.setenv("K0MARU_EMBED", "false")
    write(vault, "a.md", "# Alpha\n\nThe writer retries on SQLITE_BUSY.\n\nSee [[b]].\n")
    write(vault, "docs/b.md", "---\ntitle: Backup plan\n---\nBackups run nightly at two.\n")
    assert run(capsys, "scan", "--vault", str(vault))[0] == 0
    return vault


# ---- 1. the flags every command takes, before the command


def test_json_before_the_command(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Was: unknown flag '--json' for `k0maru search`; did you mean --json?"""
    code, out, err = run(capsys, "--json", "search", "--vault", str(notes), "backups")
    assert code == 0, err
    assert json.loads(out)["hits"][0]["path"] == "docs/b.md"


def test_vault_before_the_command(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Was: argument COMMAND: invalid choice: '.'"""
    code, out, err = run(capsys, "--vault", str(notes), "--json", "search", "backups")
    assert code == 0, err
    assert json.loads(out)["hits"][0]["path"] == "docs/b.md"
    code, out, err = run(capsys, f"--vault={notes}", "status", "--json")
    assert code == 0 and json.loads(out)["documents"] == 2
    # a command with actions (`log list`): the flags reach the action's parser
    code, out, err = run(capsys, "--json", "--vault", str(notes), "log", "list")
    assert code == 0 and json.loads(out) == []


def test_a_global_flag_before_a_command_without_it_is_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "--json", "mcp")
    assert code == 2 and "unknown flag '--json' for `k0maru mcp`" in err


def test_the_top_level_help_names_the_global_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "--vault DIR" in out and "--json" in out


# ---- 2. no abbreviations


def parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from parsers(sub)


def test_an_abbreviated_flag_is_refused_with_the_flag_it_resembles(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: `scan --ful` ran a full scan."""
    code, out, err = run(capsys, "scan", "--ful", "--vault", str(notes))
    assert code == 2 and out == ""
    assert "unknown flag '--ful' for `k0maru scan`; did you mean --full?" in err
    code, _, err = run(capsys, "search", "--lim", "3", "--vault", str(notes), "x")
    assert code == 2 and "did you mean --limit?" in err
    assert all(not p.allow_abbrev for p in parsers(build_parser()))


# ---- 3. `k0maru show`


def test_show_prints_a_note_by_path_or_title(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "show", "docs/b.md", "--vault", str(notes))
    assert code == 0 and out == "---\ntitle: Backup plan\n---\nBackups run nightly at two.\n"
    code, out, _ = run(capsys, "show", "backup plan", "--vault", str(notes), "--lines", "4")
    assert code == 0 and out == "Backups run nightly at two.\n"
    code, out, _ = run(capsys, "--json", "show", "a.md", "--vault", str(notes), "--lines", "3:")
    assert json.loads(out) == {
        "path": "a.md",
        "lines": "3-5",
        "total_lines": 5,
        "text": "The writer retries on SQLITE_BUSY.\n\nSee [[b]].",
    }


def test_show_takes_a_hit_path_with_its_line(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`path:LINE` as a search hit prints it reads the note from that line on."""
    code, out, _ = run(capsys, "show", "a.md:5", "--vault", str(notes))
    assert code == 0 and out == "See [[b]].\n"
    code, _, err = run(capsys, "show", "docs/c.md:2", "--vault", str(notes))
    assert code != 0 and "no note 'docs/c.md' in the index" in err


def test_show_refuses_a_note_or_range_it_cannot_show(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "show", "docs/c.md", "--vault", str(notes))
    assert code != 0 and out == ""
    assert "no note 'docs/c.md' in the index" in err and "k0maru search" in err
    code, _, err = run(capsys, "show", "a.md", "--lines", "9:12", "--vault", str(notes))
    assert code != 0 and "the note has 5 line(s)" in err
    code, _, err = run(capsys, "show", "a.md", "--lines", "x", "--vault", str(notes))
    assert code != 0 and "not a range" in err


def test_show_is_in_the_readme() -> None:
    assert "`k0maru show NOTE`" in (REPO / "README.md").read_text(encoding="utf-8")


# ---- 4. --min-score


def test_min_score_leaves_out_the_hits_below_it(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["search", "--json", "--vault", str(notes), "--mode", "bm25", "nightly", "writer"]
    hits = json.loads(run(capsys, *argv)[1])["hits"]
    assert len(hits) == 2 and hits[0]["score"] > hits[1]["score"]
    cut = (hits[0]["score"] + hits[1]["score"]) / 2
    kept = json.loads(run(capsys, *argv, "--min-score", str(cut))[1])["hits"]
    assert [h["path"] for h in kept] == [hits[0]["path"]]
    with pytest.raises(SystemExit):
        main([*argv, "--min-score", "-1"])
    assert "must be at least 0" in capsys.readouterr().err


# ---- 5. one warning for one reason; no vector words in bm25 mode


def test_a_read_only_index_is_one_warning(
    notes: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: `index not refreshed: X` and `the index is behind the files: X`."""
    write(notes, "c.md", "# Gamma\n\nBackups of the cache too.\n")
    real = os.access

    def access(path: object, mode: int, **kw: object) -> bool:  # as for a user, not root
        if mode & os.W_OK and ".k0maru" in str(path):
            return False
        return real(path, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)
    # bm25: no warning about vectors, which are off here
    code, out, err = run(capsys, "search", "--vault", str(notes), "--mode", "bm25", "backups")
    assert code == 0 and "docs/b.md" in out
    warnings = [line for line in err.splitlines() if line.startswith("k0maru: warning:")]
    assert len(warnings) == 1 and "read-only" in warnings[0], err


def test_bm25_mode_says_nothing_of_cosines(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "search", "--vault", str(notes), "--mode", "bm25", "zebra")
    assert code == 0 and "nothing in the vault answers" in err
    assert "cosine" not in err and "vector" not in err


# ---- 6. a search's scan is recorded


def test_the_scan_a_search_makes_is_the_last_scan(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: `last scan ... +0 ~0 -0` (the first scan's counts) after a search indexed new notes."""
    first = json.loads(run(capsys, "status", "--json", "--vault", str(notes))[1])["last_scan"]
    assert first["added"] == 2
    write(notes, "c.md", "# Gamma\n\nThe cache is warmed at start.\n")
    write(notes, "d.md", "# Delta\n\nThe cache is cold after a deploy.\n")
    write(notes, "a.md", "# Alpha\n\nThe writer retries on SQLITE_BUSY, and the cache.\n")
    (notes / "docs" / "b.md").unlink()
    assert run(capsys, "search", "--vault", str(notes), "cache")[0] == 0
    last = json.loads(run(capsys, "status", "--json", "--vault", str(notes))[1])["last_scan"]
    assert (last["added"], last["modified"], last["removed"]) == (2, 1, 1)
    assert last["started_at"] >= first["started_at"]
    # a search that finds nothing new writes no record
    assert run(capsys, "search", "--vault", str(notes), "cache")[0] == 0
    again = json.loads(run(capsys, "status", "--json", "--vault", str(notes))[1])["last_scan"]
    assert again == last


# ---- 7. a hook whose Python is gone


def test_hooks_status_names_a_hook_whose_python_is_gone(tmp_path: Path) -> None:
    from k0maru.githooks import install

    hooks = tmp_path / "hooks"
    hooks.mkdir()
    hook = hooks / "post-commit"
    hook.write_text(install._script("post-commit", chained=False), encoding="utf-8")
    assert install.hook_state(tmp_path, hooks, "post-commit") == "k0maru"
    gone = tmp_path / "venv" / "bin" / "python"
    text = re.sub(r"(?m)^K0MARU_PYTHON=\S+", f"K0MARU_PYTHON={gone}", hook.read_text())
    hook.write_text(text, encoding="utf-8")
    state = install.hook_state(tmp_path, hooks, "post-commit")
    assert state.startswith("k0maru -- INTERPRETER GONE: ") and str(gone) in state
    assert "k0maru hooks install" in state
    gone.parent.mkdir(parents=True)
    gone.write_text("")  # there, but not executable
    assert "INTERPRETER GONE" in install.hook_state(tmp_path, hooks, "post-commit")
    gone.chmod(0o755)
    assert install.hook_state(tmp_path, hooks, "post-commit") == "k0maru"


# ---- 8. scripts/test.sh and a busy apt lock


def chromium_part() -> str:
    text = TEST_SH.read_text(encoding="utf-8")
    found = re.search(r"# >>> chromium.*?\n(.*?)# <<< chromium", text, re.S)
    assert found, "scripts/test.sh lost its chromium part's markers"
    return found.group(1)


def test_test_sh_waits_for_the_apt_lock() -> None:
    """Was: `apt-get install chromium` with another apt holding the lock failed at once."""
    part = chromium_part()
    code = re.sub(r'"[^"\n]*"', '""', part)  # the messages' words are no run
    runs = [m.start() for m in re.finditer(r"\bapt-get\b", code)]
    waiting = [m.start() for m in re.finditer(r"\bapt-get -o DPkg::Lock::Timeout=300 ", code)]
    looked_up = [m.start() + 11 for m in re.finditer(r"command -v apt-get\b", code)]
    assert waiting and sorted(waiting + looked_up) == runs, code
    assert re.search(r'"\$\{CI:-\}" = "true".*?exit 1', part, re.S)


@pytest.mark.slow
def test_test_sh_stops_on_ci_without_a_browser(tmp_path: Path) -> None:
    """Was: "NO BROWSER ... skipped" and the run went on, on CI too. The part runs with a PATH of
    stand-ins only (no chromium, an apt-get that fails), whatever this machine has."""
    import shutil

    stubs = tmp_path / "bin"
    stubs.mkdir()
    for tool in ("mktemp", "tail", "rm"):
        found = shutil.which(tool)
        assert found, tool
        (stubs / tool).symlink_to(found)
    calls = tmp_path / "apt-calls"
    (stubs / "apt-get").write_text(f'#!/bin/sh\necho "$@" >> {calls}\nexit 100\n')
    (stubs / "id").write_text("#!/bin/sh\necho 0\n")  # as root: the apt-get branch
    for stub in ("apt-get", "id"):
        (stubs / stub).chmod(0o755)
    env = {
        "PATH": str(stubs),
        "HOME": str(tmp_path),
        "K0MARU_TEST_RUN": os.environ.get("K0MARU_TEST_RUN", ""),
    }
    script = "set -euo pipefail\n" + chromium_part().replace("/usr/bin/chromium", "/nonexistent")

    def part(**extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [bash, "-c", script],
            env={**env, **extra},
            capture_output=True,
            text=True,
            timeout=60,
        )

    bash = shutil.which("bash") or "/bin/bash"
    ci = part(CI="true")
    assert ci.returncode != 0 and "NO BROWSER on CI" in ci.stderr, ci.stderr
    assert "-o DPkg::Lock::Timeout=300 -y -q install chromium" in calls.read_text()
    local = part()
    assert local.returncode == 0 and "NO BROWSER: apt-get install chromium failed" in local.stderr
