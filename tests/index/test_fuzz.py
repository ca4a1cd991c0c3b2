"""Property tests (hypothesis) over the parsers that read what people and agents write: notes,
frontmatter, wikilinks, the rules file, commit trailers, and the vault's config. None may raise;
each keeps its contract on any input."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from k0maru.index.markdown import chunk_note, extract_links, parse_note, split_frontmatter
from k0maru.notes.adr import parse_trailers
from k0maru.notes.conventions import SLUG_MAX_BYTES, ConventionSniffer, slugify
from k0maru.wikilinks import code_spans, without_code

MARKDOWNISH = st.text(
    alphabet=st.sampled_from(list("ab Z09#-:[]|^!`*_\n\t>{}\"'/.\\\u00e9\u4e2d\x00\r")),
    max_size=400,
)
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(MARKDOWNISH)
@example("[0]:[")  # found by this test: a link to no note's name, as are the next two
@example("[x](a[b)")
@example("[a]: <]>")
def test_parse_note_never_raises_and_keeps_its_contract(text: str) -> None:
    note = parse_note("dir/some note.md", text)
    assert isinstance(note.title, str) and note.title.strip() == note.title and note.title
    assert isinstance(note.frontmatter, dict) and all(isinstance(a, str) for a in note.aliases)
    for link in note.links:
        assert "\n" not in link.target and "[" not in link.target and "]" not in link.target
        assert link.key == link.key.lower()


CODEISH = st.text(alphabet=st.sampled_from(list("ab `~>[]|#\n ")), max_size=200)


@FAST
@given(CODEISH)
@example("> ```\n> [[x]] #t\n> ```\n[[y|`z`]]")
def test_removing_code_agrees_with_the_code_spans(text: str) -> None:
    """The index's quick removal of code (two substitutions) leaves what the spans the page reads
    leave: the same code in every case, not only in the common one."""
    kept, at = [], 0
    for start, end in code_spans(text):
        assert at <= start <= end
        kept.append(text[at:start])
        at = end
    assert without_code(text) == "".join([*kept, text[at:]])


@FAST
@given(st.text(max_size=300), st.text(max_size=300))
def test_frontmatter_split_gives_a_dict_and_the_rest(head: str, body: str) -> None:
    fm, rest, warning = split_frontmatter(f"---\n{head}\n---\n{body}")
    assert isinstance(fm, dict) and isinstance(rest, str)
    assert warning is None or "\n" not in warning


@FAST
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab|#^ [].md")), max_size=20), max_size=6))
def test_wikilinks_found_are_well_formed(targets: list[str]) -> None:
    body = " ".join(f"[[{t}]]" for t in targets) + " ![[embed]]"
    for link in extract_links(body):
        assert link.target == link.target.strip() and link.target


@FAST
@given(MARKDOWNISH, st.integers(min_value=50, max_value=2000))
def test_chunks_cover_the_body_within_the_cap(body: str, cap: int) -> None:
    chunks = chunk_note("T", body, cap)
    assert all(c.text for c in chunks) and [c.ord for c in chunks] == list(range(len(chunks)))


@FAST
@given(st.text(max_size=500))
def test_trailers_are_lowercase_keys_without_newlines(message: str) -> None:
    trailers, body = parse_trailers(message)
    assert all(k == k.lower() and "\n" not in v for k, v in trailers.items())
    assert isinstance(body, str)


@FAST
@given(st.text(max_size=200))
def test_slugs_are_safe_file_names(title: str) -> None:
    slug = slugify(title)
    assert "/" not in slug and "\\" not in slug and ".." not in slug and len(slug) <= 80
    assert slug and len(slug.encode()) <= SLUG_MAX_BYTES and "\0" not in slug


@settings(max_examples=60, deadline=None)
@given(MARKDOWNISH)
def test_rules_file_never_breaks_the_sniffer(rules: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "AGENTS.md").write_text(rules, encoding="utf-8", errors="replace")
        conv = ConventionSniffer(root).sniff()
        for rule in conv.rules.values():
            assert ".." not in rule.folder.split("/") and not rule.folder.startswith("/")
