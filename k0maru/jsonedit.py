"""Edit one member of a JSON or JSONC file (comments, trailing commas) in place, leaving every other
byte of the file as the user wrote it: the parser records where each value starts and ends, and an
edit replaces, inserts or deletes only that span."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from k0maru.errors import K0maruError


@dataclass
class Node:
    start: int
    end: int
    value: Any
    members: dict[str, tuple[int, Node]] = field(default_factory=dict)  # key -> (key start, value)
    items: list[Node] = field(default_factory=list)  # an array's elements


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
            node.value[key] = child.value
            self.skip()
            if self.text.startswith(",", self.i):
                self.i += 1
            elif not self.text.startswith("}", self.i):
                raise self.fail("expected ',' or '}'")

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
            node.value.append(child.value)
            self.skip()
            if self.text.startswith(",", self.i):
                self.i += 1
            elif not self.text.startswith("]", self.i):
                raise self.fail("expected ',' or ']'")


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


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    m = re.match(r"[ \t]*", text[start:])
    return m.group() if m else ""


def dump(value: Any, unit: str, base: str) -> str:
    """`value` as JSON indented like the file, for a place whose line starts with `base`."""
    text = json.dumps(value, indent=len(unit) if unit.strip(" ") == "" else 1, ensure_ascii=False)
    if unit.startswith("\t"):
        text = re.sub(r"(?m)^( +)", lambda m: "\t" * len(m.group(1)), text)
    return text.replace("\n", "\n" + base)


def set_member(text: str, path: list[str], value: Any) -> str:
    """`text` with the member at `path` (keys from the root) set to `value`: replaced where it is,
    else added as the last member of its parent (created as needed)."""
    root = parse(text)
    if not isinstance(root.value, dict):
        raise JSONCError("expected an object at the top")
    if not text.strip():
        nested: Any = value
        for key in reversed(path):
            nested = {key: nested}
        return json.dumps(nested, indent=2, ensure_ascii=False) + "\n"
    unit = indent_unit(text)
    node = root
    for depth, key in enumerate(path):
        if not isinstance(node.value, dict):
            raise JSONCError(f"`{'.'.join(path[:depth])}` is not an object")
        if key in node.members:
            key_start, child = node.members[key]
            if depth == len(path) - 1:
                base = _line_indent(text, key_start)
                return text[: child.start] + dump(value, unit, base) + text[child.end :]
            node = child
            continue
        nested = value
        for inner in reversed(path[depth + 1 :]):
            nested = {inner: nested}
        return _insert(text, node, json.dumps(key, ensure_ascii=False) + ": ", nested, unit)
    raise AssertionError("unreachable")


def _find(text: str, path: list[str]) -> Node | None:
    """The node at `path` (keys from the root), None when it is not there."""
    node = parse(text)
    for key in path:
        if not isinstance(node.value, dict) or key not in node.members:
            return None
        node = node.members[key][1]
    return node


def append_item(text: str, path: list[str], value: Any) -> str:
    """`text` with `value` added as the last element of the array at `path`, formatted like the
    file; the elements already there keep their bytes (`delete_item` of it gives `text` back)."""
    node = _find(text, path)
    if node is None or not isinstance(node.value, list):
        raise JSONCError(f"`{'.'.join(path)}` is not an array")
    return _insert(text, node, "", value, indent_unit(text))


def _insert(text: str, obj: Node, prefix: str, value: Any, unit: str) -> str:
    """`text` with a new last member (`prefix` is its `"key": `, '' in an array) in `obj`."""
    close = obj.end - 1  # the closing brace or bracket
    children = [child for _, child in obj.members.values()] or obj.items
    if "\n" not in text[obj.start : obj.end]:  # written on one line: stay on one line
        member = prefix + json.dumps(value, ensure_ascii=False)
        body = text[obj.start + 1 : close].rstrip()
        sep = "" if not body.strip() or body.endswith(",") else ","
        return text[: obj.start + 1] + body + sep + (" " if body else "") + member + text[close:]
    base = _line_indent(text, obj.start)
    inner = base + unit
    member = prefix + dump(value, unit, inner)
    if not children:
        return text[: obj.start + 1] + "\n" + inner + member + "\n" + base + text[close:]
    last = max(child.end for child in children)
    p = _Parser(text)
    p.i = last
    p.skip()
    if text.startswith(",", p.i):  # the user ends members with a comma: so does this one
        at = p.i + 1
        member += ","
    else:
        text, at = text[:last] + "," + text[last:], last + 1
    nl = text.find("\n", at)
    tail = text[at:nl] if nl >= 0 else text[at:]
    if tail.strip() == "" or tail.lstrip().startswith("//"):  # after the line's own comment
        at = nl if nl >= 0 else len(text)
    return text[:at] + "\n" + inner + member + text[at:]


def delete_member(text: str, path: list[str]) -> str:
    """`text` without the member at `path` (unchanged if it is not there), with its comma."""
    parent = _find(text, path[:-1])
    if parent is None or not isinstance(parent.value, dict) or path[-1] not in parent.members:
        return text
    key_start, child = parent.members[path[-1]]
    return _cut(text, key_start, child.end)


def delete_item(text: str, path: list[str], index: int) -> str:
    """`text` without element `index` of the array at `path` (unchanged if it is not there), with
    its comma: the inverse of `append_item`."""
    array = _find(text, path)
    if array is None or not isinstance(array.value, list) or not 0 <= index < len(array.items):
        return text
    item = array.items[index]
    return _cut(text, item.start, item.end)


def _cut(text: str, begin: int, finish: int) -> str:
    """`text` without the member or element that starts at `begin` and ends at `finish`, its comma
    and, when it had the line to itself, its line."""
    start = text.rfind("\n", 0, begin) + 1
    if text[start:begin].strip():  # other text on the line before it: cut from the member
        start = begin
    p = _Parser(text)
    p.i = finish
    p.skip()
    end = finish
    if text.startswith(",", p.i):
        end = p.i + 1
    else:  # the last member: take the comma before it instead
        before = text[:start].rstrip()
        if before.endswith(","):
            start = len(before) - 1
            return text[:start] + text[end:]
    nl = text.find("\n", end)
    if nl >= 0 and not text[end:nl].strip():
        end = nl + 1
    return text[:start] + text[end:]
