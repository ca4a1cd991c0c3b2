"""/gaps takes a link naming a note by its title as leading to it, as `show` opens a note by its
title: it is no link to no note there, on the dashboard, nor in `status` (#60, n). Flask's test
client."""

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


def test_gaps_leaves_out_links_that_name_a_note_by_its_title(client: Any) -> None:
    """Was: [[Some Title]] and [[Front Title]] listed as unresolved, though `show` opens both."""
    page = get(client, "/gaps")
    assert "[[nowhere]]" in page and "no note of that name, path, alias or title" in page
    assert "Some Title" not in page and "some title" not in page and "Front Title" not in page
    assert section_rows(page, "unresolved") == 1
    assert cards(get(client, "/"))["links to no note"][1] == 1


def test_status_counts_the_titled_links_as_links_to_notes(
    titled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scan", "--vault", str(titled), "--json"]) == 0
    capsys.readouterr()
    assert main(["status", "--vault", str(titled), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["links"], info["links_resolved"], info["links_to_no_note"]) == (5, 4, 1)
    assert main(["show", "--vault", str(titled), "Front Title"]) == 0  # as show takes a title
    assert "body" in capsys.readouterr().out
