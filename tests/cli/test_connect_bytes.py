"""`k0maru connect` edits only its own entries, byte for byte, whatever the user put beside or
inside them (#55): the hook k0maru writes is told apart from the user's look-alikes, a user's hook
placed inside k0maru's group stays with it, new lines take the file's line ending and indentation,
and `--remove` gives back the file as it was before connect (an empty `hooks` or `mcpServers`
object, a blank file, JSONC comments and trailing commas included). The property tests generate
settings files and run the in-process functions."""

from __future__ import annotations

import copy
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k0maru import hosts, jsonedit
from tests.helpers import write

SETTINGS = ".claude/settings.json"
MY_LINTER = {"type": "command", "command": "my-linter"}

LOOK_ALIKES = """{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/tools/my-k0maru-hook"}]},
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "bash -c 'echo hi; k0maru-hook'"}]},
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "k0maru-hook --dry-run"}]}
    ]
  }
}
"""


def hook_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if '"command"' in line]


def test_connect_keeps_the_users_look_alike_hooks(vault: Path) -> None:
    """Only the command k0maru writes, `k0maru-hook` exactly, is k0maru's: hooks that merely end in
    it (or start with it) are the user's, and stay."""
    path = write(vault, SETTINGS, LOOK_ALIKES)
    before = json.loads(LOOK_ALIKES)["hooks"]["PreToolUse"]
    assert hosts.connect_hooks("claude-code", vault).outcome == "updated"
    after = path.read_text()
    assert all(line + "," in after or line in after for line in hook_lines(LOOK_ALIKES))
    assert json.loads(after)["hooks"]["PreToolUse"] == [*before, hosts.HOOK_GROUP]
    assert hosts.connect_hooks("claude-code", vault).outcome == "up_to_date"
    assert hosts.connect_hooks("claude-code", vault, remove=True).outcome == "removed"
    assert path.read_text() == LOOK_ALIKES
    assert hosts.connect_hooks("claude-code", vault, remove=True).outcome == "absent"


USERS = """{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Write", "hooks": [{"type": "command", "command": "./fmt.sh"}]}
    ]
  }
}
"""
OURS = """\
          {
            "type": "command",
            "command": "k0maru-hook",
            "timeout": 10
          }"""
LINTER = '          {"type": "command", "command": "my-linter"}'


@pytest.mark.parametrize("where", ["after", "before"])
def test_remove_keeps_the_users_hook_inside_k0marus_group(vault: Path, where: str) -> None:
    """The user appended (or put before k0maru's) their own hook to the group k0maru added: remove
    takes k0maru's hook object only, and the group stays with the user's, byte for byte."""
    path = write(vault, SETTINGS, USERS)
    hosts.connect_hooks("claude-code", vault)
    connected = path.read_text()
    assert OURS in connected
    if where == "after":
        edited = connected.replace(OURS, OURS + ",\n" + LINTER)
    else:
        edited = connected.replace(OURS, LINTER + ",\n" + OURS)
    path.write_text(edited)
    assert hosts.connect_hooks("claude-code", vault).outcome == "up_to_date"
    assert hosts.connect_hooks("claude-code", vault, remove=True).outcome == "removed"
    left = path.read_text()
    assert left == connected.replace(OURS, LINTER)  # the group, with the user's hook alone
    groups = json.loads(left)["hooks"]["PreToolUse"]
    assert groups[1] == {"matcher": "Bash", "hooks": [MY_LINTER]}
    # connect again adds a group of its own beside the user's, and remove takes only that
    hosts.connect_hooks("claude-code", vault)
    assert json.loads(path.read_text())["hooks"]["PreToolUse"][2] == hosts.HOOK_GROUP
    hosts.connect_hooks("claude-code", vault, remove=True)
    assert path.read_text() == left


def test_remove_after_the_user_edited_takes_only_k0marus_entries(vault: Path) -> None:
    """A group the user added after k0maru's stays where they put it; so do a key they added, and an
    empty `hooks` object that was there before connect."""
    path = write(vault, SETTINGS, USERS)
    hosts.connect_hooks("claude-code", vault)
    mine = '{"matcher": "Read", "hooks": [{"type": "command", "command": "./r.sh"}]}'
    edited = path.read_text().replace("\n      }\n    ]", "\n      },\n      " + mine + "\n    ]")
    path.write_text(edited)
    hosts.connect_hooks("claude-code", vault, remove=True)
    assert path.read_text() == USERS.replace("}]}\n    ]", "}]},\n      " + mine + "\n    ]")

    before = '{\n  "model": "x",\n  "hooks": {}\n}\n'
    path.write_text(before)
    hosts.connect_hooks("claude-code", vault)
    env = '"model": "x",\n  "env": {"A": "1"},'
    path.write_text(path.read_text().replace('"model": "x",', env))
    hosts.connect_hooks("claude-code", vault, remove=True)
    assert path.read_text() == before.replace('"model": "x",', env)


