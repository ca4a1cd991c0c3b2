"""Walk a vault: include globs, .gitignore files (nested too), config excludes; one stat per file.

Symbolic links are not followed: a link to a note inside the vault is counted (`linked`) and the
note is indexed once, at its target; a link that leaves the vault, dangles or loops is skipped with
a reason (`skips`), as is a file or folder whose name is not valid UTF-8 (named escaped, `escaped`).
File times are kept whatever they are: one past 2262 or before 1678 (outside a signed 64-bit count
of nanoseconds) is clamped to that range (`int64`)."""

from __future__ import annotations

import os
import re
import stat
import time
from array import array
from collections.abc import Iterable, Iterator
from itertools import chain
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from k0maru.fsutil import digest, int64, stat_numbers, stat_signature


class Spec(Protocol):
    """A .gitignore matcher: pathspec's GitIgnoreSpec, or DirectoryNames."""

    def match_file(self, file: str) -> bool: ...


MAX_DEPTH = 64  # folders below this many levels are not walked (one skip line per subtree)
ALWAYS_SKIP_DIRS = {
    ".git",
    ".k0maru",
    ".hg",
    ".svn",
    "__pycache__",
    ".venv",
    "node_modules",
    ".obsidian",
    ".trash",
}


class Entry(NamedTuple):
    """A file and its stat signature, as git's index keeps it: mtime, size, ctime and inode, so an
    edit that keeps the size and restores the mtime (`cp -p`, `rsync -a`, `touch -r`) still
    shows."""

    rel: str
    abspath: str
    mtime_ns: int
    size: int
    ctime_ns: int = 0
    inode: int = 0  # st_ino, kept to 63 bits (a signed SQLite integer)


