"""The index follows the sessions database's change sequence: a catch-up reads what changed
(not every session), sees deletions and other processes' writes, and compares in full when
the database was upgraded, replaced or put back from an older copy."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie import Message
from reverie.storage.folder.index import SearchIndex
from reverie.storage.folder.index.catch_up import (
    SessionCounts,
    catch_up_history,
    catch_up_sessions,
    is_current,
)
from reverie.storage.folder.index.index_file import IndexFile
from reverie.storage.folder.index.store_state import StoreState
from reverie.storage.folder.session_changes import TOMBSTONES
from reverie.storage.folder.workspace import Workspace
from tests.store.stored_sessions import write_old_database
from tests.store.test_session_changes import start_together


class Follower:
    """An index file caught up by hand, so a test sees what each catch-up examined."""

    def __init__(self, workspace: Workspace, path: Path) -> None:
        self.workspace = workspace
        self.file = IndexFile(path, clock=workspace.clock)
        self.state = StoreState(workspace.sessions.database)

    def current(self) -> bool:
        conn, _ = self.file.open()
        ws = self.workspace
        return is_current(conn, ws.history, ws.sessions, state=self.state)

    def catch_up(self) -> SessionCounts:
        conn, _ = self.file.open()
        conn.execute("BEGIN IMMEDIATE")
        catch_up_history(conn, self.workspace.history)
        counts = catch_up_sessions(conn, self.workspace.sessions, state=self.state)
        conn.execute("COMMIT")
        return counts

    def indexed(self) -> dict[str, int]:
        """Indexed messages by session key."""
        conn, _ = self.file.open()
        sql = "SELECT session_key, count(*) FROM docs WHERE kind = 'message' GROUP BY 1"
        return dict(conn.execute(sql).fetchall())

    def close(self) -> None:
        self.file.close()
        self.state.close()


@pytest.fixture
def follower(workspace: Workspace, tmp_path: Path) -> Iterator[Follower]:
    made = Follower(workspace, tmp_path / "follower.sqlite")
    yield made
    made.close()


def _say(workspace: Workspace, key: str, text: str) -> None:
    workspace.sessions.append(key, Message(role="user", content=text))


def _stored(workspace: Workspace) -> dict[str, int]:
    return {info.key: info.message_count for info in workspace.sessions.list()}


def test_a_write_to_one_session_among_many_is_all_the_next_catch_up_reads(
    workspace: Workspace, follower: Follower
) -> None:
    for number in range(40):
        workspace.sessions.append_many(
            f"cli:s{number}", [Message(role="user", content=f"note {number}")] * 2
        )
    assert follower.catch_up().examined == 40  # no watermark yet: every session, once
    assert follower.current()

    _say(workspace, "cli:s7", "the bees came back")

    assert not follower.current()
    counts = follower.catch_up()
    assert (counts.examined, counts.added, counts.reindexed) == (1, 1, 0)
    assert follower.current()
    assert follower.catch_up().examined == 0
    assert follower.indexed() == _stored(workspace)


def test_a_deleted_session_leaves_the_index(
    workspace: Workspace, follower: Follower, index: SearchIndex
) -> None:
    for key in ("cli:a", "cli:b", "cli:c"):
        _say(workspace, key, f"wasps of {key}")
        _say(workspace, key, "and more")
    follower.catch_up()
    assert len(index.search("wasps")) == 3

    workspace.sessions.delete("cli:b")

    counts = follower.catch_up()
    assert (counts.examined, counts.removed) == (0, 2)  # nothing left to read; two messages out
    assert follower.indexed() == {"cli:a": 2, "cli:c": 2}
    assert index.refresh().messages_removed == 2
    assert {hit.session_key for hit in index.search("wasps")} == {"cli:a", "cli:c"}


def test_a_session_deleted_and_made_anew_is_indexed_again(
    workspace: Workspace, follower: Follower
) -> None:
    _say(workspace, "cli:a", "first life")
    _say(workspace, "cli:a", "still the first")
    follower.catch_up()

    workspace.sessions.delete("cli:a")
    _say(workspace, "cli:a", "second life")

    counts = follower.catch_up()
    assert (counts.examined, counts.reindexed, counts.removed, counts.added) == (1, 1, 2, 1)
    assert follower.indexed() == {"cli:a": 1}


def test_an_older_sessions_database_is_upgraded_then_followed(
    workspace: Workspace, follower: Follower, index: SearchIndex
) -> None:
    database = workspace.sessions.database
    write_old_database(database, {"cli:a": ["old bees", "old hives"], "cli:b": ["old wasps"]})
    assert follower.state.watermark() is None  # read as it is: no sequence to follow yet
    counts = follower.state.counts()
    assert counts is not None
    assert {key: count for key, (count, _) in counts.items()} == {"cli:a": 2, "cli:b": 1}

    first = follower.catch_up()  # compared in full; the store's first use upgraded the file
    assert (first.examined, first.added) == (2, 3)
    assert not follower.current()  # a watermark appeared that the index has not caught up to
    second = follower.catch_up()
    assert (second.examined, second.added) == (2, 0)
    _say(workspace, "cli:b", "new bees")

    third = follower.catch_up()

    assert (third.examined, third.added) == (1, 1)
    assert follower.indexed() == {"cli:a": 2, "cli:b": 2}
    assert {hit.snippet for hit in index.search("bees")} == {"old **bees**", "new **bees**"}


def test_a_database_put_back_from_an_older_copy_is_compared_in_full(
    workspace: Workspace, follower: Follower, index: SearchIndex, tmp_path: Path
) -> None:
    _say(workspace, "cli:a", "bees in the garden")
    _say(workspace, "cli:b", "a quiet day")
    follower.catch_up()
    database = workspace.sessions.database
    follower.state.close()
    workspace.sessions.close()  # the last connection: the WAL is folded into the file
    saved = database.read_bytes()
    _say(workspace, "cli:a", "wasps in the shed")
    _say(workspace, "cli:c", "hornets on the roof")
    assert follower.catch_up().added == 2
    assert len(index.search("wasps hornets")) == 2

    inode = database.stat().st_ino
    index.close()
    follower.state.close()
    workspace.sessions.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    with database.open("r+b") as file:  # in place: the same inode and epoch, a smaller number
        file.write(saved)
        file.truncate()
    assert database.stat().st_ino == inode

    assert not follower.current()
    counts = follower.catch_up()
    assert counts.examined == 2  # every session, not the changes after a number that went back
    assert follower.indexed() == {"cli:a": 1, "cli:b": 1}
    assert index.search("wasps hornets") == []
    assert len(index.search("bees")) == 1
    _say(workspace, "cli:b", "and then wasps")
    assert follower.catch_up().examined == 1  # followed again from the restored number
    assert [hit.session_key for hit in index.search("wasps")] == ["cli:b"]


def test_a_second_process_writing_between_two_catch_ups_is_seen(
    workspace: Workspace, follower: Follower
) -> None:
    _say(workspace, "cli:a", "first")
    _say(workspace, "cli:b", "second")
    follower.catch_up()

    (writer,) = start_together(workspace.root, ("cli:other", "5", "cli:a"))
    _, _ = writer.communicate(timeout=60)
    assert writer.returncode == 0

    assert not follower.current()
    counts = follower.catch_up()
    assert (counts.examined, counts.added, counts.removed) == (1, 5, 1)
    assert follower.indexed() == {"cli:b": 1, "cli:other": 5}


@pytest.mark.slow
def test_catch_ups_racing_two_writer_processes_miss_nothing(
    workspace: Workspace, follower: Follower
) -> None:
    _say(workspace, "cli:start", "the database exists before the writers race")
    follower.catch_up()
    writers = start_together(workspace.root, ("cli:left", "150"), ("cli:right", "150", "cli:start"))
    examined = 0
    while any(writer.poll() is None for writer in writers):
        examined += follower.catch_up().examined
    for writer in writers:
        writer.communicate(timeout=60)
        assert writer.returncode == 0

    follower.catch_up()

    assert follower.indexed() == _stored(workspace) == {"cli:left": 150, "cli:right": 150}
    assert follower.current()
    assert examined <= 300  # never every session per catch-up: at most what changed since
    conn = sqlite3.connect(follower.file.path)
    marks = dict(conn.execute("SELECT session_key, messages FROM marks").fetchall())
    conn.close()
    assert marks == {"cli:left": 150, "cli:right": 150}


def test_a_catch_up_behind_the_dropped_tombstones_compares_in_full(
    workspace: Workspace, follower: Follower
) -> None:
    doomed = [f"cli:d{number}" for number in range(TOMBSTONES + 3)]
    for key in [*doomed, "cli:keep"]:
        _say(workspace, key, "a line")
    follower.catch_up()

    for key in doomed:
        workspace.sessions.delete(key)

    counts = follower.catch_up()
    assert (counts.examined, counts.removed) == (1, len(doomed))  # every session: one is left
    assert follower.indexed() == {"cli:keep": 1}


def test_another_database_on_the_same_inode_is_compared_in_full(
    workspace: Workspace, follower: Follower
) -> None:
    for key in ("cli:a", "cli:b", "cli:c"):
        _say(workspace, key, "a line")
    follower.catch_up()
    follower.state.close()
    workspace.sessions.close()
    conn = sqlite3.connect(workspace.sessions.database)
    with conn:  # what a new database on a reused inode shows: another epoch, any number
        conn.execute("UPDATE changes SET epoch = epoch + 1, value = value + 10")
    conn.close()

    assert not follower.current()
    assert follower.catch_up().examined == 3
    assert follower.current()


def test_a_sessions_database_replaced_by_another_file_is_compared_in_full(
    workspace: Workspace, follower: Follower, tmp_path: Path
) -> None:
    for key in ("cli:a", "cli:b"):
        _say(workspace, key, "bees")
    database = workspace.sessions.database
    follower.state.close()
    workspace.sessions.close()
    saved = database.read_bytes()
    _say(workspace, "cli:a", "wasps")
    follower.catch_up()

    follower.state.close()
    workspace.sessions.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    swap = tmp_path / "swap.sqlite3"
    swap.write_bytes(saved)
    swap.replace(database)  # a new inode, the older content

    counts = follower.catch_up()
    assert (counts.examined, counts.reindexed) == (2, 1)
    assert follower.indexed() == {"cli:a": 1, "cli:b": 1}


def test_a_scoped_catch_up_leaves_the_watermark_for_the_next_full_one(
    workspace: Workspace, index: SearchIndex
) -> None:
    _say(workspace, "cli:a", "bees")
    _say(workspace, "cli:b", "bees")
    index.refresh()
    _say(workspace, "cli:a", "wasps in a")
    _say(workspace, "cli:b", "wasps in b")

    assert [hit.session_key for hit in index.search("wasps", session_key="cli:a")] == ["cli:a"]

    assert index.refresh().messages_added == 1  # cli:b's; cli:a's mark was level already
    assert {hit.session_key for hit in index.search("wasps")} == {"cli:a", "cli:b"}
