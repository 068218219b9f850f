"""nanobot workspaces and session files: history, cursors, durable files, damaged lines."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

from reverie.core.messages import Message
from reverie.memory.ingest.importers import load
from reverie.storage.folder.workspace import Workspace

FIXTURE = Path(__file__).parent.parent / "fixtures" / "nanobot_session.jsonl"


def make_workspace(root: Path) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "sessions").mkdir()
    (root / "SOUL.md").write_text("# Soul\n\n- Be brief.\n", encoding="utf-8")
    (root / "memory" / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    (root / "memory" / ".cursor").write_text("3", encoding="utf-8")
    (root / "memory" / ".dream_cursor").write_text("oops", encoding="utf-8")
    lines = [
        json.dumps({"cursor": 1, "timestamp": "2026-11-01 10:00", "content": "first"}),
        "{not json",
        json.dumps(
            {
                "cursor": 3,
                "timestamp": "2026-11-02 10:00",
                "content": "third",
                "session_key": "telegram:1",
            }
        ),
        json.dumps({"cursor": 2, "timestamp": "2026-11-02 11:00", "content": "out of order"}),
    ]
    (root / "memory" / "history.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    shutil.copy(FIXTURE, root / "sessions" / "telegram_80417.jsonl")
    return root


def test_a_workspace_is_read_with_every_problem_reported(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "nb")
    seen: list[tuple[int, int]] = []
    batch = load(root, local_tz=UTC, on_progress=lambda d, t: seen.append((d, t)))
    assert batch.format == "nanobot-workspace"
    workspace = batch.workspace
    assert workspace is not None
    assert [e.content for e in workspace.history] == ["first", "third", "out of order"]
    assert workspace.history[1].session_key == "import:nanobot:nb:telegram:1"
    assert (workspace.cursor, workspace.dream_cursor) == (3, 0)
    assert dict(workspace.files) == {"SOUL": "# Soul\n\n- Be brief.\n", "MEMORY": "# Memory\n"}
    (session,) = workspace.sessions
    assert session.key == "import:nanobot:nb:telegram:80417"
    (conv,) = batch.conversations
    assert conv.key == "import:nanobot:nb:telegram:80417"
    assert conv.title == "Trip planning"
    assert conv.messages == session.messages
    problems = [(p.path.name, p.position) for p in batch.problems]
    assert problems == [("history.jsonl", 2), (".dream_cursor", 1)]
    assert seen == [(1, 2), (2, 2)]


def test_a_damaged_session_line_costs_one_message_not_the_session(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "nb")
    path = root / "sessions" / "telegram_80417.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    whole = len(lines) - 1
    lines[2] = '{"role": "assistant", "content": '
    lines[3] = '{"role": "nobody"}'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    batch = load(root, local_tz=UTC)
    (session,) = batch.workspace.sessions if batch.workspace else ()
    assert len(session.messages) == whole - 2
    session_problems = [(p.position, p.path) for p in batch.problems if p.path == path]
    assert session_problems == [(3, path), (4, path)]
    assert all(str(path.parent) not in p.reason for p in batch.problems if p.path == path)


def test_a_single_session_file_is_recognised(tmp_path: Path) -> None:
    path = shutil.copy(FIXTURE, tmp_path / "s.jsonl")
    batch = load(Path(path), local_tz=UTC)
    assert batch.format == "nanobot-session"
    assert [c.key for c in batch.conversations] == [
        f"import:nanobot:{tmp_path.name}:telegram:80417"
    ]
    assert batch.workspace is None


def test_a_session_without_a_key_gets_one_from_its_file_name(tmp_path: Path) -> None:
    path = tmp_path / "cli_direct.jsonl"
    path.write_text(
        json.dumps({"_type": "metadata", "created_at": "2026-11-01T10:00:00"})
        + "\n"
        + json.dumps({"role": "user", "content": "hi"})
        + "\n",
        encoding="utf-8",
    )
    (conv,) = load(path, local_tz=UTC).conversations
    assert conv.key == f"import:nanobot:{tmp_path.name}:cli_direct"


def test_the_source_workspace_is_never_written(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "nb")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    load(root, local_tz=UTC)
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_unreadable_files_are_problems_for_the_whole_file(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "nb")
    (root / "USER.md").write_bytes(b"\xff\xfe not utf-8")
    (root / "memory" / ".dream_cursor").unlink()
    (root / "memory" / "history.jsonl").unlink()
    (root / "sessions" / "empty.jsonl").write_text(
        json.dumps({"_type": "metadata", "key": "k"}) + "\n", encoding="utf-8"
    )
    batch = load(root, local_tz=UTC)
    assert [(p.path.name, p.position) for p in batch.problems] == [("USER.md", 0)]
    assert batch.workspace is not None
    assert batch.workspace.history == ()
    keys = ["import:nanobot:nb:k", "import:nanobot:nb:telegram:80417"]
    assert [s.key for s in batch.workspace.sessions] == keys
    assert [c.key for c in batch.conversations] == keys[1:]


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_reverie_workspace_brings_its_own_sessions_and_is_left_as_it_was(
    tmp_path: Path,
) -> None:
    source = Workspace.open(tmp_path / "mine", create=True)
    try:
        source.sessions.append_many(
            "tg:ana", [Message(role="user", content=f"m{i}") for i in range(3)]
        )
        source.sessions.set_compacted_upto("tg:ana", 2)
        source.sessions.set_summary(
            "tg:ana", "Ana said m0 and m1", datetime(2026, 11, 1, tzinfo=UTC)
        )
        source.sessions.append("dream:2026-11-01T00:00:00Z", Message(role="system", content="x"))
    finally:
        source.close()
    before = _tree(tmp_path / "mine")
    batch = load(tmp_path / "mine")
    assert batch.problems == ()
    (conversation,) = batch.conversations  # the dream transcript is the source's own job
    assert conversation.key == "import:nanobot:mine:tg:ana"
    assert [m.text for m in conversation.messages] == ["m0", "m1", "m2"]
    assert conversation.compacted == 2
    assert conversation.summary is not None
    assert conversation.summary.text == "Ana said m0 and m1"
    assert _tree(tmp_path / "mine") == before  # reading wrote nothing there


def test_an_unreadable_reverie_sessions_database_is_one_problem(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    (root / ".reverie").mkdir()
    (root / ".reverie" / "sessions.sqlite3").write_bytes(b"not a database at all" * 100)
    batch = load(root)
    (problem,) = [p for p in batch.problems if p.path.name == "sessions.sqlite3"]
    assert problem.position == 0
    assert "not a readable sessions database" in problem.reason
    assert [c.key for c in batch.conversations] == ["import:nanobot:ws:telegram:80417"]
