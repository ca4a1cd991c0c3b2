"""`python -m k0maru`: the `k0maru` command."""

from k0maru.cli import entry

entry()
