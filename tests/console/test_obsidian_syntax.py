"""Each Obsidian syntax of tests/data/console/obsidian/ is shown as Obsidian shows it (issue #60):
no broken image, no embed shown as `!name > suffix`, no footnote read as a link, the file name as
the title, comments hidden from the page and the index, highlights, tasks, strike, footnotes,
callouts, math as written and Mermaid drawn without ligatures."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from k0maru.console.app import create_app
from k0maru.console.render import render_markdown
from k0maru.index.markdown import chunk_note, parse_note
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault

NOTES = Path(__file__).resolve().parents[1] / "data" / "console" / "obsidian"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FlaskClient, Service]]:
    root = tmp_path_factory.mktemp("obsidian") / "vault"
    shutil.copytree(NOTES, root)
    v = Vault.open(root)
    v.index()
    service = Service(VaultSession(v))
    yield create_app(service).test_client(), service
    service.close()


def article(client: FlaskClient, path: str) -> str:
    page = client.get(f"/notes/{path}").get_data(as_text=True)
    return page.split('<article class="card note">', 1)[1].split("</article>", 1)[0]


def text_of(html: str) -> str:
    """The visible text outside code and SVG."""
    html = re.sub(r"<(pre|code|svg)\b.*?</\1>", "", html, flags=re.S)
    return re.sub(r"<[^>]+>", "", html)


@pytest.fixture(scope="module")
def tour(site: tuple[FlaskClient, Service]) -> str:
    return article(site[0], "Syntax tour.md")


def test_titles_are_the_file_name_unless_the_properties_set_one(
    site: tuple[FlaskClient, Service],
) -> None:
    client, service = site
    assert service.note_view("Syntax tour.md").title == "Syntax tour"
    assert service.note_view("Template.md").title == "Template"
    assert service.note_view("Titled.md").title == "A title from the properties"
    page = client.get("/notes/Syntax tour.md").get_data(as_text=True)
    assert '<h1 class="note-title">Syntax tour</h1>' in page
    assert 'id="prerequisites">Prerequisites</h2>' in article(client, "Syntax tour.md")
    assert "{{title}}</h1>" in article(client, "Template.md")  # the heading, shown as written


def test_no_broken_image_and_no_embed_shown_as_text(site: tuple[FlaskClient, Service]) -> None:
    client, _ = site
    body = article(client, "Syntax tour.md")
    srcs = re.findall(r'<img src="([^"]+)"', body)
    assert len(srcs) == 4 and all(client.get(s).status_code == 200 for s in srcs)
    assert '<img src="/files/attachments/shot.png" alt="shot.png" width="100">' in body
    assert 'width="100" height="50"' in body and 'width="40"' in body
    assert not re.search(r"!\S[^<\n]*? &gt; ", body) and "interface" not in text_of(body)
    assert '<span class="icon" title="lucide-cog.svg">[cog]</span>' in body
    assert "gone.png" in text_of(body)  # a missing file: its name, not an image
    assert '<a href="/notes/Target.md#heading"' in body and 'href="/notes/Target.md#%5Eblk"' in body
    assert ">Incomplete task</a>" in body


def test_comments_are_hidden_from_the_page_and_the_index(
    site: tuple[FlaskClient, Service], tour: str
) -> None:
    _, service = site
    assert "%%" not in tour and "secretword" not in tour and "Ghost" not in tour
    view = service.note_view("Syntax tour.md")
    assert "Ghost" not in {x.target for x in view.links} and "ghosttag" not in view.tags
    note = parse_note("Syntax tour.md", (NOTES / "Syntax tour.md").read_text(encoding="utf-8"))
    chunks = chunk_note(note.title, note.body, 2000, note.body_line)
    assert chunks and not any("secretword" in c.text or "%%" in c.text for c in chunks)
    assert any("stays hidden" in c.text for c in chunks)


def test_footnotes_are_numbered_notes_not_links(
    site: tuple[FlaskClient, Service], tour: str
) -> None:
    _, service = site
    targets = {x.target for x in service.note_view("Syntax tour.md").links}
    assert not targets & {"Vault", "This"}, targets
    assert (
        '<sup><a href="#%5Efn-1" class="footnote-ref" rel="noopener noreferrer">1</a></sup>' in tour
    )
    assert '<li id="^fn-1">Vault ID is the name of the vault.</li>' in tour
    assert '<li id="^fn-3">written in place</li>' in tour
    assert "[^" not in text_of(tour)


def test_marks_tasks_strike_and_callouts(tour: str) -> None:
    assert "<mark>highlighted <strong>text</strong></mark>" in tour
    assert "<s>struck text</s>" in tour
    open_box = '<input type="checkbox" disabled="" aria-label="to do">'
    assert f'<li class="task">{open_box} an open task</li>' in tour
    assert 'disabled="" checked="" aria-label="done"> a done task' in tour
    assert (
        '<blockquote class="callout callout-tip">' in tour and "<strong>Folded tip</strong>" in tour
    )
    for mark in ("==", "~~", "[!", "$$", "- [ ]"):
        assert mark not in text_of(tour), mark


def test_math_is_shown_as_written_and_mermaid_drawn(tour: str) -> None:
    assert '<code class="language-math">\\begin{vmatrix}a &amp; b\\\\\nc &amp; d' in tour
    assert "<code>e^{2i\\pi} = 1</code> costs $5 or $10." in tour
    assert '<figure class="mermaid"><svg' in tour and ">Start</text>" in tour
    assert "font-variant-ligatures:none" in tour
    assert '<code class="language-mermaid">sequenceDiagram' in tour  # one it cannot draw: code


def test_audio_plays_and_markup_stays_escaped() -> None:
    html = render_markdown(
        '![[song.mp3]] ![[x.png|<script>]] ![[a"b.png]] ==<img src=x onerror=alert(1)>==',
        lambda _: None,
        images={"song.mp3": "att/song.mp3", 'a"b.png': 'att/a"b.png'},
    )
    assert '<audio controls="" src="/files/att/song.mp3" title="song.mp3"></audio>' in html
    assert "<script" not in html and "onerror" not in html.replace("onerror=alert", "")
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "<mark>" in html
    assert '<img src="/files/att/a%22b.png"' in html


def test_a_note_cannot_forge_what_the_renderer_adds() -> None:
    html = render_markdown(
        '![x](/files/y.mp3 "k0-0000 audio") <p id="k0-0-mermaid-0"></p>', lambda _: None
    )
    assert "<audio" not in html and "<img" not in html and "x " in html
    assert "&lt;p id=" in html
