"""`seen before`: the summary names the vault's note about the same failure (same code, and the same
file or message shape), and nothing when the vault has only notes about other failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import K0, write

pytestmark = pytest.mark.slow

LOG = "".join(f"step {i}: compiling module_{i}.c ok\n" for i in range(300)) + (
    'Traceback (most recent call last):\n  File "rate.py", line 3, in per_hour\n'
    "ZeroDivisionError: division by zero\n"
)


def _summary(k0: K0, vault: Path) -> str:
    assert k0("scan", "--vault", str(vault)).returncode == 0
    r = k0("offload", "--vault", str(vault), "--task-id", "t", input=LOG)
    assert r.returncode == 0 and "first failure: rate.py:3" in r.stdout, r.stdout + r.stderr
    return r.stdout


def test_a_skill_about_the_same_failure_is_named(k0: K0, vault: Path) -> None:
    write(
        vault,
        "skills/zero-rate.md",
        "# Idle workers divide by zero\n\n`ZeroDivisionError: division by zero` in `rate.py` when a "
        "worker has no jobs: guard `per_hour`.\n",
    )
    write(vault, "notes/release.md", "# Release checklist\n\nTag, build, publish.\n")
    assert "seen before: skills/zero-rate.md\n" in _summary(k0, vault)


def test_a_note_about_another_failure_is_not_named(k0: K0, vault: Path) -> None:
    write(
        vault,
        "notes/billing.md",
        "# Empty invoices\n\nZeroDivisionError in billing.py when the invoice total is empty.\n",
    )
    write(vault, "notes/release.md", "# Release checklist\n\nTag, build, publish.\n")
    assert "seen before" not in _summary(k0, vault)
