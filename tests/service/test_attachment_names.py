"""A link target names an attachment by its suffix; a Markdown link's `#anchor` is no part of it:
`[x](gone.md#sec)` to a missing note is a link to no note on /gaps, not an attachment not found."""

from __future__ import annotations

import pytest

from k0maru.service.attachments import is_attachment_name


@pytest.mark.parametrize(
    ("target", "attachment"),
    [
        ("img.png", True),
        ("docs/spec.pdf", True),
        ("gone.md#sec", False),
        ("gone.md", False),
        ("Some Note", False),
        ("v1.2 notes", False),
    ],
)
def test_an_attachment_is_named_by_its_suffix_without_the_anchor(
    target: str, attachment: bool
) -> None:
    assert is_attachment_name(target) is attachment
