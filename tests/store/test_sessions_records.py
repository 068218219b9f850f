"""Journal records: every kind round-trips; every malformed line is refused with a reason."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from reverie import ArchivedSummary, Message
from reverie.store.lock_pool import LockPool
from reverie.store.session_records import (
    HeadRecord,
    MarkRecord,
    MessageRecord,
    MetadataRecord,
    RecordFormatError,
    SummaryRecord,
    encode,
    parse,
)

AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "record",
    [
        HeadRecord(key="cli:\u4e2d", journal_id="ab12", created_at=AT),
        MessageRecord(at=AT, message=Message(role="user", content="hi")),
        MarkRecord(at=AT, upto=3),
        SummaryRecord(at=AT, summary=ArchivedSummary(text="s", last_active=AT)),
        SummaryRecord(at=AT, summary=None),
        MetadataRecord(at=AT, values={"a": [1, {"b": None}]}),
    ],
)
def test_records_round_trip(
    record: HeadRecord | MessageRecord | MarkRecord | SummaryRecord | MetadataRecord,
) -> None:
    line = encode(record)
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert parse(line) == record


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"\xff\xfe", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (
            b'{"t": "head", "format": 99, "key": "k", "id": "x", "created_at": "2026-11-30"}',
            "format",
        ),
        (b'{"t": "head", "format": 1, "key": 5, "id": "x", "created_at": "2026-11-30"}', "string"),
        (b'{"t": "msg", "at": "2026-11-30T09:00:00+00:00", "m": {"role": "wizard"}}', "message"),
        (b'{"t": "mark", "at": "2026-11-30T09:00:00+00:00", "upto": "3"}', "integer"),
        (b'{"t": "mark", "at": "2026-11-30T09:00:00+00:00", "upto": true}', "integer"),
        (b'{"t": "mark", "at": "2026-11-30T09:00:00", "upto": 3}', "timezone"),
        (b'{"t": "mark", "at": "yesterday", "upto": 3}', "ISO 8601"),
        (b'{"t": "mark", "upto": 3}', "'mark' record"),
        (b'{"t": "summary", "at": "2026-11-30T09:00:00+00:00", "summary": "text"}', "object"),
        (b'{"t": "meta", "at": "2026-11-30T09:00:00+00:00", "set": [1]}', "object"),
        (b'{"t": "zap", "at": "2026-11-30T09:00:00+00:00"}', "unknown record type"),
    ],
)
def test_malformed_lines_are_refused_with_a_reason(line: bytes, reason: str) -> None:
    with pytest.raises(RecordFormatError, match=reason):
        parse(line)


def test_lock_pool_closes_idle_locks_beyond_its_capacity(tmp_path: Path) -> None:
    pool = LockPool(tmp_path, capacity=2)
    with pool.hold("held"):
        for name in ("a", "b", "c", "d"):
            with pool.hold(name):
                pass
        assert len(pool._locks) == 2
        assert "held" in pool._locks
    pool.close()
    assert pool._locks == {}
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["a.lock", "b.lock", "c.lock", "d.lock", "held.lock"]
