"""The session store in one process: round trips, state records, staleness, repair, snapshots.

Tests that take ``kind`` run against both session backends (journal and SQLite, chosen through
``REVERIE_SESSION_STORE``); the others test the journal's own files (torn lines, snapshots).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

import pytest

from reverie import ArchivedSummary, Message, SessionError, ToolCall, Workspace
from reverie.store.session_records import MarkRecord, MessageRecord, encode
from reverie.store.sessions import SessionStore
from reverie.store.sessions_sqlite import SqliteSessionStore
from reverie.store.workspace import SESSION_STORE_ENV, SESSION_STORES

START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


class StepClock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture(params=SESSION_STORES)
def kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test against each session backend (workspaces opened here pick it up)."""
    chosen = str(request.param)
    monkeypatch.setenv(SESSION_STORE_ENV, chosen)
    return chosen


@pytest.fixture
def root(tmp_path: Path) -> Path:
    Workspace.open(tmp_path / "ws", create=True, session_store="journal").close()
    return tmp_path / "ws"


@pytest.fixture
def workspace(root: Path) -> Iterator[Workspace]:
    kind = os.environ.get(SESSION_STORE_ENV, "journal")  # set by ``kind``; else the journal's
    ws = Workspace.open(root, clock=StepClock(), session_store=kind)
    yield ws
    ws.close()


def _store(root: Path, snapshot_min: int = 64, kind: str = "journal") -> SessionStore:
    if kind == "sqlite":
        sqlite = SqliteSessionStore(
            root / "sessions", state_dir=root / ".reverie", clock=StepClock()
        )
        return cast("SessionStore", sqlite)  # same operations; no journal paths
    return SessionStore(
        root / "sessions",
        state_dir=root / ".reverie",
        locks_dir=root / ".reverie" / "locks",
        clock=StepClock(),
        snapshot_min=snapshot_min,
    )


def _user(text: str) -> Message:
    return Message(role="user", content=text)


def test_messages_round_trip_with_every_field(kind: str, workspace: Workspace) -> None:
    stamp = datetime(2026, 11, 29, 22, 15, 3, 120000, tzinfo=UTC)
    messages = [
        Message(role="system", content="be brief"),
        Message(role="user", content=({"type": "text", "text": "look"},), timestamp=stamp),
        Message(
            role="assistant",
            tool_calls=(ToolCall(id="c1", name="read_file", arguments='{"path": "a.md"}'),),
            extra={"reasoning_content": "think", "provider": {"id": 7}},
        ),
        Message(role="tool", tool_call_id="c1", name="read_file", content="# a\n\u4e2d\u6587"),
        Message(role="assistant", content="lone \ud800 surrogate is stored as U+FFFD"),
    ]
    assert workspace.sessions.append("cli:default", messages[0]) == 0
    assert workspace.sessions.append_many("cli:default", messages[1:]) == range(1, 5)
    session = workspace.sessions.load("cli:default")
    valid = Message(role="assistant", content="lone \ufffd surrogate is stored as U+FFFD")
    assert session.messages == (*messages[:4], valid)
    assert session.key == "cli:default"
    assert session.created_at < session.updated_at


def test_unknown_session_loads_empty_and_is_not_created(kind: str, workspace: Workspace) -> None:
    session = workspace.sessions.load("nobody")
    assert session.messages == ()
    assert not workspace.sessions.exists("nobody")
    assert workspace.sessions.list() == []


def test_state_records_set_mark_summary_and_merge_metadata(kind: str, workspace: Workspace) -> None:
    store = workspace.sessions
    store.append_many("k", [_user("a"), _user("b"), _user("c")])
    store.set_compacted_upto("k", 2)
    active = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    store.set_summary("k", "they talked about a and b", active)
    store.update_metadata("k", {"channel": "telegram", "n": 1})
    info = store.update_metadata("k", {"n": 2, "tags": ["x"]})
    session = store.load("k")
    assert session.compacted_upto == 2
    assert session.pending == (_user("c"),)
    assert session.summary == ArchivedSummary(text="they talked about a and b", last_active=active)
    assert session.metadata == {"channel": "telegram", "n": 2, "tags": ["x"]}
    assert info.compacted_upto == 2
    assert info.message_count == 3
    store.clear_summary("k")
    assert store.load("k").summary is None


