"""`k0maru offload` as a service operation, in-process: a piped log is kept, recorded and
summarised."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from k0maru.errors import K0maruError
from k0maru.service.offload import check_log_view, offload, offloaded_before
from k0maru.service.operations import Service
from tests.helpers import stored_log

LOG = "".join(f"step {i}: compiling unit_{i}.c ok\n" for i in range(300)) + (
    'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
    "ZeroDivisionError: division by zero\n"
)


def test_a_piped_log_is_kept_recorded_and_listed(vault: Path) -> None:
    opened: list[Path] = []
    out = io.BytesIO()
    assert not offloaded_before(str(vault))
    run = offload(
        str(vault),
        None,
        task_id="t",
        stdin=io.BytesIO(LOG.encode()),
        out=out,
        on_open=opened.append,
    )
    assert [p.resolve() for p in opened] == [vault.resolve()]
    assert run.exit_code == 0 and run.lines == 303
    assert run.record is not None and run.record["error_codes"] == ["ZeroDivisionError"]
    assert "ZeroDivisionError" in out.getvalue().decode()  # the summary went to `out`
    assert stored_log(vault / run.record["log_path"]).decode() == LOG
    assert offloaded_before(str(vault))
    with Service.open(str(vault), rescan=False, one_shot=True) as svc:
        (node,) = svc.log_list()
    assert node.node_id == run.record["node_id"] and node.exit_code is None


def test_a_short_log_passes_through_unrecorded(vault: Path) -> None:
    out = io.BytesIO()
    run = offload(str(vault), None, stdin=io.BytesIO(b"all good\n"), out=out)
    assert run.record is None and run.payload() == {"offloaded": False, "exit_code": 0, "lines": 1}
    assert out.getvalue() == b"all good\n"


@pytest.mark.parametrize(
    ("lines", "pattern"), [("9:2", None), ("x", None), (None, "(unclosed"), (None, "")]
)
def test_bad_view_arguments_are_refused_before_anything_opens(
    lines: str | None, pattern: str | None
) -> None:
    with pytest.raises(K0maruError):
        check_log_view(lines, pattern, fixed=False)


def _kept(vault: Path) -> tuple[str, Path]:
    """A kept log's node and file."""
    run = offload(str(vault), None, stdin=io.BytesIO(LOG.encode()), out=io.BytesIO())
    assert run.record is not None
    return str(run.record["node_id"]), vault / run.record["log_path"]


def test_a_kept_log_replaced_by_a_link_out_of_the_vault_is_not_read(
    vault: Path, tmp_path: Path
) -> None:
    """A cloned repository can commit `.k0maru/refs/NODE.log.gz -> /etc/passwd`; before, `log show`
    printed the link's target."""
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0\n")
    node, log = _kept(vault)
    with Service.open(str(vault), rescan=False, one_shot=True) as svc:
        log.unlink()
        log.symlink_to(secret)
        with pytest.raises(K0maruError, match="symbolic link"):
            svc.log_view(node, lines="1:3")


def test_a_recorded_log_path_out_of_refs_is_read_as_a_name_in_refs(vault: Path) -> None:
    """A row saying `../../../../etc/passwd` reads as `.k0maru/refs/passwd`, which is not there."""
    import sqlite3

    node, _ = _kept(vault)
    with sqlite3.connect(vault / ".k0maru" / "index.sqlite") as db:
        db.execute("update offloads set log_path = '../../../../etc/passwd'")
    with Service.open(str(vault), rescan=False, one_shot=True) as svc:
        with pytest.raises(K0maruError, match="missing") as refused:
            svc.log_view(node, lines="1:3")
        (listed,) = svc.log_list()
    assert ".k0maru/refs/passwd" in str(refused.value) and "root:" not in str(refused.value)
    assert listed.node_id == node
