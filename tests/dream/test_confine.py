"""Invariant 8, path by path: which names dream may write and read, on text and on disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reverie.core.writable import canonical_writable, is_writable_path
from reverie.errors import ConfinementError, DreamError
from reverie.storage.folder.confine import resolve_readable, resolve_writable
from reverie.storage.folder.layout import check_writable_on_disk
from reverie.storage.folder.workspace import Workspace

ALLOWED = [
    "SOUL.md",
    "USER.md",
    "memory/MEMORY.md",
    "skills/git-rebase/SKILL.md",
    "skills/a/SKILL.md",
    "skills/0_x-y/SKILL.md",
    "skills/" + "a" * 64 + "/SKILL.md",
]


@pytest.mark.parametrize("path", ALLOWED)
def test_each_writable_path_resolves_to_itself(workspace: Workspace, path: str) -> None:
    assert resolve_writable(workspace.root, path) == path


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("./SOUL.md", "SOUL.md"),
        ("memory/./MEMORY.md", "memory/MEMORY.md"),
        ("././USER.md", "USER.md"),
    ],
)
def test_dot_segments_normalise_only_onto_an_allowed_path(
    workspace: Workspace, raw: str, canonical: str
) -> None:
    assert resolve_writable(workspace.root, raw) == canonical


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "empty path"),
        ("SOUL.md\x00", "NUL"),
        ("/SOUL.md", "absolute"),
        ("../SOUL.md", "'..'"),
        ("memory/../SOUL.md", "'..'"),
        ("SOUL..md", "'..'"),
        ("memory\\MEMORY.md", "backslash"),
        ("~/SOUL.md", "'~'"),
        ("file:///etc/passwd", "':'"),
        ("C:SOUL.md", "':'"),
        ("SOUL.md ", "whitespace"),
        (" SOUL.md", "whitespace"),
        ("SOUL.md\n", "whitespace"),
        ("SOUL\u200b.md", "whitespace"),
        ("SOUL.md\u202e", "whitespace"),
        ("\uff33\uff2f\uff35\uff2c.md", "non-ASCII"),
        ("SOUL.m\u0369d", "non-ASCII"),
        ("skills/café/SKILL.md", "non-ASCII"),
        ("memory//MEMORY.md", "empty path segment"),
        ("SOUL.md/", "empty path segment"),
        (".", "workspace itself"),
        ("x" * 300, "longer than"),
    ],
)
def test_hostile_text_is_refused_with_a_reason(workspace: Workspace, raw: str, reason: str) -> None:
    with pytest.raises(ConfinementError) as caught:
        resolve_writable(workspace.root, raw)
    assert reason in caught.value.reason
    assert isinstance(caught.value, DreamError)
    assert caught.value.path == raw


@pytest.mark.parametrize(
    ("raw", "hint"),
    [
        ("soul.md", "'SOUL.md'"),
        ("Soul.MD", "'SOUL.md'"),
        ("Memory/MEMORY.md", "'memory/MEMORY.md'"),
        ("memory/memory.md", "'memory/MEMORY.md'"),
        ("SOUL.md.", "'SOUL.md'"),
        ("skills/Git/SKILL.md", "skills/<name>/SKILL.md"),
        ("skills/git/skill.md", "skills/<name>/SKILL.md"),
        ("skills/-x/SKILL.md", "skills/<name>/SKILL.md"),
        ("skills/" + "a" * 65 + "/SKILL.md", "skills/<name>/SKILL.md"),
    ],
)
def test_near_misses_are_refused_with_a_hint(workspace: Workspace, raw: str, hint: str) -> None:
    with pytest.raises(ConfinementError) as caught:
        resolve_writable(workspace.root, raw)
    assert hint in caught.value.reason


@pytest.mark.parametrize(
    "raw",
    [
        "memory/history.jsonl",
        "memory/.dream_cursor",
        ".git/config",
        "sessions/a.jsonl",
        "skills/x/other.md",
        "skills/x/y/SKILL.md",
        "skills/SKILL.md",
        "prompts/dream.md",
        "SOUL.md/x",
        "MEMORY.md",
    ],
)
def test_other_workspace_files_are_not_writable(workspace: Workspace, raw: str) -> None:
    with pytest.raises(ConfinementError, match="not writable"):
        resolve_writable(workspace.root, raw)


def test_canonical_writable_needs_a_string() -> None:
    with pytest.raises(ConfinementError, match="must be a string"):
        canonical_writable(["SOUL.md"])
    assert is_writable_path("SOUL.md")
    assert not is_writable_path("./SOUL.md")


def test_a_symlinked_file_is_refused(workspace: Workspace, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("secret")
    (workspace.root / "USER.md").unlink()
    (workspace.root / "USER.md").symlink_to(outside)
    with pytest.raises(ConfinementError, match="symlink"):
        resolve_writable(workspace.root, "USER.md")


def test_a_symlink_to_a_workspace_file_is_refused_too(workspace: Workspace) -> None:
    (workspace.root / "SOUL.md").unlink()
    (workspace.root / "SOUL.md").symlink_to(workspace.root / "USER.md")
    with pytest.raises(ConfinementError, match="symlink"):
        resolve_writable(workspace.root, "SOUL.md")


def test_a_dangling_symlink_is_refused(workspace: Workspace, tmp_path: Path) -> None:
    (workspace.root / "skills").mkdir()
    (workspace.root / "skills" / "x").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ConfinementError, match="symlink"):
        resolve_writable(workspace.root, "skills/x/SKILL.md")


def test_a_symlinked_folder_is_refused(workspace: Workspace, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (workspace.root / "skills").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ConfinementError, match="symlink"):
        resolve_writable(workspace.root, "skills/x/SKILL.md")


def test_wrong_kinds_on_disk_are_refused(workspace: Workspace) -> None:
    (workspace.root / "skills").write_text("a file where a folder belongs")
    with pytest.raises(ConfinementError, match="not a folder"):
        resolve_writable(workspace.root, "skills/x/SKILL.md")
    (workspace.root / "skills").unlink()
    (workspace.root / "skills" / "x" / "SKILL.md").mkdir(parents=True)
    with pytest.raises(ConfinementError, match="not a regular file"):
        resolve_writable(workspace.root, "skills/x/SKILL.md")


def test_a_hard_linked_durable_file_is_refused(workspace: Workspace) -> None:
    (workspace.root / "SOUL.md").unlink()
    os.link(workspace.root / ".reverie" / "format", workspace.root / "SOUL.md")
    with pytest.raises(ConfinementError, match="hard-linked"):
        resolve_writable(workspace.root, "SOUL.md")


def test_a_missing_skill_folder_is_fine(workspace: Workspace) -> None:
    check_writable_on_disk(workspace.root, "skills/new/SKILL.md")


def test_a_workspace_reached_through_a_symlink_still_works(
    workspace: Workspace, tmp_path: Path
) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(workspace.root)
    assert resolve_writable(alias, "memory/MEMORY.md") == "memory/MEMORY.md"
    assert resolve_readable(alias, "SOUL.md") == (workspace.root / "SOUL.md").resolve()


def test_readable_files_resolve_to_their_real_path(workspace: Workspace) -> None:
    (workspace.root / "prompts").mkdir()
    (workspace.root / "prompts" / "dream.md").write_text("x")
    (workspace.root / "notes-café.md").write_text("y")
    assert (
        resolve_readable(workspace.root, "prompts/dream.md")
        == (workspace.root / "prompts" / "dream.md").resolve()
    )
    assert resolve_readable(workspace.root, "./SOUL.md").name == "SOUL.md"
    assert resolve_readable(workspace.root, "notes-café.md").name == "notes-café.md"
    with pytest.raises(ConfinementError, match="whitespace"):
        resolve_readable(workspace.root, "notes café.md")


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (".git/config", "hidden"),
        (".reverie/format", "hidden"),
        ("memory/.dream_cursor", "hidden"),
        ("memory/.cursor", "hidden"),
        (".GIT/config", "hidden"),
        ("\uff0egit/config", "hidden"),
        ("sessions/x.jsonl", "reverie-internal"),
        ("Sessions/x.jsonl", "reverie-internal"),
        ("reverie.toml", "reverie-internal"),
        ("memory/history.jsonl", "history log"),
        ("memory/history.quarantine.jsonl", "history log"),
        ("memory/HISTORY.jsonl", "history log"),
        ("../outside.md", "'..'"),
        ("/etc/passwd", "absolute"),
        ("memory", "not a regular file"),
        ("nothing.md", "no such file"),
    ],
)
def test_denied_or_missing_reads_are_refused(workspace: Workspace, raw: str, reason: str) -> None:
    (workspace.root / "sessions" / "x.jsonl").write_text("{}")
    (workspace.root / ".git").mkdir(exist_ok=True)
    (workspace.root / ".git" / "config").write_text("[core]")
    (workspace.root / "reverie.toml").write_text("api_key = 'x'")
    with pytest.raises(ConfinementError) as caught:
        resolve_readable(workspace.root, raw)
    assert reason in caught.value.reason


def test_read_symlinks_are_judged_by_their_target(workspace: Workspace, tmp_path: Path) -> None:
    root = workspace.root
    (tmp_path / "secret.txt").write_text("outside")
    (root / ".git").mkdir(exist_ok=True)
    (root / ".git" / "config").write_text("[core]")
    (root / "out.md").symlink_to(tmp_path / "secret.txt")
    (root / "git.md").symlink_to(root / ".git" / "config")
    (root / "sess").symlink_to(root / "sessions")
    (root / "ok.md").symlink_to(root / "USER.md")
    (root / "self").symlink_to(root)
    with pytest.raises(ConfinementError, match="outside the workspace"):
        resolve_readable(root, "out.md")
    with pytest.raises(ConfinementError, match="hidden"):
        resolve_readable(root, "git.md")
    with pytest.raises(ConfinementError, match="reverie-internal"):
        resolve_readable(root, "sess/anything")
    with pytest.raises(ConfinementError, match="outside the workspace"):
        resolve_readable(root, "self")
    assert resolve_readable(root, "ok.md") == (root / "USER.md").resolve()


def test_a_hard_linked_file_is_not_readable(workspace: Workspace) -> None:
    os.link(workspace.root / ".reverie" / "format", workspace.root / "fmt.txt")
    with pytest.raises(ConfinementError, match="hard-linked"):
        resolve_readable(workspace.root, "fmt.txt")
