"""A note's body as axe-core reads it on a page (#60): headings that step down one level at a time,
no empty header cell, a label on each task box; and video and PDF embeds as Obsidian shows them."""

from __future__ import annotations

import re
from pathlib import Path

from k0maru.console.render import render_markdown

TEMPLATES = Path(__file__).resolve().parents[2] / "k0maru" / "resources" / "web" / "templates"


def render(body: str, files: dict[str, str] | None = None) -> str:
    return render_markdown(body, lambda key: None, images=files)


def test_a_skipped_heading_level_is_announced_one_level_down_and_keeps_its_look() -> None:
    html = render("## Two\n\n#### Four\n\n##### Five\n\n## Back")
    assert re.search(r'<h4 id="four" aria-level="3">', html)
    assert re.search(r'<h5 id="five" aria-level="4">', html)
    assert '<h2 id="two">' in html and '<h2 id="back">' in html  # levels the note keeps


def test_another_h1_in_the_body_is_announced_below_the_page_title() -> None:
    html = render("# Second top\n\ntext\n\n## Under it")
    assert '<h1 id="second-top" aria-level="2">' in html and '<h2 id="under-it">' in html


def test_every_scrolling_region_of_a_page_takes_the_keyboard() -> None:
    regions = [
        (page.name, tag)
        for page in TEMPLATES.glob("*.html")
        for tag in re.findall(r'<div class="scroll"[^>]*>', page.read_text(encoding="utf-8"))
    ]
    assert regions and [r for r in regions if 'tabindex="0"' not in r[1]] == []


def test_an_empty_header_cell_becomes_a_data_cell() -> None:
    html = render("| | b |\n|---|---|\n| 1 | 2 |")
    assert "<th></th>" not in html and "<td></td>" in html and "<th>b</th>" in html


def test_task_boxes_carry_a_label() -> None:
    html = render("- [ ] open\n- [x] shut")
    assert 'aria-label="to do"' in html and 'aria-label="done"' in html


def test_video_plays_and_pdf_links_where_embedded() -> None:
    files = {"clip.mp4": "media/clip.mp4", "spec.pdf": "media/spec.pdf"}
    html = render("![[clip.mp4]]\n\n![[spec.pdf]]", files)
    assert '<video controls="" src="/files/media/clip.mp4"' in html
    assert '<a href="/files/media/spec.pdf"' in html and "spec.pdf</a>" in html
