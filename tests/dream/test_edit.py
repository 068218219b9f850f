"""A person's edit of a durable file (``MemoryEngine.edit_file``) and line ages.

The edit's own promises (one commit, no commit for no change, a stale version refused) run on
a folder and on a PostgreSQL workspace (``BOTH``); the rest are the folder's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie import EditError, LockTimeoutError, MemoryEngine
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.core.audit import person_identity
from reverie.errors import ConfinementError
from reverie.memory.dream.edit import MAX_EDIT_CHARS, edit_file, text_sha256
from reverie.storage.folder.dream_journal import DEFAULT_JOURNAL, write_journal
from reverie.testing.folders import workspace_of
from tests.conftest import StepClock

NO_MODEL = Config(model=ModelConfig(context_window=4000, max_output_tokens=500))
BOTH = pytest.mark.parametrize("engine_kind", ["folder", "postgres"])
"""Runs a test on a folder, then on a database workspace (the shared ``engine`` fixture)."""


def _commits_at_start(engine_kind: str) -> int:
    # A folder's audit repository starts with one commit of the files it was made with; a
    # database workspace starts with none.
    return 1 if engine_kind == "folder" else 0


@pytest.fixture
def engine_config() -> Config:
    return NO_MODEL  # the shared ``engine`` fixture opens with these settings


@BOTH
def test_an_edit_is_one_commit_with_the_person_as_author(engine: MemoryEngine) -> None:
    before = engine.read_file("USER.md")
    stamp = text_sha256(before)
    result = engine.edit_file(
        "USER.md", "# User\r\n- Zoe lives in Riga", author="Ada", expected_sha256=stamp
    )
    assert result.path == "USER.md"
    assert result.commit is not None
    assert result.commit.subject == "edit: USER.md"
    assert result.commit.author == "Ada <ada@localhost>"
    assert engine.read_file("USER.md") == "# User\n- Zoe lives in Riga\n"
    assert "+- Zoe lives in Riga" in engine.show("HEAD").diff
    assert engine.log(1)[0].author == "Ada <ada@localhost>"


@BOTH
def test_a_skill_edit_is_one_commit_too(engine: MemoryEngine, engine_kind: str) -> None:
    skill = engine.edit_file("skills/tea/SKILL.md", "# Tea\n1. Boil", author="Ada")
    assert skill.commit is not None
    assert skill.commit.subject == "edit: skills/tea/SKILL.md"
    assert engine.read_file("skills/tea/SKILL.md") == "# Tea\n1. Boil\n"
    assert engine.show(skill.commit.sha).diff.count("+1. Boil") == 1
    assert len(engine.log()) == _commits_at_start(engine_kind) + 1


@BOTH
def test_an_unchanged_text_makes_no_commit(engine: MemoryEngine, engine_kind: str) -> None:
    text = engine.read_file("SOUL.md")
    assert engine.edit_file("SOUL.md", text, author="Ada <ada@example.org>").commit is None
    assert len(engine.log()) == _commits_at_start(engine_kind)
    boat = "# Memory\n- The boat is in Porto\n"
    edited = engine.edit_file("memory/MEMORY.md", boat.replace("\n", "\r\n"), author="Ada")
    assert edited.commit is not None
    assert "Ada" in edited.commit.author
    assert engine.read_memory("MEMORY") == boat
    again = engine.edit_file("memory/MEMORY.md", boat, author="Ada")
    assert again.commit is None
    assert len(engine.log()) == _commits_at_start(engine_kind) + 1


@BOTH
def test_an_edit_against_a_stale_version_is_refused(engine: MemoryEngine) -> None:
    stale = text_sha256(engine.read_file("memory/MEMORY.md"))
    engine.edit_file("memory/MEMORY.md", "# Memory\n- first\n", author="Ada")
    with pytest.raises(EditError, match="changed since you opened it"):
        engine.edit_file("memory/MEMORY.md", "- mine\n", author="Bo", expected_sha256=stale)
    assert engine.read_file("memory/MEMORY.md") == "# Memory\n- first\n"


@pytest.mark.parametrize("path", ["../outside.md", "/etc/passwd", ".git/config", "soul.md"])
def test_an_edit_outside_the_writable_files_is_refused(engine: MemoryEngine, path: str) -> None:
    with pytest.raises(ConfinementError):
        engine.edit_file(path, "x", author="Ada")


def test_an_edit_through_a_symlink_is_refused(engine: MemoryEngine, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n", encoding="utf-8")
    target = Path(engine.location) / "USER.md"
    target.unlink()
    target.symlink_to(outside)
    with pytest.raises(ConfinementError, match="symlink"):
        engine.edit_file("USER.md", "overwritten", author="Ada")
    assert outside.read_text(encoding="utf-8") == "secret\n"


def test_bad_text_or_author_writes_nothing(engine: MemoryEngine) -> None:
    before = engine.read_file("USER.md")
    with pytest.raises(EditError, match="NUL"):
        engine.edit_file("USER.md", "a\x00b", author="Ada")
    with pytest.raises(EditError, match="more than"):
        engine.edit_file("USER.md", "x" * (MAX_EDIT_CHARS + 1), author="Ada")
    with pytest.raises(ValueError, match="author"):
        engine.edit_file("USER.md", "new", author="<evil>\n")
    assert engine.read_file("USER.md") == before
    assert len(engine.log()) == 1


def test_an_edit_waits_for_the_dream_lock_and_reports_busy(engine: MemoryEngine) -> None:
    lock = workspace_of(engine).lock("dream")
    with lock.hold(), pytest.raises(LockTimeoutError):
        engine.edit_file("USER.md", "new", author="Ada", lock_timeout=0)
    lock.close()
    assert "new" not in engine.read_file("USER.md")


def test_an_edit_finishes_an_interrupted_publish_first(engine: MemoryEngine) -> None:
    workspace = workspace_of(engine)
    journal = workspace.root / DEFAULT_JOURNAL
    write_journal(journal, cursor=0, trigger="manual", files={"USER.md": "# User\n- tea\n"})
    result = edit_file(workspace, "SOUL.md", "# Soul\n- be brief\n", author="Ada")
    assert result.commit is not None
    assert not journal.exists()
    assert (workspace.root / "USER.md").read_text() == "# User\n- tea\n"
    subjects = [commit.subject for commit in workspace.audit.log(2)]
    assert subjects == ["edit: SOUL.md", "dream: manual"]


def test_person_identity_keeps_an_email_and_invents_one_otherwise() -> None:
    assert person_identity("Ada Lovelace <ada@example.org>") == b"Ada Lovelace <ada@example.org>"
    assert person_identity(" Ada Lovelace ") == b"Ada Lovelace <ada.lovelace@localhost>"
    with pytest.raises(ValueError, match="author"):
        person_identity("  ")


def test_line_origins_say_which_commit_last_added_each_line(
    engine: MemoryEngine, clock: StepClock
) -> None:
    engine.edit_file("memory/MEMORY.md", "# Memory\n- old fact\n", author="Ada")
    first = engine.log(1)[0]
    engine.edit_file("memory/MEMORY.md", "# Memory\n\n- old fact\n- new fact\n", author="Bo")
    second = engine.log(1)[0]
    (Path(engine.location) / "memory" / "MEMORY.md").write_text(
        "# Memory\n\n- old fact\n- new fact\n- on disk only\n", encoding="utf-8"
    )
    origins = engine.line_origins("memory/MEMORY.md")["memory/MEMORY.md"]
    assert set(engine.line_origins()) == {"SOUL.md", "USER.md", "memory/MEMORY.md"}
    by_line = {o.line: o for o in origins}
    assert [o.line for o in origins][-1] == "- on disk only"
    assert by_line["- old fact"].sha == first.sha
    assert by_line["- new fact"].sha == second.sha
    assert by_line["- new fact"].author.startswith("Bo <")
    assert by_line["- new fact"].short == second.short
    assert by_line["- on disk only"].sha is None
    assert by_line[""].sha is None
    assert by_line["# Memory"].subject == "init: workspace"
    assert not by_line["# Memory"].at_or_before


def test_line_origins_past_the_walk_are_marked_at_or_before(engine: MemoryEngine) -> None:
    for n in range(3):
        engine.edit_file("USER.md", f"# User\n- fact {n}\n", author="Ada")
    text = engine.read_file("USER.md")
    origins = workspace_of(engine).audit.line_origins({"USER.md": text}, depth=2)["USER.md"]
    heading = next(o for o in origins if o.line == "# User")
    assert heading.at_or_before
    assert next(o for o in origins if o.line == "- fact 2").sha == engine.log(1)[0].sha
