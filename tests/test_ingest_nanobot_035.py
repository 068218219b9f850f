"""A workspace in nanobot 0.3.5's own layout, ingested whole, under a fake HOME.

nanobot 0.3.5 keeps sessions outside the workspace, in
``~/.nanobot/sessions/<workspace-id>/<base64url(key)>.jsonl`` (the id in
``<workspace>/.nanobot/workspace-id``), writes ``last_archived`` next to the older
``last_consolidated``, a ``provider_state`` record after the metadata line, and its session
summary in ``metadata._last_summary``. Everything must import once, nothing nanobot archived is
summarised again, non-message records are skipped quietly, and a second ingest adds nothing,
whichever path (workspace, sessions folder, one file) brought the sessions. The ingests run
on a workspace folder and on a PostgreSQL workspace (``ingest_target``).
"""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest

from reverie.core.entries import HistoryEntry
from reverie.memory.ingest.importers import detect, load
from reverie.storage.ports import Stores
from tests.ingest.targets import Target

WORKSPACE_ID = "0123456789abcdef0123456789abcdef"
SUMMARY = "User Mia plans a garden in Bergen; she wants raised beds."


def _tool_turns() -> list[dict[str, object]]:
    call = {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
    return [
        {"role": "user", "content": "Weather in Oslo?", "timestamp": "2026-10-01T09:00:00"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "name": "weather", "content": "rain, 9 C"},
        {"role": "assistant", "content": "Rain, 9 C.", "timestamp": "2026-10-01T09:00:05"},
        {"role": "user", "content": "I am moving to Oslo in May.", "timestamp": "2026-10-02T09:00"},
        {"role": "assistant", "content": "Noted: Oslo in May.", "timestamp": "2026-10-02T09:00:02"},
    ]


def _chat(prefix: str, count: int) -> list[dict[str, object]]:
    return [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"{prefix} message {i}: the raised beds need cedar.",
            "timestamp": f"2026-10-0{3 + i // 2}T10:00:00",
        }
        for i in range(count)
    ]


SESSIONS: dict[str, tuple[dict[str, object], list[dict[str, object]]]] = {
    "telegram:1": ({"last_archived": 4, "last_consolidated": 4}, _tool_turns()),
    "cli:direct": ({"last_archived": 0}, _chat("cli", 4)),
    "slack:9": (
        {
            "last_archived": 2,
            "last_consolidated": 0,
            "metadata": {"_last_summary": {"text": SUMMARY, "last_active": "2026-10-03T10:00:00"}},
        },
        _chat("slack", 6),
    ),
}


def _session_file(folder: Path, key: str) -> Path:
    header, messages = SESSIONS[key]
    meta = {"_type": "metadata", "key": key, "created_at": "2026-10-01T08:00:00", "metadata": {}}
    lines = [{**meta, **header}]
    if key == "cli:direct":
        lines.append({"_type": "provider_state", "state": {"response_id": "resp_1"}})
    lines += messages
    stem = base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")
    path = folder / f"{stem}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake HOME holding ~/.nanobot/workspace and its 0.3.5 sessions folder."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    workspace = home / ".nanobot" / "workspace"
    (workspace / "memory").mkdir(parents=True)
    (workspace / ".nanobot").mkdir()
    (workspace / ".nanobot" / "workspace-id").write_text(WORKSPACE_ID + "\n")
    (workspace / "USER.md").write_text("# User\n\n- Name: Mia\n")
    (workspace / "memory" / "MEMORY.md").write_text("# Memory\n")
    entry = {"cursor": 1, "timestamp": "2026-10-01 09:10", "content": "- [durable] Mia: Oslo"}
    entry["session_key"] = "telegram:1"
    (workspace / "memory" / "history.jsonl").write_text(json.dumps(entry) + "\n")
    (workspace / "memory" / ".cursor").write_text("1")
    folder = home / ".nanobot" / "sessions" / WORKSPACE_ID
    folder.mkdir(parents=True)
    (folder / ".workspace").write_text(f"{workspace}\n")
    (folder / ".session-files.lock").write_text("")
    for key in SESSIONS:
        _session_file(folder, key)
    (folder / "dGVsZWdyYW06MQ.checkpoint.json").write_text("{}")
    return home


def _workspace(home: Path) -> Path:
    return home / ".nanobot" / "workspace"


