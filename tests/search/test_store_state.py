"""The index's cheap view of the session store: it answers "level" without listing sessions,
and still sees every commit, whoever makes it, and a replaced database."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from reverie import Message
from reverie.storage.folder.index import SearchIndex
from reverie.storage.folder.index.store_state import StoreState
from reverie.storage.folder.workspace import Workspace


def _say(workspace: Workspace, key: str, text: str) -> None:
    workspace.sessions.append(key, Message(role="user", content=text))


def test_counts_are_what_the_store_lists(workspace: Workspace) -> None:
    _say(workspace, "cli:a", "one")
    _say(workspace, "cli:a", "two")
    _say(workspace, "cli:b", "three")
    state = StoreState(workspace.sessions.database)

    counts = state.counts()

    assert counts == {i.key: (i.message_count, i.size) for i in workspace.sessions.list()}
    state.close()


def test_no_database_yet_means_cannot_tell(tmp_path: Path) -> None:
    state = StoreState(tmp_path / "sessions.sqlite3")

    assert state.version() is None
    assert state.counts() is None


def test_the_version_moves_with_a_commit_of_this_process_store(workspace: Workspace) -> None:
    _say(workspace, "cli:a", "one")
    state = StoreState(workspace.sessions.database)
    before = state.version()

    _say(workspace, "cli:a", "two")

    assert before is not None
    assert state.version() != before
    state.close()


def test_a_query_after_the_index_was_found_level_still_sees_new_messages(
    workspace: Workspace, index: SearchIndex
) -> None:
    _say(workspace, "cli:a", "bees in the garden")
    assert len(index.search("bees")) == 1
    assert len(index.search("bees")) == 1  # level: answered from the version alone

    _say(workspace, "cli:b", "more bees on the roof")

    assert len(index.search("bees")) == 2


def test_a_replaced_sessions_database_is_read_afresh(
    workspace: Workspace, index: SearchIndex, tmp_path: Path
) -> None:
    _say(workspace, "cli:a", "bees in the garden")
    saved = tmp_path / "saved.sqlite3"
    database = workspace.sessions.database
    workspace.sessions.close()
    shutil.copy(database, saved)
    _say(workspace, "cli:a", "wasps in the shed")
    assert len(index.search("wasps")) == 1
    workspace.sessions.close()

    for suffix in ("-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    shutil.copy(saved, database.with_name("swap"))
    database.with_name("swap").replace(database)  # a new inode, the older content

    assert index.search("wasps") == []
    assert len(index.search("bees")) == 1


def test_new_messages_of_a_marked_session_are_read_from_its_tail_alone(
    workspace: Workspace, index: SearchIndex
) -> None:
    for number in range(5):
        _say(workspace, "cli:a", f"message {number} about the garden")
    index.refresh()
    _say(workspace, "cli:a", "the bees came back")

    stats = index.refresh()
    hits = index.search("bees")

    assert stats.messages_added == 1
    assert stats.sessions_reindexed == 0
    assert [(hit.message_index, hit.snippet) for hit in hits] == [(5, "the **bees** came back")]


def test_a_redacted_session_is_indexed_again_from_its_first_message(
    workspace: Workspace, index: SearchIndex
) -> None:
    _say(workspace, "cli:a", "bees in the garden")
    _say(workspace, "cli:a", "my code is hunter2")
    _say(workspace, "cli:a", "wasps in the shed")
    index.refresh()
    workspace.sessions.redact("cli:a", {1})

    stats = index.refresh()

    assert stats.sessions_reindexed == 1
    assert index.search("hunter2") == []
    assert len(index.search("wasps")) == 1


def test_an_index_file_of_an_older_reverie_gains_the_generation_column(
    workspace: Workspace, index: SearchIndex
) -> None:
    _say(workspace, "cli:a", "bees in the garden")
    index.refresh()
    index.close()
    with sqlite3.connect(index.path) as conn:
        conn.execute("ALTER TABLE marks DROP COLUMN generation")
    conn.close()
    _say(workspace, "cli:a", "wasps in the shed")

    assert len(index.search("wasps")) == 1
    with sqlite3.connect(index.path) as conn:
        columns = {column[1] for column in conn.execute("PRAGMA table_info(marks)")}
    conn.close()
    assert "generation" in columns
