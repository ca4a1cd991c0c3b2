"""The note page links exactly the tags the index holds for the note, whichever frontmatter form
wrote them (issue #56): a page that read tags its own way linked to tags the index does not hold."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import unquote

import pytest

from k0maru.console.app import create_app
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write

NOTES = {
    "comma.md": "---\ntags: a, b\n---\n# Comma\n\nbody\n",
    "spaced.md": '---\ntags: "alpha beta"\n---\n# Spaced\n\nbody\n',
    "single.md": "---\ntag: x\n---\n# Single\n\nbody\n",
    "listed.md": "---\ntags: [One, two/three]\n---\n# Listed\n\nbody\n",
    "block.md": "---\ntags:\n  - '#hashed'\n  - kept\n---\n# Block\n\nbody\n",
    "inline.md": "---\ntags: [written]\n---\n# Inline\n\nFiled under #Project/alpha and #ops.\n",
    "both.md": "---\ntags: first\ntag: second\n---\n# Both\n\nbody\n",
}
# Each note's page and the tags the index holds for it.
Pages = dict[str, tuple[str, Sequence[str]]]


@pytest.fixture
def pages(vault: Path) -> Iterator[Pages]:
    for name, text in NOTES.items():
        write(vault, name, text)
    v = Vault.open(vault)
    v.index()
    service = Service(VaultSession(v))
    client = create_app(service).test_client()
    yield {
        name: (client.get(f"/notes/{name}").get_data(as_text=True), service.note_view(name).tags)
        for name in NOTES
    }
    service.close()


def header(page: str) -> str:
    return page.split('class="note-head"', 1)[1].split("</header>", 1)[0]


def tag_links(page: str) -> list[str]:
    return [
        unquote(t) for t in re.findall(r'class="badge linked" href="/notes\?tag=([^"]+)"', page)
    ]


@pytest.mark.parametrize("name", NOTES)
def test_the_page_links_the_tags_the_index_holds(pages: Pages, name: str) -> None:
    page, indexed = pages[name]
    assert tag_links(header(page)) == list(indexed)


def test_each_form_as_the_index_reads_it(pages: Pages) -> None:
    assert {name: list(tags) for name, (_, tags) in pages.items()} == {
        "comma.md": ["a", "b"],
        "spaced.md": [],  # one tag with a space is no tag: no links to `alpha` and `beta`
        "single.md": ["x"],
        "listed.md": ["one", "two/three"],
        "block.md": ["hashed", "kept"],
        "inline.md": ["ops", "project/alpha", "written"],
        "both.md": ["first"],
    }
    assert "alpha" not in tag_links(pages["spaced.md"][0])


def test_the_key_tags_came_from_is_not_also_a_property(pages: Pages) -> None:
    props = dict(re.findall(r"<dt>(\w+)</dt><dd>([^<]*)</dd>", header(pages["single.md"][0])))
    assert "tag" not in props
    props = dict(re.findall(r"<dt>(\w+)</dt><dd>([^<]*)</dd>", header(pages["both.md"][0])))
    assert props == {"tag": "second"}  # not read as tags by the index: a property as written
