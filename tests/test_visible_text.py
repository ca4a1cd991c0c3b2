"""Text from notes is shown, not obeyed: control, bidi and zero-width characters in titles, paths,
snippets and tags reach CLI and MCP answers escaped (`text.visible`), the note on disk untouched,
and a path shown escaped still opens (#61)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from k0maru.cli.main import main
from k0maru.mcp import render
from k0maru.mcp.agent_views import note_excerpt
from k0maru.service.operations import Service
from k0maru.text import unescape, visible
from tests.helpers import write

# every character a note must not put raw into an answer: C0 (but newline and tab), DEL, C1,
# bidi controls and zero-width characters
HOSTILE = (
    [chr(c) for c in range(0x20) if chr(c) not in "\n\t"]
    + [chr(c) for c in range(0x7F, 0xA0)]
    + list("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    + list("\u200b\u200c\u200d\u2060\ufeff")
)
NAME = "inv\u202eoice\u200b.md"
NOTE = (
    "---\ntags: [x\u202ey, z\u200d]\n---\n# Ti\u202etle\u200b quokka\x1b[31m\n\n"
    "quokka zebu \u2066body\u2069 \x07 marmot\u061c\n"
)


def hostile(text: str) -> int:
    return sum(text.count(ch) for ch in HOSTILE)


@given(st.text(alphabet=st.characters(blacklist_characters="\\")))
def test_visible_text_carries_none_and_reads_back(text: str) -> None:
    shown = visible(text)
    assert hostile(shown.replace("\n", "").replace("\t", "")) == 0 and "\n" not in shown
    assert unescape(shown) == text
    assert unescape(visible(text, keep="\n", wide=True)) == text


def test_an_escape_that_names_a_plain_character_stays() -> None:
    assert unescape(r"a\u0041\x41\u202e") == "a\\u0041\\x41\u202e"


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out + err


def test_cli_answers_escape_note_text_and_the_path_shown_opens(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: `search --json` carried 9 raw bidi/zero-width characters and `show` 3; the name
    shown could not be opened."""
    monkeypatch.setenv("K0MARU_EMBED", "false")
    write(vault, NAME, NOTE)
    code, out = cli(capsys, "search", "--json", "--vault", str(vault), "quokka")
    assert code == 0 and hostile(out) == 0
    hit = json.loads(out)["hits"][0]
    assert hit["path"] == NAME and "\u2066" in hit["snippet"]  # JSON reads back the note's own
    code, out = cli(capsys, "show", "--vault", str(vault), visible(NAME))
    assert code == 0 and hostile(out) == 0
    assert "\\u202e" in out and "quokka zebu \\u2066body\\u2069 \\x07 marmot" in out
    code, out = cli(capsys, "show", "--json", "--vault", str(vault), visible(NAME))
    assert code == 0 and hostile(out) == 0 and json.loads(out)["text"] == NOTE.rstrip()
    assert (vault / NAME).read_text() == NOTE  # the note on disk untouched


def test_mcp_texts_escape_note_text_and_read_note_opens_the_path_shown(vault: Path) -> None:
    write(vault, NAME, NOTE)
    with Service.open(str(vault), settings={"embed": False}) as svc:
        text = render.recall_text(svc.recall("quokka zebu marmot"))
        assert hostile(text) == 0 and visible(NAME) in text
        note = svc.read_note(visible(NAME))
    shown = render.note_text(note_excerpt(note.path, note.text, None, None, 4000))
    assert note.text == NOTE and hostile(shown) == 0 and shown.startswith(visible(NAME))


def test_a_newline_in_a_name_stays_on_its_hit_line_and_its_repr_opens(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the hit line broke in two at the name's newline, and the "did you mean" form
    (Python's repr, `\\n`) was refused by `show`."""
    monkeypatch.setenv("K0MARU_EMBED", "false")
    name = "two\nlines\x1b.md"
    write(vault, name, "# Kestrel\n\nkestrel hovering\n")
    code, out = cli(capsys, "search", "--vault", str(vault), "kestrel")
    hit = next(line for line in out.splitlines() if "Kestrel" in line)
    assert code == 0 and "[two\\x0alines\\x1b.md:1]" in hit, out
    for shown in (visible(name), repr(name)[1:-1]):
        code, out = cli(capsys, "show", "--vault", str(vault), shown)
        assert code == 0 and "kestrel hovering" in out, (shown, out)
