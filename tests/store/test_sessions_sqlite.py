"""The SQLite session store's own promises: moving an older reverie's journals in, forgetting."""

from __future__ import annotations

import logging
import os
import random
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from reverie import Message, Session, Workspace
from reverie.storage.folder.sessions_sqlite import DATABASE, SqliteSessionStore
from tests.forkserver import Server
from tests.store.old_journals import OldJournal, head, journal_path, line

START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def _user(text: str) -> Message:
    return Message(role="user", content=text)


def _journal_workspace(root: Path, sessions: int, messages: int) -> dict[str, Session]:
    """Lay out a workspace whose sessions are an older reverie's journals; return them."""
    Workspace.open(root, create=True).close()
    expected = {}
    for n in range(sessions):
        key = f"tg:{n}" if n % 7 else "k" * 300 + str(n)  # some keys get hashed file names
        journal = OldJournal(key=key, created=START + timedelta(hours=n))
        for i in range(messages):
            journal.message(_user(f"{n}-{i}"))
        journal.set_mark(n % messages).set_metadata({"n": n, "tags": ["a"]})
        if n % 3 == 0:
            journal.set_summary(f"summary {n}", START + timedelta(minutes=n))
        expected[key] = journal.write(root)
    return expected


def _sessions(root: Path) -> dict[str, Session]:
    workspace = Workspace.open(root)
    try:
        return {info.key: workspace.sessions.load(info.key) for info in workspace.sessions.list()}
    finally:
        workspace.close()


