"""A project's git repository is never adopted, committed on, or rewritten by a purge.

The way a person hits it: ``reverie init`` (a real process) in a code checkout made with the
git CLI, or a workspace that an older reverie already adopted a project's repository into,
then ``reverie forget --purge``. reverie refuses with one line naming the ``.git``, writes no
file into the checkout, and the project's repository stays byte for byte what it was
(refs, objects, index; ``git fsck`` clean). A nanobot repository (memory files only) is
still adopted.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from reverie import MemoryEngine
from reverie.core.messages import Message
from reverie.errors import ForeignRepositoryError
from tests.cli.conftest import Cli, clean_env

GIT_ENV = {
    "GIT_AUTHOR_NAME": "dev",
    "GIT_AUTHOR_EMAIL": "dev@example.org",
    "GIT_COMMITTER_NAME": "dev",
    "GIT_COMMITTER_EMAIL": "dev@example.org",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_SYSTEM": "/dev/null",
}


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args],
        env={"PATH": "/usr/bin:/bin", "HOME": str(root.parent), **GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _project(root: Path) -> Path:
    """A checkout with two commits; its README mentions Porto, like the memory will."""
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hello from Porto')\n", encoding="utf-8")
    (root / "README.md").write_text("# app\n\nBuilt in Porto.\n", encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "first")
    (root / "NOTES.md").write_text("staged, not committed: Porto\n", encoding="utf-8")
    _git(root, "add", "NOTES.md")
    return root


def _fingerprint(root: Path) -> str:
    files = sorted(
        (str(path.relative_to(root)), path.read_bytes())
        for path in root.rglob("*")
        if path.is_file()
    )
    return hashlib.sha256(repr(files).encode()).hexdigest()


@pytest.fixture
def cli_process(tmp_path: Path) -> Cli:
    """``reverie`` as real processes, its workspace the project checkout."""
    workspace = tmp_path / "project"
    return Cli(workspace=workspace, env=clean_env(tmp_path, workspace))


def test_init_in_a_project_checkout_refuses_and_writes_nothing(
    cli_process: Cli, tmp_path: Path
) -> None:
    root = _project(tmp_path / "project")
    before = _fingerprint(root)
    head = _git(root, "rev-parse", "HEAD")

    refused = cli_process.run("init", expect=1)

    assert "project's git repository" in refused.stderr
    assert str(root / ".git") in refused.stderr
    assert "Traceback" not in refused.stderr
    assert _fingerprint(root) == before
    assert _git(root, "rev-parse", "HEAD") == head
    assert _git(root, "status", "--porcelain") == "A  NOTES.md\n"
    _git(root, "fsck", "--strict", "--no-dangling")


def test_a_project_repository_adopted_by_an_older_reverie_is_never_purged(
    cli_process: Cli, tmp_path: Path
) -> None:
    """Files laid out beside a project's .git (what reverie did before): every write refuses."""
    root = _project(tmp_path / "project")
    (root / "memory").mkdir()
    (root / "memory" / "MEMORY.md").write_text("# Memory\n\n- Lives in Porto\n", encoding="utf-8")
    (root / "memory" / "history.jsonl").write_text("", encoding="utf-8")
    git_before = _fingerprint(root / ".git")
    log_before = _git(root, "log", "--all", "--format=%H %s")

    refused = cli_process.run("forget", "Porto", "--purge", "--yes", expect=1)

    assert "project's git repository" in refused.stderr
    assert _fingerprint(root / ".git") == git_before
    assert _git(root, "log", "--all", "--format=%H %s") == log_before
    _git(root, "fsck", "--strict", "--no-dangling")
    assert (root / "src" / "app.py").read_text(encoding="utf-8") == "print('hello from Porto')\n"
    report = cli_process.json("doctor", expect=1)
    [audit] = [f for f in report["findings"] if f["check"] == "audit"]
    assert "project's git repository" in audit["message"]
    assert _fingerprint(root / ".git") == git_before


def test_the_sdk_refuses_a_project_repository_and_a_git_file(tmp_path: Path) -> None:
    root = _project(tmp_path / "project")
    with pytest.raises(ForeignRepositoryError, match=r"src/app\.py"):
        MemoryEngine.open(root, environ={}, dense="off")
    assert not (root / "memory").exists()
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".git").write_text(f"gitdir: {root / '.git'}\n", encoding="utf-8")
    with pytest.raises(ForeignRepositoryError, match="a git repository elsewhere"):
        MemoryEngine.open(linked, environ={}, dense="off")
    _git(root, "fsck", "--strict", "--no-dangling")


def test_purge_in_reverie_s_own_repository_leaves_git_fsck_clean(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    with MemoryEngine.open(root, environ={}, dense="off") as engine:
        engine.record("cli:a", [Message(role="user", content="I live in Porto")])
        engine.compact("cli:a")
        engine.dream()
        engine.forget("Porto", purge=True)
    _git(root, "fsck", "--strict", "--no-dangling")
    assert "Porto" not in _git(root, "log", "--all", "-p")


def test_a_nanobot_repository_of_memory_files_is_still_adopted(tmp_path: Path) -> None:
    root = tmp_path / "nanobot"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "memory").mkdir()
    (root / "SOUL.md").write_text("# Soul\n", encoding="utf-8")
    (root / "memory" / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    (root / ".gitignore").write_text("*\n!SOUL.md\n!memory/\n!memory/MEMORY.md\n")
    _git(root, "add", "-f", ".gitignore", "SOUL.md", "memory/MEMORY.md")
    _git(root, "commit", "-q", "-m", "nanobot: init")
    with MemoryEngine.open(root, environ={}, dense="off") as engine:
        engine.edit_file("memory/MEMORY.md", "# Memory\n\n- adopted\n", author="Lin")
    assert _git(root, "log", "--format=%s").splitlines()[-1] == "nanobot: init"
    _git(root, "fsck", "--strict", "--no-dangling")


def test_a_fresh_git_init_in_a_project_folder_is_refused_too(tmp_path: Path) -> None:
    """``git init`` just run in a checkout (no commit, nothing staged): judged by its folder."""
    root = tmp_path / "project"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "main.go").write_text("package main\n", encoding="utf-8")
    before = _fingerprint(root)
    with pytest.raises(ForeignRepositoryError, match=r"main\.go"):
        MemoryEngine.open(root, environ={}, dense="off")
    assert _fingerprint(root) == before
    assert _git(root, "status", "--porcelain") == "?? main.go\n"


def test_an_empty_repository_in_an_empty_folder_is_adopted(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    with MemoryEngine.open(root, environ={}, dense="off") as engine:
        assert [info.subject for info in engine.log(5)] == ["init: workspace"]
    _git(root, "fsck", "--strict", "--no-dangling")