EMPTY_SETTINGS = [
    '{\n  "hooks": {}\n}\n',
    '{\n  "hooks": {\n  }\n}\n',
    '{\n  "hooks": {"PreToolUse": []}\n}\n',
    '{\n  "hooks": {\n    "PreToolUse": [\n    ]\n  }\n}\n',
    '{"hooks": {}}',
    '{"permissions": {}, "hooks": { }}\n',
    "{}",
    "{}\n",
    "{\r\n}\r\n",
    "",
    "\n",
]


@pytest.mark.parametrize("before", EMPTY_SETTINGS)
def test_connect_then_remove_gives_back_empty_objects_and_files(vault: Path, before: str) -> None:
    """What connect found there empty (a `hooks` object, a `PreToolUse` list, the file itself) is
    still there after remove, byte for byte."""
    path = vault / SETTINGS
    path.parent.mkdir()
    path.write_bytes(before.encode())
    assert hosts.connect_hooks("claude-code", vault).outcome == "updated"
    assert json.loads(path.read_text())["hooks"]["PreToolUse"] == [hosts.HOOK_GROUP]
    assert hosts.connect_hooks("claude-code", vault, remove=True).outcome == "removed"
    assert path.read_bytes() == before.encode()


@pytest.mark.parametrize(
    ("host", "before"),
    [
        ("claude-code", '{\n  "mcpServers": {}\n}\n'),
        ("claude-code", '{\r\n\t"mcpServers": {\r\n\t}\r\n}'),
        ("claude-code", "{}\n"),
        ("cursor", '{"mcpServers": {"x": {"command": "x"}}}'),
        ("vscode", '{\n  // mine\n  "servers": {\n    /* none yet */\n  },\n}\n'),
        ("vscode", '{\n  "servers": {\n    "x": {"command": "x"}, // mine\n  },\n}\n'),
        ("vscode", '{\n  "servers": {\n    "x": {"command": "x"} // mine\n  }\n}\n'),
        ("vscode", '{\n  "inputs": [],\n  "servers": {}, // none yet\n}'),
    ],
)
def test_server_entries_are_removed_byte_for_byte(vault: Path, host: str, before: str) -> None:
    path = vault / hosts.PROJECT_FILES[host]
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(before.encode())
    assert hosts.connect(host, vault).outcome == "updated"
    after = path.read_bytes().decode()
    assert "k0maru" in after and ("\r\n" not in before or "\n" not in after.replace("\r\n", ""))
    assert hosts.connect(host, vault, remove=True).outcome == "removed"
    assert path.read_bytes() == before.encode()


CRLF_SETTINGS = (
    '{\r\n\t"permissions": {"allow": []},\r\n\t"hooks": {\r\n\t\t"PreToolUse": [\r\n'
    '\t\t\t{"matcher": "Write", "hooks": [{"type": "command", "command": "./fmt.sh"}]}\r\n'
    "\t\t]\r\n\t}\r\n}"
)


@pytest.mark.parametrize("shape", ["list", "no-list", "no-hooks"])
def test_new_lines_take_the_files_line_ending_and_indentation(vault: Path, shape: str) -> None:
    """A CRLF file with tabs and no newline at its end gets CRLF lines indented with tabs."""
    before = CRLF_SETTINGS
    if shape != "list":
        before = before.replace(
            '"PreToolUse": [\r\n\t\t\t{"matcher": "Write", "hooks": [{"type": "command", "command": '
            '"./fmt.sh"}]}\r\n\t\t]',
            '"PostToolUse": []',
        )
    if shape == "no-hooks":
        before = before.replace(',\r\n\t"hooks": {\r\n\t\t"PostToolUse": []\r\n\t}', "")
    path = vault / SETTINGS
    path.parent.mkdir()
    path.write_bytes(before.encode())
    hosts.connect_hooks("claude-code", vault)
    after = path.read_bytes().decode()
    assert after.count("\n") == after.count("\r\n") > before.count("\r\n")
    assert not any(line.startswith(" ") for line in after.split("\r\n"))
    assert '\r\n\t\t\t\t"matcher": "Bash",\r\n' in after or shape != "list"
    assert not after.endswith("\n")
    hosts.connect_hooks("claude-code", vault, remove=True)
    assert path.read_bytes() == before.encode()


