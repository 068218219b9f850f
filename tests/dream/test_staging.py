"""The staging overlay, its diff, and publish through the journal (deterministic crash points)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reverie.errors import (
    ConfinementError,
    CursorError,
    PublishConflictError,
    PublishJournalError,
    StorageError,
)
from reverie.memory.dream.staging import Staging, unified_diff
from reverie.storage.folder.dream_journal import (
    DEFAULT_JOURNAL,
    finish_publish,
    recover_publish,
    replace_file,
    write_journal,
)
from reverie.storage.folder.workspace import Workspace
from tests.dream.staged import publish


def _journal(workspace: Workspace) -> Path:
    return workspace.root / DEFAULT_JOURNAL


def test_reads_fall_back_to_disk_and_writes_stay_in_memory(workspace: Workspace) -> None:
    staging = Staging(workspace.dream_files)
    disk = (workspace.root / "USER.md").read_text()
    assert staging.read("USER.md") == disk
    assert staging.read("skills/x/SKILL.md") == ""
    staging.write("USER.md", "# User\n\nName: Ada\n")
    assert staging.read("USER.md") == "# User\n\nName: Ada\n"
    assert (workspace.root / "USER.md").read_text() == disk
    assert not (workspace.root / "skills").exists()


def test_changes_lists_only_files_that_differ_from_their_base(workspace: Workspace) -> None:
    staging = Staging(workspace.dream_files)
    staging.write("SOUL.md", staging.read("SOUL.md"))
    staging.write("skills/x/SKILL.md", "")
    staging.write("USER.md", "changed\n")
    staging.write("memory/MEMORY.md", "tmp")
    staging.write("memory/MEMORY.md", (workspace.root / "memory" / "MEMORY.md").read_text())
    assert staging.changes() == {"USER.md": "changed\n"}


def test_only_canonical_writable_paths_can_be_staged(workspace: Workspace) -> None:
    staging = Staging(workspace.dream_files)
    for path in ("./SOUL.md", "memory/history.jsonl", "../x", "soul.md"):
        with pytest.raises(ConfinementError):
            staging.write(path, "x")
        with pytest.raises(ConfinementError):
            staging.read(path)


def test_an_undecodable_durable_file_is_a_storage_error(workspace: Workspace) -> None:
    (workspace.root / "SOUL.md").write_bytes(b"\xff\xfe")
    with pytest.raises(StorageError, match="not UTF-8"):
        Staging(workspace.dream_files).read("SOUL.md")


def test_diff_is_a_unified_diff_with_new_files_and_missing_newlines(workspace: Workspace) -> None:
    staging = Staging(workspace.dream_files)
    old_user = staging.read("USER.md")
    staging.write("USER.md", old_user + "Name: Ada")
    staging.write("skills/tea/SKILL.md", "# Tea\n")
    diff = staging.diff()
    assert "--- /dev/null\n+++ b/skills/tea/SKILL.md\n" in diff
    assert "--- a/USER.md\n+++ b/USER.md\n" in diff
    assert "+Name: Ada\n\\ No newline at end of file\n" in diff
    assert diff.index("USER.md") < diff.index("skills/tea")
    assert unified_diff("SOUL.md", "same\n", "same\n") == ""


def test_publish_writes_every_change_and_journals_it(workspace: Workspace) -> None:
    staging = Staging(workspace.dream_files)
    staging.write("USER.md", "user\n")
    staging.write("skills/tea/SKILL.md", "# Tea\n")
    staging.write("SOUL.md", staging.read("SOUL.md"))
    published = publish(staging, _journal(workspace), cursor=42, trigger="manual")
    assert published == ("USER.md", "skills/tea/SKILL.md")
    assert (workspace.root / "USER.md").read_text() == "user\n"
    assert (workspace.root / "skills" / "tea" / "SKILL.md").read_text() == "# Tea\n"
    document = json.loads(_journal(workspace).read_text())
    assert document == {
        "format": "reverie-dream-publish",
        "version": 1,
        "cursor": 42,
        "trigger": "manual",
        "files": [
            {"path": "USER.md", "text": "user\n"},
            {"path": "skills/tea/SKILL.md", "text": "# Tea\n"},
        ],
    }
    finish_publish(_journal(workspace))
    assert not _journal(workspace).exists()
    finish_publish(_journal(workspace))
    assert recover_publish(workspace.root, _journal(workspace)) is None


def test_a_no_op_publish_still_journals_the_cursor(workspace: Workspace) -> None:
    assert (
        publish(Staging(workspace.dream_files), _journal(workspace), cursor=7, trigger="activity")
        == ()
    )
    recovered = recover_publish(workspace.root, _journal(workspace))
    assert recovered is not None
    assert (recovered.cursor, recovered.trigger, dict(recovered.files)) == (7, "activity", {})


def test_publish_refuses_when_a_file_changed_on_disk_meanwhile(workspace: Workspace) -> None:
    staging = Staging(workspace.dream_files)
    staging.write("USER.md", "from dream\n")
    staging.write("SOUL.md", "soul from dream\n")
    (workspace.root / "USER.md").write_text("typed by a person\n")
    with pytest.raises(PublishConflictError, match=r"USER\.md changed on disk"):
        publish(staging, _journal(workspace), cursor=1, trigger="manual")
    assert (workspace.root / "USER.md").read_text() == "typed by a person\n"
    assert "soul from dream" not in (workspace.root / "SOUL.md").read_text()
    assert not _journal(workspace).exists()


def test_publish_refuses_a_symlink_planted_after_staging(
    workspace: Workspace, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    staging = Staging(workspace.dream_files)
    staging.write("skills/tea/SKILL.md", "# Tea\n")
    (workspace.root / "skills").symlink_to(outside)
    with pytest.raises(ConfinementError, match="symlink"):
        publish(staging, _journal(workspace), cursor=1, trigger="manual")
    assert list(outside.iterdir()) == []
    assert not _journal(workspace).exists()


def test_recovery_rolls_a_half_done_publish_forward(workspace: Workspace) -> None:
    files = {"SOUL.md": "new soul\n", "USER.md": "new user\n", "skills/a/SKILL.md": "# A\n"}
    write_journal(_journal(workspace), cursor=9, trigger="schedule", files=files)
    replace_file(workspace.root, "SOUL.md", "new soul\n")  # the crash came after one file
    (workspace.root / ".USER.md.999999999.dead.rvtmp").write_text("torn")
    recovered = recover_publish(workspace.root, _journal(workspace))
    assert recovered is not None
    assert recovered.cursor == 9
    assert recovered.trigger == "schedule"
    assert dict(recovered.files) == files
    assert recovered.rewritten == ("USER.md", "skills/a/SKILL.md")
    for path, text in files.items():
        assert (workspace.root / path).read_text() == text
    assert not (workspace.root / ".USER.md.999999999.dead.rvtmp").exists()
    again = recover_publish(workspace.root, _journal(workspace))
    assert again is not None
    assert again.rewritten == ()
    assert _journal(workspace).exists()


def test_recovery_repairs_a_file_that_is_not_text(workspace: Workspace) -> None:
    write_journal(_journal(workspace), cursor=1, trigger="t", files={"SOUL.md": "ok\n"})
    (workspace.root / "SOUL.md").write_bytes(b"\xff")
    recovered = recover_publish(workspace.root, _journal(workspace))
    assert recovered is not None
    assert recovered.rewritten == ("SOUL.md",)
    assert (workspace.root / "SOUL.md").read_text() == "ok\n"


def _raw_journal(workspace: Workspace, document: object) -> Path:
    path = _journal(workspace)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document) if not isinstance(document, str) else document)
    return path


def _valid(**changes: object) -> dict[str, object]:
    document: dict[str, object] = {
        "format": "reverie-dream-publish",
        "version": 1,
        "cursor": 3,
        "trigger": "manual",
        "files": [{"path": "SOUL.md", "text": "x"}],
    }
    document.update(changes)
    return document


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("{torn", "not JSON"),
        ([1, 2], "not a reverie dream publish journal"),
        (_valid(format="other"), "not a reverie dream publish journal"),
        (_valid(version=2), "unknown publish journal version 2"),
        (_valid(version=True), "unknown publish journal version"),
        (_valid(cursor=-1), "invalid cursor"),
        (_valid(cursor="4"), "invalid cursor"),
        (_valid(trigger=None), "lacks 'trigger' or 'files'"),
        (_valid(files={}), "lacks 'trigger' or 'files'"),
        (_valid(files=["SOUL.md"]), "lacks 'path' or 'text'"),
        (_valid(files=[{"path": "../../etc/passwd", "text": "x"}]), "forbidden path"),
        (_valid(files=[{"path": ".git/config", "text": "x"}]), "forbidden path"),
        (_valid(files=[{"path": "./SOUL.md", "text": "x"}]), "not canonical"),
    ],
)
def test_a_bad_journal_is_refused_and_nothing_is_written(
    workspace: Workspace, document: object, message: str
) -> None:
    before = (workspace.root / "SOUL.md").read_text()
    journal = _raw_journal(workspace, document)
    with pytest.raises(PublishJournalError, match=message):
        recover_publish(workspace.root, journal)
    assert (workspace.root / "SOUL.md").read_text() == before


def test_an_unreadable_journal_is_a_journal_error(workspace: Workspace) -> None:
    journal = _journal(workspace)
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_bytes(b"\xff\xfe")
    with pytest.raises(PublishJournalError, match="cannot read"):
        recover_publish(workspace.root, journal)


def test_recovery_refuses_a_symlink_planted_since_the_crash(
    workspace: Workspace, tmp_path: Path
) -> None:
    target = tmp_path / "victim.md"
    target.write_text("keep me")
    soul = (workspace.root / "SOUL.md").read_text()
    files = {"SOUL.md": "new soul\n", "USER.md": "new\n"}
    write_journal(_journal(workspace), cursor=1, trigger="t", files=files)
    (workspace.root / "USER.md").unlink()
    (workspace.root / "USER.md").symlink_to(target)
    with pytest.raises(ConfinementError, match="symlink"):
        recover_publish(workspace.root, _journal(workspace))
    assert target.read_text() == "keep me"
    assert (workspace.root / "SOUL.md").read_text() == soul


def test_publish_refuses_an_invalid_cursor_before_writing(workspace: Workspace) -> None:
    staging = Staging(workspace.dream_files)
    staging.write("USER.md", "x\n")
    with pytest.raises(CursorError):
        publish(staging, _journal(workspace), cursor=-1, trigger="manual")
    assert not _journal(workspace).exists()
    assert (workspace.root / "USER.md").read_text() != "x\n"


def test_a_journal_folder_that_cannot_be_made_is_a_storage_error(workspace: Workspace) -> None:
    (workspace.root / "blocker").write_text("a file")
    with pytest.raises(StorageError, match="cannot create folder"):
        write_journal(workspace.root / "blocker" / "j.json", cursor=1, trigger="t", files={})


def test_a_journal_that_cannot_be_deleted_is_a_storage_error(workspace: Workspace) -> None:
    (workspace.root / "not-a-journal").mkdir()
    with pytest.raises(StorageError, match="cannot delete publish journal"):
        finish_publish(workspace.root / "not-a-journal")
