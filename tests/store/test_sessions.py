"""The session store in one process: round trips, state records, staleness, list, put.

These are the store's contract (``reverie.storage.ports.SessionsPort``). The scenarios both
stores promise run on the SQLite store every folder workspace uses and on a PostgreSQL
workspace (the ``sessions`` fixture); the rest open a second SQLite store on the same files, as
another process would, or sweep a folder's temporary files.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from reverie import CompactionSummary, Message, ToolCall
from reverie.core.tombstones import FORGOTTEN
from reverie.storage.folder.sessions_sqlite import SqliteSessionStore
from reverie.storage.folder.workspace import Workspace
from reverie.storage.ports import SessionsPort

START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


class StepClock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
def root(tmp_path: Path) -> Path:
    Workspace.open(tmp_path / "ws", create=True).close()
    return tmp_path / "ws"


@pytest.fixture
def workspace(root: Path) -> Iterator[Workspace]:
    ws = Workspace.open(root, clock=StepClock())
    yield ws
    ws.close()


@pytest.fixture(params=["folder", "postgres"])
def sessions(request: pytest.FixtureRequest) -> Iterator[SessionsPort]:
    """A new workspace's session store: a folder's SQLite, then a test database workspace's."""
    if request.param == "folder":
        ws = Workspace.open(request.getfixturevalue("root"), clock=StepClock())
        yield ws.sessions
        ws.close()
        return
    from reverie.storage.postgres.backend import PgBackend  # the postgres extra

    url = request.getfixturevalue("pg_url")
    name = f"sessions-{secrets.token_hex(5)}"
    backend = PgBackend.open(url, name, create=True, clock=StepClock())
    yield backend.sessions
    backend.close()


def _store(root: Path) -> SqliteSessionStore:
    """A second store on the same database, as another process would open it."""
    return SqliteSessionStore(root / "sessions", state_dir=root / ".reverie", clock=StepClock())


def _user(text: str) -> Message:
    return Message(role="user", content=text)


def test_messages_round_trip_with_every_field(sessions: SessionsPort) -> None:
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
        Message(role="user", content="hello\x00 with a NUL and \ue000"),
    ]
    assert sessions.append("cli:default", messages[0]) == 0
    assert sessions.append_many("cli:default", messages[1:]) == range(1, 5)
    assert sessions.append("cli:default", _user("more")) == 5
    session = sessions.load("cli:default")
    assert session.messages == (*messages, _user("more"))
    assert session.key == "cli:default"
    assert session.created_at < session.updated_at
    assert sessions.info("cli:default") is not None
    assert sessions.exists("cli:default")


def test_a_lone_surrogate_is_stored_as_the_replacement_character(sessions: SessionsPort) -> None:
    sent = Message(role="assistant", content="lone \ud800 surrogate is stored as U+FFFD")
    sessions.append_many("k", [_user("before"), sent])
    valid = Message(role="assistant", content="lone \ufffd surrogate is stored as U+FFFD")
    assert sessions.load("k").messages == (_user("before"), valid)
    sessions.set_summary("k", "cut \udc00 here", last_active=START)
    sessions.update_metadata("k", {"note": "half \ud83d"})
    stored = sessions.load("k")
    assert stored.summary is not None
    assert stored.summary.text == "cut \ufffd here"
    assert stored.metadata["note"] == "half \ufffd"


def test_unknown_session_loads_empty_and_is_not_created(sessions: SessionsPort) -> None:
    session = sessions.load("nobody")
    assert session.messages == ()
    assert not sessions.exists("nobody")
    assert sessions.list() == []


