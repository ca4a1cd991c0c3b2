"""Source locations in any tool's output, and whether one is the user's code.

Forms read: `file:line[:col]`, `File "x", line N` (also OCaml's, with `characters a-b`), `at fn
(file:line:col)`, `x.rb:12:in`, Nim's `x.nim(12) proc` and `x.nim(6, 11)`, Terraform's `on main.tf
line 11`, gfortran's `At line 5 of file x.f90`, Tcl's `(file "x.tcl" line 11)`, Erlang's
`{file,"x.erl"},{line,8}` and `(x.erl, line 9)`, bats' `(in test file x, line 15)`, perlcritic's
`x.pm: ... at line 2, column 1.`, GNU's `x.y:7.7-11:`, chktex's `in x.tex line 4`, dart-sass's
`x.scss 5:17  root stylesheet`, `at t/01.t line 8.`, `(File.java:12)`, `--> src/x.rs:4:5`,
`file(12,5)`, `File.java:[12,5]`, tslint's `x.ts[3, 3]`, `x.sh: line 3:`, PHP's `in /x.php on line
3`, a GitHub annotation's `file=x,line=3,col=5` and babel's `x.js: SyntaxError: ... (3:5)`. A
location is the user's when its path lies under the working tree (wrapped: the command's folder;
piped: the repository root), or is relative and not a toolchain, standard library, site-packages,
node_modules or `node:internal` path. An absolute path that exists outside the tree is not the
user's; one that does not exist here (a log from another machine) is judged by its name alone."""

from __future__ import annotations

import os
import re
from pathlib import Path

# where toolchains, standard libraries and installed packages live: a frame there is not the user's
# code
_NOT_USER = (
    "/lib/python",
    "site-packages",
    "dist-packages",
    "<frozen",
    "/usr/lib/",
    "/usr/include/",
    "/include/c++/",
    "/lib/gcc/",
    "/usr/share/",
    "/usr/local/lib/",
    "/usr/local/go/",
    "/usr/local/include/",
    "../sysdeps/",
    "/rustc/",
    "/.rustup/",
    "/.cargo/registry/",
    "/go/pkg/mod/",
    "/.pyenv/versions/",
    "/node_modules/",
    "compiler-rt",
    "libsanitizer",
    "<null>",
    "<unknown>",
    # a virtualenv's launcher scripts (`.venv/bin/jupyter`) and other installed commands
    "/.venv/",
    "/venv/",
    "/.tox/",
    "/.nox/",
    "/virtualenvs/",
    "/usr/bin/",
    "/usr/local/bin/",
    "/.local/bin/",
)
_NOT_USER_START = (
    "node:",
    "node_modules/",
    "internal/",
    "runtime/",
    "testing/",
    "<",
    "java.",
    "javax.",
    "jdk.",
    "sun.",
    "kotlin.",
    "scala.",
    "clojure.",
    "groovy.",
    "org.codehaus.groovy.",
    ".venv/",
    "venv/",
    "org.junit.",
    "org.opentest4j.",
    "org.gradle.",
    "org.apache.maven.",
    "org.codehaus.plexus.",  # maven's own container
    "junit.",
)


def user_path(path: str) -> bool:
    """A file of the project's own code, not of a toolchain, standard library or installed
    package."""
    return not path.startswith(_NOT_USER_START) and not any(part in path for part in _NOT_USER)


