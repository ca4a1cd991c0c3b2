"""What the extractors find in a log: failures with codes and locations, and the stacks seen. Memory
stays bounded whatever the log: the first `MAX_KEPT` failures are kept whole, every failure is
counted in its (stack, code) group, and groups past `MAX_KEPT` distinct ones are counted in the
total only."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

# what a failure is called when its tool gives it no code: shown with the failure, never listed as a
# code
UNCODED = frozenset({"error", "FAIL", "fatal-error"})
MAX_KEPT = 1000
# the layers under the extractors: never named as a log's stack, never switched off
GENERIC_STACKS = frozenset({"generic", "findings"})


@dataclass(slots=True)
class Failure:
    stack: str  # rust, python, pytest, go, typescript, c, java, generic
    code: str  # E0502, InvalidStateError, heap-use-after-free, TS2345, ...
    message: str
    line: int  # 1-based line number in the log where it was reported
    location: str | None = None  # first failing file:line[:col]
    test: str | None = None  # failing test id, when a test runner reported it
    task: str | None = None  # the task whose prefixed lines reported it (`web:build`, `api`)
    # the generic layer's markers only: the report's own lines, (line number, text), for the summary
    lines: list[tuple[int, str]] | None = None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["lines"]
        return data


@dataclass(slots=True)
class Group:
    """The failures of one (stack, code): how many, and the first one found."""

    stack: str
    code: str
    count: int
    first: Failure


@dataclass(slots=True)
class Findings:
    failures: list[Failure] = field(default_factory=list)  # the first MAX_KEPT, in the order found
    stacks: list[str] = field(default_factory=list)
    generic: Failure | None = None
    total: int = 0  # every failure found, kept or not
    latest: Failure | None = None
    groups: dict[tuple[str, str], Group] = field(default_factory=dict)
    markers: list[Failure] = field(default_factory=list)  # the generic layer's, in log order
    root: Failure | None = None  # set by the analyzer once the log is read
    root_is_users: bool = False  # the root is located in the user's code

    seen: dict[str, None] = field(default_factory=dict)  # codes in the markers' lines, as written
    # the markers' lines that are a library's stack frames: left out of a failure's lines
    library_rows: set[int] = field(default_factory=set)
    # the tool's own verdict: its first failing word (`FAILED`, `ERROR`, `✗`, `##[error]`), with
    # the lines around it
    verdict: Failure | None = None
    # the failures are findings kept because nothing else failed (warnings, or findings without a
    # severity): no error-level evidence
    promoted: bool = False
    # each file a unified diff in the log changes, at its first changed line, with its `+++` line
    # (its number, its text) (`extractors/diff.py`)
    changes: list[tuple[str, int, str]] = field(default_factory=list)

    def failed(self, exit_code: int | None) -> bool:
        """Whether the run failed: its exit code when known; piped, the tool's verdict (a failing
        word, or error-level failures; warnings alone are not a failure)."""
        if exit_code is not None:
            return exit_code != 0
        if self.verdict is not None:
            return True
        return bool(self.failures or self.markers) and not self.promoted

    def seen_code(self, code: str) -> None:
        if len(self.seen) < MAX_KEPT:
            self.seen[code] = None

    def changed(self, place: str, header: tuple[int, str]) -> None:
        """A file a diff in the log changes, at its first changed line; `header`: the diff's `+++`
        line naming it."""
        if len(self.changes) < MAX_KEPT:
            self.changes.append((place, *header))

    def mark(self, marker: Failure) -> None:
        """A failure marker of the generic layer: a candidate root, not counted as a failure."""
        self.markers.append(marker)

    def add(self, failure: Failure) -> Failure:
        self.latest = failure
        if len(self.failures) < MAX_KEPT:
            self.failures.append(failure)
        self._count(failure)
        self.saw(failure.stack)
        return failure

    def recode(self, failure: Failure, code: str) -> None:
        """Give a failure the code its tool names on a later line (a Rust lint after `error:
        ...`)."""
        old = (failure.stack, failure.code)
        group = self.groups.get(old)
        if group is not None:
            group.count -= 1
            if not group.count:
                del self.groups[old]
            elif group.first is failure:  # the group's next kept failure, if one was kept
                group.first = next(
                    (f for f in self.failures if (f.stack, f.code) == old and f is not failure),
                    group.first,
                )
        self.total -= 1
        failure.code = code
        self._count(failure)

    def _count(self, failure: Failure) -> None:
        self.total += 1
        key = (failure.stack, failure.code)
        if key in self.groups:
            self.groups[key].count += 1
        elif len(self.groups) < MAX_KEPT:
            self.groups[key] = Group(failure.stack, failure.code, 1, failure)

    def saw(self, stack: str) -> None:
        if stack not in self.stacks:
            self.stacks.append(stack)

    @property
    def error_codes(self) -> list[str]:
        found = (code for _, code in self.groups if code not in UNCODED)
        return list(dict.fromkeys([*found, *(c for c in self.seen if c not in UNCODED)]))

    @property
    def count(self) -> int:
        return self.total or (1 if self.generic else 0)

    def grouped(self) -> list[Group]:
        """Groups in the order of their first failure's line; the generic line alone when nothing
        else."""
        if not self.groups:
            return (
                [Group(self.generic.stack, self.generic.code, 1, self.generic)]
                if self.generic
                else []
            )
        return sorted(self.groups.values(), key=lambda g: g.first.line)

    @property
    def first_location(self) -> str | None:
        return self.root.location if self.root is not None else None

    def block_of(self, failure: Failure, most: int = 40) -> list[tuple[int, str]]:
        """The lines of the marker whose report holds `failure` (the nearest one before it, else the
        first after it), with those of the markers that follow on without a gap; [] when none."""
        if failure.lines and failure.stack != "generic":  # a finding's own lines
            return failure.lines[:most]
        kept = [m for m in self.markers if m.lines]
        start = _marker_of(kept, failure.line)
        if start is None:
            return []
        out = _from_line(list(kept[start].lines or []), failure.line)
        out = _followed_on(out, kept[start + 1 :], most)
        return [row for row in out if row[0] not in self.library_rows][:most]

    @property
    def all_failures(self) -> list[Failure]:
        if self.failures:
            return self.failures
        return [self.generic] if self.generic else []


Rows = list[tuple[int, str]]


def _marker_of(kept: list[Failure], line: int) -> int | None:
    """Of the markers with lines (in log order), the one whose report holds log line `line`: the
    nearest at or before it, when its lines reach within 5 of it; else the first after it."""
    start = None
    for i, m in enumerate(kept):
        if m.line <= line:
            start = i
    if start is None or line > kept[start].lines[-1][0] + 5:  # type: ignore[index]
        start = next((i for i, m in enumerate(kept) if m.line >= line), start)
    return start


def _from_line(rows: Rows, line: int) -> Rows:
    """A marker's rows from the one before the failure's own line, when they hold it."""
    if rows[0][0] < line - 1 <= rows[-1][0]:
        return [row for row in rows if row[0] >= line - 1]
    return rows


def _followed_on(rows: Rows, following: list[Failure], most: int) -> Rows:
    """`rows` with those of the markers that follow on without a gap, up to `most` rows."""
    for m in following:
        if len(rows) >= most or not m.lines or m.lines[0][0] > rows[-1][0] + 1:
            break
        rows += [row for row in m.lines if row[0] > rows[-1][0]]
    return rows


def same_place(found: str | None, expected: str) -> bool:
    """Whether location `found` is `expected` (file:line[:col]): equal, or ending with it at a path
    boundary; the column is compared only when `expected` has one."""
    if not found:
        return False
    parts = expected.count(":") + 1
    found = ":".join(found.split(":")[:parts]) if found.count(":") + 1 > parts else found
    return found == expected or found.endswith("/" + expected)
