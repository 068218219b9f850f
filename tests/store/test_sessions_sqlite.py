"""The SQLite session store's own promises: concurrent first writes, forgetting, sizes."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path

from reverie import Message
from reverie.storage.folder.sessions_sqlite import DATABASE, SqliteSessionStore
from reverie.storage.folder.workspace import Workspace
from tests.forkserver import Server

START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def _user(text: str) -> Message:
    return Message(role="user", content=text)


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
