from __future__ import annotations

from pathlib import Path

from reverie.config.settings import Config
from reverie.core.messages import Message
from reverie.engine.facade import MemoryEngine
from reverie.memory.doctor import examine
from reverie.storage.folder.doctor_checks import sqlite_damage
from reverie.storage.folder.workspace import Workspace
from reverie.testing.folders import workspace_of
from tests.conftest import StepClock


def _engine(tmp_path: Path, clock: StepClock) -> MemoryEngine:
    return MemoryEngine.open(tmp_path / "ws", Config(), clock=clock, environ={}, dense="off")


def test_status_reports_pending_entries_files_and_mode(tmp_path: Path, clock: StepClock) -> None:
    engine = _engine(tmp_path, clock)
    for index in range(3):
        workspace_of(engine).history.append(f"- [durable] fact {index}", session_key="cli:a")
    status = engine.status()
    assert status.mode == "model-free"
    assert (status.last_cursor, status.dream_cursor, status.pending_entries) == (3, 0, 3)
    assert [size.name for size in status.files] == ["SOUL", "USER", "MEMORY"]
    assert status.chat_model == "(none)"
    assert status.jobs == {"chat": "(none)", "compaction": "model-free", "dream": "model-free"}
    result = engine.dream()
    assert result.outcome == "completed"
    after = engine.status()
    assert after.pending_entries == 0
    assert after.last_dream.last_success is not None
    assert after.ledger["dream"].calls == 1


def test_status_counts_conversations_not_dream_transcripts(
    tmp_path: Path, clock: StepClock
) -> None:
    with _engine(tmp_path, clock) as engine:
        engine.record("cli:a", [Message(role="user", content="hello")])
        workspace_of(engine).sessions.append("dream:20261201", Message(role="user", content="run"))
        workspace_of(engine).sessions.append("cron:daily", Message(role="user", content="tick"))
        assert engine.status().sessions == 1


def test_status_names_the_model_of_each_job(tmp_path: Path, clock: StepClock) -> None:
    config = Config.from_mapping({"model": {"model": "big"}, "memory_model": {"model": "small"}})
    with MemoryEngine.open(tmp_path / "ws", config, clock=clock, environ={}, dense="off") as engine:
        status = engine.status()
    assert status.mode == "model"
    assert status.jobs == {"chat": "big", "compaction": "small", "dream": "small"}
    same = Config.from_mapping({"model": {"model": "big"}, "memory_model": {}})
    with MemoryEngine.open(tmp_path / "ws", same, clock=clock, environ={}, dense="off") as engine:
        assert engine.status().jobs == {"chat": "big", "compaction": "big", "dream": "big"}


def test_a_healthy_workspace_passes_doctor(tmp_path: Path, clock: StepClock) -> None:
    engine = _engine(tmp_path, clock)
    workspace_of(engine).history.append("x")
    report = engine.doctor()
    assert report.ok, report.findings


def test_doctor_catches_planted_corruption(tmp_path: Path, clock: StepClock) -> None:
    engine = _engine(tmp_path, clock)
    workspace = workspace_of(engine)
    for index in range(3):
        workspace.history.append(f"e{index}")
    workspace.dream_cursor.write(99)
    (workspace.root / "memory" / ".cursor").write_text("1")
    (workspace.root / ".reverie" / "dream-publish.json").write_text("{}")
    (workspace.root / "USER.md").write_text("# User\n- edited by hand\n")
    report = engine.doctor()
    assert not report.ok
    problems = {(f.check, f.severity) for f in report.findings}
    assert ("cursors", "problem") in problems
    assert ("dream", "problem") in problems
    assert ("audit", "note") in problems
    messages = " ".join(f.message for f in report.findings)
    assert "dream cursor 99" in messages
    assert ".cursor holds 1" in messages


def test_doctor_notes_quarantined_lines_without_failing(tmp_path: Path, clock: StepClock) -> None:
    engine = _engine(tmp_path, clock)
    history = workspace_of(engine).history
    history.append("good")
    with history.path.open("ab") as handle:
        handle.write(b"garbage\n")
    history.repair()
    report = engine.doctor()
    assert report.ok
    assert [f.check for f in report.findings] == ["quarantine"]


def test_doctor_finds_a_damaged_session_store(tmp_path: Path, clock: StepClock) -> None:
    engine = _engine(tmp_path, clock)
    words = " ".join(f"word{n}" for n in range(300))
    engine.record("cli:a", [Message(role="user", content=f"{n} {words}") for n in range(40)])
    assert engine.doctor().ok
    engine.close()
    store = tmp_path / "ws" / ".reverie" / "sessions.sqlite3"
    page = 4096
    assert store.stat().st_size > 6 * page
    with store.open("r+b") as raw:  # garble the middle of pages 3 to 5, header intact
        raw.seek(2 * page + 100)
        raw.write(b"\xff" * (3 * page))
    report = examine(Workspace.open(tmp_path / "ws"))
    (finding,) = [f for f in report.findings if f.check == "databases"]
    assert finding.severity == "problem"
    assert finding.path is not None
    assert finding.path.endswith("sessions.sqlite3")
    assert not report.ok


def test_sqlite_damage_reads_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "search.sqlite"
    path.write_bytes(b"this is not sqlite" * 300)
    damage = sqlite_damage(path)
    assert damage is not None
    assert "not a readable SQLite database" in damage
