"""CLI commands of the subsystems built on the core index."""

from __future__ import annotations

import argparse
from collections.abc import Callable

Handler = Callable[[argparse.Namespace], int]


def register(add: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    return None