class VaultWalker:
    """Yields the vault's indexable files with their stat, pruning ignored folders early."""

    def __init__(self, root: Path, include: list[str], exclude: list[str]):
        self.root = root
        self._md_only = include == ["**/*.md"]
        self._include = (
            None if self._md_only else _pathspec().PathSpec.from_lines("gitignore", include)
        )
        self._root_ignore = gitignore_spec(list(exclude)) if exclude else None
        self._real_root = os.path.realpath(root)
        self.linked = 0  # symlinks to files inside the vault (indexed at their target)
        self.skips: list[tuple[str, str]] = []  # (vault path, why): symlinks not followed, folders
        self.unreadable: list[str] = []  # folders that could not be listed ("a/b/")
        self.walked = ""  # the last whole walk's fingerprint (`digest`)
        self.signatures: array[int] = array(
            "q"
        )  # ... its files' stat signatures, four numbers each
        self.folders: list[Folder] = []  # the last whole walk's folders, in the order walked
        self._started_ns = 0

    def _included(self, rel: str, name: str) -> bool:
        if self._include is None:
            return name.endswith(".md")
        return bool(self._include.match_file(rel))

    def walk(self, ordered: bool = True) -> Iterator[Entry]:
        """The files, by path (`ordered`) or in the order the directories list them; either way
        `walked` is then the walk's fingerprint, taken in directory order."""
        self.linked = 0
        self.skips = []
        self.unreadable = []
        self.folders = []
        self._started_ns = time.time_ns()
        specs: list[tuple[str, Spec]] = []
        if self._root_ignore is not None:
            specs.append(("", self._root_ignore))
        found: list[Entry] = []
        folders: list[tuple[str, str, list[tuple[str, Spec]]]] = [(str(self.root), "", specs)]
        while (
            folders
        ):  # depth first, without recursion: a tree of any depth walks in constant stack
            abspath, rel_dir, specs = folders.pop()
            below = self._walk_dir(abspath, rel_dir, specs, found)
            if below and rel_dir.count("/") >= MAX_DEPTH:
                self.skips += [
                    (rel, f"a folder nested deeper than {MAX_DEPTH} levels; not walked")
                    for _, rel, _ in below
                ]
                continue
            folders += reversed(below)
        self.signatures = array("q", chain.from_iterable(map(itemgetter(2, 3, 4, 5), found)))
        self.walked = digest(list(map(itemgetter(0), found)), self.signatures)
        if ordered:
            # stat()ed in directory order (faster than in name order, docs/benchmarks.md); reported
            # by path
            found.sort(key=attrgetter("rel"))
        self.skips.sort()
        yield from found

    def _walk_dir(
        self, abspath: str, rel_dir: str, specs: list[tuple[str, Spec]], out: list[Entry]
    ) -> list[tuple[str, str, list[tuple[str, Spec]]]]:
        """List one folder in one scandir pass: its files go to `out`; returns its folders to walk
        (path, vault path, the .gitignore rules in force there)."""
        names: list[str] = []
        specs = self._folder(abspath, rel_dir, specs, names)
        md_only = self._include is None
        file_specs = [(base, spec) for base, spec in specs if not _directories_only(spec)]
        below: list[tuple[str, str, list[tuple[str, Spec]]]] = []
        try:
            with os.scandir(abspath) as it:  # stat()s while the directory is open, in its own order
                for entry in it:
                    try:  # the common case first: a regular file, known from the listing (no system call)
                        if not (entry.name.isascii() or _utf8(entry.name)):
                            self._undecodable(rel_dir, entry)
                        elif entry.is_file(follow_symlinks=False):
                            if self._file(entry, rel_dir, md_only, file_specs, out):
                                names.append(entry.name)
                        else:
                            self._other(entry, rel_dir, specs, below)
                    except OSError:  # gone, or unreadable, since it was listed
                        continue
        except OSError as exc:  # unreadable, or gone while listed: what was read of it counts
            self._unlistable(rel_dir, exc)
        return below

    def _other(
        self,
        entry: os.DirEntry[str],
        rel_dir: str,
        specs: list[tuple[str, Spec]],
        below: list[tuple[str, str, list[tuple[str, Spec]]]],
    ) -> None:
        """A listed entry that is no regular file: a folder to walk (added to `below`), a link, or a
        FIFO, socket or device."""
        if entry.is_dir(follow_symlinks=False):
            rel = f"{rel_dir}{entry.name}/"
            if _kept(specs, entry.name, rel):
                below.append((entry.path, rel, specs))
        elif entry.is_symlink():
            rel = rel_dir + entry.name
            if _kept(specs, entry.name, rel):
                self._symlink(rel, entry.path)
        else:
            self._special(rel_dir + entry.name)

    def _undecodable(self, rel_dir: str, entry: os.DirEntry[str]) -> None:
        """Record a file or folder whose name is not valid UTF-8 (the index keeps UTF-8 paths) as
        skipped, named escaped, when the walk would have taken it."""
        if entry.name in ALWAYS_SKIP_DIRS:
            return
        rel = escaped(rel_dir + entry.name)
        if entry.is_dir(follow_symlinks=False):
            why = "a folder whose name is not valid UTF-8; not walked: rename it to a UTF-8 name"
            self.skips.append((rel + "/", why))
        elif self._included(rel, rel.rpartition("/")[2]):
            why = "a file name that is not valid UTF-8; not indexed: rename it to a UTF-8 name"
            self.skips.append((rel, why))

    def _folder(
        self, abspath: str, rel_dir: str, specs: list[tuple[str, Spec]], names: list[str]
    ) -> list[tuple[str, Spec]]:
        """Record a folder about to be listed (its stat taken first, so a change made while it is
        listed still shows) and return the .gitignore rules in force in it, its own .gitignore's
        added."""
        try:
            mtime: int | None = int64(os.stat(abspath).st_mtime_ns)
        except OSError:
            mtime = None
        if mtime is not None and not settled(mtime, self._started_ns):
            mtime = None  # a change in the same clock tick could keep this mtime: not to be trusted
        gitignore = os.path.join(abspath, ".gitignore")
        rules = stat_signature(gitignore)
        self.folders.append((rel_dir, mtime, rules, names))
        if rules is None:
            return specs
        try:
            lines = read_lines(gitignore)
        except OSError:
            return specs
        return [*specs, (rel_dir, gitignore_spec(lines))]

    def _file(
        self,
        entry: os.DirEntry[str],
        rel_dir: str,
        md_only: bool,
        file_specs: list[tuple[str, Spec]],
        out: list[Entry],
    ) -> bool:
        """A regular file of the listing, added to `out` unless the include and ignore rules leave
        it out; whether it was added."""
        name = entry.name
        if md_only and not name.endswith(".md"):
            return False
        rel = rel_dir + name
        if not (md_only or self._included(rel, name)) or (file_specs and _ignored(file_specs, rel)):
            return False
        st = entry.stat(follow_symlinks=False)
        out.append(Entry(rel, entry.path, *stat_numbers(st)))
        return True

    def _unlistable(self, rel_dir: str, exc: OSError) -> None:
        """A folder that could not be listed (one that vanished meanwhile is no news)."""
        if isinstance(exc, FileNotFoundError):
            return
        self.unreadable.append(rel_dir)
        self.skips.append(
            (
                rel_dir or "./",
                f"an unreadable folder ({exc.strerror}); its notes stay as last indexed, "
                "check its permissions",
            )
        )

    def _special(self, rel: str) -> None:
        """Record why a FIFO, socket or device the walk would have read is skipped."""
        if self._included(rel, rel.rpartition("/")[2]):
            self.skips.append((rel, "not a regular file (a FIFO, socket or device); not read"))

    def _symlink(self, rel: str, path: str) -> None:
        """Count a link into the vault; record why any other link is skipped."""
        try:
            target = os.path.realpath(path, strict=True)
        except OSError as exc:
            why = "a symlink loop" if exc.errno == 40 else "a dangling symlink"
            self.skips.append((rel, f"{why}; not followed"))
            return
        if target != self._real_root and not target.startswith(self._real_root + os.sep):
            self.skips.append((rel, f"a symlink to {target}, outside the vault; not followed"))
        elif os.path.isfile(target) and self._included(rel, os.path.basename(rel)):
            self.linked += 1

    def walk_paths(self, rels: list[str]) -> Iterator[Entry]:
        """Entries for just these vault-relative paths (those that exist and would be walked); each
        folder's .gitignore is read once, however many of the paths lie below it."""
        rules: dict[str, Spec | None] = {}
        for rel in sorted(set(rels)):
            parts = rel.split("/")
            if not _utf8(rel) or self._walked_past(rel, parts) or self._ignored_path(parts, rules):
                continue
            entry = _file_entry(self.root / rel, rel)
            if entry is not None:
                yield entry

    def why_left_out(self, rel: str) -> str | None:
        """Why the walk never takes the vault path `rel` (a folder, a special file, a symlink, a
        name the settings or a .gitignore leave out), None for a file it takes or one not there."""
        parts = rel.split("/")
        try:
            mode = os.lstat(self.root / rel).st_mode
        except (OSError, ValueError):
            return None
        if any(p in ALWAYS_SKIP_DIRS for p in parts[:-1]):
            return f"it lies in a folder no scan walks ({', '.join(sorted(ALWAYS_SKIP_DIRS))})"
        for test, why in _LEFT_OUT:
            if test(mode):
                return why
        if not self._included(rel, parts[-1]):
            return "its file type is not indexed: no `include` glob of the settings matches it"
        if self._ignored_path(parts, {}):
            return "a .gitignore or the `exclude` setting ignores it"
        return None

    def _walked_past(self, rel: str, parts: list[str]) -> bool:
        """Whether the walk never reaches the file: in a folder it always skips (or a path that is
        no plain vault path), or a name the settings leave out."""
        if any(p in ALWAYS_SKIP_DIRS or p in ("", ".", "..") for p in parts[:-1]):
            return True
        return not self._included(rel, parts[-1])

    def _ignored_path(self, parts: list[str], rules: dict[str, Spec | None]) -> bool:
        """Whether a .gitignore on the way (the vault's own, then each folder's, read once into
        `rules`) ignores the file or a folder above it."""
        specs: list[tuple[str, Spec]] = []
        if self._root_ignore is not None:
            specs.append(("", self._root_ignore))
        for depth in range(len(parts)):
            base = "/".join(parts[:depth]) + ("/" if depth else "")
            if base not in rules:
                rules[base] = _folder_rules(self.root / base / ".gitignore")
            spec = rules[base]
            if spec is not None:
                specs.append((base, spec))
        ancestors = ["/".join(parts[:d]) + "/" for d in range(1, len(parts))]
        return any(_ignored(specs, a) for a in ancestors) or _ignored(specs, "/".join(parts))


