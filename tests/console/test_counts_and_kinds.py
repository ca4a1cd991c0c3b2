"""Every count the dashboard and the status page show equals the rows of the page it links to; the
tag and kind lists agree with the index; `.adr-dir`'s folder holds `adr`s for the index, the
conventions and `--kind` alike; note pages and search hits open the note in Obsidian; the status
page says how the index is kept current (issue #60). Flask's test client."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest

from k0maru.console.app import create_app
from k0maru.search.filters import Filters
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write
from tests.service.test_damage import offload

PNG = b"\x89PNG\r\n\x1a\n"
EMBEDS = "".join(f"![[shot-{i}.png]]\n" for i in range(12))  # attachments that exist
NOTES = {
    "gallery.md": f"# Gallery\n\n{EMBEDS}\n![[gone.png]] and [[manual.pdf]] and [[lost.pdf]]\n",
    "linker.md": "# Linker\n\n[[nowhere]], [[Gallery]], [[also missing]] and [[#Local]].\n\n## Local\n",
    "spaced.md": '---\ntags: "alpha beta"\n---\n# Spaced\n\n[[nowhere]] again\n',
    "nested.md": "---\ntags: [project/alpha, my_tag/sub]\n---\n# Nested\n\nbody #ops\n",
    "parent.md": "---\ntags: [project, my_tag]\n---\n# Parent\n\nbody\n",
    "lookalike.md": "---\ntags: [myxtag/sub]\n---\n# Lookalike\n\nbody\n",
    "doc/decisions/0001-use-sqlite.md": "# 1. Use SQLite\n\n## Context\n\nstorage engine\n",
    "doc/decisions/0002-own.md": "---\nkind: runbook\n---\n# Own kind\n\nstorage engine\n",
    "journal/2026-01-02.md": "# Jan 2\n\nstorage engine notes\n",
    "odd.md": "---\nkind: <b>bold</b>\n---\n# Odd\n\nbody\n",
}


@pytest.fixture
def svc(vault: Path) -> Iterator[Service]:
    write(vault, ".k0maru/config.toml", "embed = false\n")
    write(vault, ".adr-dir", "doc/decisions\n")
    for name, text in NOTES.items():
        write(vault, name, text)
    for i in range(12):
        (vault / "img").mkdir(exist_ok=True)
        (vault / "img" / f"shot-{i}.png").write_bytes(PNG)
    (vault / "manual.pdf").write_bytes(b"%PDF-1.4\n")
    offload(vault, "n1")
    offload(vault, "n2")
    service = Service(VaultSession(Vault.open(vault)))
    service.scan()
    yield service
    service.close()


@pytest.fixture
def client(svc: Service) -> Any:
    return create_app(svc).test_client()


def get(client: Any, url: str) -> str:
    resp = client.get(url)
    assert resp.status_code == 200, url
    text: str = resp.get_data(as_text=True)
    return text


def cards(page: str) -> dict[str, tuple[str, int]]:
    """The dashboard's linked cards: label -> (where it links, its number)."""
    found = re.findall(
        r'<a class="card stat[^"]*" href="([^"]+)"><span class="label">([^<]+)</span>'
        r'<span class="value">([\d,]+)</span>',
        page,
    )
    return {label: (href, int(value.replace(",", ""))) for href, label, value in found}


def section_rows(page: str, section: str) -> int:
    """The table rows of a page's section (`id="section"`)."""
    part = page.split(f'id="{section}"', 1)[1].split("</section>", 1)[0]
    return part.count("<tr><td")


def listed_notes(client: Any, query: str) -> list[str]:
    page = get(client, "/notes?" + query)
    part = page.split('<ul class="notes card">', 1)[1].split("</ul>", 1)[0]
    return [unquote(p) for p in re.findall(r'<li><a href="/notes/([^"]+)">', part)]


def counted(page: str) -> list[tuple[str, str, int]]:
    """(query, name, count) of a tag or kind list's rows."""
    rows = re.findall(
        r'<tr><td><a href="/notes\?([^"]+)">([^<]*)</a></td><td class="num">([\d,]+)</td>', page
    )
    return [(unescape(q), unescape(n), int(c.replace(",", ""))) for q, n, c in rows]


def test_every_dashboard_count_equals_the_rows_its_page_lists(client: Any) -> None:
    home = cards(get(client, "/"))
    assert set(home) >= {"notes", "links to no note", "tags", "kinds of note", "offloaded logs"}
    assert home["notes"][1] == len(listed_notes(client, "")) == len(NOTES)
    href, dangling = home["links to no note"]
    gaps = get(client, href)
    # [[nowhere]] twice, [[also missing]]: not the 12 embeds of images that exist, nor [[#Local]]
    assert dangling == section_rows(gaps, "unresolved") == 3
    assert section_rows(gaps, "attachments") == 2  # gone.png, lost.pdf; manual.pdf is there
    assert "shot-" not in gaps and "manual.pdf" not in gaps
    href, tags = home["tags"]
    assert tags == len(counted(get(client, href)))
    href, kinds = home["kinds of note"]
    assert kinds == len(counted(get(client, href)))
    href, logs = home["offloaded logs"]
    assert logs == get(client, href).count("<tr><td data-label=") == 2