def _sessions_folder(home: Path) -> Path:
    return home / ".nanobot" / "sessions" / WORKSPACE_ID


def _key(key: str) -> str:
    return f"import:nanobot:workspace:{key}"


def _entries_of(stores: Stores, key: str) -> list[HistoryEntry]:
    return [e for e in stores.history.entries() if e.session_key == _key(key)]


def _check_imported_once(stores: Stores) -> None:
    sessions = stores.sessions
    for key, (header, messages) in SESSIONS.items():
        session = sessions.load(_key(key))
        assert [m.role for m in session.messages] == [m["role"] for m in messages], key
        compacted = int(str(header["last_archived"]))
        for entry in _entries_of(stores, key):
            if entry.content == SUMMARY:
                assert entry.range == (0, compacted)
            elif entry.range is not None:  # reverie's own compaction never redoes nanobot's
                assert entry.range[0] >= compacted, (key, entry.range)
    assert [e.content for e in _entries_of(stores, "slack:9")].count(SUMMARY) == 1
    assert not sessions.exists("telegram:1")  # never merged into a live session


def test_the_sessions_folder_of_a_0_3_5_workspace_is_found_under_home(home: Path) -> None:
    assert detect(_workspace(home)) == "nanobot-workspace"
    assert detect(_sessions_folder(home)) == "nanobot-sessions"
    batch = load(_workspace(home))
    assert batch.problems == ()
    assert batch.skipped_records == 1
    assert sorted(c.key for c in batch.conversations) == sorted(_key(k) for k in SESSIONS)
    slack = next(c for c in batch.conversations if c.key == _key("slack:9"))
    assert (slack.compacted, slack.summary is not None) == (2, True)
    telegram = next(c for c in batch.conversations if c.key == _key("telegram:1"))
    assert telegram.compacted == 4
    assert batch.workspace is not None
    assert batch.workspace.history[0].session_key == _key("telegram:1")


def test_a_0_3_5_workspace_imports_whole_once(home: Path, ingest_target: Target) -> None:
    engine, stores = ingest_target.engine, ingest_target.stores
    report = engine.ingest([_workspace(home)])
    assert report.problems == ()
    assert report.records_skipped == 1
    assert report.sessions == len(SESSIONS)
    assert report.messages_added == sum(len(m) for _h, m in SESSIONS.values())
    _check_imported_once(stores)
    assert stores.sessions.load(_key("telegram:1")).compacted_upto >= 4
    last = stores.history.last_cursor()

    again = engine.ingest([_workspace(home), _sessions_folder(home)])
    assert (again.messages_added, again.entries, again.commits) == (0, 0, 0)
    assert stores.history.last_cursor() == last


def test_the_sessions_folder_and_single_files_import_under_the_same_keys(
    home: Path, ingest_target: Target
) -> None:
    engine = ingest_target.engine
    first_file = _session_file(_sessions_folder(home), "slack:9")
    one = engine.ingest([first_file])
    assert one.messages_added == len(SESSIONS["slack:9"][1])
    folder = engine.ingest([_sessions_folder(home)])
    assert folder.problems == ()
    assert folder.records_skipped == 1
    assert folder.messages_skipped == len(SESSIONS["slack:9"][1])
    _check_imported_once(ingest_target.stores)
    whole = engine.ingest([_workspace(home)])
    assert whole.messages_added == 0


def test_symlinks_out_of_the_source_are_skipped_and_reported(
    home: Path, tmp_path: Path, ingest_target: Target
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# User\n\n- password: hunter2\n")
    secret_session = _session_file(outside, "cli:direct")
    workspace, folder = _workspace(home), _sessions_folder(home)
    (workspace / "USER.md").unlink()
    (workspace / "USER.md").symlink_to(outside / "secret.md")
    (folder / "bGVhaw.jsonl").symlink_to(secret_session)
    shutil.copy(folder / "bGVhaw.jsonl", outside / "copy.jsonl")  # the link does resolve
    report = ingest_target.engine.ingest([workspace])
    skipped = {(p.path.name, p.position) for p in report.problems}
    assert skipped == {("USER.md", 0), ("bGVhaw.jsonl", 0)}
    assert all("symlink" in p.reason for p in report.problems)
    assert "hunter2" not in ingest_target.everything()
