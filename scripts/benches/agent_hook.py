"""What `k0maru-hook` (the agent hosts' PreToolUse hook) adds to a shell command.

The installed hook process fed a test command (rewritten) and a command naming no tool (left alone),
each beside a bare `python -c pass` of the same interpreter and an `import re` (what pip's
console-script wrapper imports before the hook's own code), interleaved; wall and CPU medians, and
what each adds to the bare start. k0maru's bytecode is compiled first, as an installed wheel has it.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path

from bench import REPO, emit, interleave, like_a_users_install, medians, timed

HOOK = Path(sys.executable).with_name("k0maru-hook")


def event(command: str) -> str:
    """Claude Code's documented PreToolUse input for a Bash call, in this repository (a vault for
    offload, so a test command is rewritten and the user's permission rules are read)."""
    return json.dumps({
        "session_id": "bench", "transcript_path": "/tmp/bench.jsonl", "cwd": str(REPO),
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command, "description": "run it"},
    })  # fmt: skip


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--runs", type=int, default=40)


def run(args: argparse.Namespace) -> None:
    like_a_users_install()
    cases = {
        "bare python": ([sys.executable, "-c", "pass"], ""),
        "import re": ([sys.executable, "-c", "import re"], ""),
        "hook, test command": ([str(HOOK)], event("cd proj && FOO=1 pytest -q 2>&1")),
        "hook, other command": ([str(HOOK)], event("ls -la")),
    }
    got = interleave(args.runs, {k: partial(timed, c, stdin=s) for k, (c, s) in cases.items()})  # fmt: skip
    bare = medians(got["bare python"], "wall", "cpu")
    out = {}
    for name, samples in got.items():
        m = medians(samples, "wall", "cpu")
        out[name] = {
            "wall_ms": m["ms_median"], "cpu_ms": m["cpu_ms_median"],
            "adds_wall_ms": round(m["ms_median"] - bare["ms_median"], 1),
            "adds_cpu_ms": round(m["cpu_ms_median"] - bare["cpu_ms_median"], 1),
        }  # fmt: skip
    emit(out, args.json, 20)
