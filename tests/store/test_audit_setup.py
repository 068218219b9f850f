"""``audit_setup.settled``: a read-only open skips audit set-up only when it has nothing to do."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from reverie.storage.folder.audit_setup import settled, write_exclude
from reverie.storage.folder.workspace import Workspace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    made = tmp_path / "ws"
    Workspace.open(made, create=True).close()
    return made


def _move_branch_into_packed_refs(git: Path) -> None:
    branch = (git / "HEAD").read_text().removeprefix("ref: ").strip()
    sha = (git / branch).read_text().strip()
    (git / "packed-refs").write_text(f"{sha} {branch}\n")
    (git / branch).unlink()


def test_a_workspace_reverie_set_up_is_settled(root: Path) -> None:
    assert settled(root)


@pytest.mark.parametrize(
    "unsettle",
    [
        shutil.rmtree,
        lambda git: (git.parent / ".reverie" / "audit-root").unlink(),
        lambda git: (git / "index.lock").write_bytes(b"left by a killed writer"),
        lambda git: (git / "info" / "exclude").write_text("# >>> reverie: an older block\n"),
        lambda git: (git / "HEAD").write_text("ref: refs/heads/nowhere\n"),
        lambda git: (git / "HEAD").write_text("ref: refs/heads/../../escape\n"),
        _move_branch_into_packed_refs,
    ],
    ids=["no-git", "no-record", "stale-lock", "old-exclude", "no-commit", "odd-ref", "packed"],
)
def test_anything_ensure_would_do_or_that_the_files_cannot_tell_is_not_settled(
    root: Path, unsettle: Callable[[Path], object]
) -> None:
    unsettle(root / ".git")
    assert not settled(root)


def test_a_detached_head_on_a_commit_and_a_foreign_exclude_are_settled(root: Path) -> None:
    git = root / ".git"
    branch = (git / "HEAD").read_text().removeprefix("ref: ").strip()
    (git / "HEAD").write_text((git / branch).read_text())
    (git / "info" / "exclude").write_text("*.swp\n")  # another program's exclude: kept as is
    assert settled(root)


def test_a_read_only_open_still_sets_up_what_is_not_settled(root: Path) -> None:
    stale = root / ".git" / "index.lock"
    stale.write_bytes(b"left by a killed writer")
    (root / ".git" / "info" / "exclude").write_text("# >>> reverie: old\n# <<< reverie\n")
    Workspace.open(root, read_only=True).close()
    assert not stale.exists()
    assert settled(root)


def test_write_exclude_keeps_a_persons_lines_and_replaces_an_older_block(tmp_path: Path) -> None:
    exclude = tmp_path / "info" / "exclude"
    exclude.parent.mkdir()
    exclude.write_text("*.swp\n\n# >>> reverie: old\n/old\n# <<< reverie\n")
    write_exclude(exclude)
    text = exclude.read_text()
    assert text.startswith("*.swp\n\n# >>> reverie: audit only the durable files")
    assert "/old" not in text
    assert text.count("# >>> reverie") == 1
