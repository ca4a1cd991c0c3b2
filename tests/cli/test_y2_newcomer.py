"""What a newcomer's run on an Obsidian-style vault found (kinds, flush limits, aliases, show,
relative dates, budgets, skip warnings), each as the person at the keyboard sees it. In-process,
no embeddings."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from k0maru.cli.main import main
from k0maru.errors import K0maruError
from k0maru.service.operations import Service
from tests.helpers import write


@pytest.fixture(autouse=True)
def lexical_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K0MARU_EMBED", "0")
    monkeypatch.delenv("K0MARU_VAULT", raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        rc = main(list(argv))
    except SystemExit as exc:
        rc = int(exc.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


def _daily_vault(vault: Path) -> Path:
    for day in ("2026-11-01", "2026-11-02", "2026-11-03"):
        write(vault, f"Daily/{day}.md", f"---\ndate: {day}\n---\n# {day}\n- Standup: harbor\n")
    write(vault, "cards/retry.md", "---\nkind: card\n---\n# Retry\nretries\n")
    return vault


def test_a_note_in_the_daily_folder_is_a_log_and_both_kind_messages_agree(
    capsys: pytest.CaptureFixture[str], vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The conventions file logs in Daily/; the index takes a note there (no frontmatter kind) as
    a log, so `--kind log` finds what `flush --kind log` wrote."""
    _daily_vault(vault)
    assert run(capsys, "init", "--vault", str(vault))[0] == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("Investigated zorblax lag again."))
    argv = ["flush", "--vault", str(vault), "--kind", "log", "--title", "Lag", "--json"]
    rc, out, err = run(capsys, *argv, "--date", "2026-12-07")
    assert rc == 0 and '"path":"Daily/2026-12-07.md"' in out, out + err
    rc, out, err = run(capsys, "search", "zorblax", "--kind", "log", "--vault", str(vault))
    assert rc == 0 and "[Daily/2026-12-07" in out, err
    rc, out, err = run(capsys, "search", "standup", "--kind", "log", "--vault", str(vault))
    assert rc == 0 and "Daily/2026-11-0" in out, err
    rc, _, absent = run(capsys, "search", "retries", "--kind", "adr", "--vault", str(vault))
    rc2, _, unknown = run(capsys, "search", "retries", "--kind", "zzz", "--vault", str(vault))
    assert "the kinds of note here: card, log" in absent
    assert rc2 == 2 and "the kinds of note here: card, log\n" in unknown


def test_a_flush_whose_note_would_pass_max_file_bytes_is_refused_before_writing(
    capsys: pytest.CaptureFixture[str], vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A body at the limit makes a note above it once flush adds its frontmatter and heading:
    refused in one line naming the limit, and nothing written (CLI and MCP share the check)."""
    assert run(capsys, "init", "--vault", str(vault))[0] == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("x" * 4999))
    monkeypatch.setenv("K0MARU_MAX_FILE_BYTES", "5000")
    argv = ["flush", "--vault", str(vault), "--kind", "card", "--title", "Huge body"]
    rc, _, err = run(capsys, *argv)
    assert rc == 2 and "max_file_bytes=5,000" in err and err.count("\n") == 2, err
    settings = {"embed": False, "max_file_bytes": 5000}
    with (
        Service.open(str(vault), settings=settings) as svc,
        pytest.raises(K0maruError, match="max_file_bytes=5,000"),
    ):
        svc.flush("card", "Huge body", "x" * 4999, [], [])
    assert not list(vault.rglob("huge*.md"))


def _named_vault(vault: Path) -> Path:
    write(vault, "Home.md", "---\naliases: [Start, MOC]\n---\n# Home\nMap of content.\n")
    write(
        vault,
        "Projects/Harbor/Harbor Overview.md",
        "---\ntitle: Harbor Overview\naliases: [Harbor, harbor-svc]\n---\n# Harbor Overview\n"
        "The ingest gateway.\n",
    )
    write(vault, "Projects/Harbor/Design/Harbor API.md", "# Harbor API\nendpoints of harbor-api\n")
    for folder in ("Archive/2026", "Projects/Harbor/Design"):
        write(
            vault,
            f"{folder}/Dead letter queue for every topic.md",
            "---\ntitle: Dead-letter queue for every TÓPIC\n---\n# DLQ\nparked messages\n",
        )
    return vault


def test_show_resolves_a_name_as_a_link_does_and_names_notes_sharing_a_title(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    _named_vault(vault)
    assert run(capsys, "init", "--vault", str(vault))[0] == 0
    assert run(capsys, "scan", "--vault", str(vault))[0] == 0
    rc, out, err = run(capsys, "show", "harbor-svc", "--vault", str(vault))
    assert rc == 0 and "The ingest gateway." in out, err
    rc, out, _ = run(capsys, "show", "MOC", "--vault", str(vault))
    assert rc == 0 and "Map of content." in out
    rc, out, _ = run(capsys, "show", "harbor api", "--vault", str(vault))  # file name, any case
    assert rc == 0 and "endpoints" in out
    rc, _, err = run(capsys, "show", "Dead-letter queue for every tópic", "--vault", str(vault))
    line = err.splitlines()[-1]
    assert (
        rc != 0 and "2 notes have the title" in line and "tópic" in line and "no note" not in line
    ), err
    assert "'Archive/2026/Dead letter queue for every topic.md'" in line
    assert "'Projects/Harbor/Design/Dead letter queue for every topic.md'" in line


def test_search_finds_a_note_by_its_alias_also_after_an_edit_of_its_aliases(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    _named_vault(vault)
    assert run(capsys, "init", "--vault", str(vault))[0] == 0
    rc, out, err = run(capsys, "search", "MOC", "--vault", str(vault))
    assert rc == 0 and "[Home.md:" in out.splitlines()[0], out + err
    home = vault / "Home.md"  # an alias added later, the chunk's text unchanged
    home.write_text(home.read_text().replace("MOC]", "MOC, Lobby]"))
    rc, out, _ = run(capsys, "search", "lobby", "--vault", str(vault))
    assert rc == 0 and "[Home.md:" in out.splitlines()[0], out


def test_a_search_cut_to_its_budget_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    for n in range(6):
        write(vault, f"notes/harbor {n}.md", f"# Harbor {n}\n\n" + "harbor gateway ingest " * 40)
    assert run(capsys, "init", "--vault", str(vault))[0] == 0
    rc, out, _ = run(capsys, "search", "harbor", "--budget", "120", "--vault", str(vault))
    cut = [line for line in out.splitlines() if line.startswith("cut to fit --budget")]
    hits = [line for line in out.splitlines() if "score=" in line]
    assert rc == 0 and len(cut) == 1 and f"{6 - len(hits)} lower hit(s) left out" in cut[0], out
    assert "--budget " in cut[0].split(";")[1]


def test_a_dangling_symlink_is_warned_of_once_like_other_skipped_files(
    capsys: pytest.CaptureFixture[str], vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(vault, "a.md", "# Alpha\n\nlease renewal\n")
    (vault / "Dangling.md").symlink_to("nowhere.md")
    write(vault, "big.md", "# Big\n" + "word " * 100)
    assert run(capsys, "init", "--vault", str(vault))[0] == 0
    monkeypatch.setenv("K0MARU_MAX_FILE_BYTES", "200")
    _, _, first = run(capsys, "search", "lease", "--vault", str(vault))
    _, _, again = run(capsys, "search", "lease", "--vault", str(vault))
    assert "skipped Dangling.md: a dangling symlink" in first and "skipped big.md" in first
    assert "skipped" not in again, again
