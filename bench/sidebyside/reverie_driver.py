"""The reverie side of the comparison: the harness's protocols over reverie's public classes.

Run with reverie's own Python (the project's .venv):
    python bench/sidebyside/reverie_driver.py WORKLOAD ROOT PARAMS_JSON
prints one JSON object (see ``harness`` and ``faults`` for the workloads).

Calls used: ``Workspace.open(root/"ws", create=True)``; ``workspace.history.append(text,
session_key=...)``, ``.read_since(cursor)``, ``.trim(keep=...)``;
``workspace.dream_cursor.write(cursor)``; ``workspace.sessions.append(key, Message)``,
``.append_many(key, messages)`` (only to fill, untimed), ``.load(key)``. Must not reach into
reverie's private modules.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

from faults import FAULT_WORKLOADS
from harness import TIMED_WORKLOADS, entry_text, main
from workers import WORKERS

from reverie import Message
from reverie.storage.folder.workspace import Workspace


def _open(root: Path) -> Workspace:
    return Workspace.open(root / "ws", create=True)


class ReverieHistory:
    """``HistoryLog`` of a reverie workspace."""

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace

    def append(self, text: str) -> int:
        return self._workspace.history.append(text, session_key="bench").cursor

    def read_after(self, cursor: int) -> list[tuple[int, str]]:
        return [
            (entry.cursor, entry.content) for entry in self._workspace.history.read_since(cursor)
        ]

    def set_dream_cursor(self, cursor: int) -> None:
        self._workspace.dream_cursor.write(cursor)

    def trim(self, keep: int) -> None:
        self._workspace.history.trim(keep=keep)

    def close(self) -> None:
        self._workspace.close()


class ReverieSessions:
    """``SessionStore`` of a reverie workspace: one SQLite row per persisted message."""

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace

    def fill(self, key: str, count: int) -> None:
        for start in range(0, count, 500):
            batch = [
                Message(role="user" if i % 2 == 0 else "assistant", content=entry_text(f"p{i}"))
                for i in range(start, min(count, start + 500))
            ]
            self._workspace.sessions.append_many(key, batch)

    def open(self, key: str) -> None:
        self._workspace.sessions.load(key)

    def persist(self, key: str, role: str, text: str) -> None:
        self._workspace.sessions.append(
            key, Message(role="user" if role == "user" else "assistant", content=text)
        )

    def contents(self, key: str) -> list[str]:
        return [message.text for message in self._workspace.sessions.load(key).messages]

    def close(self) -> None:
        self._workspace.close()


class Reverie:
    """reverie, opened from the workspace folder ``ROOT/ws``."""

    name = "reverie"

    def version(self) -> str:
        return version("reverie")

    def history(self, root: Path) -> ReverieHistory:
        return ReverieHistory(_open(root))

    def sessions(self, root: Path) -> ReverieSessions:
        return ReverieSessions(_open(root))

    def history_file(self, root: Path) -> Path:
        return root / "ws" / "memory" / "history.jsonl"


if __name__ == "__main__":
    main(Reverie(), {**TIMED_WORKLOADS, **FAULT_WORKLOADS}, WORKERS)