# ---- generated settings files
# ----------------------------------------------------------------------------------------------
COMMANDS = st.sampled_from(
    [
        "./lint.sh",
        "/opt/tools/my-k0maru-hook",
        "bash -c 'echo hi; k0maru-hook'",
        "k0maru-hook --dry-run",
        "npx prettier --check",
    ]
)
USER_HOOKS = st.builds(
    lambda command, timeout: (
        {"type": "command", "command": command} | ({"timeout": timeout} if timeout else {})
    ),
    COMMANDS,
    st.integers(0, 30),
)
GROUPS = st.builds(
    lambda matcher, hooks: {"matcher": matcher, "hooks": hooks},
    st.sampled_from(["Bash", "Write|Edit", "Read", ""]),
    st.lists(USER_HOOKS, min_size=1, max_size=3),
)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-9, 9), st.text(max_size=6))
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
OTHER_KEYS = st.dictionaries(
    st.sampled_from(["permissions", "env", "model", "mcpServers", "x y", "é"]), VALUES, max_size=3
)


@st.composite
def settings_files(draw: st.DrawFn) -> dict[str, Any]:
    """A settings document (the user's groups in `hooks.PreToolUse`, other hook events and keys,
    empty objects) and how it is written: line ending, indentation, which depth goes on one line,
    empty containers open or closed, a newline at the end or not."""
    doc: dict[str, Any] = draw(OTHER_KEYS)
    hooks = draw(st.sampled_from(["absent", "empty", "events"]))
    if hooks != "absent":
        doc["hooks"] = {}
    if hooks == "events":
        doc["hooks"] = draw(st.dictionaries(st.sampled_from(["PostToolUse", "Stop"]), VALUES))
        if draw(st.booleans()):
            doc["hooks"]["PreToolUse"] = draw(st.lists(GROUPS, max_size=3))
    if draw(st.booleans()):  # the keys in another order: `hooks` not always last
        doc = dict(reversed(list(doc.items())))
    style = {
        "unit": draw(st.sampled_from(["  ", "    ", "\t"])),
        "nl": draw(st.sampled_from(["\n", "\r\n"])),
        "inline": draw(st.sampled_from([0, 1, 2, 3, 4, 9])),
        "open": draw(st.booleans()),
    }
    return {"doc": doc, "style": style, "end": draw(st.sampled_from(["", style["nl"]]))}


def render(value: Any, style: dict[str, Any], depth: int = 0) -> str:
    """`value` written as a person might: containers from depth `inline` on one line, an empty
    container written open (`{` and `}` on lines of their own) or closed, with `comment`, a line
    comment after each member of a container that spans lines."""
    if not isinstance(value, dict | list) or (value and depth >= style["inline"]):
        return json.dumps(value, ensure_ascii=False)
    unit: str = style["unit"]
    nl: str = style["nl"]
    brackets = "{}" if isinstance(value, dict) else "[]"
    if not value:
        return brackets[0] + (nl + unit * depth if style["open"] else "") + brackets[1]
    if isinstance(value, dict):
        parts = [
            f"{json.dumps(k, ensure_ascii=False)}: {render(v, style, depth + 1)}"
            for k, v in value.items()
        ]
    else:
        parts = [render(v, style, depth + 1) for v in value]
    pad, note = nl + unit * (depth + 1), " // mine" if style.get("comment") else ""
    body = ("," + note + pad).join(parts) + note
    return brackets[0] + pad + body + nl + unit * depth + brackets[1]


