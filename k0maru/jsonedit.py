"""Edit one member of a JSON or JSONC file (comments, trailing commas) in place, leaving every other
byte of the file as the user wrote it: the parser records where each value starts and ends, and an
edit replaces, inserts or deletes only that span. A path names a member by key and an array element
by index; deleting the last member or element that `set_member` or `append_item` added gives the
text back byte for byte, and new lines take the file's own line ending and indentation."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from k0maru.errors import K0maruError

Keys = Sequence[str | int]  # member keys and array indexes, from the root


@dataclass
class Node:
    start: int
    end: int
    value: Any
    members: dict[str, tuple[int, Node]] = field(default_factory=dict)  # key -> (key start, value)
    items: list[Node] = field(default_factory=list)  # an array's elements
    children: list[tuple[int, Node]] = field(default_factory=list)  # (start, value) in file order


class JSONCError(K0maruError):
    pass


_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.i = 0

    def fail(self, what: str) -> JSONCError:
        line = self.text.count("\n", 0, self.i) + 1
        return JSONCError(f"{what} at line {line}")

    def skip(self) -> None:
        """Whitespace and comments."""
        t = self.text
        while self.i < len(t):
            if t[self.i] in " \t\r\n\ufeff":
                self.i += 1
            elif t.startswith("//", self.i):
                nl = t.find("\n", self.i)
                self.i = len(t) if nl < 0 else nl + 1
            elif t.startswith("/*", self.i):
                close = t.find("*/", self.i + 2)
                if close < 0:
                    raise self.fail("unclosed comment")
                self.i = close + 2
            else:
                return

    def value(self) -> Node:
        self.skip()
        if self.i >= len(self.text):
            raise self.fail("unexpected end")
        c = self.text[self.i]
        start = self.i
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c == '"':
            return Node(start, self.string_end(), json.loads(self.text[start : self.i]))
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, self.i):
                self.i += len(word)
                return Node(start, self.i, val)
        m = _NUMBER.match(self.text, self.i)
        if not m:
            raise self.fail("unexpected character")
        self.i = m.end()
        return Node(start, self.i, json.loads(m.group()))

    def string_end(self) -> int:
        t, i = self.text, self.i + 1
        while i < len(t):
            if t[i] == "\\":
                i += 2
            elif t[i] == '"':
                self.i = i + 1
                return self.i
            elif t[i] == "\n":
                break
            else:
                i += 1
        raise self.fail("unterminated string")

    def obj(self) -> Node:
        node = Node(self.i, self.i, {})
        self.i += 1
        while True:
            self.skip()
            if self.text.startswith("}", self.i):
                self.i += 1
                node.end = self.i
                return node
            if not self.text.startswith('"', self.i):
                raise self.fail("expected a key")
            key_start = self.i
            key = json.loads(self.text[key_start : self.string_end()])
            self.skip()
            if not self.text.startswith(":", self.i):
                raise self.fail("expected ':'")
            self.i += 1
            child = self.value()
            node.members[key] = (key_start, child)
            node.children.append((key_start, child))
            node.value[key] = child.value
            self.comma("}")

    def arr(self) -> Node:
        node = Node(self.i, self.i, [])
        self.i += 1
        while True:
            self.skip()
            if self.text.startswith("]", self.i):
                self.i += 1
                node.end = self.i
                return node
            child = self.value()
            node.items.append(child)
            node.children.append((child.start, child))
            node.value.append(child.value)
            self.comma("]")

    def comma(self, close: str) -> None:
        self.skip()
        if self.text.startswith(",", self.i):
            self.i += 1
        elif not self.text.startswith(close, self.i):
            raise self.fail(f"expected ',' or '{close}'")


def parse(text: str) -> Node:
    """The document's root node (an empty object for an empty file)."""
    if not text.strip():
        return Node(0, 0, {})
    p = _Parser(text)
    root = p.value()
    p.skip()
    if p.i != len(text):
        raise p.fail("text after the end")
    return root


def indent_unit(text: str) -> str:
    m = re.search(r"\n([ \t]+)\S", text)
    return m.group(1) if m else "  "


def newline(text: str) -> str:
    """The file's line ending, by its first line: CRLF or LF."""
    nl = text.find("\n")
    return "\r\n" if nl > 0 and text[nl - 1] == "\r" else "\n"


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    m = re.match(r"[ \t]*", text[start:])
    return m.group() if m else ""


def dump(value: Any, unit: str, base: str, nl: str = "\n") -> str:
    """`value` as JSON indented like the file, for a place whose line starts with `base`."""
    text = json.dumps(value, indent=len(unit) if unit.strip(" ") == "" else 1, ensure_ascii=False)
    if unit.startswith("\t"):
        text = re.sub(r"(?m)^( +)", lambda m: "\t" * len(m.group(1)), text)
    return text.replace("\n", nl + base)


def find(text: str, path: Keys) -> Node | None:
    """The node at `path`, None when it is not there."""
    node = parse(text)
    for key in path:
        if isinstance(key, str) and isinstance(node.value, dict) and key in node.members:
            node = node.members[key][1]
        elif isinstance(key, int) and isinstance(node.value, list) and 0 <= key < len(node.items):
            node = node.items[key]
        else:
            return None
    return node