# files whose names have no extension but are code all the same (Dockerfile, Makefile, ...)
# fmt: skip
NAMED_FILES = (
    "Dockerfile",
    "Containerfile",
    "Makefile",
    "GNUmakefile",
    "Jenkinsfile",
    "Vagrantfile",
    "Gemfile",
    "Rakefile",
    "Justfile",
    "Procfile",
    "Brewfile",
    "Podfile",
)
_NAMED = "|".join(NAMED_FILES)
# a path starts where its run of path characters starts: a search never retries inside the run
# (each retry would rescan the rest of it)
_PATH = r"(?:(?<!\w)[A-Za-z]:)?(?:(?<=file://)|(?<![\w.@~+/\\-]))[\w.@~+/\\-]{0,240}[\w-]\.[A-Za-z][\w+-]{0,9}"
# `Dockerfile:3`, `build/Makefile:12:5`: read only on a line holding `file:` (every name ends so)
NAMED_FORM = re.compile(rf"((?:[\w.@~+/\\-]{{0,120}}/)?(?<![\w.-])(?:{_NAMED})):(\d+)(?::(\d+))?")
# what every form has after the file's extension: cheap to look for, so most lines skip the forms
_AFTER_EXT = (
    r"\.[A-Za-z][\w+-]{0,9}(?:[:(\[]\d|\", line \d|:\[\d| line \d| on line \d|: line \d|,line=\d"
    r"|, line \d|\" line \d|\"\},\s*\{line,|: .* at line \d+, column \d| \d+:\d|:? [\w ]{0,40}line \d)"
)
PLACE_HINT = re.compile(rf"{_AFTER_EXT}|\(\d+:\d+\)$|\bAt line \d+ of file |(?:{_NAMED}):\d")
# the same, cheap over a whole block (a leading literal `.`, no top-level alternation): where the
# analyzer finds lines with a place beside its trigger words
PLACE_SCAN = re.compile(_AFTER_EXT)
# most specific first; each yields (path, line, column or None)
FORMS = (
    re.compile(r'File "([^"]+)", line (\d+)()'),
    re.compile(rf"(?:file://)?({_PATH}):(\d+):(\d+)"),
    re.compile(rf"\((?:file://)?({_PATH}):(\d+)()\)"),
    re.compile(rf"\bat ({_PATH}) line (\d+)()"),
    re.compile(rf"({_PATH})\((\d+),(\d+)\)"),
    re.compile(rf"({_PATH})\((\d+), (\d+)\) (?:Error|Warning|Hint)\b"),  # Nim's compiler
    re.compile(rf"({_PATH})\((\d+)\)() \w"),  # a Nim frame: `x.nim(12) proc`
    re.compile(rf"\bon ({_PATH}) line (\d+)()"),  # Terraform: `on main.tf line 11, in locals:`
    re.compile(rf"^In ({_PATH}) line (\d+)():"),  # shellcheck's tty format
    re.compile(rf"\bAt line (?=\d+ of file ({_PATH}))(\d+)()"),  # gfortran: the line first
    re.compile(rf'\bfile "({_PATH})" line (\d+)()'),  # Tcl's `(file "x.tcl" line 11)`
    re.compile(rf'\{{file,\s*"({_PATH})"\}},\s*\{{line,\s*(\d+)\}}()'),  # Erlang's stack term
    re.compile(rf"^({_PATH}): .* at line (\d+), column (\d+)\."),  # perlcritic
    re.compile(
        rf"({_PATH}), line (\d+)()\b"
    ),  # eunit `(x.erl, line 9)`, bats `(in test file x, line 15)`
    re.compile(rf"({_PATH}):\[(\d+),(\d+)\]"),
    re.compile(rf"({_PATH})\[(\d+), (\d+)\]"),  # tslint: `src/a.ts[3, 3]: message`
    re.compile(rf"\bin ({_PATH}) on line (\d+)()"),
    re.compile(rf"({_PATH}): line (\d+), col (\d+)"),
    re.compile(rf"({_PATH}): line (\d+)():"),
    re.compile(rf"\[({_PATH}):(\d+)()\]"),
    re.compile(rf"\bfile=({_PATH}),line=(\d+)(?:,endLine=\d+)?(?:,col=(\d+))?"),
    re.compile(rf"^(?:\[\w+\] |\w*Error: )?({_PATH}): .*\((\d+):(\d+)\)$"),
    re.compile(rf"({_PATH}):(\d+)\.(\d+)(?:-\d+(?:\.\d+)?)?: "),  # GNU: bison, valac `x.y:7.7-11: `
    re.compile(rf"\bin ({_PATH}) line (\d+)()\b"),  # chktex: `Warning 18 in x.tex line 4:`
    re.compile(
        rf"^\s+({_PATH}) (\d+):(\d+) "
    ),  # a dart-sass frame: `  x.scss 5:17  root stylesheet`
    re.compile(rf"(?:file://)?({_PATH}):(\d+)()(?![\d.]|:\d)"),
    # the line said after the file: `x.dot: syntax error in line 7`, `file x.xsl line 8 element`
    re.compile(rf"(?:^|\s)({_PATH}):? (?:[\w ]{{0,40}} )?(?:in |at |on )?line (\d+)()\b"),
)
# a task's name glued to an absolute path (`:compileJava/var/lib/x/A.java:3`): the path alone
GLUED = re.compile(
    r"^[A-Za-z][\w-]*(/(?:var|home|usr|tmp|opt|srv|mnt|Users|builds|workspace|__w|root|private)/.+)"
)
_URLISH = re.compile(r"^(?:https?|ftp)://|^[\w-]+\.(?:com|org|net|io)/")
PYTHON_FRAME = FORMS[0]
# a string each form's match always holds: a line without it skips the form
# fmt: skip
GUARDS = (
    'File "',
    ":",
    "(",
    " line ",
    "(",
    "(",
    "(",
    " line ",
    " line ",
    "At line ",
    'file "',
    "{file,",
    " at line ",
    ", line ",
    ":[",
    "[",
    " on line ",
    ": line ",
    ": line ",
    "[",
    "file=",
    ")",
    ": ",
    " line ",
    ":",
    ":",
    "line ",
)
_GUARDED = tuple(zip(FORMS, GUARDS, strict=True))