# what a path the walk never takes is, by its mode
_LEFT_OUT = (
    (stat.S_ISDIR, "it is a folder, not a note"),
    (
        stat.S_ISLNK,
        "it is a symlink, not followed: its target is indexed where it lies in the vault",
    ),
    (
        lambda mode: not stat.S_ISREG(mode),
        "not a regular file (a FIFO, socket or device); not read",
    ),
)


def _folder_rules(gitignore: Path) -> Spec | None:
    """A folder's .gitignore rules, None when it has none (or none readable)."""
    if stat_signature(str(gitignore)) is None:
        return None
    try:
        return gitignore_spec(read_lines(gitignore))
    except OSError:
        return None


def read_lines(path: str | Path) -> list[str]:
    """A .gitignore's lines (bytes not UTF-8 replaced), read only when it is a regular file."""
    from k0maru.fsutil import read_bytes

    return read_bytes(path).decode("utf-8", "replace").splitlines()


def _utf8(name: str) -> bool:
    """Whether `name` (from the file system, undecodable bytes as surrogates) is valid UTF-8."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def escaped(name: str) -> str:
    """A file name shown safely: bytes that are not UTF-8 written as `\\xff`."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _file_entry(path: Path, rel: str) -> Entry | None:
    """The entry of a regular file (not a symlink) at `path`, None for anything else."""
    try:
        st = path.lstat()
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return Entry(rel, str(path), *stat_numbers(st))