def is_blank(text: str, node: Node) -> bool:
    """`node` is an object or array with nothing inside it, not even a comment."""
    return isinstance(node.value, dict | list) and not text[node.start + 1 : node.end - 1].strip()


def set_member(text: str, path: Keys, value: Any) -> str:
    """`text` with the member at `path` set to `value`: replaced where it is, else added as the last
    member of its parent (the objects on the way created as needed)."""
    if not text.strip():
        nested: Any = value
        for key in reversed(path):
            nested = {key: nested}
        nl = newline(text)
        return json.dumps(nested, indent=2, ensure_ascii=False).replace("\n", nl) + nl
    node = parse(text)
    if not isinstance(node.value, dict):
        raise JSONCError("expected an object at the top")
    for depth, key in enumerate(path):
        if isinstance(key, int) and isinstance(node.value, list) and 0 <= key < len(node.items):
            start, child = node.items[key].start, node.items[key]
        elif isinstance(key, str) and isinstance(node.value, dict) and key in node.members:
            start, child = node.members[key]
        elif isinstance(key, str) and isinstance(node.value, dict):
            for inner in reversed(path[depth + 1 :]):
                value = {inner: value}
            return _insert(text, node, json.dumps(key, ensure_ascii=False) + ": ", value)
        else:
            raise JSONCError(f"`{'.'.join(map(str, path[:depth]))}` is not an object")
        if depth == len(path) - 1:
            new = dump(value, indent_unit(text), _line_indent(text, start), newline(text))
            return text[: child.start] + new + text[child.end :]
        node = child
    raise JSONCError("an empty path")


def append_item(text: str, path: Keys, value: Any) -> str:
    """`text` with `value` added as the last element of the array at `path`, formatted like the
    file; the elements already there keep their bytes (`delete` of it gives `text` back)."""
    node = find(text, path)
    if node is None or not isinstance(node.value, list):
        raise JSONCError(f"`{'.'.join(map(str, path))}` is not an array")
    return _insert(text, node, "", value)


def _line_end(text: str, at: int) -> int:
    """Where the line holding `at` ends, before its line break."""
    nl = text.find("\n", at)
    if nl < 0:
        return len(text)
    return nl - 1 if nl > at and text[nl - 1] == "\r" else nl


def _insert(text: str, obj: Node, prefix: str, value: Any) -> str:
    """`text` with a new last member (`prefix` is its `"key": `, '' in an array) in `obj`: after a
    comma added to the last member (or the user's own trailing comma, and then with one of its own),
    on a line of its own when `obj` spans lines, else on the same line."""
    multi = "\n" in text[obj.start : obj.end]
    at, comma = obj.start + 1, ""
    if obj.children:
        last = obj.children[-1][1].end
        after = _comma_after(text, last)
        if after is not None:  # the user ends members with a comma: so does this one
            at, comma = after, ","
        else:
            text, at = text[:last] + "," + text[last:], last + 1
    if not multi:  # written on one line: stay on one line
        member = prefix + json.dumps(value, ensure_ascii=False)
        return text[:at] + (" " if obj.children else "") + member + comma + text[at:]
    nl, unit = newline(text), indent_unit(text)
    inner = _line_indent(text, obj.start) + unit
    end = _line_end(text, at)
    tail = text[at:end].strip()
    if not tail or tail.startswith("//"):  # after the line's own comment
        at = end
    return text[:at] + nl + inner + prefix + dump(value, unit, inner, nl) + comma + text[at:]


def delete(text: str, path: Keys) -> str:
    """`text` without the member or element at `path` (unchanged if it is not there) and what
    `set_member` or `append_item` added with it: a comma, its line break."""
    if not path:
        return text
    parent, child = find(text, path[:-1]), find(text, path)
    if parent is None or child is None:
        return text
    starts = [node.start for _, node in parent.children]
    return _cut(text, parent, starts.index(child.start))


def _comma_after(text: str, pos: int) -> int | None:
    """The end of the comma that follows `pos` (past blanks and comments), None when there is
    none."""
    p = _Parser(text)
    p.i = pos
    p.skip()
    return p.i + 1 if text.startswith(",", p.i) else None


def _cut(text: str, parent: Node, index: int) -> str:
    """`text` without child `index` of `parent`, the inverse of `_insert` for the last child."""
    begin, node = parent.children[index]
    last = index == len(parent.children) - 1
    own = _comma_after(text, node.end)
    end = own or node.end
    line = text.rfind("\n", 0, begin)
    if line >= 0 and not text[line + 1 : begin].strip():  # on a line of its own
        start = line - 1 if line > 0 and text[line - 1] == "\r" else line
        if own is None and index:  # the comma added to the member before it
            before = _comma_after(text, parent.children[index - 1][1].end)
            assert before is not None
            return text[: before - 1] + text[before:start] + text[end:]
        return text[:start] + text[end:]
    if not last:
        return text[:begin] + text[parent.children[index + 1][0] :]
    if not index:
        return text[:begin] + text[end:]
    previous = parent.children[index - 1][1].end
    if own is not None:  # `[a, k,]`: from after the comma of the one before
        comma = _comma_after(text, previous)
        assert comma is not None
        return text[:comma] + text[end:]
    return text[:previous] + text[end:]
