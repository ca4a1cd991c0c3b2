"""Snippets: plain text, query-focused, bounded (in-process, no index)."""

from k0maru.search.snippets import plain, snippet


def test_markdown_is_rendered_to_plain_text() -> None:
    md = "## Fix\n\nSee [[sqlite-busy-timeout|the busy card]] and [docs](../x.md).\n\n```sql\nPRAGMA x;\n```\n- **bold** item"
    text = plain(md)
    assert (
        "the busy card" in text and "docs" in text and "PRAGMA x;" in text and "bold item" in text
    )
    assert not any(t in text for t in ("##", "[[", "](", "```", "**"))


def test_the_sentence_with_the_query_terms_comes_first() -> None:
    md = (
        "Intro about queues. Nothing here.\n\nThe backup job hit SQLITE_BUSY at night. Retry later."
    )
    focused = snippet(md, "SQLITE_BUSY nightly backup")
    assert "The backup job hit SQLITE_BUSY" in focused and "Intro about queues" not in focused
    assert snippet(md, "zzz").startswith("Intro about queues.")


def test_bounded_at_a_word_and_heading_skipped() -> None:
    md = "# Title\n\n" + "word " * 200
    out = snippet(md, "word", limit=50, skip="Title")
    assert len(out) <= 50 and out.endswith("…") and not out.startswith("Title")


def test_sentences_split_in_every_script_and_list_items_stay_apart() -> None:
    """tldr-pages' layout (a list item, a blank line, a code line): each item is its own sentence,
    and sentences end before a Cyrillic capital or after a full-width stop as before an ASCII
    one."""
    md = "- Добавить файл в архив:\n\n`7z a {{архив.7z}}`\n\n- Распаковать архив. Сохраняя каталоги:\n\n`7z x {{архив.7z}}`\n"
    assert snippet(md, "распаковать архив", limit=60).startswith("Распаковать архив.")
    assert snippet(md, "сохраняя каталоги", limit=40).startswith("Сохраняя каталоги:")
    zh = "数据库很好。连接失败时请重试。其他内容在这里，还有更多的内容。" * 3
    assert snippet(zh, "连接失败", limit=60).startswith(
        "连接失败时请重试。其他"
    )  # no space after 。


def test_code_passes_through_unchanged() -> None:
    """Markdown syntax is removed outside code only: `||`, `*`, `__`, `[[ ]]`, `|` stay in code."""
    spans = ["`assert!(*p == 1)`", "`__init__`", "`d[key](arg)`", "`a || b`", "`[[x]]`"]
    md = "Call " + " and ".join(spans) + " here, **not** [[Note#Head]] nor [[#Part]].\n"
    fenced = "let f = || { d[key](arg) };\nassert!(*p == 1);\nx.__init__() | y\n"
    text = plain(md + "\n```rust\n" + fenced + "```\n")
    assert all(span in text for span in spans), text
    assert all(line in text for line in fenced.splitlines()), text
    assert "not" in text and "**" not in text.split("`")[-1]
    assert "Note > Head" in text and "Part" in text and "[[" not in text.replace("`[[x]]`", "")
    assert "assert!(*p == 1);" in snippet(md + "\n```rust\n" + fenced + "```\n", "assert")


def test_comments_and_escapes_never_reach_a_passage() -> None:
    text = (
        "Wrap it in \\[brackets\\] <!-- internal note: ask Ana --> and \\*stars\\*; code `\\[x\\]`."
    )
    out = plain(text)
    assert out == "Wrap it in [brackets]  and *stars*; code `\\[x\\]`."
    assert "<!--" not in plain("Before <!-- an unclosed comment\nruns to the end")
