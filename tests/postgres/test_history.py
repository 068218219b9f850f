"""The PostgreSQL history log: cursors, reads, trim and edit, with text the file log keeps."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from reverie.errors import CursorError
from reverie.storage.postgres.database import Tenant
from reverie.storage.postgres.history import NewEntry, PgHistoryLog


def test_append_numbers_entries_one_two_three_and_reads_them_back(tenant: Tenant) -> None:
    log = PgHistoryLog(tenant)
    at = datetime(2026, 3, 2, 18, 40, tzinfo=UTC)
    first = log.append("moved to Porto", session_key="tg:alice", at=at, kind="summary")
    log.append_many([NewEntry(text="two"), NewEntry(text="three", source_range=(0, 4))])
    assert first.cursor == 1
    entries = log.read_since(0)
    assert [e.cursor for e in entries] == [1, 2, 3]
    assert entries[0] == first
    assert entries[0].time == at
    assert entries[2].range == (0, 4)
    assert [e.cursor for e in log.read_since(1, limit=1)] == [2]
    assert log.last_cursor() == 3


def test_text_is_cleaned_like_the_file_log_and_nul_survives(tenant: Tenant) -> None:
    log = PgHistoryLog(tenant)
    log.append("<think>plan</think>api key sk-abcdefghijklmnopqrstuvwx1234 and a\x00nul \ue000")
    log.append("x" * 100, max_chars=20)
    stored = log.read_since(0)
    assert "plan" not in stored[0].content
    assert "sk-abcdefghijklmnopqrstuvwx1234" not in stored[0].content
    assert stored[0].content.endswith("a\x00nul \ue000")
    assert len(stored[1].content) <= 20


def test_read_recent_is_newest_first_and_filters_by_session(tenant: Tenant) -> None:
    log = PgHistoryLog(tenant)
    for i in range(5):
        log.append(f"e{i}", session_key="a" if i % 2 == 0 else "b")
    assert [e.content for e in log.read_recent(0, limit=2)] == ["e4", "e3"]
    assert [e.content for e in log.read_recent(1, limit=9, needle=b'"session_key": "a"')] == [
        "e4",
        "e2",
    ]


def test_a_bad_cursor_is_refused(tenant: Tenant) -> None:
    with pytest.raises(CursorError):
        PgHistoryLog(tenant).read_since(-1)


def test_trim_keeps_undreamt_entries_and_never_reuses_a_cursor(tenant: Tenant) -> None:
    log = PgHistoryLog(tenant)
    for i in range(10):
        log.append(f"e{i}")
    assert log.trim(keep=2).dropped == 0  # dream has read nothing yet
    with tenant.transaction() as conn:
        conn.execute("UPDATE workspace_state SET dream_cursor = 6")
    result = log.trim(keep=2)
    assert (result.dropped, result.kept, result.dropped_through) == (6, 4, 6)
    assert log.append("after").cursor == 11
    assert [e.cursor for e in log.entries()] == [7, 8, 9, 10, 11]


def test_edit_rewrites_or_drops_entries_and_keeps_the_floor(tenant: Tenant) -> None:
    log = PgHistoryLog(tenant)
    for i in range(3):
        log.append(f"e{i}")
    before = log.edit({2: "rewritten", 3: None, 9: None})
    assert [e.content for e in before] == ["e1", "e2"]
    assert [(e.cursor, e.content) for e in log.read_since(0)] == [(1, "e0"), (2, "rewritten")]
    assert log.append("next").cursor == 4