# A folder as walked: its vault path ("" or "a/b/"), its mtime (None: not to be trusted), its
# .gitignore's stat signature (None: it has none) and the names of the files the walk took from it,
# in its order.
Folder = tuple[str, int | None, list[int] | None, list[str]]
SETTLE_NS = (
    50_000_000  # a clock tick is shorter: an mtime older than this before a walk cannot recur
)
SETTLE_COARSE_NS = 2_000_000_000  # a whole-second mtime: a file system that keeps seconds only


def settled(mtime_ns: int, walk_started_ns: int) -> bool:
    """Whether a folder's mtime, read at a walk that started at `walk_started_ns`, is far enough in
    the past that a later change to the folder must show as another mtime (git's "racily clean"
    entries)."""
    margin = SETTLE_COARSE_NS if mtime_ns % 1_000_000_000 == 0 else SETTLE_NS
    return mtime_ns < walk_started_ns - margin


def _pathspec() -> Any:
    """pathspec, imported on first use."""
    import pathspec

    return pathspec


def _directories_only(spec: Spec) -> bool:
    """Whether every pattern of `spec` names directories only (`.k0maru/`, `build/`): it cannot
    match a file the walk reaches, since a directory it matches was never entered, so files need no
    matching."""
    if isinstance(spec, DirectoryNames):
        return True
    return all(
        p.include is None or str(getattr(p, "pattern", "")).rstrip("\r\n").endswith("/")
        for p in getattr(spec, "patterns", ())
    )


_PLAIN_DIRECTORY = re.compile(r"[A-Za-z0-9._-]+/")


class DirectoryNames:
    """A .gitignore made only of plain directory names (`.k0maru/`, `node_modules/`, `build/`): such
    a pattern ignores every directory of that name at any depth below the file, and all beneath it,
    which is a name lookup; pathspec (a slow import) is loaded only for any other pattern. Tested
    against pathspec's answers."""

    def __init__(self, names: Iterable[str]):
        self.names = frozenset(names)

    def match_file(self, path: str) -> bool:
        parts = path.split("/")
        return any(part in self.names for part in parts[:-1])  # "a/b/" -> a, b; "a/b.md" -> a


def gitignore_spec(lines: list[str]) -> Spec:
    """The matcher for a .gitignore's (or the config's exclude) lines."""
    patterns = [line for line in lines if line.strip() and not line.startswith("#")]
    if all(_PLAIN_DIRECTORY.fullmatch(p) and p not in ("./", "../") for p in patterns):
        return DirectoryNames(p[:-1] for p in patterns)
    build = _pathspec().GitIgnoreSpec.from_lines
    try:
        spec: Spec = build(lines)
    except Exception:  # a line git ignores as invalid (a lone backslash): left out, as git does
        spec = build([line for line in lines if _valid_pattern(line)])
    return spec


def _valid_pattern(line: str) -> bool:
    """Whether pathspec accepts `line` as a .gitignore pattern."""
    try:
        _pathspec().GitIgnoreSpec.from_lines([line])
    except Exception:
        return False
    return True


def _ignored(specs: list[tuple[str, Spec]], rel: str) -> bool:
    for base, spec in specs:
        if base and not rel.startswith(base):
            continue
        if spec.match_file(rel[len(base) :]):
            return True
    return False


def _kept(specs: list[tuple[str, Spec]], name: str, rel: str) -> bool:
    """Whether a folder or a link is walked: not one always skipped, nor one the ignore rules
    name."""
    return name not in ALWAYS_SKIP_DIRS and not (specs and _ignored(specs, rel))
