"""A note or ADR written as the vault's own people write theirs (#39): one test per defect found on
real repositories, each on a small vault of that shape."""

import json
import subprocess
from datetime import date
from pathlib import Path

import pytest

from k0maru.notes.adr import adr_from_head
from k0maru.notes.conventions import ConventionSniffer
from k0maru.notes.flush import FlushEngine
from tests.helpers import K0, write

ADR_TOOLS = (
    "# {n}. {title}\n\nDate: 2020-01-0{n}\n\n## Status\n\nAccepted\n\n## Context\n\nWhy {n}.\n\n"
    "## Decision\n\nWhat {n}.\n\n## Consequences\n\nThen {n}.\n"
)
BODY = "## Context\n\nWe need X.\n\n## Decision\n\nUse X.\n\n## Consequences\n\nX everywhere.\n"
WHEN = date(2026, 7, 20)


def adr_tools_vault(root: Path) -> None:
    write(root, "doc/adr/0001-record-architecture-decisions.md", ADR_TOOLS.format(n=1, title="A"))
    write(root, "doc/adr/0002-use-shell.md", ADR_TOOLS.format(n=2, title="Use shell"))


def test_metadata_heading_and_sections_are_learnt_from_the_records(vault: Path) -> None:
    adr_tools_vault(vault)
    note = FlushEngine(vault).flush("adr", "Use X", BODY, when=WHEN)
    assert note.path == "doc/adr/0003-use-x.md"
    assert (vault / note.path).read_text() == (
        "# 3. Use X\n\nDate: 2026-07-20\n\n## Status\n\nAccepted\n\n## Context\n\nWe need X.\n\n"
        "## Decision\n\nUse X.\n\n## Consequences\n\nX everywhere.\n"
    )
    later = FlushEngine(vault).flush("adr", "Use X", BODY, when=date(2026, 8, 1))
    assert later.outcome == "up_to_date" and later.path == note.path  # another day, the same note


@pytest.mark.parametrize(
    ("heading", "name", "want"),
    [
        ("# ADR {n:03d}: {t}", "{n:04d}-{s}.md", "# ADR 003: Use X"),
        ("# {n:04d}: {t}", "{n:04d}-{s}.md", "# 0003: Use X"),
        (
            "# Architecture Decision Record: {t}",
            "adr-{n:03d}-{s}.md",
            "# Architecture Decision Record: Use X",
        ),
    ],
)
def test_heading_forms(vault: Path, heading: str, name: str, want: str) -> None:
    for n, t in ((1, "Alpha one"), (2, "Beta two")):
        s = t.lower().replace(" ", "-")
        write(
            vault,
            "docs/adr/" + name.format(n=n, s=s),
            heading.format(n=n, t=t) + "\n\n## Context\n\nc\n",
        )
    note = FlushEngine(vault).flush("adr", "Use X", "## Context\n\nc\n", when=WHEN)
    assert (vault / note.path).read_text().splitlines()[0] == want


def test_frontmatter_only_where_the_records_use_it_with_their_keys(vault: Path) -> None:
    for n in (1, 2):
        write(
            vault,
            f"docs/decisions/000{n}-d{n}.md",
            f"---\nparent: Decisions\nnav_order: {n}\nstatus: accepted\n---\n# D{n}\n\n## Context\n\nc\n",
        )
    text = (vault / FlushEngine(vault).flush("adr", "Use X", BODY, when=WHEN).path).read_text()
    assert text.startswith("---\nparent: Decisions\nnav_order: 3\nstatus: accepted\n---\n# Use X\n")
    adr_tools_vault(vault / "other")
    plain = FlushEngine(vault / "other").flush("adr", "Use X", BODY, when=WHEN)
    assert not (vault / "other" / plain.path).read_text().startswith("---")


def test_a_dated_majority_beats_one_legacy_numbered_file(vault: Path) -> None:
    write(vault, "docs/adr/0001-a.md", "# A\n\n## Context\n\nc\n")
    for d in ("2026-01-02", "2026-01-03", "2026-01-04"):
        write(vault, f"docs/adr/{d}-b{d[-1]}.md", "# B\n\n## Context\n\nc\n")
    note = FlushEngine(vault).flush("adr", "Use X", BODY, when=WHEN)
    assert note.path == "docs/adr/2026-07-20-use-x.md"


