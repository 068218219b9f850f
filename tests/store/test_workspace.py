from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from dulwich.repo import Repo

from reverie import CursorError, WorkspaceDamagedError, WorkspaceFormatError, WorkspaceMissingError
from reverie.core.durable import STARTER_TEXTS
from reverie.core.messages import Message
from reverie.engine.facade import MemoryEngine
from reverie.storage.folder.atomic import atomic_write, sweep_temp_files, temp_path_for
from reverie.storage.folder.workspace import Workspace
from tests.conftest import StepClock


def _tree_digest(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".reverie" not in path.parts and ".git" not in path.parts
    }


def test_create_lays_out_the_nanobot_workspace(tmp_path: Path, clock: StepClock) -> None:
    workspace = Workspace.open(tmp_path / "ws", create=True, clock=clock)
    root = workspace.root
    for relative in ("SOUL.md", "USER.md", "memory/MEMORY.md", "memory/history.jsonl"):
        assert (root / relative).is_file()
    assert (root / "memory" / ".cursor").read_text() == "0"
    assert (root / "memory" / ".dream_cursor").read_text() == "0"
    assert (root / "sessions").is_dir()
    assert workspace.files.read("SOUL") == STARTER_TEXTS["SOUL"]
    assert workspace.files.is_starter("USER")


def _every_path(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): (
            hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "folder"
        )
        for path in sorted(root.rglob("*"))
        if ".reverie" not in path.relative_to(root).parts
    }


def test_opening_a_nanobot_workspace_writes_nothing_but_reverie_state(
    tmp_path: Path, clock: StepClock
) -> None:
    root = tmp_path / "nanobot"
    for relative, text in (
        ("SOUL.md", "# Soul\nBe brief.\n"),
        ("USER.md", "# User\nName: Lin\n"),
        ("memory/MEMORY.md", "# Memory\n"),
        ("memory/history.jsonl", ""),
        (".gitignore", "*\n!SOUL.md\n"),
    ):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    with Repo.init(str(root)) as repo:
        repo.get_worktree().stage([b".gitignore", b"SOUL.md"])
        repo.get_worktree().commit(message=b"nanobot: init", committer=b"nanobot <n@l>")
    (root / ".git" / "info" / "exclude").write_text("*.bak\n")
    before = _every_path(root)
    with MemoryEngine.open(root, environ={}, dense="off") as engine:
        engine.status()
        engine.history()
    assert _every_path(root) == before
    assert (root / ".reverie").is_dir()
    with MemoryEngine.open(root, environ={}, dense="off") as engine:
        engine.record("cli:a", [Message(role="user", content="hi")])
        assert engine.session("cli:a").messages[0].content == "hi"
    assert (root / ".reverie" / "sessions.sqlite3").is_file()  # sessions live in .reverie/
    assert not (root / "sessions").exists()


def test_an_existing_nanobot_workspace_opens_unchanged(tmp_path: Path, clock: StepClock) -> None:
    root = tmp_path / "nanobot"
    (root / "memory").mkdir(parents=True)
    (root / "SOUL.md").write_text("# Soul\nBe brief.\n")
    (root / "USER.md").write_text("# User\nName: Lin\n")
    (root / "memory" / "MEMORY.md").write_text("# Memory\nProject: atlas\n")
    history = "".join(
        json.dumps({"cursor": c, "timestamp": "2026-10-01 08:00", "content": f"fact {c}"}) + "\n"
        for c in range(1, 8)
    )
    (root / "memory" / "history.jsonl").write_text(history)
    (root / "memory" / ".cursor").write_text("7")
    (root / "memory" / ".dream_cursor").write_text("4")
    before = _tree_digest(root)
    workspace = Workspace.open(root, create=True, clock=clock)
    assert _tree_digest(root) == before
    assert [e.cursor for e in workspace.history.read_since(workspace.dream_cursor.read())] == [
        5,
        6,
        7,
    ]
    assert workspace.history.append("new").cursor == 8
    assert not workspace.files.is_starter("USER")


def test_opening_a_missing_workspace_without_create_fails(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceMissingError, match="create=True"):
        Workspace.open(tmp_path / "nowhere")
    (tmp_path / "plain").mkdir()
    with pytest.raises(WorkspaceMissingError, match="no memory/"):
        Workspace.open(tmp_path / "plain")


