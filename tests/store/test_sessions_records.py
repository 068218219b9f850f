"""Session records: a message line round-trips; every malformed line is refused with a reason."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from reverie import Message
from reverie.storage.folder.session_records import (
    MessageRecord,
    RecordFormatError,
    encode,
    parse,
)

AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def test_a_message_line_round_trips() -> None:
    record = MessageRecord(at=AT, message=Message(role="user", content="hi \u4e2d"))
    line = encode(record)
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert parse(line) == record


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"\xff\xfe", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"t": "msg", "at": "2026-11-30T09:00:00+00:00", "m": {"role": "wizard"}}', "message"),
        (b'{"t": "msg", "at": "2026-11-30T09:00:00", "m": {"role": "user"}}', "timezone"),
        (b'{"t": "msg", "at": "yesterday", "m": {"role": "user"}}', "ISO 8601"),
        (b'{"t": "msg", "m": {"role": "user", "content": "x"}}', "'msg' record"),
        (b'{"t": "mark", "at": "2026-11-30T09:00:00+00:00", "upto": 3}', "unknown record type"),
        (b'{"t": "zap", "at": "2026-11-30T09:00:00+00:00"}', "unknown record type"),
    ],
)
def test_malformed_lines_are_refused_with_a_reason(line: bytes, reason: str) -> None:
    with pytest.raises(RecordFormatError, match=reason):
        parse(line)
