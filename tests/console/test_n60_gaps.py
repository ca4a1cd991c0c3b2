"""/gaps names the note a link names by its title and says how to link it: `show` opens a note by
its title, Obsidian does not (it links by file name and alias), so the link stays unresolved in
the index, the dashboard and `status` alike. Flask's test client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from k0maru.cli.main import main
from k0maru.console.app import create_app
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.console.test_counts_and_kinds import cards, get, section_rows
from tests.helpers import write

LINKER = "# Linker\n\n[[Some Title]], [[some title]], [[Front Title]], [[foo-bar]], [[nowhere]]\n"


@pytest.fixture
def titled(vault: Path) -> Path:
    write(vault, ".k0maru/config.toml", "embed = false\n")
    write(vault, "foo-bar.md", "# Some Title\n\ntext\n")
    write(vault, "fm.md", "---\ntitle: Front Title\n---\nbody\n")
    write(vault, "linker.md", LINKER)
    return vault


@pytest.fixture
def client(titled: Path) -> Iterator[Any]:
    svc = Service(VaultSession(Vault.open(titled)))
    svc.scan()
    yield create_app(svc).test_client()
    svc.close()


def test_gaps_names_the_note_a_title_link_means_and_how_to_link_it(client: Any) -> None:
    """Was: [[Some Title]] listed as leading to no note, though `show` opens `foo-bar.md` by it."""
    page = get(client, "/gaps")
    assert "[[nowhere]]" in page and "no note of that name, path or alias" in page
    assert "a note has this title" in page and "[[foo-bar|Some Title]]" in page
    assert "[[fm|Front Title]]" in page
    assert section_rows(page, "unresolved") == 4  # Obsidian resolves none of the four
    assert cards(get(client, "/"))["links to no note"][1] == 4  # the dashboard agrees


def test_status_counts_title_links_as_obsidian_does_and_show_opens_them(
    titled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scan", "--vault", str(titled), "--json"]) == 0
    capsys.readouterr()
    assert main(["status", "--vault", str(titled), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["links"], info["links_resolved"], info["links_to_no_note"]) == (5, 1, 4)
    assert main(["show", "--vault", str(titled), "Front Title"]) == 0  # as show takes a title
    assert "body" in capsys.readouterr().out
