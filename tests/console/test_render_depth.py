"""Deep nesting in a note is rendered or flagged, never silently dropped (#32 item 11)."""

from __future__ import annotations

from k0maru.console.render import render_markdown


def nested_list(levels: int) -> str:
    return "\n".join("  " * i + f"- level {i}" for i in range(levels))


def test_a_list_nested_past_the_parser_bound_is_flagged_with_all_its_text() -> None:
    html = render_markdown(nested_list(25) + "\n\n<script>x</script>", lambda key: None)
    assert "nests deeper than 20 levels" in html
    assert all(f"level {i}" in html for i in range(25))
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_ordinary_nesting_renders_as_html_without_a_flag() -> None:
    html = render_markdown(nested_list(12) + "\n\n" + "> " * 12 + "deep quote", lambda key: None)
    assert "nests deeper" not in html and html.count("<ul>") == 12
    assert "level 11" in html and "deep quote" in html