class Places:
    """Judges paths against one working tree; remembers each answer (a log repeats its paths)."""

    def __init__(self, tree: Path | None):
        self.tree = tree.resolve() if tree is not None else None
        self._seen: dict[str, bool] = {}

    def is_user(self, path: str) -> bool:
        known = self._seen.get(path)
        if known is None:
            known = self._seen[path] = self._judge(path)
        return known

    def _judge(self, path: str) -> bool:
        if not path or _URLISH.match(path) or not user_path(path):
            return False
        if not os.path.isabs(path):
            return True
        if self.tree is not None:
            try:
                if Path(path).resolve().is_relative_to(self.tree):
                    return True
            except (OSError, RuntimeError):
                return False
        return not os.path.exists(path)


def _url_part(line: str, start: int, path: str) -> bool:
    """A URL's host (`https://host:8080`), or its scheme read as a drive letter (`s://host`)."""
    after_scheme = line[max(start - 3, 0) : start] == "://"
    host = path.startswith("//") and line[max(start - 5, 0) : start] != "file:"
    return (
        (after_scheme and line[max(start - 7, 0) : start] != "file://")
        or path[1:4] == "://"
        or host
    )


def _opens(line: str, start: int, path: str) -> str:
    """`path` as an editor opens it: no `file://` or `./` before it, no task glued to it."""
    path = path.removeprefix("file://")
    while path.startswith("./"):
        path = path[2:]
    if start and line[start - 1] == ":" and (glued := GLUED.match(path)):
        path = glued.group(1)
    return path


def find_all(line: str) -> list[tuple[str, str, str | None, int]]:
    """Every location in `line` as (path, line, column, offset), in the order they appear."""
    if len(line) > 4000:
        line = line[:4000]
    if not PLACE_HINT.search(line):
        return []
    found: dict[int, tuple[str, str, str | None, int]] = {}
    taken: list[tuple[int, int]] = []
    for form, guard in _GUARDED:
        if guard not in line:
            continue
        for m in form.finditer(line):
            start, end = m.span(1)
            if any(s <= start < e for s, e in taken):
                continue
            taken.append((start, end))
            if _url_part(line, start, m.group(1)):
                continue
            path = _opens(line, start, m.group(1))
            found[start] = (path, m.group(2), m.group(3) or None, start)
    if "file:" in line:
        _named_files(line, taken, found)
    return [found[k] for k in sorted(found)]


def _named_files(
    line: str, taken: list[tuple[int, int]], found: dict[int, tuple[str, str, str | None, int]]
) -> None:
    """The places of files without an extension (`Dockerfile:3`) that no other form took."""
    for m in NAMED_FORM.finditer(line):
        if not any(s <= m.start() < e for s, e in taken):
            found[m.start()] = (m.group(1), m.group(2), m.group(3), m.start())


def text(path: str, line: str, col: str | None) -> str:
    """`path:line[:col]`, the numbers without leading zeros (cmake-lint's `x.txt:04`)."""
    line, col = line.lstrip("0") or line, col.lstrip("0") or col if col else col
    return f"{path}:{line}" + (f":{col}" if col else "")
