"""Keeping the index current: incremental catch-up, trims, rewrites, deletions, damaged files."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reverie import Message, Session, StorageError
from reverie.core.hits import RefreshStats
from reverie.storage.folder.index import SearchIndex
from reverie.storage.folder.workspace import Workspace


def _say(workspace: Workspace, key: str, text: str) -> int:
    return workspace.sessions.append(key, Message(role="user", content=text))


def _fill(workspace: Workspace) -> None:
    workspace.history.append("the user keeps bees", session_key="cli:a")
    _say(workspace, "cli:a", "my bees swarmed today")
    _say(workspace, "cli:b", "no bees here")


def test_first_refresh_indexes_everything_and_the_next_nothing(
    workspace: Workspace, index: SearchIndex
) -> None:
    _fill(workspace)

    first = index.refresh()
    second = index.refresh()

    assert first == RefreshStats(history_added=1, messages_added=2, rebuilt=True)
    assert second == RefreshStats()
    assert not second.changed


def test_appends_after_a_search_are_indexed_incrementally(
    workspace: Workspace, index: SearchIndex
) -> None:
    _fill(workspace)
    assert len(index.search("bees")) == 3

    entry = workspace.history.append("bees need sugar water in winter")
    position = _say(workspace, "cli:a", "bought sugar for the bees")
    stats = index.refresh()

    assert stats == RefreshStats(history_added=1, messages_added=1)
    hits = index.search("sugar")
    assert {(hit.cursor, hit.message_index) for hit in hits} == {
        (entry.cursor, None),
        (None, position),
    }


def test_search_catches_up_before_answering(workspace: Workspace, index: SearchIndex) -> None:
    _fill(workspace)
    index.search("bees")
    _say(workspace, "cli:c", "a brand new session about wasps")

    assert [hit.session_key for hit in index.search("wasps")] == ["cli:c"]
    assert index.refresh() == RefreshStats()  # the search already indexed it


def test_a_compaction_mark_moving_adds_nothing(workspace: Workspace, index: SearchIndex) -> None:
    _fill(workspace)
    index.refresh()

    workspace.sessions.set_compacted_upto("cli:a", 1)

    assert index.refresh() == RefreshStats()
    assert len(index.search("swarmed")) == 1


def test_a_missing_index_is_rebuilt(workspace: Workspace, index: SearchIndex) -> None:
    _fill(workspace)
    index.refresh()
    index.close()
    index.path.unlink()

    assert len(index.search("bees")) == 3
    assert index.path.exists()
    assert index.refresh() == RefreshStats()


def test_an_index_removed_under_an_open_index_is_rebuilt(
    workspace: Workspace, index: SearchIndex
) -> None:
    _fill(workspace)
    index.refresh()
    index.path.unlink()  # while this process still has it open

    stats = index.refresh()

    assert stats == RefreshStats(history_added=1, messages_added=2, rebuilt=True)


def test_a_garbage_index_file_is_moved_aside_and_rebuilt(workspace: Workspace) -> None:
    _fill(workspace)
    first = SearchIndex(workspace)
    first.refresh()
    first.close()
    first.path.write_bytes(b"this is not an sqlite database at all " * 200)

    second = SearchIndex(workspace)
    hits = second.search("bees")
    second.close()

    assert len(hits) == 3
    kept = list(first.path.parent.glob("search.sqlite.corrupt-*"))
    assert len(kept) == 1
    assert kept[0].read_bytes().startswith(b"this is not an sqlite")


def test_damage_found_while_open_is_repaired_transparently(
    workspace: Workspace, index: SearchIndex
) -> None:
    _fill(workspace)
    index.refresh()
    size = index.path.stat().st_size
    with index.path.open("r+b") as handle:
        handle.seek(24)  # bump the file change counter, so the open connection drops its cache
        handle.write(b"\x7f\x00\x00\x01")
        handle.seek(100)  # keep the header, scramble every page after it
        handle.write(b"\xff" * (size - 100))

    assert len(index.search("bees")) == 3
    assert len(list(index.path.parent.glob("search.sqlite.corrupt-*"))) == 1


def test_an_index_of_another_schema_version_is_rebuilt(
    workspace: Workspace, index: SearchIndex
) -> None:
    _fill(workspace)
    index.refresh()
    index.close()
    with sqlite3.connect(index.path) as conn:
        conn.execute("UPDATE meta SET value = 999 WHERE name = 'schema'")
    conn.close()

    assert index.refresh().rebuilt
    assert len(index.search("bees")) == 3


def test_a_foreign_database_at_the_path_is_replaced(
    workspace: Workspace, index: SearchIndex
) -> None:
    _fill(workspace)
    with sqlite3.connect(index.path) as conn:
        conn.execute("CREATE TABLE unrelated(x)")
    conn.close()

    assert index.refresh().rebuilt
    assert len(index.search("bees")) == 3


def test_rebuild_starts_from_nothing(workspace: Workspace, index: SearchIndex) -> None:
    _fill(workspace)
    index.refresh()

    stats = index.rebuild()

    assert stats == RefreshStats(history_added=1, messages_added=2, rebuilt=True)
    assert len(index.search("bees")) == 3


def test_a_deleted_session_disappears(workspace: Workspace, index: SearchIndex) -> None:
    _fill(workspace)
    index.refresh()

    workspace.sessions.delete("cli:b")

    assert index.refresh() == RefreshStats(messages_removed=1)
    assert {hit.session_key for hit in index.search("bees")} == {"cli:a"}


def test_a_replaced_session_is_indexed_again(workspace: Workspace, index: SearchIndex) -> None:
    _fill(workspace)
    _say(workspace, "cli:b", "second message")
    index.refresh()
    now = datetime(2026, 12, 1, tzinfo=UTC)
    workspace.sessions.put(
        Session(
            key="cli:b",
            created_at=now,
            updated_at=now,
            messages=(
                Message(role="user", content="only hornets now"),
                Message(role="user", content="and more hornets"),
                Message(role="user", content="a third message"),
            ),
        )
    )

    stats = index.refresh()

    assert stats == RefreshStats(messages_added=3, messages_removed=2, sessions_reindexed=1)
    assert {hit.session_key for hit in index.search("bees")} == {"cli:a"}
    assert [hit.message_index for hit in index.search("hornets", session_key="cli:b")] == [1, 0]


def test_trimmed_history_entries_leave_the_index(workspace: Workspace, index: SearchIndex) -> None:
    for number in range(6):
        workspace.history.append(f"entry {number} mentions otters")
    workspace.dream_cursor.write(4)
    index.refresh()

    trimmed = workspace.history.trim(keep=2)

    assert trimmed.dropped == 4
    assert index.refresh() == RefreshStats(history_added=2, history_removed=6)
    assert sorted(hit.cursor or 0 for hit in index.search("otters")) == [5, 6]


def test_nanobot_entries_without_a_precise_time_use_their_local_timestamp(
    workspace: Workspace, index: SearchIndex
) -> None:
    line = '{"cursor": 1, "timestamp": "2026-03-04 05:06", "content": "legacy walrus note"}\n'
    with workspace.history.path.open("a", encoding="utf-8") as handle:
        handle.write(line)
        handle.write('{"cursor": 2, "timestamp": "someday", "content": "undated walrus"}\n')

    hits = {hit.cursor: hit.timestamp for hit in index.search("walrus")}

    assert hits[1] == datetime(2026, 3, 4, 5, 6).astimezone()
    assert hits[2] is None


def test_a_missing_history_file_counts_as_empty(workspace: Workspace, index: SearchIndex) -> None:
    _say(workspace, "cli:a", "only a message about moths")
    Path(workspace.history.path).unlink()

    assert index.refresh() == RefreshStats(messages_added=1, rebuilt=True)
    assert len(index.search("moths")) == 1


def test_many_items_are_indexed_in_batches(workspace: Workspace, index: SearchIndex) -> None:
    for number in range(2500):
        workspace.history.append(f"log line {number} about pelicans")

    assert index.refresh().history_added == 2500
    assert len(index.search("pelicans", limit=3000)) == 2500
    assert [hit.cursor for hit in index.search("2499")] == [2500]


def test_a_naive_message_time_is_taken_as_utc(workspace: Workspace, index: SearchIndex) -> None:
    naive = datetime(2026, 5, 6, 7, 8)  # noqa: DTZ001 -- a foreign agent's naive timestamp
    workspace.sessions.append("cli:a", Message(role="user", content="naive heron", timestamp=naive))

    (hit,) = index.search("heron")

    assert hit.timestamp == naive.replace(tzinfo=UTC)


def test_an_index_path_that_cannot_be_opened_fails_refresh_but_search_answers(
    workspace: Workspace, index: SearchIndex
) -> None:
    index.path.mkdir(parents=True)
    workspace.history.append("the harbour crane is red")

    with pytest.raises(StorageError, match="search index"):
        index.refresh()
    # A search still answers, from a scratch index outside the workspace (issue #14).
    assert [hit.kind for hit in index.search("harbour")] == ["history"]
    assert index.path.is_dir()


def test_a_level_index_answers_without_writing(workspace: Workspace, index: SearchIndex) -> None:
    _fill(workspace)
    index.refresh()
    before = _written(index.path)

    index.search("bees")
    index.candidates(["bees"], limit=5, session_key="cli:a")

    assert _written(index.path) == before
    _say(workspace, "cli:a", "the queen bee is back")
    assert [hit.message_index for hit in index.search("queen", session_key="cli:a")] == [1]
    assert _written(index.path) != before


def test_a_deleted_session_is_noticed_by_a_scoped_query(
    workspace: Workspace, index: SearchIndex
) -> None:
    _fill(workspace)
    index.refresh()

    workspace.sessions.delete("cli:b")

    assert index.search("bees", session_key="cli:b") == []
    assert index.refresh() == RefreshStats()


def _written(path: Path) -> tuple[tuple[int, int], ...]:
    """When the index file and its journals were last written, and their sizes."""
    files = [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-journal")]
    return tuple((f.stat().st_mtime_ns, f.stat().st_size) for f in files if f.exists())
