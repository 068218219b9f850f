"""One path policy: no path reverie reads or writes may be a link leading out of the workspace.

Every case the issue saw: skills folders, history, ledger, sessions (folder and journal),
durable files (symlink and hard link). Nothing outside is read into memory, written, committed
or deleted; refusals name the path; ``doctor`` reports the links.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reverie.core.messages import Message
from reverie.errors import OutsideLinkError, StorageError
from reverie.memory.doctor import examine
from reverie.storage.folder import layout
from reverie.storage.folder.workspace import Workspace
from tests.trust.scan import git_texts

SECRET = "outside-secret Tr0ub4dor"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    return folder


def _fresh(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    Workspace.open(root, create=True).close()
    return root


def test_a_symlinked_skill_folder_is_never_tracked_committed_or_deleted_by_restore(
    tmp_path: Path, outside: Path
) -> None:
    root = _fresh(tmp_path)
    (outside / "SKILL.md").write_text(SECRET, encoding="utf-8")
    (root / "skills").mkdir()
    (root / "skills" / "evil").symlink_to(outside, target_is_directory=True)
    workspace = Workspace.open(root)
    try:
        first = workspace.audit.log(1)[0]
        (root / "USER.md").write_text("# User\n\n- likes tea\n", encoding="utf-8")
        assert workspace.audit.commit("hand edit") is not None
        assert not any(SECRET in text for text in git_texts(root))
        assert "skills/evil/SKILL.md" not in workspace.audit.pending_diff().diff
        workspace.audit.restore(first.sha)
        assert (outside / "SKILL.md").read_text(encoding="utf-8") == SECRET
        links = [f for f in examine(workspace).findings if f.check == "links"]
        assert links
        assert links[0].path == str(root / "skills" / "evil")
    finally:
        workspace.close()


def test_skill_files_lists_only_plain_skill_folders(tmp_path: Path, outside: Path) -> None:
    root = _fresh(tmp_path)
    (root / "skills" / "plain").mkdir(parents=True)
    (root / "skills" / "plain" / "SKILL.md").write_text("# Plain\n", encoding="utf-8")
    (root / "skills" / "inner").symlink_to(root / "skills" / "plain", target_is_directory=True)
    (root / "skills" / "outer").symlink_to(outside, target_is_directory=True)
    assert layout.skill_files(root) == ["skills/plain/SKILL.md"]


@pytest.mark.parametrize(
    "relative", [layout.HISTORY, layout.LEDGER, layout.SOUL, layout.USER, layout.MEMORY]
)
def test_a_file_linked_outside_makes_open_refuse_naming_it(
    tmp_path: Path, outside: Path, relative: str
) -> None:
    root = _fresh(tmp_path)
    target = outside / "secret.txt"
    (root / relative).unlink(missing_ok=True)
    (root / relative).symlink_to(target)
    with pytest.raises(OutsideLinkError, match="outside the workspace") as caught:
        Workspace.open(root)
    assert caught.value.path == root / relative
    assert str(root / relative) in str(caught.value)
    assert target.read_text(encoding="utf-8") == SECRET + "\n"


@pytest.mark.parametrize("relative", [layout.SESSIONS, "memory"])
def test_a_folder_linked_outside_makes_open_refuse(
    tmp_path: Path, outside: Path, relative: str
) -> None:
    root = _fresh(tmp_path)
    moved = outside / "moved"
    (root / relative).rename(moved)
    (root / relative).symlink_to(moved, target_is_directory=True)
    before = sorted(p.name for p in moved.iterdir())
    with pytest.raises(OutsideLinkError):
        Workspace.open(root)
    with pytest.raises(OutsideLinkError):
        Workspace.open(root, create=True)
    assert sorted(p.name for p in moved.iterdir()) == before


def test_a_hard_linked_durable_file_is_refused(tmp_path: Path, outside: Path) -> None:
    root = _fresh(tmp_path)
    (root / "USER.md").unlink()
    os.link(outside / "secret.txt", root / "USER.md")
    with pytest.raises(OutsideLinkError, match="hard link"):
        Workspace.open(root)


def test_a_symlink_inside_the_workspace_is_allowed_for_reads(tmp_path: Path) -> None:
    root = _fresh(tmp_path)
    (root / "notes").mkdir()
    (root / "notes" / "user.md").write_text("# User\n\n- likes tea\n", encoding="utf-8")
    (root / "USER.md").unlink()
    (root / "USER.md").symlink_to(root / "notes" / "user.md")
    workspace = Workspace.open(root)
    try:
        assert "likes tea" in workspace.files.read("USER")
    finally:
        workspace.close()


def test_a_workspace_opened_through_a_symlink_judges_links_by_its_real_folder(
    tmp_path: Path, outside: Path
) -> None:
    """The root's real path is resolved only when a symlink is met; it still decides then."""
    root = _fresh(tmp_path)
    (root / "notes").mkdir()
    (root / "notes" / "user.md").write_text("# User\n\n- likes tea\n", encoding="utf-8")
    (root / "USER.md").unlink()
    (root / "USER.md").symlink_to(root / "notes" / "user.md")  # inside, by the real path
    alias = tmp_path / "alias"
    alias.symlink_to(root)
    workspace = Workspace.open(alias)
    try:
        assert "likes tea" in workspace.files.read("USER")
        assert layout.check_path(alias, "memory/MEMORY.md") == alias / "memory" / "MEMORY.md"
        (root / "SOUL.md").unlink()
        (root / "SOUL.md").symlink_to(outside / "secret.txt")
        with pytest.raises(OutsideLinkError, match="outside"):
            workspace.files.read("SOUL")
        (root / "SOUL.md").unlink()
        (root / "SOUL.md").symlink_to(alias / "notes" / "user.md")  # inside through the alias
        assert "likes tea" in workspace.files.read("SOUL")
    finally:
        workspace.close()


