"""`read_note` and the note page (`note_view`) say why a file of the vault is not indexed, from the
scan's own record where it skipped the file, else from the walk's rules (#61). Before: "no note
'x.md' in the index; did you mean 'a.md'?" for every one of them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from k0maru.errors import NotFoundError, PathOutsideVaultError
from k0maru.service.operations import Service
from tests.helpers import write

WHY = {
    "bin.md": "binary content",
    "big.md": "is above max_file_bytes",
    "latin.md": "not valid UTF-8",
    "u16.md": "UTF-16/UTF-32 text",
    "fifo.md": "not a regular file",
    "folder.md": "it is a folder",
    "notes.txt": "its file type is not indexed",
    "ignored.md": "a .gitignore or the `exclude` setting ignores it",
    ".obsidian/x.md": "a folder no scan walks",
    "late.md": "not indexed yet",
}


@pytest.fixture
def odd_vault(vault: Path) -> Path:
    write(vault, "a.md", "# A\n")
    (vault / "bin.md").write_bytes(b"\x00\x01binary" * 50)
    (vault / "big.md").write_text("x" * 5000)
    (vault / "latin.md").write_bytes(b"caf\xe9 \xff")
    (vault / "u16.md").write_bytes("# hi there\n".encode("utf-16"))
    os.mkfifo(vault / "fifo.md")
    (vault / "folder.md").mkdir()
    write(vault, "notes.txt", "plain text\n")
    write(vault, ".gitignore", "ignored.md\n")
    write(vault, "ignored.md", "# Ignored\n")
    write(vault, ".obsidian/x.md", "# X\n")
    return vault


def test_read_note_says_why_a_file_is_not_indexed(odd_vault: Path) -> None:
    with Service.open(str(odd_vault), settings={"embed": False, "max_file_bytes": 4000}) as svc:
        svc.scan()
        write(odd_vault, "late.md", "# Late\n")  # read_note does not scan first
        for path, why in WHY.items():
            with pytest.raises(NotFoundError) as err:
                svc.read_note(path)
            assert f"no note {path!r} in the index: " in str(err.value), path
            assert why in str(err.value) and "did you mean" not in str(err.value), path
        with pytest.raises(NotFoundError, match="did you mean 'a.md'"):  # no such file: as before
            svc.read_note("b.md")
        with pytest.raises(PathOutsideVaultError):
            svc.read_note("../a.md")


def test_the_note_page_says_why_too(odd_vault: Path) -> None:
    with Service.open(str(odd_vault), settings={"embed": False}) as svc:
        for path in ("bin.md", "notes.txt", "ignored.md"):
            with pytest.raises(NotFoundError, match=WHY[path].replace("`", ".")):
                svc.note_view(path)


def test_the_console_page_of_a_skipped_file_says_why(odd_vault: Path) -> None:
    from k0maru.console.app import create_app

    with Service.open(str(odd_vault), settings={"embed": False}) as svc:
        svc.scan()
        console = create_app(svc).test_client()
        page = console.get("/notes/bin.md")
        api = console.get("/api/notes/notes.txt")
    assert page.status_code == 404 and "binary content" in page.get_data(as_text=True)
    assert api.status_code == 404 and "its file type is not indexed" in api.get_data(as_text=True)
