"""Errors that reach the user as one clear line, each type with its exit status (the CLI) and its
JSON-RPC error code (an MCP request that fails with it as a protocol error, e.g. a resource
read)."""

from __future__ import annotations

from collections.abc import Sequence

INVALID_PARAMS = -32602  # JSON-RPC: the request's parameters are wrong
INTERNAL_ERROR = -32603  # JSON-RPC: the server could not do it
# MCP up to 2025-11-25 (later versions say INVALID_PARAMS with data.uri)
RESOURCE_NOT_FOUND = -32002


class K0maruError(Exception):
    """A failure the user can act on; str() is the one-line message: `reason` (what is wrong), then,
    after a semicolon, `hint` (what to do about it) where there is one. A front end that shows only
    what is wrong reads `reason`, never cuts the message."""

    exit_code = 2
    mcp_code = INVALID_PARAMS

    def __init__(self, reason: str = "", *, hint: str = "") -> None:
        super().__init__(f"{reason}; {hint}" if hint else reason)
        self.reason, self.hint = reason, hint


class ConfigError(K0maruError):
    """Invalid configuration value or file."""

    mcp_code = INTERNAL_ERROR


class IndexLockedError(K0maruError):
    """Another process holds the index write lock for too long."""

    exit_code = 3
    mcp_code = INTERNAL_ERROR


class IndexCorruptError(K0maruError):
    """The SQLite file is not a usable database; `damage`: what was found wrong with it (SQLite's
    own words, or a reader's), without the file's name or what to do."""

    exit_code = 4
    mcp_code = INTERNAL_ERROR

    def __init__(self, reason: str = "", *, hint: str = "", damage: str = "") -> None:
        super().__init__(reason, hint=hint)
        self.damage = damage or reason


class IndexNewerError(K0maruError):
    """The index was written by a newer k0maru (a schema this one does not know)."""

    exit_code = 4
    mcp_code = INTERNAL_ERROR


class IndexReplacedError(K0maruError):
    """The index file was moved aside or replaced (a rebuild) before a write: nothing was written to
    it."""

    exit_code = 3
    mcp_code = INTERNAL_ERROR


class IndexReadOnlyError(K0maruError):
    """The state folder or index file cannot be written; reads still work."""

    exit_code = 5
    mcp_code = INTERNAL_ERROR


class IndexDiskFullError(IndexReadOnlyError):
    """The disk holding the index is full: reads still work, writes wait for free space."""


class PathOutsideVaultError(K0maruError):
    """A tool argument tried to escape the vault."""


class NotFoundError(K0maruError):
    """A named note, node or object does not exist. `finding` says how to find the right name at a
    terminal (a front end with its own ways says its own, by `what`); `similar`: names close to the
    one asked for."""

    mcp_code = RESOURCE_NOT_FOUND

    def __init__(
        self, message: str, *, what: str = "", finding: str = "", similar: Sequence[str] = ()
    ):
        super().__init__(message)
        self.message, self.what, self.finding, self.similar = message, what, finding, tuple(similar)

    def worded(self, finding: str) -> str:
        """The one line, with `finding` as the way to find the right name."""
        if not self.similar:
            return self.message + (f"; {finding}" if finding else "")
        maybe = f"{self.message}; did you mean {' or '.join(map(repr, self.similar))}?"
        return maybe + (f" Else {finding}" if finding else "")

    def __str__(self) -> str:
        return self.worded(self.finding)
