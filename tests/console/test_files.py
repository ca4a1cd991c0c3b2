"""`/files/` serves the attachments Obsidian shows where a note embeds them (images, audio, video,
PDF) with their media type, in ranges for a player, and nothing else: no note, nothing outside the
vault or in its hidden folders (symlinks followed first), no FIFO, nothing past the size bound. A
note's `![[x.mp3]]` is an <audio> player and its links list opens a served attachment (#60)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from k0maru.console.app import create_app
from k0maru.service.attachments import MAX_SERVED_BYTES
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write

MP3 = b"ID3\x04\x00" + bytes(range(256)) * 4
NOTE = "# Media\n\n![[song.mp3]]\n\n![[clip.mp4]] and ![[manual.pdf]]\n"


@pytest.fixture
def client(vault: Path, tmp_path: Path) -> Iterator[FlaskClient]:
    write(vault, ".k0maru/config.toml", "embed = false\n")
    write(vault, "media.md", NOTE)
    (vault / "att").mkdir()
    (vault / "att" / "song.mp3").write_bytes(MP3)
    (vault / "att" / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42")
    (vault / "manual.pdf").write_bytes(b"%PDF-1.4\n")
    outside = tmp_path / "secret.mp3"
    outside.write_bytes(b"not the vault's")
    (vault / "escape.mp3").symlink_to(outside)
    (vault / "hidden.mp3").symlink_to(vault / ".k0maru" / "config.toml")
    (vault / "link.mp3").symlink_to(vault / "att" / "song.mp3")
    os.mkfifo(vault / "pipe.mp3")
    with open(vault / "huge.mp4", "wb") as f:  # sparse: no disk used
        f.truncate(MAX_SERVED_BYTES + 1)
    service = Service(VaultSession(Vault.open(vault)))
    service.scan()
    yield create_app(service).test_client()
    service.close()


def test_audio_embeds_play_and_are_served_with_their_type(client: FlaskClient) -> None:
    page = client.get("/notes/media.md").get_data(as_text=True)
    assert '<audio controls="" src="/files/att/song.mp3" title="song.mp3"></audio>' in page
    r = client.get("/files/att/song.mp3")
    assert (r.status_code, r.mimetype, r.data) == (200, "audio/mpeg", MP3)
    assert r.headers["Accept-Ranges"] == "bytes" and r.headers["Content-Length"] == str(len(MP3))
    assert r.headers["X-Content-Type-Options"] == "nosniff"


def test_a_player_gets_the_range_it_asks_for(client: FlaskClient) -> None:
    r = client.get("/files/att/song.mp3", headers={"Range": "bytes=5-9"})
    assert r.status_code == 206 and r.data == MP3[5:10]
    assert r.headers["Content-Range"] == f"bytes 5-9/{len(MP3)}"
    assert client.get("/files/att/song.mp3", headers={"Range": "bytes=99999-"}).status_code == 416


@pytest.mark.parametrize(
    ("url", "media"),
    [
        ("/files/att/clip.mp4", "video/mp4"),
        ("/files/manual.pdf", "application/pdf"),
        ("/files/link.mp3", "audio/mpeg"),  # a symlink to an attachment inside the vault
    ],
)
def test_video_pdf_and_inner_symlinks_are_served(client: FlaskClient, url: str, media: str) -> None:
    r = client.get(url)
    assert (r.status_code, r.mimetype) == (200, media)


def test_the_links_list_opens_a_served_attachment(client: FlaskClient) -> None:
    aside = client.get("/notes/media.md").get_data(as_text=True).split("<aside>", 1)[1]
    assert '<a href="/files/manual.pdf" title="manual.pdf">manual.pdf</a>' in aside
    assert '<a href="/files/att/clip.mp4" title="att/clip.mp4">clip.mp4</a>' in aside


@pytest.mark.parametrize(
    "url",
    [
        "/files/media.md",  # a note
        "/files/escape.mp3",  # a symlink out of the vault
        "/files/hidden.mp3",  # a symlink into a hidden folder
        "/files/.k0maru/config.toml",
        "/files/pipe.mp3",  # a FIFO: never opened for reading
        "/files/huge.mp4",  # past the bound
        "/files/att/gone.mp3",
        "/files/..%2f..%2fetc%2fpasswd",
    ],
)
def test_anything_else_is_not_found(client: FlaskClient, url: str) -> None:
    r = client.get(url)
    assert r.status_code == 404, url
    assert b"not the vault's" not in r.data and b"embed" not in r.data
