"""Drive a real Claude Code against k0maru, offline: what the model receives from k0maru's tools.

Claude Code (`npm install @anthropic-ai/claude-code`; pass its `claude` with --claude) runs in print
mode in a copy of the demo vault set up by `k0maru connect claude-code --hooks`. Its model is a
local stand-in for the Messages API that replies with a fixed script of tool calls (a test run, a
plain command, recall, the offloaded log, the log list, a note) and records every request Claude
Code sends. The tool results in those requests are exactly what a model would read; the script
checks the hook routed the test command through `k0maru offload`, left the plain command alone, and
prints each result's size in o200k tokens.

A second session shows the hook is no permission grant (#38): default mode, the project allowing
only `Bash(python -m pytest:*)`. The test command runs (the user's rule allows it, so the hook's
`allow` widens nothing); `echo X > proof.txt; python -m pytest ...` is not run: print mode cannot
ask, so the host refuses the command it would ask about, and proof.txt is never written.

Then one session per bypass of #55, each with the user's rules in `.claude/settings.local.json`
and on the command line: a `#` comment holding a quote, ANSI-C quoting, `--disallowedTools` on the
test command, and a repository's `extra_commands = ["rm"]` under `--disallowedTools "Bash(rm:*)"`.
None of them may run what the rules refuse (a marker file tells)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
NODE = re.compile(r"refs/\S*?_([0-9a-f]{6,})\.log")
FAILING_TEST = (
    "def test_ok():\n    assert 1 + 1 == 2\n\n\n"
    "def test_broken():\n    assert {'a': 1}['a'] == 2, 'wrong value'\n"
) + "".join(f"\n\ndef test_more_{i}():\n    pass\n" for i in range(60))


def script(node_id: str = "NODE") -> list[tuple[str, dict[str, Any]]]:
    """The tool calls the stand-in model makes, in order; NODE is filled from the offload's
    answer."""
    return [
        ("Bash", {"command": "python -m pytest tests_demo -v", "description": "run the tests"}),
        ("Bash", {"command": "ls 20_Cards | grep sqlite", "description": "list cards"}),
        ("mcp__k0maru__recall_memory", {"query": "SQLITE_BUSY database is locked", "limit": 5}),
        ("mcp__k0maru__inspect_log_node", {"node_id": node_id}),
        ("mcp__k0maru__list_log_nodes", {}),
        ("mcp__k0maru__read_note", {"path": "20_Cards/sqlite-busy-timeout.md"}),
    ]


def permission_script(node_id: str = "NODE") -> list[tuple[str, dict[str, Any]]]:
    """The second session's calls: an allowed test command, then one with a segment never
    allowed."""
    return [
        ("Bash", {"command": "python -m pytest tests_demo -q", "description": "run the tests"}),
        (
            "Bash",
            {
                "command": "echo X > proof.txt; python -m pytest tests_demo -q",
                "description": "note and test",
            },
        ),
    ]


class StandIn:
    """The Messages API as Claude Code calls it (streamed or not), answering with `calls()`."""

    def __init__(self, calls: Any = script) -> None:
        self.calls = calls
        self.requests: list[dict[str, Any]] = []
        self.step = 0
        self.node_id = "NODE"
        self.lock = threading.Lock()

    def reply(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        """The next content blocks and stop reason for a request with the agent's tools."""
        with self.lock:
            self.requests.append(body)
            for result in tool_results(body):
                text = result_text(result)
                if found := NODE.search(text):
                    self.node_id = found.group(1)
            calls = self.calls(self.node_id)
            if not any(t.get("name") == "Bash" for t in body.get("tools", [])) or self.step >= len(
                calls
            ):
                return [{"type": "text", "text": "done"}], "end_turn"
            name, args = calls[self.step]
            self.step += 1
        return [
            {"type": "tool_use", "id": f"toolu_{self.step:04d}", "name": name, "input": args}
        ], ("tool_use")


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool results a request carries, in any of its messages (Claude Code 2.1.332 follows some
    with a message of its own)."""
    return [
        c
        for message in body.get("messages") or []
        if isinstance(message.get("content"), list)
        for c in message["content"]
        if c.get("type") == "tool_result"
    ]


def result_text(result: dict[str, Any]) -> str:
    content = result.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(c.get("text", "") for c in content or [] if isinstance(c, dict))


def serve(stand_in: StandIn) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
            if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                return self.send(b'{"input_tokens": 10}', "application/json")
            blocks, stop = stand_in.reply(body)
            usage = {"input_tokens": 10, "output_tokens": 5}
            message = {"id": "msg", "type": "message", "role": "assistant", "model": body["model"]}
            if not body.get("stream"):
                done = {**message, "content": blocks, "stop_reason": stop, "usage": usage}
                return self.send(json.dumps(done).encode(), "application/json")
            events: list[dict[str, Any]] = [
                {"type": "message_start", "message": {**message, "content": [], "usage": usage}}
            ]
            for i, block in enumerate(blocks):
                if block["type"] == "tool_use":
                    start = {**block, "input": {}}
                    delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
                else:
                    start, delta = (
                        {"type": "text", "text": ""},
                        {"type": "text_delta", "text": "ok"},
                    )
                events += [
                    {"type": "content_block_start", "index": i, "content_block": start},
                    {"type": "content_block_delta", "index": i, "delta": delta},
                    {"type": "content_block_stop", "index": i},
                ]
            events += [
                {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": usage},
                {"type": "message_stop"},
            ]
            sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
            self.send(sse.encode(), "text/event-stream")

        def do_GET(self) -> None:
            self.send(b"{}", "application/json")

        def send(self, data: bytes, kind: str) -> None:
            self.send_response(200)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def project(tmp: Path, k0maru_bin: Path) -> Path:
    """The demo vault as a git repository, connected to Claude Code with the offload hook."""
    root = tmp / "project"
    shutil.copytree(REPO / "examples" / "vault", root)
    (root / "tests_demo").mkdir()
    (root / "tests_demo" / "test_demo.py").write_text(FAILING_TEST)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for args in (["init"], ["scan"], ["connect", "claude-code", "--hooks"]):
        subprocess.run([str(k0maru_bin), *args], cwd=root, check=True, capture_output=True)
    # the user's approval of the project's MCP servers, as `claude` asks for it on first use
    (root / ".claude" / "settings.local.json").write_text('{"enableAllProjectMcpServers": true}')
    # every pytest run leaves a mark, so a session can tell whether the test command ran at all
    mark = "import pathlib\n\n\ndef pytest_configure():\n    pathlib.Path('ran-pytest').touch()\n"
    (root / "conftest.py").write_text(mark)
    return root


BYPASSES = [  # (what, command, the user's allow rules in settings.local.json, CLI args, marker)
    (
        "a comment holding a quote",
        "python -m pytest tests_demo -q  # don't run the slow ones\ntouch pwned  # it's fine",
        ["Bash(python -m pytest:*)"],
        [],
        "pwned",
    ),
    (
        "ANSI-C quoting",
        "python -m pytest tests_demo -q $'a\\'b' ; touch pwned #'",
        ["Bash(python -m pytest:*)"],
        [],
        "pwned",
    ),
    (
        "--disallowedTools on the test command",
        "python -m pytest tests_demo -q",
        ["Bash(python -m pytest:*)"],
        ["--disallowedTools", "Bash(python -m pytest:*)"],
        "ran-pytest",
    ),
    (
        "a repository's extra_commands under --disallowedTools",
        "rm -rf victim",
        ["Bash"],
        ["--disallowedTools", "Bash(rm:*)"],
        "victim-gone",
    ),
]


def bypass_run(claude: str, root: Path, env: dict[str, str]) -> list[str]:
    """One session per case of BYPASSES: the failures (a marker made where the rules refuse)."""
    failures = []
    (root / ".k0maru" / "agent-hook.toml").write_text('extra_commands = ["rm"]\n')
    for what, command, allowed, args, marker in BYPASSES:
        for name in ("pwned", "ran-pytest"):
            (root / name).unlink(missing_ok=True)
        (root / "victim").mkdir(exist_ok=True)
        local = {"enableAllProjectMcpServers": True, "permissions": {"allow": allowed}}
        (root / ".claude" / "settings.local.json").write_text(json.dumps(local))
        stand_in = StandIn(lambda _node, c=command: [("Bash", {"command": c, "description": "x"})])
        server = serve(stand_in)
        run_env = {**env, "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}"}
        cmd = [claude, "-p", "go", "--output-format", "json", *args]
        subprocess.run(cmd, cwd=root, env=run_env, capture_output=True, text=True, timeout=300)
        server.shutdown()
        made = (
            (root / marker).exists() if marker != "victim-gone" else not (root / "victim").exists()
        )
        if made or not stand_in.requests:
            failures.append(f"{what}: {'it ran' if made else 'no session'} ({command!r})")
    (root / ".k0maru" / "agent-hook.toml").unlink()
    return failures


def permission_run(claude: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    """The second session (default mode, only the test command allowed): what each call returned,
    whether proof.txt was written, and what went wrong."""
    local = root / ".claude" / "settings.local.json"
    settings = {"enableAllProjectMcpServers": True}
    local.write_text(
        json.dumps({**settings, "permissions": {"allow": ["Bash(python -m pytest:*)"]}})
    )
    stand_in = StandIn(permission_script)
    server = serve(stand_in)
    env = {**env, "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}"}
    cmd = [claude, "-p", "run the tests", "--output-format", "json"]
    run = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=300)
    server.shutdown()
    by_id = {r["tool_use_id"]: r for body in stand_in.requests for r in tool_results(body)}
    texts = [result_text(by_id[key]) for key in sorted(by_id)]
    calls = permission_script()
    rows = [{"input": call, "text": text} for (_, call), text in zip(calls, texts, strict=False)]
    failures = []
    if len(texts) != len(calls):
        failures.append(f"permission session: claude exit {run.returncode}, {len(texts)} results")
    elif "failed" not in texts[0] or "permission" in texts[0].lower():
        failures.append("the allowed test command did not run")
    if (root / "proof.txt").exists():
        failures.append("a command the user never allowed ran without asking (proof.txt)")
    return {"rows": rows, "proof_written": (root / "proof.txt").exists(), "failures": failures}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--claude", default=shutil.which("claude"), help="the claude executable")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args()
    if not args.claude:
        sys.exit("claude not found: npm install @anthropic-ai/claude-code, then pass --claude PATH")
    from k0maru.llm_tokens import count_tokens

    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory(prefix="k0maru-claude-") as tmp:
        root = project(Path(tmp), bin_dir / "k0maru")
        allow_all = {"enableAllProjectMcpServers": True, "permissions": {"allow": ["Bash"]}}
        (root / ".claude" / "settings.local.json").write_text(json.dumps(allow_all))
        stand_in = StandIn()
        server = serve(stand_in)
        env = {
            **os.environ,
            "HOME": str(Path(tmp) / "home"),
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}",
            "ANTHROPIC_API_KEY": "sk-stand-in",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        cmd = [args.claude, "-p", "run the tests", "--output-format", "json"]
        cmd += ["--allowedTools", "Bash", "mcp__k0maru"]
        run = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=300)
        server.shutdown()
        version = subprocess.run([args.claude, "--version"], capture_output=True, text=True)
        asked = permission_run(args.claude, root, env)
        bypasses = bypass_run(args.claude, root, env)
    by_id = {r["tool_use_id"]: r for body in stand_in.requests for r in tool_results(body)}
    results = [by_id[key] for key in sorted(by_id)]
    calls = script(stand_in.node_id)
    texts = [result_text(result) for result in results]
    rows: list[dict[str, Any]] = [
        {"tool": name, "input": call, "tokens": count_tokens(text), "text": text}
        for (name, call), text in zip(calls, texts, strict=False)
    ]
    failures = []
    if run.returncode != 0 or len(texts) != len(calls):
        failures.append(f"claude exit {run.returncode}, {len(texts)} of {len(calls)} results")
        print(f"claude's output: {run.stdout[-2000:]}\n{run.stderr[-2000:]}", file=sys.stderr)
    first = texts[0].removeprefix("Exit code 1\n") if texts else ""
    if not first.startswith("k0maru offload:"):
        failures.append("the test command was not routed through k0maru offload")
    if len(texts) > 1 and ("k0maru" in texts[1] or "sqlite" not in texts[1]):
        failures.append("the plain command was changed")
    failures += asked["failures"] + bypasses
    if args.json:
        report = {"claude": version.stdout.strip(), "rows": rows, "permissions": asked}
        report["bypasses"] = [case[0] for case in BYPASSES]
        print(json.dumps({**report, "failures": failures}))
    else:
        print(f"Claude Code {version.stdout.strip()}: what the model receives per tool call")
        for row in rows:
            print(f"{row['tokens']:>6} tok  {row['tool']} {json.dumps(row['input'])[:70]}")
            print("        " + row["text"][:160].replace("\n", " | "))
        print("default mode, the project allowing only `Bash(python -m pytest:*)`:")
        for row in asked["rows"]:
            print(f"        {row['input']['command']!r} -> {row['text'][:110]!r}")
        print(
            "\n".join(failures)
            or "ok: test command offloaded, plain command untouched, a segment never allowed not run"
        )
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
