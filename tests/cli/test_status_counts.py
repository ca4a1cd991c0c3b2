"""`k0maru status` says the counts the console's dashboard and status page say, each equal to the
rows of the page it names, and the line on how the index is kept current (issue #60)."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from k0maru.cli.main import main
from k0maru.console.app import create_app
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.console.test_counts_and_kinds import NOTES, PNG, cards, counted, get, section_rows
from tests.helpers import write


@pytest.fixture
def indexed(vault: Path) -> Path:
    write(vault, ".k0maru/config.toml", "embed = false\n")
    write(vault, ".adr-dir", "doc/decisions\n")
    for name, text in NOTES.items():
        write(vault, name, text)
    (vault / "img").mkdir()
    for i in range(12):
        (vault / "img" / f"shot-{i}.png").write_bytes(PNG)
    (vault / "manual.pdf").write_bytes(b"%PDF-1.4\n")
    assert main(["scan", "--vault", str(vault), "--json"]) == 0
    return vault


def status(capsys: pytest.CaptureFixture[str], vault: Path, *flags: str) -> str:
    capsys.readouterr()
    assert main(["status", "--vault", str(vault), *flags]) == 0
    out: str = capsys.readouterr().out
    return out


def test_status_counts_are_the_dashboard_s_and_the_rows_its_pages_list(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    info = json.loads(status(capsys, indexed, "--json"))
    with Service(VaultSession(Vault.open(indexed))) as svc:
        client = create_app(svc).test_client()
        home = cards(get(client, "/"))
        gaps = section_rows(get(client, "/gaps"), "unresolved")
        tags, kinds = counted(get(client, "/tags")), counted(get(client, "/kinds"))
        page = get(client, "/status")
    assert info["links_to_no_note"] == home["links to no note"][1] == gaps == 3
    assert info["tags"] == home["tags"][1] == len(tags) > 0
    assert info["kinds"] == home["kinds of note"][1] == len(kinds) > 0
    assert info["documents"] == home["notes"][1] == len(NOTES)
    # [[Gallery]] to a note; 12 shots, gone.png, manual.pdf, lost.pdf to files; 3 to no note
    assert (info["links"], info["links_resolved"], info["attachment_links"]) == (19, 1, 15)
    assert f"1 to notes · {info['attachment_links']} to other files" in page
    current = re.search(r"<th>kept current</th><td>([^<]+)</td>", page)
    assert current is not None  # the console watches the files, the command line does not: the
    # same line but for who follows the changes
    assert unescape(current.group(1)).split("; no ")[1] == info["kept_current"].split("; no ")[1]


def test_status_text_says_the_same_counts(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    info = json.loads(status(capsys, indexed, "--json"))
    lines = {line[:10].strip(): line[11:] for line in status(capsys, indexed).splitlines()}
    assert lines["links"] == (
        "19: 1 to notes, 15 to other files (images, PDFs), 3 to no note (the console's /gaps "
        "lists them)"
    )
    assert lines["tags"] == f"{info['tags']}   kinds {info['kinds']}   offloads 0"
    assert lines["current"] == info["kept_current"]
    assert "not a git repository" in lines["current"]
