"""Line prefixes, a layer of their own: CI timestamps and markers (`2026-...Z `, `##[group]`,
GitLab's `section_start:...`, Jenkins' `[Pipeline]` and `[2026-12-07T10:00:00.000Z]`) and task
prefixes (`pkg:task: `, `svc  | `, `[1/4] `) are removed before the extractors read a line (the
stored log keeps them), and each line's task is remembered so a failure is attributed to the task
that reported it. A task prefix counts only once it starts two lines of the log: one line that
happens to look like one (`ERROR:root:x: `) is left alone."""

from __future__ import annotations

import bisect
import re

from k0maru.offload.findings import Failure

CI_MARK = (
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?"  # GitHub Actions' timestamp
    r"|\[\d{4}-\d\d-\d\dT[\d:.]+Z?\] ?"  # Jenkins' timestamper
    r"|##\[(?:group|endgroup|section|command|debug|notice)\]"  # Actions' and Azure's markers
    r"|section_(?:start|end):\d+:[\w.-]+(?:\[[^\]\r]*\])?\r?"  # GitLab's collapsible sections
    r"|\[Pipeline\] ?"  # Jenkins' steps
)
TASK = (
    r"(?P<task>[\w@][\w@./-]*:[A-Za-z][\w.-]*):(?: |$)"  # turbo, nx: `web:build: `
    # docker compose: `api-1  | `; never a level (`ERROR |`) or a row's `L5 |`
    r"|(?!(?:ERROR|WARN|WARNING|INFO|DEBUG|FATAL|TRACE|NOTICE) )"
    r"(?P<service>[A-Za-z][A-Za-z_.-][\w.-]*) *\| "
    r"|\[(?P<step>\d+/\d+)\] "  # yarn, ninja: `[1/4] `
)
PREFIX = re.compile(rf"(?:{CI_MARK})+|(?:{CI_MARK})*(?:{TASK})")
# where a block may hold a prefix at all: one search over the block skips the rest
ANY = re.compile(rf"(?m)^(?:{CI_MARK}|{TASK})")
MAX_RUNS = 100_000  # task changes remembered; past them new lines keep the last task


class Prefixes:
    """Strips the prefixes of a log's lines, block by block, and remembers each line's task as runs
    (the line a task starts at, the task)."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.tasks: list[str | None] = []
        self.seen: dict[str, int] = {}  # task prefixes met, and how often

    def strip(self, block: str, base: int) -> str:
        """`block` (whole lines, the first is log line `base + 1`) without its lines' prefixes."""
        if not ANY.search(block):
            if self.tasks and self.tasks[-1] is not None:
                self._run(base + 1, None)
            return block
        rows = block.split("\n")
        for row in rows:  # a task prefix that starts two lines of the block is known at once
            m = PREFIX.match(row)
            # counted only before a word: `web:build:   ---` is stripped once the task is known
            name = m.group("task") or m.group("service") if m is not None else None
            if name and m is not None and row[m.end() : m.end() + 1].strip():
                self._count(name)
        for i, row in enumerate(rows):
            rows[i] = self._line(row, base + 1 + i)
        return "\n".join(rows)

    def _line(self, row: str, lineno: int) -> str:
        m = PREFIX.match(row)
        task = None
        if m is not None:
            name = m.group("task") or m.group("service") or m.group("step")
            if name is None or name[0].isdigit() or self.seen.get(name, 0) >= 2:
                row, task = row[m.end() :], name if not m.group("step") else None
        if (self.tasks[-1] if self.tasks else None) != task:
            self._run(lineno, task)
        return row

    def _count(self, name: str) -> None:
        if name in self.seen or len(self.seen) < MAX_RUNS:
            self.seen[name] = self.seen.get(name, 0) + 1

    def _run(self, lineno: int, task: str | None) -> None:
        if len(self.starts) < MAX_RUNS:
            self.starts.append(lineno)
            self.tasks.append(task)

    def task_at(self, lineno: int) -> str | None:
        i = bisect.bisect_right(self.starts, lineno) - 1
        return self.tasks[i] if i >= 0 else None

    def attribute(self, failures: list[Failure]) -> None:
        """Each failure's task: the one whose prefix its reporting line had."""
        if not any(self.tasks):
            return
        for f in failures:
            f.task = f.task or self.task_at(f.line)