def test_the_status_page_counts_lead_to_as_many_rows(client: Any) -> None:
    status = get(client, "/status")
    link = re.search(r'<a href="(/gaps#unresolved)">([\d,]+) to no note</a>', status)
    assert link is not None
    assert int(link.group(2)) == section_rows(get(client, link.group(1)), "unresolved") == 3
    # [[Gallery]]; the 12 shots, gone.png, manual.pdf and lost.pdf: every link counted once
    assert "1 to notes · 15 to other files" in status
    assert '<span class="label">links</span><span class="value">19</span>' in status


@pytest.mark.parametrize("which", ["tags", "kinds"])
def test_each_listed_count_equals_the_notes_listed_for_it(client: Any, which: str) -> None:
    rows = counted(get(client, f"/{which}"))
    assert rows
    for query, _, count in rows:
        assert count == len(listed_notes(client, query)), query


def test_the_tag_list_is_the_index_s(client: Any, svc: Service) -> None:
    indexed = {t for name in NOTES for t in svc.note_view(name).tags}
    rows = {name.removeprefix("#"): count for _, name, count in counted(get(client, "/tags"))}
    assert set(rows) == indexed
    # nested tags count for their parents; `_` is no wildcard: myxtag/sub is not my_tag's
    assert rows["project"] == 2 and rows["project/alpha"] == 1
    assert rows["my_tag"] == 2 and rows["myxtag/sub"] == 1
    assert listed_notes(client, "tag=my_tag") == ["nested.md", "parent.md"]
    for name in NOTES:  # each tag the note page links lists the note
        for tag in svc.note_view(name).tags:
            assert name in listed_notes(client, "tag=" + quote(tag)), (name, tag)


def test_the_adr_dir_folder_holds_adrs_for_the_index_the_conventions_and_kind(
    svc: Service, client: Any
) -> None:
    assert svc.conventions().kinds["adr"].folder == "doc/decisions"
    kinds = {name: count for _, name, count in counted(get(client, "/kinds"))}
    assert kinds["adr"] == 1 and "decision" not in kinds  # the folder's name says decision
    assert kinds["runbook"] == 1  # the frontmatter's kind wins
    assert kinds["log"] == 1 and kinds["<b>bold</b>"] == 1
    hits = svc.recall("storage engine", mode="bm25", filters=Filters(kind="adr")).hits
    assert [h.path for h in hits] == ["doc/decisions/0001-use-sqlite.md"]


def test_a_kind_no_note_has_warns_with_the_kinds_there_are(svc: Service) -> None:
    result = svc.recall("storage engine", mode="bm25", filters=Filters(kind="card"))
    assert result.hits == []
    assert any("adr, log, runbook" in w for w in result.warnings), result.warnings


def test_kinds_follow_an_adr_dir_that_changes(vault: Path, svc: Service) -> None:
    write(vault, ".adr-dir", "journal\n")
    svc.scan()
    kinds = {k.name: k.notes for k in svc.index_counts().kinds}
    assert kinds.get("adr") == 1 and kinds.get("decision") == 1 and "log" not in kinds
    hits = svc.recall("storage engine", mode="bm25", filters=Filters(kind="adr")).hits
    assert [h.path for h in hits] == ["journal/2026-01-02.md"]


def test_a_kind_s_name_reaches_the_page_escaped(client: Any) -> None:
    page = get(client, "/kinds")
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page


def test_note_pages_and_search_hits_open_in_obsidian(vault: Path, client: Any) -> None:
    name = quote(vault.name, safe="")
    want = f"obsidian://open?vault={name}&amp;file=doc%2Fdecisions%2F0001-use-sqlite.md"
    assert want in get(client, "/notes/doc/decisions/0001-use-sqlite.md")
    assert want in get(client, "/search?q=storage+engine&mode=bm25")


def test_the_status_page_says_how_the_index_is_kept_current(vault: Path, client: Any) -> None:
    line = re.search(r"<th>kept current</th><td>([^<]+)</td>", get(client, "/status"))
    assert line is not None and "not a git repository" in line.group(1)
    assert "no `k0maru scan` needed" in unescape(line.group(1))
    (vault / ".git").mkdir()
    assert "a git repository" in get(client, "/status")
