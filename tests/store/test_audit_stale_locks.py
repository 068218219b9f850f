"""A writer killed inside a git write leaves ``*.lock`` files; the next audit write sweeps them."""

from __future__ import annotations

from reverie.storage.folder.audit_locks import sweep_git_locks
from reverie.storage.folder.workspace import Workspace


def test_a_commit_succeeds_despite_lock_files_a_killed_writer_left(workspace: Workspace) -> None:
    git = workspace.root / ".git"
    (git / "objects" / "ab").mkdir(parents=True, exist_ok=True)
    left = [
        git / "index.lock",
        git / "refs" / "heads" / "main.lock",
        git / "objects" / "ab" / ("0" * 38 + ".lock"),
    ]
    for path in left:
        path.write_bytes(b"half written")
    (workspace.root / "USER.md").write_text("# User\n\n- after a crash\n")
    made = workspace.audit.commit("dream: manual")
    assert made is not None
    assert not any(path.exists() for path in left)
    assert workspace.audit.pending_diff().files == ()


def test_the_sweep_touches_only_lock_files_where_dulwich_writes(workspace: Workspace) -> None:
    git = workspace.root / ".git"
    keep = [git / "info" / "notes.lock", git / "description", git / "hooks" / "x.lock"]
    for path in keep:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("keep")
    (git / "HEAD.lock").write_text("stale")
    removed = sweep_git_locks(git)
    assert removed == [git / "HEAD.lock"]
    assert all(path.exists() for path in keep)