def test_a_durable_file_linked_after_open_is_never_read(tmp_path: Path, outside: Path) -> None:
    root = _fresh(tmp_path)
    workspace = Workspace.open(root)
    try:
        (root / "SOUL.md").unlink()
        (root / "SOUL.md").symlink_to(outside / "secret.txt")
        with pytest.raises(OutsideLinkError):
            workspace.files.read("SOUL")
        with pytest.raises(OutsideLinkError):
            workspace.files.write("SOUL", "# Soul\n")
        assert (outside / "secret.txt").read_text(encoding="utf-8") == SECRET + "\n"
    finally:
        workspace.close()


def test_a_file_in_sessions_linked_outside_is_never_read(tmp_path: Path, outside: Path) -> None:
    root = _fresh(tmp_path)
    linked = root / "sessions" / "cli%3adefault.journal"  # an older reverie's journal name
    linked.symlink_to(outside / "secret.txt")
    workspace = Workspace.open(root)
    try:
        assert workspace.sessions.list() == []
        assert any(f.check == "links" for f in examine(workspace).findings)
    finally:
        workspace.close()
    quarantine = root / layout.SESSIONS_QUARANTINE
    assert not quarantine.exists() or SECRET not in quarantine.read_text(encoding="utf-8")
    assert (outside / "secret.txt").read_text(encoding="utf-8") == SECRET + "\n"


def test_a_sessions_database_linked_outside_is_never_written(tmp_path: Path, outside: Path) -> None:
    root = _fresh(tmp_path)
    workspace = Workspace.open(root)
    try:
        workspace.sessions.append("cli:default", Message(role="user", content="hello"))
        workspace.sessions.close()
        database = root / ".reverie" / "sessions.sqlite3"
        for path in root.glob(".reverie/sessions.sqlite3*"):
            path.unlink()
        database.symlink_to(outside / "secret.txt")
        with pytest.raises(StorageError, match="symlink"):
            workspace.sessions.append("cli:default", Message(role="user", content="more"))
        assert (outside / "secret.txt").read_text(encoding="utf-8") == SECRET + "\n"
        assert any(f.check == "links" for f in examine(workspace).findings)
    finally:
        workspace.close()
    with pytest.raises(OutsideLinkError):
        Workspace.open(root)


def test_a_ledger_linked_after_open_is_never_appended_to(tmp_path: Path, outside: Path) -> None:
    from reverie.core.ledger import LedgerRecord

    root = _fresh(tmp_path)
    workspace = Workspace.open(root)
    try:
        (root / layout.LEDGER).symlink_to(outside / "secret.txt")
        record = LedgerRecord(time=workspace.clock(), job="dream", outcome="ok", model="m")
        with pytest.raises(OutsideLinkError):
            workspace.ledger.append(record)
        assert (outside / "secret.txt").read_text(encoding="utf-8") == SECRET + "\n"
    finally:
        workspace.close()
