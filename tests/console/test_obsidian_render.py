"""A note page shows the Obsidian syntax a vault uses as Obsidian shows it, reading links as the
index reads them: heading and block links, aliases inside tables, callouts, `<br>`, existing
attachments, inline tags, and properties as written."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from k0maru.console.app import create_app
from k0maru.index.markdown import chunk_note, parse_note
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write

HELP = """---
draft: true
reviewed: false
owner: ada
---
# Help

See [[#Usage]] and [[#Usage|how to use it]], then [[other#Setup]] and [[other#^step1]].

| command | page |
|---|---|
| run | [[other\\|the other page]] |
| two | first<br>second |

> [!tip] Keep it short
> Callout body.

> [!warning]
> No title here.

![[diagram.png]] and ![[gone.png]]

Filed under #project/alpha, see (#ops).

## Usage

Use it. `a<br>b` and `#not-a-tag` stay code.

```
[[#Usage]] <br> #nope
```
"""


@pytest.fixture
def client(vault: Path) -> Iterator[FlaskClient]:
    write(vault, "help.md", HELP)
    write(
        vault, "other.md", "# Other\n\n## Setup\n\nsteps ^step1\n\n- item one ^item1\n- item two\n"
    )
    (vault / "attachments").mkdir()
    (vault / "attachments" / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    v = Vault.open(vault)
    v.index()
    service = Service(VaultSession(v))
    yield create_app(service).test_client()
    service.close()


@pytest.fixture
def note_page(vault: Path) -> str:
    write(vault, "help.md", HELP)
    write(vault, "other.md", "# Other\n\n## Setup\n\nsteps ^step1\n")
    (vault / "attachments").mkdir()
    (vault / "attachments" / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    v = Vault.open(vault)
    v.index()
    service = Service(VaultSession(v))
    r = create_app(service).test_client().get("/notes/help.md")
    service.close()
    assert r.status_code == 200
    return r.get_data(as_text=True)


def article(page: str) -> str:
    return page.split('<article class="card note">', 1)[1].split("</article>", 1)[0]


def test_heading_links_lead_to_the_heading(note_page: str) -> None:
    body = article(note_page)
    assert '<h2 id="usage">Usage</h2>' in body
    assert '<a href="#usage" rel="noopener noreferrer">Usage</a>' in body
    assert '<a href="#usage" rel="noopener noreferrer">how to use it</a>' in body
    assert '<a href="/notes/other.md#setup" rel="noopener noreferrer">other &gt; Setup</a>' in body
    # a block link leads to the block, which carries its id (the browser decodes the fragment)
    assert (
        '<a href="/notes/other.md#%5Estep1" rel="noopener noreferrer">other &gt; ^step1</a>' in body
    )
    assert "See , " not in body


def test_an_alias_inside_a_table_is_the_link_text(note_page: str) -> None:
    body = article(note_page)
    assert '<td><a href="/notes/other.md" rel="noopener noreferrer">the other page</a></td>' in body
    assert "other\\" not in body


def test_callouts_breaks_and_tags(note_page: str) -> None:
    body = article(note_page)
    assert '<blockquote class="callout callout-tip">' in body
    assert "<strong>Keep it short</strong><br>\nCallout body." in body and "[!tip]" not in body
    assert "<strong>Warning</strong><br>\nNo title here." in body
    assert "<td>first<br>\nsecond</td>" in body
    assert '<a href="/notes?tag=project/alpha" class="tag"' in body
    assert '<a href="/notes?tag=ops" class="tag"' in body
    # code is shown as written
    assert "<code>a&lt;br&gt;b</code>" in body and "<code>#not-a-tag</code>" in body
    assert "[[#Usage]] &lt;br&gt; #nope" in body


def test_header_and_sidebar_show_what_the_index_holds(note_page: str) -> None:
    head = note_page.split('class="note-head"', 1)[1].split("</header>", 1)[0]
    assert "#project/alpha" in head and "#ops" in head  # inline tags, found by the tag filter
    props = dict(re.findall(r"<dt>(\w+)</dt><dd>([^<]*)</dd>", head))
    assert props == {"draft": "true", "reviewed": "false", "owner": "ada"}
    aside = note_page.split("<aside>", 1)[1]
    link = (
        '<a href="/files/attachments/diagram.png" title="attachments/diagram.png">diagram.png</a>'
    )
    assert link + ' <span class="muted">(attachment)' in aside
    assert "gone.png (missing)" in aside
    assert "other\\" not in aside


def test_blocks_carry_their_ids_and_the_title_is_not_repeated(client: FlaskClient) -> None:
    page = client.get("/notes/other.md").get_data(as_text=True)
    body = article(page)
    assert '<p id="^step1">steps</p>' in body and '<li id="^item1">item one</li>' in body
    assert "^step1" not in body.replace('id="^step1"', "")  # the marker itself is not shown
    # the page's header says the title; the note's opening `# Other` is not shown again below it
    assert '<h1 class="note-title">Other</h1>' in page and "<h1>Other</h1>" not in body
    assert '<h2 id="setup">Setup</h2>' in body


def test_an_embedded_image_is_shown_and_served_from_the_vault_alone(client: FlaskClient) -> None:
    body = article(client.get("/notes/help.md").get_data(as_text=True))
    assert '<img src="/files/attachments/diagram.png" alt="diagram.png"> and gone.png' in body
    r = client.get("/files/attachments/diagram.png")
    assert r.status_code == 200 and r.mimetype == "image/png"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.data == b"\x89PNG\r\n\x1a\n"
    for url in (
        "/files/help.md",
        "/files/.k0maru/index.sqlite",
        "/files/nope.png",
        "/files/..%2f..%2fetc%2fpasswd",
    ):
        assert client.get(url).status_code == 404, url


def test_search_passages_show_code_spans_and_escape_the_rest(client: FlaskClient) -> None:
    page = client.get("/search?q=stay+code&mode=bm25").get_data(as_text=True)
    snippet = page.split('<p class="snippet">', 1)[1].split("</p>", 1)[0]
    assert "<code>a&lt;br&gt;b</code>" in snippet and "<code>#not-a-tag</code>" in snippet
    assert "`" not in snippet and "<br>" not in snippet


CODE_IN_CONTAINERS = """# Code

> [!example] CSS classes
> Use [[other|the other page]]:
> ```css
> .red img { border-color: #ff0000; } /* [[hidden]] */
> ```
> and #shown-tag after it.

1. A step:
   ```
   [[also-hidden]] #not-a-tag
   ```
2. See [[other#`Setup`|`setup`]] for the code-named heading.

## Steps

```sh
# a comment, not a heading
```
"""


def test_the_page_links_and_tags_what_the_index_holds(vault: Path) -> None:
    """Code inside a callout or a list item is code to both, and a link whose alias is code is a
    link to both: the page's links and tags are the index's."""
    write(vault, "code.md", CODE_IN_CONTAINERS)
    write(vault, "other.md", "# Other\n\n## `Setup`\n\nsteps\n")
    v = Vault.open(vault)
    v.index()
    service = Service(VaultSession(v))
    page = create_app(service).test_client().get("/notes/code.md").get_data(as_text=True)
    service.close()
    body = article(page)
    note = parse_note("code.md", CODE_IN_CONTAINERS)
    assert [(link.target, link.heading) for link in note.links] == [
        ("other", None),
        ("other", "`Setup`"),
    ]
    assert note.tags == ["shown-tag"]
    headings = {c.heading for c in chunk_note(note.title, note.body, 4000)}
    assert headings == {"Code", "Steps"}
    assert re.findall(r"<h[1-6][^>]*>([^<]*)</h", body) == ["Steps"]  # `# Code` is the page's title
    assert re.findall(r'href="/notes/other\.md(#[^"]*)?"', body) == ["", "#setup"]
    assert re.findall(r'href="/notes\?tag=([^"]+)"', body) == ["shown-tag"]
    assert "<code>setup</code></a>" in body  # the alias keeps its code look inside the link
    # the fenced code is shown exactly as written, its brackets not turned into links, in a block a
    # keyboard can scroll when it is wider than the page (axe: scrollable-region-focusable)
    assert body.count('<pre tabindex="0"><code') == 3 and "<pre>" not in body
    assert "/* [[hidden]] */" in body and "[[also-hidden]] #not-a-tag" in body
