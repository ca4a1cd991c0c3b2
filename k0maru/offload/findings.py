"""What the extractors find in a log: failures with codes and locations, and the stacks seen."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

# what a failure is called when its tool gives it no code: shown with the failure, never listed as a code
UNCODED = frozenset({"error", "FAIL", "fatal-error"})


@dataclass(slots=True)
class Failure:
    stack: str  # rust, python, pytest, go, typescript, c, java, generic
    code: str  # E0502, InvalidStateError, heap-use-after-free, TS2345, ...
    message: str
    line: int  # 1-based line number in the log where it was reported
    location: str | None = None  # first failing file:line[:col]
    test: str | None = None  # failing test id, when a test runner reported it

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Findings:
    failures: list[Failure] = field(default_factory=list)
    stacks: list[str] = field(default_factory=list)
    generic: Failure | None = None

    def add(self, failure: Failure) -> Failure:
        self.failures.append(failure)
        self.saw(failure.stack)
        return failure

    def saw(self, stack: str) -> None:
        if stack not in self.stacks:
            self.stacks.append(stack)

    @property
    def error_codes(self) -> list[str]:
        codes: list[str] = []
        for f in self.failures:
            if f.code not in codes and f.code not in UNCODED:
                codes.append(f.code)
        return codes

    @property
    def first_location(self) -> str | None:
        for f in sorted(self.failures, key=lambda f: f.line):
            if f.location:
                return f.location
        return None

    @property
    def all_failures(self) -> list[Failure]:
        if self.failures:
            return self.failures
        return [self.generic] if self.generic else []


def same_place(found: str | None, expected: str) -> bool:
    """Whether location `found` is `expected` (file:line[:col]): equal, or ending with it at a path boundary;
    the column is compared only when `expected` has one."""
    if not found:
        return False
    parts = expected.count(":") + 1
    found = ":".join(found.split(":")[:parts]) if found.count(":") + 1 > parts else found
    return found == expected or found.endswith("/" + expected)