def test_mark_outside_the_session_is_refused(kind: str, workspace: Workspace) -> None:
    workspace.sessions.append("k", _user("a"))
    with pytest.raises(ValueError, match="outside"):
        workspace.sessions.set_compacted_upto("k", 2)
    with pytest.raises(ValueError, match="outside"):
        workspace.sessions.set_compacted_upto("k", -1)


def test_corrupt_mark_resets_to_zero_with_a_warning(
    workspace: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    store = workspace.sessions
    store.append_many("k", [_user("a"), _user("b")])
    with store.path("k").open("ab") as handle:
        handle.write(encode(MarkRecord(at=START, upto=9)))
    with caplog.at_level(logging.WARNING):
        session = store.load("k")
    assert session.compacted_upto == 0
    assert len(session.messages) == 2
    assert "outside 0..2" in caplog.text
    assert store.list()[0].compacted_upto == 0


def test_a_stale_process_sees_the_other_processes_messages(kind: str, root: Path) -> None:
    first, second = _store(root, kind=kind), _store(root, kind=kind)
    first.append("k", _user("one"))
    stale = first.load("k")
    second.append_many("k", [_user("two"), _user("three")])
    assert first.append("k", _user("four")) == 3
    assert [m.text for m in second.load("k").messages] == ["one", "two", "three", "four"]
    assert len(stale.messages) == 1
    assert first.list()[0].message_count == 4


def test_a_journal_recreated_by_another_process_is_read_afresh(kind: str, root: Path) -> None:
    first, second = _store(root, kind=kind), _store(root, kind=kind)
    first.append_many("k", [_user("old-1"), _user("old-2")])
    second.delete("k")
    second.append_many("k", [_user("new-1"), _user("new-2"), _user("new-3")])
    assert first.append("k", _user("new-4")) == 3
    assert [m.text for m in first.load("k").messages] == ["new-1", "new-2", "new-3", "new-4"]


def test_delete_removes_the_session(kind: str, workspace: Workspace) -> None:
    store = workspace.sessions
    store.append("gone", _user("x"))
    store.append("kept", _user("y"))
    assert store.delete("gone") is True
    assert store.delete("gone") is False
    assert [info.key for info in store.list()] == ["kept"]
    assert store.load("gone").messages == ()


def test_list_reports_each_session_without_reading_messages(root: Path) -> None:
    store = _store(root)
    store.append_many("b", [_user("1"), _user("2"), _user("3")])
    store.set_compacted_upto("b", 1)
    store.append("a", _user("only"))
    store.close()
    infos = _store(root).list()
    assert [(i.key, i.message_count, i.compacted_upto) for i in infos] == [
        ("a", 1, 0),
        ("b", 3, 1),
    ]
    assert infos[1].size == store.path("b").stat().st_size
    # With a fresh checkpoint, list() does not parse messages: a damaged message line of the
    # same length goes unnoticed by list() (load() finds and quarantines it).
    journal = store.path("b")
    lines = journal.read_bytes().split(b"\n")
    lines[2] = b"#" * len(lines[2])
    journal.write_bytes(b"\n".join(lines))
    assert _store(root).list()[1].message_count == 3


def test_list_catches_up_with_appends_after_the_checkpoint(kind: str, root: Path) -> None:
    writer = _store(root, kind=kind)
    writer.append("k", _user("1"))
    writer.close()
    assert _store(root, kind=kind).list()[0].message_count == 1
    writer.append_many("k", [_user("2"), _user("3")])
    assert _store(root, kind=kind).list()[0].message_count == 3


def test_torn_tail_is_quarantined_before_the_next_append(workspace: Workspace) -> None:
    store = workspace.sessions
    store.append("k", _user("kept"))
    with store.path("k").open("ab") as handle:
        handle.write(b'{"t":"msg","at":"2026-11-30T09:00:00+00:00","m":{"role":"us')
    assert [m.text for m in store.load("k").messages] == ["kept"]
    assert store.append("k", _user("after")) == 1
    assert [m.text for m in store.load("k").messages] == ["kept", "after"]
    [bad] = store.quarantine.records()
    assert bad.reason == "torn last line"
    assert bad.line == 3
    assert bad.raw.startswith(b'{"t":"msg"')


def test_unparseable_line_is_quarantined_with_its_position(workspace: Workspace) -> None:
    store = workspace.sessions
    store.append_many("k", [_user("a"), _user("b")])
    with store.path("k").open("ab") as handle:
        handle.write(b"not json at all\n")
        handle.write(encode(MessageRecord(at=START, message=_user("c"))))
    assert [m.text for m in store.load("k").messages] == ["a", "b", "c"]
    [bad] = store.quarantine.records()
    assert (bad.line, bad.raw) == (4, b"not json at all\n")
    assert b"not json" not in store.path("k").read_bytes()
    assert store.append("k", _user("d")) == 3


def test_superseded_records_trigger_an_atomic_snapshot(root: Path) -> None:
    store = _store(root, snapshot_min=8)
    store.append_many("k", [_user(str(n)) for n in range(4)])
    head = store.path("k").read_bytes().split(b"\n")[0]
    for n in range(40):
        store.set_compacted_upto("k", n % 5)
        store.update_metadata("k", {"round": n})
    lines = store.path("k").read_bytes().count(b"\n")
    assert lines <= 1 + 4 + 2 + 2 * 8
    assert store.path("k").read_bytes().split(b"\n")[0] != head  # a new journal id
    session = _store(root).load("k")
    assert [m.text for m in session.messages] == ["0", "1", "2", "3"]
    assert session.compacted_upto == 39 % 5
    assert session.metadata == {"round": 39}
    assert store.append("k", _user("4")) == 4


def test_put_replaces_a_session_whole(kind: str, workspace: Workspace) -> None:
    store = workspace.sessions
    store.append("k", _user("old"))
    session = store.load("k")
    replacement = type(session)(
        key="k",
        created_at=START,
        updated_at=START + timedelta(hours=1),
        messages=(_user("x"), _user("y")),
        metadata={"m": True},
        compacted_upto=1,
        summary=ArchivedSummary(text="s", last_active=START),
    )
    info = store.put(replacement)
    assert info.message_count == 2
    assert store.load("k") == replacement


def test_temp_files_of_dead_writers_are_swept_on_open(root: Path) -> None:
    dead = root / "sessions" / ".k.journal.999999999.abcd1234.rvtmp"
    dead.write_bytes(b"partial snapshot")
    Workspace.open(root, session_store="journal").close()
    assert not dead.exists()


def test_a_journal_of_another_key_is_refused(workspace: Workspace) -> None:
    store = workspace.sessions
    store.append("a", _user("x"))
    store.path("a").replace(store.path("b"))
    with pytest.raises(SessionError, match="belongs to"):
        store.append("b", _user("y"))
    with pytest.raises(SessionError, match="belongs to"):
        store.load("b")


def test_list_repairs_a_journal_damaged_after_its_checkpoint(root: Path) -> None:
    store = _store(root)
    store.append("k", _user("a"))
    store.close()
    with store.path("k").open("ab") as handle:
        handle.write(b"garbage\n")
        handle.write(encode(MessageRecord(at=START, message=_user("b"))))
    [info] = _store(root).list()
    assert info.message_count == 2
    assert [bad.raw for bad in store.quarantine.records()] == [b"garbage\n"]


def test_a_journal_without_head_gets_one_on_the_next_write(workspace: Workspace) -> None:
    store = workspace.sessions
    store.path("k").write_bytes(encode(MessageRecord(at=START, message=_user("hand-made"))))
    assert store.append("k", _user("next")) == 1
    assert store.path("k").read_bytes().startswith(b'{"t":"head"')
    assert [m.text for m in store.load("k").messages] == ["hand-made", "next"]
    assert store.load("k").created_at == START
