"""`python -m k0maru`: the command line. The installed git hooks' own call, `hooks run ...`, goes
straight to githooks/run.py without the command line's parser (a git command waits for it)."""

import sys

if sys.argv[1:3] == ["hooks", "run"]:
    from k0maru.githooks.run import run_argv

    status = run_argv(sys.argv[3:])
    if status is not None:
        raise SystemExit(status)

from k0maru.cli.main import entry  # noqa: E402 - after the hooks' own call

entry()
