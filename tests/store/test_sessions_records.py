"""Session records: a message line round-trips; every kind of old journal line parses; every
malformed line is refused with a reason."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from reverie import ArchivedSummary, Message
from reverie.storage.folder.session_records import (
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


def test_a_message_line_round_trips() -> None:
    record = MessageRecord(at=AT, message=Message(role="user", content="hi \u4e2d"))
    line = encode(record)
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert parse(line) == record


_AT = '"at": "2026-11-30T09:00:00+00:00"'


@pytest.mark.parametrize(
    ("line", "record"),
    [
        (
            (
                '{"t": "head", "format": 1, "key": "cli:\u4e2d", "id": "ab12",'
                ' "created_at": "2026-11-30T09:00:00+00:00"}'
            ),
            HeadRecord(key="cli:\u4e2d", journal_id="ab12", created_at=AT),
        ),
        (f'{{"t": "mark", {_AT}, "upto": 3}}', MarkRecord(at=AT, upto=3)),
        (
            (
                f'{{"t": "summary", {_AT}, "summary": {{"text": "s", "last_active": '
                '"2026-11-30T09:00:00+00:00"}}'
            ),
            SummaryRecord(at=AT, summary=ArchivedSummary(text="s", last_active=AT)),
        ),
        (f'{{"t": "summary", {_AT}, "summary": null}}', SummaryRecord(at=AT, summary=None)),
        (
            f'{{"t": "meta", {_AT}, "set": {{"a": [1, {{"b": null}}]}}}}',
            MetadataRecord(at=AT, values={"a": [1, {"b": None}]}),
        ),
    ],
)
def test_every_kind_of_old_journal_line_parses(
    line: str, record: HeadRecord | MarkRecord | SummaryRecord | MetadataRecord
) -> None:
    assert parse(line.encode("utf-8") + b"\n") == record


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
