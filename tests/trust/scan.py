"""Helpers for trust tests: every derived file of a workspace and every git object, as text."""

from __future__ import annotations

from pathlib import Path

from dulwich.objects import Blob, Commit
from dulwich.repo import Repo

DERIVED = (
    "SOUL.md",
    "USER.md",
    "memory/MEMORY.md",
    "memory/history.jsonl",
    "memory/ledger.jsonl",
    ".reverie/rejected-rules.jsonl",
)
"""Files derived from conversations (the raw session journals are the user's own transcript)."""


def derived_texts(root: Path) -> dict[str, str]:
    """Relative path -> text of every derived file that exists, skill files included."""
    paths = [*DERIVED, *(p.relative_to(root).as_posix() for p in root.glob("skills/*/SKILL.md"))]
    return {
        path: (root / path).read_text(encoding="utf-8", errors="replace")
        for path in paths
        if (root / path).is_file()
    }


def git_texts(root: Path) -> list[str]:
    """The content of every blob and the message of every commit in the audit repository."""
    texts: list[str] = []
    with Repo(str(root)) as repo:
        store = repo.object_store
        for sha in store:
            obj = store[sha]
            if isinstance(obj, Blob):
                texts.append(obj.data.decode("utf-8", "replace"))
            elif isinstance(obj, Commit):
                texts.append(obj.message.decode("utf-8", "replace"))
    return texts


def leaks(root: Path, secret: str) -> list[str]:
    """Where ``secret`` shows up in a derived file or a git object (empty: nowhere)."""
    found = [path for path, text in derived_texts(root).items() if secret in text]
    found += [f"git object {i}" for i, text in enumerate(git_texts(root)) if secret in text]
    return found
