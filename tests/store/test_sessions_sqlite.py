"""The SQLite session store's own promises: moving journals in, forgetting, choosing the backend."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from reverie import Message, Session, Workspace
from reverie.errors import ConfigError
from reverie.store.sessions_sqlite import DATABASE, SqliteSessionStore
from reverie.store.workspace import SESSION_STORE_ENV

ROOT = Path(__file__).parents[2]
START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
_WORKER = (
    "import sys\n"
    "from reverie import Workspace\n"
    "print('ready', flush=True)\n"
    "Workspace.open(sys.argv[1], session_store='sqlite').close()\n"
    "print('done', flush=True)\n"
)


def _user(text: str) -> Message:
    return Message(role="user", content=text)


def _journal_workspace(root: Path, sessions: int, messages: int) -> dict[str, Session]:
    """Lay out a workspace whose sessions are journals; return them as loaded."""
    workspace = Workspace.open(root, create=True, session_store="journal")
    store = workspace.sessions
    for n in range(sessions):
        key = f"tg:{n}" if n % 7 else "k" * 300 + str(n)  # some keys get hashed file names
        store.append_many(key, [_user(f"{n}-{i}") for i in range(messages)])
        store.set_compacted_upto(key, n % messages)
        store.update_metadata(key, {"n": n, "tags": ["a"]})
        if n % 3 == 0:
            store.set_summary(key, f"summary {n}", START + timedelta(minutes=n))
    loaded = {info.key: store.load(info.key) for info in store.list()}
    workspace.close()
    return loaded


def _sessions(root: Path) -> dict[str, Session]:
    workspace = Workspace.open(root, session_store="sqlite")
    try:
        return {info.key: workspace.sessions.load(info.key) for info in workspace.sessions.list()}
    finally:
        workspace.close()


def test_journals_move_into_the_database_whole_on_open(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    expected = _journal_workspace(root, sessions=15, messages=6)
    with (root / "sessions" / "tg%3a1.journal").open("ab") as handle:
        handle.write(b'{"t":"msg","at":"2026-11-30T09:00:00+00:00","m":{"role":"us')  # torn
    assert _sessions(root) == expected
    assert not list((root / "sessions").glob("*.journal"))
    workspace = Workspace.open(root, session_store="sqlite")
    [torn] = workspace.sessions.quarantine.records()
    assert torn.reason == "torn last line"
    assert workspace.sessions.append("tg:1", _user("after")) == 6
    workspace.close()


@pytest.mark.slow
def test_sigkill_during_the_move_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    expected = _journal_workspace(root, sessions=120, messages=30)
    rng = random.Random(11)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    interrupted = 0
    for _ in range(8):
        if not list((root / "sessions").glob("*.journal")):
            break
        worker = subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(root)], stdout=subprocess.PIPE, text=True, env=env
        )
        assert worker.stdout is not None
        assert worker.stdout.readline() == "ready\n"
        # Killed by progress, not by time: once a random number of the journals left have
        # moved (a load-dependent sleep let an idle machine finish the move before any kill).
        left = len(list((root / "sessions").glob("*.journal")))
        target = left - rng.randint(1, max(1, left - 1))
        deadline = time.monotonic() + 30
        while worker.poll() is None and time.monotonic() < deadline:
            if len(list((root / "sessions").glob("*.journal"))) <= target:
                break
            time.sleep(0.001)
        worker.send_signal(signal.SIGKILL)
        output, _ = worker.communicate(timeout=30)
        interrupted += "done" not in output
        journals = {path.name for path in (root / "sessions").glob("*.journal")}
        moved = SqliteSessionStore(
            root / "sessions", state_dir=root / ".reverie", clock=lambda: START
        ).list()
        assert len(journals) + len(moved) >= len(expected)  # each session is somewhere
    assert interrupted >= 1
    assert _sessions(root) == expected
    assert not list((root / "sessions").glob("*.journal"))


def test_forget_leaves_no_byte_of_the_message_in_the_database_or_its_wal(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    first = Workspace.open(root, create=True, session_store="sqlite")
    second = Workspace.open(root, session_store="sqlite")
    first.sessions.append_many("k", [_user("keep this"), _user("the code is QX-9911-ZZ")])
    assert len(second.sessions.load("k").messages) == 2  # its replay cache now holds the secret
    first.sessions.redact("k", [1])
    assert [m.text for m in second.sessions.load("k").messages] == ["keep this", "[forgotten]"]
    first.close()
    second.close()
    for path in (root / ".reverie").glob(DATABASE + "*"):
        assert b"QX-9911-ZZ" not in path.read_bytes(), path


def test_sizes_grow_with_every_write_so_readers_see_each_change(tmp_path: Path) -> None:
    workspace = Workspace.open(tmp_path / "ws", create=True, session_store="sqlite")
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
    workspace = Workspace.open(root, create=True, session_store="sqlite")
    assert workspace.sessions.list() == []
    assert workspace.sessions.load("k").messages == ()
    assert not (root / ".reverie" / DATABASE).exists()
    workspace.sessions.append("k", _user("x"))
    assert (root / ".reverie" / DATABASE).exists()
    workspace.close()


def test_an_unknown_backend_is_a_config_error_naming_where_it_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ConfigError, match="session_store is 'csv'"):
        Workspace.open(tmp_path / "ws", create=True, session_store="csv")
    monkeypatch.setenv(SESSION_STORE_ENV, "postgres")
    with pytest.raises(ConfigError, match=f"{SESSION_STORE_ENV} is 'postgres'"):
        Workspace.open(tmp_path / "ws", create=True)
