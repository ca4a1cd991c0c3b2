"""Frontmatter YAML, loaded so that no note can stop a scan: a bounded pass over the parser's events
first (nesting depth, alias expansion, aliases into their own node), then PyYAML's safe loader, then
the JSON the index stores. Any failure is one message naming the line; the caller indexes the note
without its frontmatter.

The event pass is iterative (libyaml's parser keeps its own stack), so it runs before anything
recursive: PyYAML's C composer crashes the process on ~100,000 nested `[`, and nested aliases grow
9-fold a level (a note of a few hundred bytes could take seconds and a gigabyte).
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 50  # nested mappings and lists
MAX_ALIAS_NODES = 1000  # nodes that aliases may add by repeating anchored ones
_JSON_KEYS = (str, int, float, bool, type(None))


class FrontmatterError(ValueError):
    """Frontmatter that is left out of the index; str() says what and where (`line`: the file's
    line)."""

    def __init__(self, problem: str, line: int):
        super().__init__(f"{problem} at line {line}")
        self.line = line


def load(text: str, first_line: int = 2) -> dict[str, Any] | None:
    """The frontmatter `text` (whose first line is the file's `first_line`) as the index stores it:
    a mapping whose JSON form exists, None when empty. Raises FrontmatterError, never anything
    else."""
    import yaml  # a slow import: a rescan that finds nothing changed never parses YAML

    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, in C, where installed
    try:
        _check_events(loader_class, text, first_line)
        data = yaml.load(text, Loader=loader_class)  # a safe loader
    except FrontmatterError:
        raise
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise FrontmatterError(
            f"invalid YAML ({problem})", first_line + (mark.line if mark else 0)
        ) from None
    except Exception as exc:  # a constructor's error: 2026-02-30, a 5000-digit int
        raise FrontmatterError(
            f"invalid value ({_one_line(exc)})", _failing_line(loader_class, text, first_line)
        ) from None
    if data is None:
        return None
    if not isinstance(data, dict):
        raise FrontmatterError("frontmatter is not a key: value mapping", first_line)
    try:
        json.dumps(data, default=str, ensure_ascii=False)  # exactly what the index will store
    except Exception as exc:  # a key JSON cannot hold (a date), or anything else
        raise FrontmatterError(
            f"a key that is not text ({_one_line(exc)})",
            _failing_line(loader_class, text, first_line),
        ) from None
    return data


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:160] or type(exc).__name__


class _Expansion:
    """What the events read so far expand to: the collections open, and the nodes each anchor
    names."""

    def __init__(self) -> None:
        self.open_nodes: list[str | None] = []  # anchors of the mappings and lists being read
        self.starts: list[int] = []  # node count when each of them opened
        self.sizes: dict[str, int] = {}  # anchor -> nodes it expands to
        self.count = self.repeated = 0

    def opened(self, anchor: str | None, line: int) -> None:
        if len(self.open_nodes) >= MAX_DEPTH:
            raise FrontmatterError(f"nested deeper than {MAX_DEPTH} levels", line)
        self.open_nodes.append(anchor)
        self.starts.append(self.count)
        self.count += 1

    def closed(self) -> None:
        anchor, start = self.open_nodes.pop(), self.starts.pop()
        if anchor is not None:
            self.sizes[anchor] = self.count - start

    def scalar(self, anchor: str | None) -> None:
        self.count += 1
        if anchor is not None:
            self.sizes[anchor] = 1

    def alias(self, anchor: str | None, line: int) -> None:
        if anchor in self.open_nodes:
            raise FrontmatterError(f"alias *{anchor} refers to the node that contains it", line)
        size = self.sizes.get(anchor or "", 1)
        self.count += size
        self.repeated += size
        if self.repeated > MAX_ALIAS_NODES:
            raise FrontmatterError(f"aliases expand to more than {MAX_ALIAS_NODES} nodes", line)


def _check_events(loader_class: Any, text: str, first_line: int) -> None:
    """Walk the parser's events once, refusing deep nesting, aliases that expand past
    MAX_ALIAS_NODES and an alias inside the node it names (a cycle, which JSON cannot hold)."""
    from yaml import events

    loader = loader_class(text)
    try:
        seen = _Expansion()
        while loader.check_event():
            event = loader.get_event()
            line = first_line + event.start_mark.line
            if isinstance(event, events.CollectionStartEvent):
                seen.opened(event.anchor, line)
            elif isinstance(event, events.CollectionEndEvent):
                seen.closed()
            elif isinstance(event, events.ScalarEvent):
                seen.scalar(event.anchor)
            elif isinstance(event, events.AliasEvent):
                seen.alias(event.anchor, line)
    finally:
        loader.dispose()


def _unbuildable(node: Any, stack: list[Any]) -> Any:
    """`node` itself if it is a scalar that cannot be built alone, else its first key that cannot be
    built or that JSON cannot hold; None when there is none (its children go on `stack`)."""
    from yaml import nodes

    if isinstance(node, nodes.ScalarNode):
        return None if _builds(node) else node
    if isinstance(node, nodes.MappingNode):
        for key, value in reversed(node.value):
            if isinstance(key, nodes.ScalarNode) and not _builds(key, _JSON_KEYS):
                return key
            stack.extend((value, key))
    elif isinstance(node, nodes.SequenceNode):
        stack.extend(reversed(node.value))
    return None


def _builds(node: Any, kinds: type | tuple[type, ...] = object) -> bool:
    """Whether a scalar node builds alone, into one of `kinds`."""
    from yaml.constructor import SafeConstructor

    try:
        return isinstance(SafeConstructor().construct_object(node, deep=True), kinds)
    except Exception:  # a value that cannot be built
        return False


def _failing_line(loader_class: Any, text: str, first_line: int) -> int:
    """The line of the first value that cannot be built alone (an impossible date), or of the first
    key that JSON cannot hold; the frontmatter's first line when none is found. Runs only on a
    failure."""
    try:
        loader = loader_class(text)
        try:
            root = loader.get_single_node()
        finally:
            loader.dispose()
    except Exception:  # only a better line was at stake
        return first_line
    stack = [root]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        bad = _unbuildable(node, stack)
        if bad is not None:
            line: int = bad.start_mark.line
            return first_line + line
    return first_line
