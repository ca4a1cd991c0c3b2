"""`k0maru connect codex` edits `.codex/config.toml` byte for byte: k0maru's table goes in the
file's own line ending, after a blank line, with no final newline where the file had none, and
`--remove` gives back the original bytes (an empty `[mcp_servers]` table, a blank file, inline
tables, dotted keys, comments and other tables included). The property test generates files."""

from __future__ import annotations

import tempfile
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k0maru import hosts

CONFIG = ".codex/config.toml"
ENTRY = {"command": "k0maru", "args": ["mcp"]}


def round_trip(vault: Path, before: str) -> tuple[bytes, bytes | None]:
    """The file's bytes after connect, and after remove (None: deleted)."""
    path = vault / CONFIG
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(before.encode())
    hosts.connect("codex", vault)
    after = path.read_bytes()
    assert tomllib.loads(after.decode())["mcp_servers"]["k0maru"] == ENTRY
    assert hosts.connect("codex", vault).outcome == "up_to_date"
    assert hosts.connect("codex", vault, remove=True).outcome == "removed"
    return after, path.read_bytes() if path.exists() else None


def test_remove_leaves_no_blank_line_behind(vault: Path) -> None:
    before = 'model = "o3"\n'
    after, removed = round_trip(vault, before)
    assert after == b'model = "o3"\n\n[mcp_servers.k0maru]\ncommand = "k0maru"\nargs = ["mcp"]\n'
    assert removed == before.encode()


def test_crlf_file_gets_crlf_lines(vault: Path) -> None:
    before = 'model = "o3"\r\n[features]\r\nhooks = true\r\n'
    after, removed = round_trip(vault, before)
    assert after.count(b"\n") == after.count(b"\r\n")
    assert removed == before.encode()


def test_crlf_inline_table_edited_through_tomlkit_keeps_crlf(vault: Path) -> None:
    before = 'mcp_servers = { other = { command = "x" } }\r\nmodel = "o3"\r\n'
    after, removed = round_trip(vault, before)
    assert after.count(b"\n") == after.count(b"\r\n")
    assert removed == before.encode()


@pytest.mark.parametrize(
    "before", ["[mcp_servers]\n", "[mcp_servers]\r\n", "mcp_servers = {}\n", "", "\n", " \n\n"]
)
def test_an_empty_mcp_servers_table_or_blank_file_is_given_back(vault: Path, before: str) -> None:
    """What connect found there empty stays after remove (noted in `.k0maru/connect.json`)."""
    assert round_trip(vault, before)[1] == before.encode()


def test_no_final_newline_is_added(vault: Path) -> None:
    before = 'model = "o3"'
    after, removed = round_trip(vault, before)
    assert not after.endswith(b"\n")
    assert removed == before.encode()


FORMS = [
    'mcp_servers = { other = { command = "x" } }\n',
    'mcp_servers.other.command = "x"\nmcp_servers.other.args = []\n',
    '# top\nmodel = "o3"  # my model\n\n[mcp_servers.other]  # mine\ncommand = "x"  # beside\n'
    "# after\n",
    '[mcp_servers]\nother = { command = "x" }\n\n[profiles.fast]\nmodel = "o4"\n# end\n',
    "[mcp_servers]\n# nothing yet\n\n[features]\nhooks = true\n",
]


@pytest.mark.parametrize("before", FORMS, ids=["inline", "dotted", "comments", "after", "note"])
def test_every_form_connects_and_removes_byte_for_byte(vault: Path, before: str) -> None:
    after, removed = round_trip(vault, before)
    expected = tomllib.loads(before)
    expected.setdefault("mcp_servers", {})["k0maru"] = ENTRY
    assert tomllib.loads(after.decode()) == expected
    assert removed == before.encode()


def test_tables_the_user_adds_after_k0marus_stay(vault: Path) -> None:
    """After connect the user appends a table of their own: remove takes k0maru's alone."""
    before = 'model = "o3"\n'
    path = vault / CONFIG
    path.parent.mkdir()
    path.write_text(before)
    hosts.connect("codex", vault)
    mine = '\n[profiles.fast]  # mine\nmodel = "o4"\n'
    path.write_text(path.read_text() + mine)
    hosts.connect("codex", vault, remove=True)
    assert path.read_text() == before + mine


KEYS = st.sampled_from(["a", "model", "other", "x_1", "quoted key"])
VALUES = st.sampled_from(['"x"', "1", "true", "[]", '["a", "b"]', '{ c = "d" }'])
COMMENTS = st.sampled_from(["", "  # c", " #", "\t# é"])


def key(name: str) -> str:
    return f'"{name}"' if " " in name else name


@st.composite
def toml_files(draw: st.DrawFn) -> str:
    """A Codex config: top-level keys, other servers in one of TOML's forms, other tables, comments,
    blank lines; LF or CRLF, with or without a final newline."""
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    lines = [
        f"{key(k)} = {v}{c}"
        for k, v, c in draw(
            st.lists(st.tuples(KEYS, VALUES, COMMENTS), max_size=3, unique_by=lambda t: t[0])
        )
    ]
    servers = draw(st.lists(st.sampled_from(["other", "more"]), unique=True, max_size=2))
    form = draw(st.sampled_from(["none", "table", "empty", "inline", "dotted", "sub"]))
    if form == "inline":
        lines.append(
            "mcp_servers = { " + ", ".join(f'{s} = {{ command = "x" }}' for s in servers) + " }"
        )
    elif form == "dotted":
        lines += [f'mcp_servers.{s}.command = "x"{draw(COMMENTS)}' for s in servers]
    tables = draw(
        st.lists(st.sampled_from(["features", "profiles.fast", "tools"]), unique=True, max_size=2)
    )
    for name in tables:
        lines += [
            draw(st.sampled_from(["", "# section"])),
            f"[{name}]{draw(COMMENTS)}",
            "on = true",
        ]
    if form in ("table", "empty"):
        lines += ["", "[mcp_servers]" + draw(COMMENTS)]
        lines += [] if form == "empty" else [f'{s} = {{ command = "x" }}' for s in servers]
    elif form == "sub":
        for s in servers:
            lines += ["", f"[mcp_servers.{s}]", 'command = "x"' + draw(COMMENTS)]
    lines += draw(st.lists(st.sampled_from(["", "# trailing"]), max_size=2))
    text = nl.join(lines)
    return text + nl if draw(st.booleans()) and text else text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(toml_files())
def test_generated_configs_connect_and_remove_byte_for_byte(before: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        after, removed = round_trip(Path(folder), before)
    expected = tomllib.loads(before)
    expected.setdefault("mcp_servers", {})["k0maru"] = ENTRY
    assert tomllib.loads(after.decode()) == expected
    if "\r\n" in before:
        assert after.count(b"\n") == after.count(b"\r\n")
    assert removed == before.encode()
