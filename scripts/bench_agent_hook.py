"""What `k0maru-hook` (the agent hosts' PreToolUse hook) adds to a shell command: the installed hook
process fed a test command (rewritten) and a command naming no tool (left alone), each beside a bare
`python -c pass` of the same interpreter and an `import re` (what pip's console-script wrapper
imports before the hook's own code), interleaved; wall and CPU (user + system, from the children's
rusage) medians, and what each adds to the bare start.

    python scripts/bench_agent_hook.py [--runs 40] [--json]

k0maru's bytecode is compiled first, as an installed wheel has it.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchenv import like_a_users_install  # noqa: E402

import k0maru

HOOK = Path(sys.executable).with_name("k0maru-hook")


def event(command: str) -> str:
    """Claude Code's documented PreToolUse input for a Bash call, in this repository (a vault for
    offload, so a test command is rewritten and the user's permission rules are read)."""
    return json.dumps(
        {
            "session_id": "bench",
            "transcript_path": "/tmp/bench.jsonl",
            "cwd": str(Path(k0maru.__file__).resolve().parents[1]),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "run it"},
        }
    )


def timed(cmd: list[str], stdin: str) -> tuple[float, float]:
    """(wall ms, CPU ms) of one run of `cmd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True)
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    like_a_users_install()
    cases = {
        "bare python": ([sys.executable, "-c", "pass"], ""),
        "import re": ([sys.executable, "-c", "import re"], ""),
        "hook, test command": ([str(HOOK)], event("cd proj && FOO=1 pytest -q 2>&1")),
        "hook, other command": ([str(HOOK)], event("ls -la")),
    }
    walls: dict[str, list[float]] = {k: [] for k in cases}
    cpus: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(args.runs):  # interleaved: a change in the machine's load touches every case
        for name, (cmd, stdin) in cases.items():
            wall, cpu = timed(cmd, stdin)
            walls[name].append(wall)
            cpus[name].append(cpu)
    bare_wall = statistics.median(walls["bare python"])
    bare_cpu = statistics.median(cpus["bare python"])
    out = {
        name: {
            "wall_ms": round(statistics.median(walls[name]), 1),
            "cpu_ms": round(statistics.median(cpus[name]), 1),
            "adds_wall_ms": round(statistics.median(walls[name]) - bare_wall, 1),
            "adds_cpu_ms": round(statistics.median(cpus[name]) - bare_cpu, 1),
        }
        for name in cases
    }
    print(json.dumps(out) if args.json else "\n".join(f"{k:>20}: {v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
