"""Did-you-mean: the names close to one that matched nothing, for an error line to offer."""

from __future__ import annotations

from collections.abc import Iterable


def close_names(asked: str, names: Iterable[str], most: int = 3) -> list[str]:
    """Up to `most` of `names` spelled like `asked` (case aside), the closest first."""
    import difflib

    by_key: dict[str, str] = {}
    for name in names:
        by_key.setdefault(name.lower(), name)
    keys = difflib.get_close_matches(asked.lower(), list(by_key), n=most, cutoff=0.6)
    return [by_key[k] for k in keys]


def similar_notes(asked: str, notes: Iterable[tuple[str, str | None]], most: int = 3) -> list[str]:
    """The paths of the notes (path, title) that `asked` most likely meant: the same path with `.md`
    or another case, a file name or a title equal to it, else paths, file names and titles spelled
    like it."""
    notes = list(notes)
    want = asked.strip().strip("/").lower().removesuffix(".md")
    exact = [
        path
        for path, title in notes
        if want
        in (
            path.lower().removesuffix(".md"),
            path.rsplit("/", 1)[-1].lower().removesuffix(".md"),
            (title or "").lower(),
        )
    ]
    if exact:
        return exact[:most]
    by_name: dict[str, str] = {}
    for path, title in notes:
        for name in (path, path.rsplit("/", 1)[-1].removesuffix(".md"), title or ""):
            if name:
                by_name.setdefault(name, path)
    paths = [by_name[name] for name in close_names(asked, by_name, most * 3)]
    return list(dict.fromkeys(paths))[:most]
