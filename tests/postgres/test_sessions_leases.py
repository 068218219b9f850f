"""PostgreSQL sessions (messages, mark, summary, metadata, tombstones) and lease fencing."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from reverie.core.messages import Message, ToolCall
from reverie.storage.postgres.database import Tenant
from reverie.storage.postgres.leases import LeaseLostError, PgLeases
from reverie.storage.postgres.sessions import TOMBSTONE, PgSessionStore


def test_messages_round_trip_exactly_in_order(tenant: Tenant) -> None:
    store = PgSessionStore(tenant)
    call = ToolCall(id="c1", name="lookup", arguments='{"q": "harbour"}')
    sent = [
        Message(role="user", content="hello\x00 with a NUL and \ue000"),
        Message(role="assistant", content=None, tool_calls=(call,)),
        Message(role="tool", content="found", tool_call_id="c1"),
    ]
    assert store.append_many("tg:alice", sent) == range(3)
    assert store.append("tg:alice", Message(role="user", content="more")) == 3
    session = store.load("tg:alice")
    assert list(session.messages[:3]) == sent
    assert store.info("tg:alice") is not None
    assert store.exists("tg:alice")
    assert not store.exists("tg:bob")
    assert store.load("tg:bob").messages == ()


def test_mark_summary_and_metadata_are_kept_and_checked(tenant: Tenant) -> None:
    store = PgSessionStore(tenant)
    store.append_many("k", [Message(role="user", content=str(i)) for i in range(4)])
    assert store.set_compacted_upto("k", 3).compacted_upto == 3
    active = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    store.set_summary("k", "they talked about boats", active)
    store.update_metadata("k", {"channel": "telegram"})
    store.update_metadata("k", {"lang": "pt"})
    session = store.load("k")
    assert session.compacted_upto == 3
    assert session.summary is not None
    assert session.summary.text == "they talked about boats"
    assert session.summary.last_active == active
    assert dict(session.metadata) == {"channel": "telegram", "lang": "pt"}
    store.clear_summary("k")
    assert store.load("k").summary is None
    with pytest.raises(Exception, match="compacted_upto"):
        store.set_compacted_upto("k", 9)


def test_list_delete_and_redact(tenant: Tenant) -> None:
    store = PgSessionStore(tenant)
    store.append("a", Message(role="user", content="my locker code is 4817"))
    store.append("a", Message(role="assistant", content="noted"))
    store.append("b", Message(role="user", content="hi"))
    assert sorted(info.key for info in store.list()) == ["a", "b"]
    store.redact("a", [0])
    messages = store.load("a").messages
    assert (messages[0].role, messages[0].content) == ("user", TOMBSTONE)
    assert messages[1].content == "noted"
    assert store.delete("b")
    assert not store.delete("b")
    assert [info.key for info in store.list()] == ["a"]


def test_a_lost_lease_fences_off_the_commit(tenant: Tenant) -> None:
    first = PgLeases(tenant, holder="server-1")
    second = PgLeases(tenant, holder="server-2")
    lease = first.acquire("dream", timedelta(milliseconds=200))
    assert lease is not None
    assert second.acquire("dream", timedelta(seconds=5)) is None
    with tenant.transaction() as conn:
        first.fence(conn, lease)  # still held: passes
    time.sleep(0.3)
    taken = second.acquire("dream", timedelta(seconds=5))
    assert taken is not None
    assert taken.token == lease.token + 1
    assert first.renew(lease, timedelta(seconds=5)) is None
    with pytest.raises(LeaseLostError, match="taken over"), tenant.transaction() as conn:
        first.fence(conn, lease)
    second.release(taken)
    again = first.acquire("dream", timedelta(seconds=5))
    assert again is not None
    assert again.token == taken.token + 1


def test_quarantined_lines_keep_their_bytes_and_place(tenant: Tenant) -> None:
    from pathlib import Path

    from reverie.core.entries import BadLine
    from reverie.storage.postgres.records import PgQuarantine

    quarantine = PgQuarantine(tenant)
    bad = BadLine(source=Path("import.jsonl"), line=7, offset=120, raw=b"\xff{", reason="bad")
    quarantine.keep([bad], now=datetime(2026, 11, 30, tzinfo=UTC))
    quarantine.keep([], now=datetime(2026, 11, 30, tzinfo=UTC))
    assert quarantine.records() == [bad]
