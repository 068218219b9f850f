"""A history line is built by hand; it must be byte for byte what ``json.dumps`` writes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from reverie.core import entries
from reverie.core.entries import HistoryEntry

_TEXT = st.text(
    alphabet=st.characters(exclude_categories=()), max_size=200
)  # surrogates and controls too
_MAYBE = st.none() | _TEXT
_MOMENT = st.none() | st.datetimes(
    min_value=datetime(1, 1, 2),  # noqa: DTZ001 -- made aware below
    max_value=datetime(9999, 12, 30),  # noqa: DTZ001
    timezones=st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30))]),
)
_RANGE = st.none() | st.tuples(st.integers(0, 10**12), st.integers(0, 10**12))


def _reference(entry: HistoryEntry) -> bytes:
    """The line as ``json.dumps`` shapes it (the format before the line was built by hand)."""
    return entry._dumped_line()


@settings(max_examples=400, deadline=None)
@given(
    cursor=st.integers(1, 10**18),
    timestamp=_TEXT,
    content=_TEXT,
    session_key=_MAYBE,
    moment=_MOMENT,
    span=_RANGE,
    kind=_MAYBE,
)
def test_a_hand_built_line_is_the_json_dumps_line(
    cursor: int,
    timestamp: str,
    content: str,
    session_key: str | None,
    moment: datetime | None,
    span: tuple[int, int] | None,
    kind: str | None,
) -> None:
    entry = HistoryEntry(
        cursor=cursor,
        timestamp=timestamp,
        content=content,
        session_key=session_key,
        time=moment,
        range=span,
        kind=kind,
    )
    line = entry.to_line()

    assert line == _reference(entry)
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert line.decode("utf-8")  # a lone surrogate became U+FFFD, never an escape or an error


def test_the_reference_is_plain_json_dumps() -> None:
    moment = datetime(2026, 11, 30, 14, 5, 9, 123456, tzinfo=UTC)
    entry = HistoryEntry(
        cursor=7,
        timestamp="2026-11-30 14:05",
        content='a "quoted"\ttab\x00, é, 中文, \u2028',
        session_key="cli:x",
        time=moment,
        range=(0, 12),
        kind="summary",
    )
    fields = {
        "cursor": 7,
        "timestamp": "2026-11-30 14:05",
        "content": entry.content,
        "session_key": "cli:x",
        "time": moment.isoformat(),
        "range": [0, 12],
        "kind": "summary",
    }
    expected = (json.dumps(fields, ensure_ascii=False) + "\n").encode("utf-8")

    assert entry.to_line() == expected
    assert HistoryEntry.from_line(entry.to_line()) == entry


def test_numbers_that_are_not_plain_ints_take_the_json_path() -> None:
    flagged = HistoryEntry(cursor=True, timestamp="", content="x", range=(False, 1))

    assert (
        flagged.to_line()
        == b'{"cursor": true, "timestamp": "", "content": "x", "range": [false, 1]}\n'
    )


@settings(max_examples=300, deadline=None)
@given(text=_TEXT | st.sampled_from(["<think>x</think> y ", " plain ", "a <|channel|>analysis"]))
def test_reasoning_is_stripped_as_every_pattern_would(text: str) -> None:
    """The shortcut for text without ``<`` changes nothing the four patterns would do."""
    expected = text
    for pattern in (entries._THINK_BLOCK, entries._THINK_UNCLOSED, entries._HARMONY_ANALYSIS):
        expected = pattern.sub("", expected)
    expected = entries._SPECIAL_TOKEN.sub("", expected).strip()

    assert entries.strip_reasoning(text) == expected