def test_journals_move_into_the_database_whole_on_open(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    expected = _journal_workspace(root, sessions=15, messages=6)
    with (root / "sessions" / "tg%3a1.journal").open("ab") as handle:
        handle.write(b'{"t":"msg","at":"2026-11-30T09:00:00+00:00","m":{"role":"us')  # torn
    checkpoints = root / ".reverie" / "sessions"
    checkpoints.mkdir()
    (checkpoints / "tg%3a1.json").write_text("{}", encoding="utf-8")  # the old list() cache
    assert _sessions(root) == expected
    assert not list((root / "sessions").glob("*.journal"))
    assert not checkpoints.exists()
    workspace = Workspace.open(root)
    [torn] = workspace.sessions.quarantine.records()
    assert torn.reason == "torn last line"
    assert workspace.sessions.append("tg:1", _user("after")) == 6
    workspace.close()


def test_a_bad_line_is_quarantined_with_its_position_and_every_message_moves(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    Workspace.open(root, create=True).close()
    journal = OldJournal(key="k", created=START).message(_user("a")).message(_user("b"))
    journal.set_mark(1).set_metadata({"a": 1, "b": 1}).set_metadata({"b": 2})
    journal.data += b"not json at all\n"
    journal.message(_user("c")).set_mark(2).set_summary("s", START)
    expected = journal.write(root)
    assert _sessions(root) == {"k": expected}
    assert expected.metadata == {"a": 1, "b": 2}
    assert expected.compacted_upto == 2
    workspace = Workspace.open(root)
    [bad] = workspace.sessions.quarantine.records()
    assert (bad.line, bad.raw) == (7, b"not json at all\n")
    assert bad.source == journal_path(root, "k")
    workspace.close()


def test_a_mark_outside_the_session_moves_as_zero(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    Workspace.open(root, create=True).close()
    expected = OldJournal(key="k", created=START).message(_user("a")).set_mark(9).write(root)
    [session] = _sessions(root).values()
    assert session == expected
    assert session.compacted_upto == 0


def test_a_journal_without_a_head_moves_with_its_first_records_time(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    Workspace.open(root, create=True).close()
    later = START + timedelta(minutes=5)
    body = line("msg", START, m=_user("hand-made").to_json()) + line("meta", later, set={"x": 1})
    journal_path(root, "k").write_bytes(body)
    [session] = _sessions(root).values()
    assert (session.key, session.created_at, session.updated_at) == ("k", START, later)
    assert [m.text for m in session.messages] == ["hand-made"]
    assert session.metadata == {"x": 1}


def test_a_journal_whose_head_names_another_key_is_left_in_place(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "ws"
    Workspace.open(root, create=True).close()
    path = journal_path(root, "b")
    path.write_bytes(head("a", START) + line("msg", START, m=_user("x").to_json()))
    with caplog.at_level(logging.WARNING):
        assert _sessions(root) == {}
    assert path.exists()
    assert "disagree on the key" in caplog.text


@pytest.mark.slow
def test_sigkill_during_the_move_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    expected = _journal_workspace(root, sessions=120, messages=30)
    rng = random.Random(11)
    interrupted = 0
    server = Server("tests.store.move_worker")  # each opener a child forked from a warm parent
    for _ in range(8):
        if not list((root / "sessions").glob("*.journal")):
            break
        worker = server.spawn(str(root))
        assert worker.readline() == "ready\n"
        # Killed by progress, not by time: once a random number of the journals left have
        # moved (a load-dependent sleep let an idle machine finish the move before any kill).
        left = len(list((root / "sessions").glob("*.journal")))
        target = left - rng.randint(1, max(1, left - 1))
        deadline = time.monotonic() + 30
        while worker.alive() and time.monotonic() < deadline:
            if len(list((root / "sessions").glob("*.journal"))) <= target:
                break
            time.sleep(0.001)
        worker.kill()
        output = worker.finish()
        interrupted += "done" not in output
        journals = {path.name for path in (root / "sessions").glob("*.journal")}
        moved = SqliteSessionStore(
            root / "sessions", state_dir=root / ".reverie", clock=lambda: START
        ).list()
        assert len(journals) + len(moved) >= len(expected)  # each session is somewhere
    server.close()
    assert interrupted >= 1
    assert _sessions(root) == expected
    assert not list((root / "sessions").glob("*.journal"))


def test_processes_making_a_new_database_at_once_all_write(tmp_path: Path) -> None:
    # Switching a new database to WAL takes a lock SQLite's busy timeout does not cover: four
    # processes released at one instant onto a new workspace saw "database is locked" about
    # one round in thirty before ``sessions_sql.prepare`` retried it.
    server = Server("tests.store.first_write_worker")
    try:
        for round_ in range(24):
            root, go = tmp_path / f"ws{round_}", tmp_path / f"go{round_}"
            os.mkfifo(go)
            writers = [
                server.start(tmp_path / f"out{round_}-{n}", str(root), str(go)) for n in range(4)
            ]
            # Every child says "ready" just before it opens the pipe; the open below then
            # releases the four at once (a fixed sleep lost that race under load and hung).
            assert [writer.readline() for writer in writers] == ["ready\n"] * 4
            with go.open("wb"):
                time.sleep(0.05)  # the write end stays open while the four notice it
            said = [writer.finish() for writer in writers]
            assert [w.returncode for w in writers] == [0] * 4, (round_, said)
            store = SqliteSessionStore(
                root / "sessions", state_dir=root / ".reverie", clock=lambda: START
            )
            assert len(store.list()) == 4
            store.close()
    finally:
        server.close()


def test_forget_leaves_no_byte_of_the_message_in_the_database_or_its_wal(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    first = Workspace.open(root, create=True)
    second = Workspace.open(root)
    first.sessions.append_many("k", [_user("keep this"), _user("the code is QX-9911-ZZ")])
    assert len(second.sessions.load("k").messages) == 2  # its replay cache now holds the secret
    first.sessions.redact("k", [1])
    assert [m.text for m in second.sessions.load("k").messages] == ["keep this", "[forgotten]"]
    first.close()
    second.close()
    for path in (root / ".reverie").glob(DATABASE + "*"):
        assert b"QX-9911-ZZ" not in path.read_bytes(), path


def test_sizes_grow_with_every_write_so_readers_see_each_change(tmp_path: Path) -> None:
    workspace = Workspace.open(tmp_path / "ws", create=True)
    store = workspace.sessions
    store.append("k", _user("a"))
    sizes = [store.list()[0].size]
    store.set_compacted_upto("k", 1)
    sizes.append(store.list()[0].size)
    store.redact("k", [0])
    sizes.append(store.list()[0].size)
    assert sizes == sorted(set(sizes))
    workspace.close()


def test_opening_creates_no_database_until_the_first_write(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    workspace = Workspace.open(root, create=True)
    assert workspace.sessions.list() == []
    assert workspace.sessions.load("k").messages == ()
    assert not (root / ".reverie" / DATABASE).exists()
    workspace.sessions.append("k", _user("x"))
    assert (root / ".reverie" / DATABASE).exists()
    workspace.close()