def test_yyyymmdd_names(vault: Path) -> None:
    for d in ("20250101", "20250202"):
        write(vault, f"docs/adr/{d}-use-thing-{d[-1]}.md", "# Use thing\n\n- Status: accepted\n")
    note = FlushEngine(vault).flush("adr", "Use X", BODY, when=WHEN)
    assert note.path == "docs/adr/20260720-use-x.md"
    assert "- Status: accepted" in (vault / note.path).read_text()


def test_daily_notes_are_named_by_the_given_date(vault: Path) -> None:
    for d in ("2024-08-25", "2024-08-26"):
        write(vault, f"Daily Notes/{d}.md", "## Tasks\n\n- a\n\n## Notes\n\nn\n")
    note = FlushEngine(vault).flush("log", "Standup", "## Tasks\n\n- b\n", when=WHEN)
    assert note.path == "Daily Notes/2026-07-20.md"
    assert (vault / note.path).read_text() == "**Standup**\n\n## Tasks\n\n- b\n"  # title kept


def test_root_level_records_are_the_adr_folder(vault: Path) -> None:
    write(vault, "README.md", "# Project\n")
    for n, s in ((1, "use-adrs"), (2, "use-clojure")):
        write(
            vault, f"adr-00{n}-{s}.md", f"# Architecture Decision Record: {s}\n\n## Context\n\nc\n"
        )
    note = FlushEngine(vault).flush("adr", "Use X", BODY, when=WHEN)
    assert note.path == "adr-003-use-x.md"


def test_fixture_trees_never_beat_the_main_folder(vault: Path) -> None:
    for n in range(1, 6):
        write(vault, f"tests/fixture/docs/adr/000{n}-f{n}.md", f"# {n}. F\n")
    write(vault, "docs/adr/0001-main.md", "# 1. Main\n")
    write(vault, "docs/adr/0002-second.md", "# 2. Second\n")
    rule = ConventionSniffer(vault).sniff().rules["adr"]
    assert rule.folder == "docs/adr"


def test_a_new_default_folder_is_said(vault: Path) -> None:
    write(vault, "notes/a.md", "# A\n")
    note = FlushEngine(vault).flush("adr", "Use X", BODY, when=WHEN)
    assert note.path == "docs/adr/0001-use-x.md"
    assert any("no adr folder found" in w and "docs/adr" in w for w in note.warnings)


def test_a_rules_file_beside_the_records_is_read(vault: Path) -> None:
    write(vault, "docs/adr/AGENTS.md", "Name new records `YYYY-MM-DD-title.md`.\n")
    note = FlushEngine(vault).flush("adr", "Use X", BODY, when=WHEN)
    assert note.path == "docs/adr/2026-07-20-use-x.md"


def test_a_template_beside_the_records_gives_the_missing_sections(vault: Path) -> None:
    write(
        vault,
        "docs/decisions/adr-template.md",
        "# {title}\n\n## Context and Problem Statement\n\n{describe}\n\n## Decision Outcome\n\n"
        "{outcome}\n",
    )
    write(
        vault,
        "docs/decisions/0001-a.md",
        "# A\n\n## Context and Problem Statement\n\nc\n\n## Decision Outcome\n\no\n",
    )
    body = "## Context and Problem Statement\n\nWe need X.\n"
    text = (vault / FlushEngine(vault).flush("adr", "Use X", body, when=WHEN).path).read_text()
    assert text == (
        "# Use X\n\n## Context and Problem Statement\n\nWe need X.\n\n## Decision Outcome\n\n{outcome}\n"
    )


@pytest.mark.slow
def test_commit_body_sections_are_not_duplicated(vault: Path) -> None:
    adr_tools_vault(vault)

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(vault), *args], check=True, capture_output=True)

    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=A", "-c", "user.email=a@x", "commit", "-qm", "start")
    message = "Use X\n\n" + BODY + "\nADR: Use X\n"
    git("-c", "user.name=A", "-c", "user.email=a@x", "commit", "-q", "--allow-empty", "-m", message)
    written = adr_from_head(vault)
    assert written is not None
    text = (vault / written["path"]).read_text()
    assert text.count("## Context") == 1 and text.count("## Decision") == 1
    assert text.startswith("# 3. Use X\n\nDate: ") and "## Status\n\nAccepted" in text
    again = adr_from_head(vault)
    assert again is not None
    assert written == again | {"outcome": "created"}  # idempotent


