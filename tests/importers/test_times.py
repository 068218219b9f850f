"""Reading source times: epoch seconds, ISO text, naive times, and values that are not times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from reverie.core.messages import JSONValue
from reverie.memory.ingest.importers.times import read_time

TZ = timezone(timedelta(hours=-5))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1_790_000_000, datetime.fromtimestamp(1_790_000_000, UTC)),
        (1_790_000_000.5, datetime.fromtimestamp(1_790_000_000.5, UTC)),
        ("2026-11-30T10:00:00Z", datetime(2026, 11, 30, 10, tzinfo=UTC)),
        ("2026-11-30 10:00", datetime(2026, 11, 30, 10, tzinfo=TZ)),
        ("2026-11-30T10:00:00+01:00", datetime(2026, 11, 30, 9, tzinfo=UTC)),
    ],
)
def test_times_are_read_as_aware_datetimes(value: JSONValue, expected: datetime) -> None:
    assert read_time(value, local_tz=TZ) == expected


@pytest.mark.parametrize("value", [None, True, "yesterday", [], {}, float("nan"), -5, 1e12])
def test_values_that_are_not_times_give_none(value: JSONValue) -> None:
    assert read_time(value) is None


def test_a_naive_time_without_a_zone_uses_the_system_zone() -> None:
    moment = read_time("2026-11-30 10:00")
    assert moment is not None
    assert moment.utcoffset() is not None