def with_group(doc: dict[str, Any], group: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    out.setdefault("hooks", {}).setdefault("PreToolUse", []).append(group)
    return out


def only_inserted(before: str, after: str) -> bool:
    """`after` is `before` with text inserted: not one byte of it changed or gone."""
    it = iter(after)
    return all(char in it for char in before)


def run_in_vault(text: str, steps: Any, rel: str = SETTINGS) -> Any:
    """`steps(vault, path)` on a fresh vault whose file `rel` holds `text`."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
        return steps(Path(folder), path)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(settings_files())
def test_generated_settings_connect_and_remove_byte_for_byte(case: dict[str, Any]) -> None:
    """connect --hooks only inserts k0maru's group (parsed, the file is the user's plus that group),
    in the file's line ending and indentation; --remove gives back the original bytes."""
    style = case["style"]
    before = render(case["doc"], style) + case["end"]

    def steps(vault: Path, path: Path) -> tuple[str, str]:
        hosts.connect_hooks("claude-code", vault)
        after = path.read_bytes().decode()
        assert hosts.connect_hooks("claude-code", vault).outcome == "up_to_date"
        hosts.connect_hooks("claude-code", vault, remove=True)
        return after, path.read_bytes().decode()

    after, removed = run_in_vault(before, steps)
    assert removed == before
    assert only_inserted(before, after)
    assert jsonedit.parse(after).value == with_group(case["doc"], hosts.HOOK_GROUP)
    if style["nl"] == "\r\n":
        assert after.count("\n") == after.count("\r\n")
    if re.search(r"\n[ \t]", before):  # the file shows its indentation: new lines take it
        wrong = " " if style["unit"] == "\t" else "\t"
        assert not any(line.startswith(wrong) for line in after.splitlines())


@st.composite
def settings_with_ours(draw: st.DrawFn) -> dict[str, Any]:
    """A settings file that holds k0maru's group, with the user's hooks inside it (before and after
    k0maru's) and the user's groups after it."""
    case = draw(settings_files())
    inside = draw(st.lists(USER_HOOKS, max_size=2)), draw(st.lists(USER_HOOKS, max_size=2))
    group = {"matcher": "Bash", "hooks": [*inside[0], hosts.HOOK, *inside[1]]}
    doc = with_group(case["doc"], group)
    doc["hooks"]["PreToolUse"] += draw(st.lists(GROUPS, max_size=2))
    expected = copy.deepcopy(doc)
    groups = expected["hooks"]["PreToolUse"]
    if inside[0] or inside[1]:
        group_at = groups.index(group)
        groups[group_at] = {"matcher": "Bash", "hooks": [*inside[0], *inside[1]]}
    else:
        groups.remove(group)
    if not groups:
        del expected["hooks"]["PreToolUse"]
        if not expected["hooks"]:
            del expected["hooks"]
    return {"with": doc, "without": expected, "style": case["style"], "end": case["end"]}


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(settings_with_ours())
def test_generated_remove_takes_only_k0marus_hook(case: dict[str, Any]) -> None:
    """Whatever the user put inside k0maru's group or beside it, --remove takes out k0maru's hook
    object alone (its group too when nothing else is in it): the file is then exactly the one the
    user would have written without it."""
    style, end = case["style"], case["end"]

    def steps(vault: Path, path: Path) -> str:
        hosts.connect_hooks("claude-code", vault, remove=True)
        return path.read_bytes().decode() if path.exists() else ""

    removed = run_in_vault(render(case["with"], style) + end, steps)
    expected = render(case["without"], style) + end
    assert removed == (expected if case["without"] else "")


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    settings_files(),
    st.sampled_from(["claude-code", "cursor", "vscode"]),
    st.sampled_from([None, {}, {"x": {"command": "x"}}]),
    st.booleans(),
)
def test_generated_server_entries_connect_and_remove_byte_for_byte(
    case: dict[str, Any], host: str, table_before: dict[str, Any] | None, comments: bool
) -> None:
    """The MCP server entry goes through the same edits, in files with comments where the host
    allows them (VS Code's JSONC): in and out, the rest stays as it was."""
    doc, style = copy.deepcopy(case["doc"]), case["style"]
    table = hosts.table_of(host)
    doc.pop(table, None)
    if table_before is not None:  # an empty table of the user's, or their own servers
        doc[table] = table_before
    style = style | {"comment": comments and host == "vscode"}
    before = render(doc, style) + case["end"]

    def steps(vault: Path, path: Path) -> tuple[str, str]:
        hosts.connect(host, vault)
        after = path.read_bytes().decode()
        hosts.connect(host, vault, remove=True)
        return after, path.read_bytes().decode()

    after, removed = run_in_vault(before, steps, hosts.PROJECT_FILES[host])
    assert removed == before and only_inserted(before, after)
    expected = copy.deepcopy(doc)
    expected.setdefault(table, {})["k0maru"] = hosts.server_entry(host, Path())  # no path in it
    assert jsonedit.parse(after).value == expected
