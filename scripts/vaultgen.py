"""Generate realistic synthetic vaults for benchmarks: frontmatter, headings, code, [[links]]."""

from __future__ import annotations

import random
from pathlib import Path

WORDS = [
    "lease",
    "worker",
    "scheduler",
    "queue",
    "retry",
    "backoff",
    "sqlite",
    "wal",
    "checkpoint",
    "writer",
    "reader",
    "transaction",
    "lock",
    "timeout",
    "deadline",
    "handler",
    "export",
    "billing",
    "invoice",
    "customer",
    "region",
    "deploy",
    "release",
    "canary",
    "metric",
    "trace",
    "span",
    "latency",
    "throughput",
    "incident",
    "rollback",
    "migration",
    "schema",
    "index",
    "cache",
    "memory",
    "borrow",
    "mutable",
    "reference",
    "async",
    "await",
    "future",
    "task",
    "cancel",
    "shutdown",
    "signal",
    "config",
    "flag",
]
SYMBOLS = [
    "SQLITE_BUSY",
    "E0502",
    "E0382",
    "Option<&mut T>",
    "std::sync::Mutex",
    "heap-use-after-free",
    "BorrowMutError",
    "TS2345",
    "InvalidStateError",
    "src/worker.rs:42",
    "ENOSPC",
]
FOLDERS = ["00_Logs", "10_Projects", "20_Cards", "30_Runbooks", "docs/adr", "decisions", "journal"]


def _sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words)), f"`{rng.choice(SYMBOLS)}`")
    return " ".join(words).capitalize() + "."


def note_text(rng: random.Random, i: int, names: list[str], size: int) -> str:
    parts = [
        f"---\ntitle: Note {i}\ntags: [{rng.choice(WORDS)}, {rng.choice(WORDS)}]\ndate: 2026-{rng.randint(1, 12):02d}-"
        f"{rng.randint(1, 28):02d}\n---\n\n# Note {i}: {rng.choice(WORDS)} {rng.choice(WORDS)}\n"
    ]
    length = sum(len(p) for p in parts)
    section = 0
    while length < size:
        if rng.random() < 0.25:
            section += 1
            block = f"\n## Section {section} {rng.choice(WORDS)}\n"
        elif rng.random() < 0.08:
            block = f"\n```rust\nlet x = {rng.choice(WORDS)}();\n```\n"
        else:
            links = " ".join(f"[[{rng.choice(names)}]]" for _ in range(rng.randint(0, 2)))
            block = (
                "\n"
                + " ".join(_sentence(rng, rng.randint(6, 16)) for _ in range(rng.randint(2, 5)))
                + f" {links}\n"
            )
        parts.append(block)
        length += len(block)
    return "".join(parts)


def generate(
    root: Path, count: int, seed: int = 7, min_kb: float = 1, max_kb: float = 10
) -> list[Path]:
    rng = random.Random(seed)
    names = [f"note-{i:05d}" for i in range(count)]
    paths = []
    for i, name in enumerate(names):
        folder = root / FOLDERS[i % len(FOLDERS)]
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.md"
        path.write_text(
            note_text(rng, i, names, int(rng.uniform(min_kb, max_kb) * 1024)), encoding="utf-8"
        )
        paths.append(path)
    return paths
