"""The `k0maru` command. A git hook's own call, `hooks run ...`, goes straight to githooks/run.py
without the command line's parser and modules (a git command waits for it, through the plain hooks
or pre-commit alike)."""

import sys


def entry() -> None:
    if sys.argv[1:3] == ["hooks", "run"]:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C stops git, not the ADR step
        from k0maru.githooks.run import run_argv

        status = run_argv(sys.argv[3:])
        if status is not None:
            raise SystemExit(status)
    from k0maru.cli.main import entry as command_line

    command_line()