def test_a_newer_format_is_refused_without_rewriting(tmp_path: Path, clock: StepClock) -> None:
    Workspace.open(tmp_path / "ws", create=True, clock=clock).close()
    (tmp_path / "ws" / ".reverie" / "format").write_text("99\n")
    with pytest.raises(WorkspaceFormatError, match="upgrade reverie"):
        Workspace.open(tmp_path / "ws")
    assert (tmp_path / "ws" / ".reverie" / "format").read_text() == "99\n"
    (tmp_path / "ws" / ".reverie" / "format").write_text("one\n")
    with pytest.raises(WorkspaceDamagedError, match="not a number"):
        Workspace.open(tmp_path / "ws")


@pytest.mark.parametrize("relative", ["memory/history.jsonl", "SOUL.md"])
def test_a_folder_where_a_file_belongs_is_damage(tmp_path: Path, relative: str) -> None:
    Workspace.open(tmp_path / "ws", create=True).close()
    target = tmp_path / "ws" / relative
    target.unlink()
    target.mkdir()
    with pytest.raises(WorkspaceDamagedError, match="expected a file"):
        Workspace.open(tmp_path / "ws")


def test_a_file_at_the_workspace_path_is_damage(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(WorkspaceDamagedError, match="not a folder"):
        Workspace.open(tmp_path / "file", create=True)


def test_a_file_where_a_folder_belongs_is_damage(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "memory").write_text("oops")
    with pytest.raises(WorkspaceDamagedError, match="folder belongs"):
        Workspace.open(tmp_path / "ws", create=True)


@pytest.mark.parametrize("name", [".cursor", ".dream_cursor"])
def test_a_cursor_file_that_is_not_a_number_is_damage(tmp_path: Path, name: str) -> None:
    Workspace.open(tmp_path / "ws", create=True).close()
    (tmp_path / "ws" / "memory" / name).write_text("seven")
    with pytest.raises(WorkspaceDamagedError, match=name):
        Workspace.open(tmp_path / "ws")


def test_an_empty_cursor_file_is_recovered_from_the_log(workspace: Workspace) -> None:
    for index in range(3):
        workspace.history.append(f"e{index}")
    (workspace.root / "memory" / ".cursor").write_text("")
    workspace.close()
    reopened = Workspace.open(workspace.root)
    assert reopened.history.append("next").cursor == 4


@pytest.mark.parametrize("value", [True, -1, "5", 2.0])
def test_dream_cursor_rejects_non_integers(workspace: Workspace, value: object) -> None:
    with pytest.raises(CursorError):
        workspace.dream_cursor.write(value)  # type: ignore[arg-type]
    assert workspace.dream_cursor.read() == 0


def test_dream_cursor_round_trips(workspace: Workspace) -> None:
    workspace.dream_cursor.write(42)
    assert workspace.dream_cursor.read() == 42
    assert (workspace.root / "memory" / ".dream_cursor").read_text() == "42"


def test_orphan_temp_files_of_dead_writers_are_swept_on_open(tmp_path: Path) -> None:
    workspace = Workspace.open(tmp_path / "ws", create=True)
    memory = workspace.root / "memory"
    dead = memory / ".MEMORY.md.999999999.abcd1234.rvtmp"
    dead.write_text("half")
    odd = memory / ".MEMORY.md.notapid.rvtmp"
    odd.write_text("half")
    live = temp_path_for(memory / "MEMORY.md")
    live.write_text("mine")
    workspace.close()
    Workspace.open(tmp_path / "ws")
    assert not dead.exists()
    assert not odd.exists()
    assert live.exists()  # this process is alive: its temp file may be mid-rename
    assert sweep_temp_files(tmp_path / "absent") == []


def test_atomic_write_failure_leaves_target_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "missing-dir" / "file"
    with pytest.raises(Exception, match="could not write"):
        atomic_write(target, b"data")
    assert not list(tmp_path.rglob("*.rvtmp"))


def test_memory_files_size_and_write(workspace: Workspace) -> None:
    workspace.files.write("MEMORY", "# Memory\n- atlas ships in May\n")
    size = workspace.files.size("MEMORY")
    assert size.chars == len("# Memory\n- atlas ships in May\n")
    assert 5 < size.tokens < 20
    assert not workspace.files.is_starter("MEMORY")
    workspace.files.path("USER").unlink()
    assert workspace.files.read("USER") == ""
    assert workspace.files.is_starter("USER")
