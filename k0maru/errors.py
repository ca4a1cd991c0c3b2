"""Errors that reach the user as one clear line."""


class K0maruError(Exception):
    """A failure the user can act on; str() is the one-line message."""

    exit_code = 2


class ConfigError(K0maruError):
    """Invalid configuration value or file."""


class IndexLockedError(K0maruError):
    """Another process holds the index write lock for too long."""

    exit_code = 3


class IndexCorruptError(K0maruError):
    """The SQLite file is not a usable database."""

    exit_code = 4


class IndexNewerError(K0maruError):
    """The index was written by a newer k0maru (a schema this one does not know)."""

    exit_code = 4


class IndexReplacedError(K0maruError):
    """The index file was moved aside or replaced (a rebuild) before a write: nothing was written to it."""

    exit_code = 3


class IndexReadOnlyError(K0maruError):
    """The state folder or index file cannot be written; reads still work."""

    exit_code = 5


class IndexDiskFullError(IndexReadOnlyError):
    """The disk holding the index is full: reads still work, writes wait for free space."""


class PathOutsideVaultError(K0maruError):
    """A tool argument tried to escape the vault."""


class NotFoundError(K0maruError):
    """A named note, node or object does not exist."""
