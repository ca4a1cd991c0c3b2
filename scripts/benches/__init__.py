"""The measurements of scripts/bench.py, one module a subcommand."""
