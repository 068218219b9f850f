"""The sessions database's change sequence: every change numbered, in order, by any writer,
deletions kept as tombstones, and an older database upgraded in place."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from reverie import Message, Session
from reverie.storage.folder.session_changes import TOMBSTONES
from reverie.storage.folder.workspace import Workspace
from tests.barrier import release_together
from tests.store.stored_sessions import write_old_database

WORKER = Path(__file__).with_name("changes_worker.py")
ROOT = Path(__file__).parents[2]
START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def _say(workspace: Workspace, key: str, text: str) -> None:
    workspace.sessions.append(key, Message(role="user", content=text))


def _read(database: Path, sql: str, *args: object) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def _last(database: Path) -> int:
    (value,) = _read(database, "SELECT value FROM changes")[0]
    assert isinstance(value, int)
    return value


def _changed(database: Path, key: str) -> object:
    return _read(database, "SELECT changed FROM sessions WHERE key = ?", key)[0][0]


def test_every_write_of_a_session_takes_the_next_number(workspace: Workspace) -> None:
    database = workspace.sessions.database
    _say(workspace, "cli:a", "one")
    _say(workspace, "cli:b", "two")
    first_a, first_b = _changed(database, "cli:a"), _changed(database, "cli:b")
    assert isinstance(first_a, int)
    assert isinstance(first_b, int)

    workspace.sessions.set_compacted_upto("cli:a", 1)
    after_mark = _changed(database, "cli:a")
    workspace.sessions.redact("cli:a", {0})
    after_redact = _changed(database, "cli:a")
    workspace.sessions.put(Session(key="cli:a", created_at=START, updated_at=START))
    after_put = _changed(database, "cli:a")

    assert first_a < first_b < after_mark < after_redact < after_put == _last(database)  # type: ignore[operator]
    assert _changed(database, "cli:b") == first_b  # untouched, unnumbered again


def test_a_deleted_session_leaves_a_tombstone_until_it_is_made_anew(
    workspace: Workspace,
) -> None:
    database = workspace.sessions.database
    _say(workspace, "cli:a", "one")
    _say(workspace, "cli:b", "two")
    before = _last(database)

    workspace.sessions.delete("cli:a")

    assert _read(database, "SELECT key, changed FROM deleted_sessions") == [("cli:a", before + 1)]
    assert _last(database) == before + 1
    _say(workspace, "cli:a", "back again")
    assert _read(database, "SELECT key FROM deleted_sessions") == []
    assert _changed(database, "cli:a") == _last(database)


def test_an_older_database_gains_the_sequence_in_place(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    workspace = Workspace.open(root, create=True)
    database = workspace.sessions.database
    write_old_database(database, {"cli:old": ["old bees"]})
    inode = database.stat().st_ino

    assert [m.text for m in workspace.sessions.load("cli:old").messages] == ["old bees"]
    _say(workspace, "cli:old", "new wasps")

    assert database.stat().st_ino == inode  # upgraded in place, not rebuilt
    assert [m.text for m in workspace.sessions.load("cli:old").messages] == [
        "old bees",
        "new wasps",
    ]
    assert _changed(database, "cli:old") == _last(database) == 1
    names = {row[0] for row in _read(database, "SELECT name FROM sqlite_master")}
    assert {"changes", "deleted_sessions", "sessions_changed", "sessions_updated"} <= names
    workspace.close()


def test_opening_an_upgraded_database_again_changes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    first = Workspace.open(root, create=True)
    _say(first, "cli:a", "one")
    before = _read(first.sessions.database, "SELECT * FROM changes")
    first.close()

    second = Workspace.open(root)
    _say(second, "cli:a", "two")

    after = _read(second.sessions.database, "SELECT * FROM changes")
    assert [(row[0], row[2]) for row in after] == [(row[0], row[2]) for row in before]  # epoch
    assert after[0][1] == before[0][1] + 1  # type: ignore[operator]
    second.close()


def _spawn(root: Path, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    argv = [sys.executable, str(WORKER), str(root), *args]
    return subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env
    )


def start_together(root: Path, *runs: tuple[str, ...]) -> list[subprocess.Popen[str]]:
    """Start ``changes_worker`` once per argument tuple; release them all at one instant."""
    workers = [_spawn(root, *args) for args in runs]
    release_together(workers)
    return workers


def test_writers_in_two_processes_never_take_one_number(workspace: Workspace) -> None:
    _say(workspace, "cli:start", "the database exists before the writers race")
    writers = start_together(workspace.root, ("cli:left", "150"), ("cli:right", "150"))
    numbers: list[list[int]] = []
    for writer in writers:
        output, _ = writer.communicate(timeout=120)
        assert writer.returncode == 0
        numbers.append([int(line.split("\t")[1]) for line in output.splitlines()])

    every = numbers[0] + numbers[1]
    assert len(every) == len(set(every)) == 300
    assert all(own == sorted(own) for own in numbers)  # each writer's numbers increase
    assert max(every) <= _last(workspace.sessions.database)


def test_tombstones_are_bounded_and_the_dropped_ones_are_counted(workspace: Workspace) -> None:
    database = workspace.sessions.database
    doomed = [f"cli:d{number}" for number in range(TOMBSTONES + 5)]
    for key in doomed:
        _say(workspace, key, "soon gone")
    numbers = []
    for key in doomed:
        workspace.sessions.delete(key)
        numbers.append(_last(database))

    kept = _read(database, "SELECT key FROM deleted_sessions ORDER BY changed")
    assert [key for (key,) in kept] == doomed[5:]
    assert _read(database, "SELECT forgotten FROM changes") == [(numbers[4],)]