@pytest.mark.slow
def test_flush_cli_takes_a_date(vault: Path, k0: K0) -> None:
    adr_tools_vault(vault)
    body = vault / "body.md"
    body.write_text(BODY)
    args = ("flush", "--vault", str(vault), "--kind", "adr", "--title", "Use X", "--json")
    r = k0(*args, "--body-file", str(body), "--date", "2026-07-20")
    path = json.loads(r.stdout)["path"]
    assert "Date: 2026-07-20" in (vault / path).read_text()
    bad = k0(*args, "--body-file", str(body), "--date", "20 July")
    assert bad.returncode != 0 and "YYYY-MM-DD" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.slow
def test_conventions_explain_and_json_show_the_learnt_template(vault: Path, k0: K0) -> None:
    adr_tools_vault(vault)
    r = k0("conventions", "--vault", str(vault), "--explain")
    assert "folder: doc/adr/" in r.stdout and "heading: # {n}. {title}" in r.stdout
    assert "metadata line: Date: {date}" in r.stdout and "first status: Accepted" in r.stdout
    got = json.loads(k0("conventions", "--vault", str(vault), "--json").stdout)
    record = got["kinds"]["adr"]["record"]
    assert record["heading"] == "# {n}. {title}" and record["sections"][0] == "Status"


def test_records_kept_as_folders_of_their_own(vault: Path) -> None:
    for n, slug in ((1, "use-adrs"), (2, "use-go")):
        write(vault, f"docs/adr/000{n}-{slug}/index.md", f"# {n}. {slug}\n\n## Context\n\nc\n")
    engine = FlushEngine(vault)
    note = engine.flush("adr", "Use X", "## Context\n\nWe need X.\n", when=WHEN)
    assert note.path == "docs/adr/0003-use-x/index.md"
    assert (vault / note.path).read_text().startswith("# 3. Use X\n")
    again = engine.flush("adr", "Use X", "## Context\n\nWe need X.\n", when=WHEN)
    assert again.outcome == "up_to_date" and again.path == note.path


def test_tool_settings_name_the_folders(vault: Path) -> None:
    """adr-tools' `.adr-dir` names the ADR folder; Obsidian's daily notes settings the log folder,
    the file name (the date alone) and the template."""
    write(vault, ".adr-dir", "architecture/decisions\n")
    write(
        vault,
        ".obsidian/daily-notes.json",
        json.dumps({"folder": "Journal", "template": "Templates/Daily"}),
    )
    write(vault, "Templates/Daily.md", "# {{date}}\n\n## Tasks\n\n- [ ] \n\n## Notes\n")
    rules = ConventionSniffer(vault).sniff().rules
    assert rules["adr"].folder == "architecture/decisions"
    note = FlushEngine(vault).flush("log", "Standup", "## Notes\n\nShipped X.\n", when=WHEN)
    assert note.path == "Journal/2026-07-20.md"
    assert (vault / note.path).read_text() == (
        "# 2026-07-20\n\n**Standup**\n\n## Tasks\n\n- [ ]\n\n## Notes\n\nShipped X.\n"
    )


def test_mcp_flush_session_takes_a_date(vault: Path) -> None:
    from typing import Any

    from mcp.client.client import Client

    from k0maru.service.operations import Service
    from tests.mcp.test_answers import call

    adr_tools_vault(vault)
    args = {"title": "Use X", "body": BODY, "kind": "adr"}

    async def body(c: Client) -> Any:
        good = await c.call_tool("flush_session", {**args, "date": "2026-07-20"})
        bad = await c.call_tool("flush_session", {**args, "date": "20 July"})
        return good, bad

    with Service.open(str(vault)) as svc:
        good, bad = call(svc, body)
    assert "Date: 2026-07-20" in (vault / good.structured_content["path"]).read_text()
    assert bad.is_error and "YYYY-MM-DD" in bad.content[0].text


def test_related_links_are_written_as_the_records_write_links(vault: Path) -> None:
    for n in (1, 2):
        write(
            vault,
            f"doc/adr/000{n}-r{n}.md",
            f"# {n}. R\n\nSee [R](0001-r1.md).\n\n## Context\n\nc\n",
        )
    note = FlushEngine(vault).flush("adr", "Use X", BODY, related=["0001-r1"], when=WHEN)
    assert "- [0001-r1](0001-r1.md)" in (vault / note.path).read_text()