def test_state_records_set_mark_summary_and_merge_metadata(sessions: SessionsPort) -> None:
    store = sessions
    store.append_many("k", [_user("a"), _user("b"), _user("c")])
    assert store.set_compacted_upto("k", 2).compacted_upto == 2
    active = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    store.set_summary("k", "they talked about a and b", active)
    store.update_metadata("k", {"channel": "telegram", "n": 1})
    info = store.update_metadata("k", {"n": 2, "tags": ["x"]})
    store.update_metadata("k", {"lang": "pt"})
    session = store.load("k")
    assert session.compacted_upto == 2
    assert session.pending == (_user("c"),)
    assert session.summary == CompactionSummary(
        text="they talked about a and b", last_active=active
    )
    assert session.metadata == {"channel": "telegram", "n": 2, "tags": ["x"], "lang": "pt"}
    assert info.compacted_upto == 2
    assert info.message_count == 3
    store.clear_summary("k")
    assert store.load("k").summary is None


def test_mark_outside_the_session_is_refused(sessions: SessionsPort) -> None:
    sessions.append("k", _user("a"))
    with pytest.raises(ValueError, match="outside") as refused:
        sessions.set_compacted_upto("k", 2)
    if not isinstance(sessions, SqliteSessionStore):  # the database's refusal names the mark
        assert "compacted_upto" in str(refused.value)
    with pytest.raises(ValueError, match="outside"):
        sessions.set_compacted_upto("k", -1)
    assert sessions.load("k").compacted_upto == 0


def test_a_stale_process_sees_the_other_processes_messages(root: Path) -> None:
    first, second = _store(root), _store(root)
    first.append("k", _user("one"))
    stale = first.load("k")
    second.append_many("k", [_user("two"), _user("three")])
    assert first.append("k", _user("four")) == 3
    assert [m.text for m in second.load("k").messages] == ["one", "two", "three", "four"]
    assert len(stale.messages) == 1
    assert first.list()[0].message_count == 4


def test_a_session_recreated_by_another_process_is_read_afresh(root: Path) -> None:
    first, second = _store(root), _store(root)
    first.append_many("k", [_user("old-1"), _user("old-2")])
    second.delete("k")
    second.append_many("k", [_user("new-1"), _user("new-2"), _user("new-3")])
    assert first.append("k", _user("new-4")) == 3
    assert [m.text for m in first.load("k").messages] == ["new-1", "new-2", "new-3", "new-4"]


def test_delete_removes_the_session_and_redact_leaves_a_tombstone(
    sessions: SessionsPort,
) -> None:
    store = sessions
    store.append("gone", _user("x"))
    store.append("kept", _user("my locker code is 4817"))
    store.append("kept", Message(role="assistant", content="noted"))
    assert sorted(info.key for info in store.list()) == ["gone", "kept"]
    store.redact("kept", [0])
    messages = store.load("kept").messages
    assert (messages[0].role, messages[0].content) == ("user", FORGOTTEN)
    assert messages[1].content == "noted"
    assert store.delete("gone") is True
    assert store.delete("gone") is False
    assert [info.key for info in store.list()] == ["kept"]
    assert store.load("gone").messages == ()


def test_list_reports_each_session_sorted_by_key(root: Path) -> None:
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
    assert infos[0].size > 0
    assert _store(root).info("b") == infos[1]
    assert _store(root).info("c") is None


def test_list_sees_appends_of_another_process(root: Path) -> None:
    writer = _store(root)
    writer.append("k", _user("1"))
    writer.close()
    assert _store(root).list()[0].message_count == 1
    writer.append_many("k", [_user("2"), _user("3")])
    assert _store(root).list()[0].message_count == 3


def test_put_replaces_a_session_whole(workspace: Workspace) -> None:
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
        summary=CompactionSummary(text="s", last_active=START),
    )
    info = store.put(replacement)
    assert info.message_count == 2
    assert store.load("k") == replacement


def test_temp_files_of_dead_writers_are_swept_on_open(root: Path) -> None:
    dead = root / "sessions" / ".k.journal.999999999.abcd1234.rvtmp"
    dead.write_bytes(b"partial snapshot")
    Workspace.open(root).close()
    assert not dead.exists()
