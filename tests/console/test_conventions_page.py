"""The console's conventions page: where each kind of note goes and why, and the record form k0maru
learnt from the folder's own records, through Flask's test client over a real index."""

import html
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from k0maru.console.app import create_app
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write

RECORD = (
    "# {n}. {title}\n\nDate: 2020-01-0{n}\n\n## Status\n\nAccepted\n\n## Context\n\nWhy.\n\n"
    "## Decision\n\nWhat.\n\n## Consequences\n\nThen.\n"
)


@pytest.fixture
def console(vault: Path) -> Iterator[FlaskClient]:
    write(vault, "doc/adr/0001-record-architecture-decisions.md", RECORD.format(n=1, title="A"))
    write(vault, "doc/adr/0002-use-shell.md", RECORD.format(n=2, title="Use shell"))
    index = Vault.open(vault)
    index.index()
    service = Service(VaultSession(index))
    yield create_app(service).test_client()
    service.close()


def kind_section(page: str, kind: str) -> str:
    return page.split(f'id="kind-{kind}"', 1)[1].split("</section>", 1)[0]


def test_the_conventions_page_shows_the_learnt_record_form(console: FlaskClient) -> None:
    r = console.get("/conventions")
    assert r.status_code == 200
    page = html.unescape(r.get_data(as_text=True))
    assert '<a href="/conventions" class="active">Conventions</a>' in page
    adr = kind_section(page, "adr")
    rows = dict(
        (th.split("</th>", 1)[0], td.split("</td>", 1)[0])
        for th, _, td in (row.partition('<td class="cmd">') for row in adr.split("<tr><th>")[1:])
    )
    assert rows["folder"] == "doc/adr/ (chosen by its name and records (see the evidence))"
    assert rows["learnt from"].endswith("0002-use-shell.md")
    assert rows["name"] == "{num}{sep}{slug}.md"
    assert rows["heading"] == "# {n}. {title}"
    assert rows["metadata line"] == "Date: {date}"
    assert rows["sections"] == "Status / Context / Decision / Consequences"
    assert rows["first status"] == "Accepted"


def test_a_kind_without_records_says_k0maru_keeps_its_own_form(console: FlaskClient) -> None:
    page = html.unescape(console.get("/conventions").get_data(as_text=True))
    card = kind_section(page, "card")
    assert "k0maru's default, created on the first flush" in card
    assert "k0maru's own (frontmatter title, date, kind, category, tags)" in card
