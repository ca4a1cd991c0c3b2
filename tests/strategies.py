"""Hypothesis strategies for hostile notes: frontmatter built from YAML's sharp edges (anchors and
aliases, impossible dates and times, keys JSON cannot hold, deep nesting, tags, huge numbers,
control characters) mixed with ordinary fields, and bodies with links, tags and code fences. Used by
the fuzz suites."""

from __future__ import annotations

from hypothesis import strategies as st

KEYS = st.sampled_from(["title", "tags", "aliases", "date", "kind", "type", "status", "x", "a-b"])
WORDS = st.text(alphabet=st.sampled_from(list("abcXYZ 09-_é中")), min_size=1, max_size=12)
DATES = st.builds(
    "{:04d}-{:02d}-{:02d}".format,
    st.integers(0, 9999),
    st.integers(0, 13),
    st.integers(0, 32),
)
TIMES = st.builds(
    "{} {:02d}:{:02d}:{:02d}{}".format,
    DATES,
    st.integers(0, 25),
    st.integers(0, 61),
    st.integers(0, 61),
    st.sampled_from(["", "Z", "+02:00", "-11:30", "+99:00", "+23:59"]),
)
SCALARS: st.SearchStrategy[str] = st.one_of(
    WORDS,
    DATES,
    TIMES,
    st.integers(-(10**30), 10**30).map(str),
    st.sampled_from(
        ["yes", "~", "null", ".inf", "0x1F", "0o17", "1_000", "1e999", "!!binary AAA", "'q'", '"q"']
    ),
    st.integers(4000, 6000).map(lambda n: "7" * n),  # past Python's int-from-text limit
    st.text(alphabet=st.sampled_from(list("\x1b\x01\x7f\x85\u2028\t\"'\\:#&*!|>%@`")), max_size=6),
)


@st.composite
def yaml_values(draw: st.DrawFn, depth: int = 0) -> str:
    """One YAML value written inline: a scalar, a flow list or mapping, an anchor or an alias."""
    choice = draw(st.integers(0, 9 if depth < 3 else 3))
    if choice <= 3:
        return draw(SCALARS)
    if choice == 4:
        return f"*{draw(st.sampled_from('abc'))}"
    if choice == 5:
        return f"&{draw(st.sampled_from('abc'))} {draw(yaml_values(depth + 1))}"
    if choice == 6:
        items = draw(st.lists(yaml_values(depth + 1), max_size=4))
        return "[" + ", ".join(items) + "]"
    if choice == 7:
        pairs = draw(st.lists(st.tuples(SCALARS, yaml_values(depth + 1)), max_size=3))
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    if choice == 8:
        n = draw(st.integers(1, 2000))
        return "[" * n + "]" * n
    return (
        f"&{draw(st.sampled_from('abc'))} [{', '.join(['*' + draw(st.sampled_from('abc'))] * 9)}]"
    )


@st.composite
def frontmatters(draw: st.DrawFn) -> str:
    """A frontmatter block's lines (without the `---` fences): keys with values, block lists, merge
    keys."""
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        key = draw(st.one_of(KEYS, DATES, st.sampled_from(["<<", "? [a]", "1", "true"])))
        if draw(st.booleans()):
            lines.append(f"{key}: {draw(yaml_values())}")
        else:
            lines.append(f"{key}:")
            lines += [f"  - {draw(yaml_values(2))}" for _ in range(draw(st.integers(0, 3)))]
    return "\n".join(lines)


BODIES = st.lists(
    st.one_of(
        WORDS,
        st.builds("# {}".format, WORDS),
        st.builds("[[{}]]".format, WORDS),
        st.builds("#{}".format, WORDS),
        st.just("```\n# not a heading\n```"),
        st.just("---"),
    ),
    max_size=8,
).map("\n\n".join)


@st.composite
def notes(draw: st.DrawFn) -> str:
    """A whole note: maybe a frontmatter block (maybe unclosed), then a body."""
    body = draw(BODIES)
    shape = draw(st.integers(0, 3))
    if shape == 0:
        return body
    fm = draw(frontmatters())
    if shape == 1:
        return f"---\n{fm}\n{body}"  # never closed
    return f"---\n{fm}\n---\n{body}"
