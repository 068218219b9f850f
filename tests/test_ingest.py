"""Ingest end to end, on a workspace folder and on a PostgreSQL workspace (``ingest_target``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from reverie import Message
from reverie.cli.ingest_command import undreamt_line
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from tests.conftest import StepClock
from tests.ingest.targets import Target, snapshot

EXAMPLES = Path(__file__).parents[1] / "examples"


def _engine(tmp_path: Path, clock: StepClock) -> MemoryEngine:
    return MemoryEngine.open(tmp_path / "ws", Config(), clock=clock, environ={}, dense="off")


def _everything(root: Path) -> str:
    return "\n".join(
        p.read_text(errors="replace")
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.parts
    )


def test_the_examples_become_durable_audited_memory_without_a_model(
    ingest_target: Target,
) -> None:
    engine, stores = ingest_target.engine, ingest_target.stores
    stages: set[str] = set()
    report = engine.ingest(
        [EXAMPLES / "conversations.json", EXAMPLES / "chatgpt-export"],
        on_progress=lambda stage, done, total: stages.add(stage),
    )
    assert report.mode == "model-free"
    assert report.sessions == 6
    assert report.messages_added > 40
    assert report.entries >= 6
    assert report.commits >= 1
    assert report.problems == ()
    assert stages == {"import", "replay", "dream"}
    files = stores.files
    assert "Utrecht" in files.read("USER")
    assert "Postgres 16" in files.read("MEMORY")
    assert "Always reply in English" in files.read("SOUL")
    assert engine.status().pending_entries == 0
    if ingest_target.kind == "folder":
        assert "tulip-harbour-42" not in _everything(Path(engine.location) / "memory")
    assert "tulip-harbour-42" not in ingest_target.everything()
    log = stores.audit.log(10)
    assert log[0].subject.endswith("(model-free)")
    hits = engine.search("DuckDB")
    assert hits


def test_ingesting_the_same_data_again_adds_nothing(tmp_path: Path, ingest_target: Target) -> None:
    engine, stores = ingest_target.engine, ingest_target.stores
    sources = [_nanobot_workspace(tmp_path), EXAMPLES / "conversations.json"]
    engine.ingest(sources)
    cursor = stores.history.last_cursor()
    commits = len(stores.audit.log(100))
    before = snapshot(stores)
    again = engine.ingest(sources)
    assert (again.messages_added, again.entries, again.commits, again.dream_runs) == (0, 0, 0, 0)
    assert again.messages_skipped > 0
    assert stores.history.last_cursor() == cursor
    assert len(stores.audit.log(100)) == commits
    assert snapshot(stores) == before


def test_an_ingest_while_another_holds_the_dream_says_what_still_waits(
    ingest_target: Target,
) -> None:
    engine, stores = ingest_target.engine, ingest_target.stores
    other = ingest_target.reopen()  # another process's view: its own lock on the dream
    lock = other.lock("dream")
    try:
        with lock.hold():
            report = engine.ingest([EXAMPLES / "conversations.json"])
    finally:
        lock.close()
        other.close()
    assert report.entries > 0
    assert (report.undreamt, report.dream_stopped) == (report.entries, "busy")
    assert "another process holds the dream" in undreamt_line(report)
    assert engine.dream().outcome == "completed"  # the next dream takes them
    again = engine.ingest([EXAMPLES / "conversations.json"])
    assert (again.undreamt, again.dream_stopped) == (0, None)
    assert stores.dream_cursor.read() == stores.history.last_cursor()


def test_a_damaged_record_is_reported_and_the_rest_imported(
    tmp_path: Path, clock: StepClock
) -> None:
    source = tmp_path / "chats.jsonl"
    lines = [
        json.dumps(
            {"role": "user", "content": "I live in Oslo.", "timestamp": "2026-11-01T10:00:00+00:00"}
        ),
        "{not json",
        json.dumps(
            {"role": "assistant", "content": "Noted.", "timestamp": "2026-11-01T10:00:05+00:00"}
        ),
    ]
    source.write_text("\n".join(lines) + "\n")
    engine = _engine(tmp_path, clock)
    report = engine.ingest([source])
    assert len(report.problems) == 1
    assert "2" in report.problems[0].describe()
    assert report.messages_added == 2
    assert "Oslo" in engine.read_memory("USER")


def _nanobot_workspace(tmp_path: Path) -> Path:
    nano = tmp_path / "nanobot"
    (nano / "memory").mkdir(parents=True)
    (nano / "sessions").mkdir()
    (nano / "USER.md").write_text("# User\n\n- Name: Ana\n")
    (nano / "SOUL.md").write_text("# Soul\n\n- Be terse.\n")
    (nano / "memory" / "MEMORY.md").write_text("# Memory\n\n- Project: kelp\n")
    history = [
        {"cursor": 1, "timestamp": "2026-10-01 09:00", "content": "- [durable] kelp uses Rust"},
        {
            "cursor": 2,
            "timestamp": "2026-10-02 09:00",
            "content": "- [permanent] User: I live in Porto.",
        },
    ]
    (nano / "memory" / "history.jsonl").write_text("".join(json.dumps(h) + "\n" for h in history))
    (nano / "memory" / ".cursor").write_text("2")
    (nano / "memory" / ".dream_cursor").write_text("1")
    session = [
        {
            "_type": "metadata",
            "key": "telegram:7",
            "created_at": "2026-10-01T09:00:00",
            "updated_at": "2026-10-02T09:00:00",
            "metadata": {},
            "last_consolidated": 2,
        },
        {"role": "user", "content": "hi", "timestamp": "2026-10-01T09:00:00"},
        {"role": "assistant", "content": "hello", "timestamp": "2026-10-01T09:00:01"},
        {"role": "user", "content": "I prefer tea.", "timestamp": "2026-10-02T09:00:00"},
    ]
    (nano / "sessions" / "telegram_7.jsonl").write_text(
        "".join(json.dumps(s) + "\n" for s in session)
    )
    return nano


def test_a_nanobot_workspace_is_adopted(tmp_path: Path, ingest_target: Target) -> None:
    nano = _nanobot_workspace(tmp_path)
    engine, stores = ingest_target.engine, ingest_target.stores
    report = engine.ingest([nano])
    assert report.problems == ()
    user = stores.files.read("USER")
    assert "Name: Ana" in user
    assert "Porto" in user
    assert "kelp uses Rust" not in stores.files.read("MEMORY")  # already dreamt by nanobot
    assert not stores.sessions.exists("telegram:7")  # never merged into a live key
    telegram = stores.sessions.load("import:nanobot:nanobot:telegram:7")
    assert [m.text for m in telegram.messages] == ["hi", "hello", "I prefer tea."]
    subjects = [commit.subject for commit in stores.audit.log(10)]
    assert any(subject.startswith("import: nanobot workspace") for subject in subjects)
    shutil.rmtree(nano / "sessions")
    again = engine.ingest([nano])
    assert again.entries == 0


def test_record_after_ingest_continues_the_session(ingest_target: Target) -> None:
    engine, stores = ingest_target.engine, ingest_target.stores
    engine.ingest([EXAMPLES / "chatgpt-export"])
    [key] = [i.key for i in stores.sessions.list() if i.key.startswith("import:")]
    before = len(stores.sessions.load(key).messages)
    engine.record(key, [Message(role="user", content="one more thing")])
    reopened = ingest_target.reopen()
    try:
        assert len(reopened.sessions.load(key).messages) == before + 1
    finally:
        reopened.close()


def test_a_kill_before_the_import_marks_are_saved_duplicates_nothing(
    tmp_path: Path, ingest_target: Target
) -> None:
    nano = _nanobot_workspace(tmp_path)
    engine = ingest_target.engine
    stores = ingest_target.stores
    engine.ingest([nano, EXAMPLES / "conversations.json"])
    history = [(e.session_key, e.content) for e in engine.history()]
    before = snapshot(stores), len(stores.audit.log(100))
    # What a SIGKILL between the history appends and the marks leaves behind.
    ingest_target.drop_marks()
    again = engine.ingest([nano])
    assert again.entries == 0
    assert again.messages_added == 0
    assert [(e.session_key, e.content) for e in engine.history()] == history
    assert (snapshot(stores), len(stores.audit.log(100))) == before
