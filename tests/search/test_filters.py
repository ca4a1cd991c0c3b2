"""Filter dates: ISO, relative ages, a bare `until` date that includes its day, and one-line
errors."""

import datetime as dt
import time

import pytest

from k0maru.errors import K0maruError
from k0maru.search.filters import Filters, parse_when


def test_dates_and_ages() -> None:
    assert parse_when("2026-11-01") == 1793491200.0
    assert parse_when("2026-11-01", end_of_day=True) - parse_when("2026-11-01") == pytest.approx(
        86399.999
    )
    day = dt.datetime.fromtimestamp(time.time() - 30 * 86400, dt.UTC).date().isoformat()
    assert parse_when("30d") == parse_when(day)  # the day it names, all of it (as a date does)
    assert parse_when("30d", end_of_day=True) == parse_when(day, end_of_day=True)
    assert parse_when("99999y") == parse_when("0001-01-01")
    assert parse_when("2w") < parse_when("1w")


def test_bad_input_is_one_line() -> None:
    with pytest.raises(K0maruError, match="bad date"):
        parse_when("last tuesday")
    with pytest.raises(K0maruError, match="--since is after --until"):
        Filters(since="2026-12-01", until="2026-01-01").window()
    assert not Filters() and Filters(tag="x").describe() == "tagged x"
