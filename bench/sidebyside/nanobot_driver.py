"""The nanobot side of the comparison: the harness's protocols over nanobot's public classes.

Run with the Python of the nanobot virtual environment that ``bench/compare.py`` builds:
    .cache/bench/nanobot-venv/bin/python bench/sidebyside/nanobot_driver.py WORKLOAD ROOT JSON
prints one JSON object (see ``harness`` and ``faults`` for the workloads).

Calls used (nanobot-ai 0.3.5), as nanobot's own agent loop and dream use them:
- history: ``MemoryStore(workspace)`` with ``append_history(text, session_key=...)``,
  ``read_unprocessed_history(since_cursor)``, ``set_last_dream_cursor(cursor)`` and
  ``compact_history()`` (the trim; it keeps ``max_history_entries``, a public attribute).
- sessions: ``SessionManager(workspace, sessions_root=...)`` (0.3.x keeps sessions outside the
  workspace; passing the folder spares it from reading a config file), ``get_or_create(key)``,
  ``Session.add_message(role, content)`` and ``SessionManager.save(session)`` (synchronous,
  default ``fsync=False``, as the agent loop calls it). A reload uses a fresh manager.
Must not reach into nanobot's private attributes.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

from faults import FAULT_WORKLOADS
from harness import TIMED_WORKLOADS, entry_text, main
from nanobot.agent.memory import MemoryStore
from nanobot.session.manager import SessionManager
from workers import WORKERS


def _workspace(root: Path) -> Path:
    workspace = root / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    return workspace


class NanobotHistory:
    """``MemoryStore`` of a nanobot workspace."""

    def __init__(self, workspace: Path) -> None:
        self._store = MemoryStore(workspace)

    def append(self, text: str) -> int:
        return int(self._store.append_history(text, session_key="bench"))

    def read_after(self, cursor: int) -> list[tuple[int, str]]:
        entries = self._store.read_unprocessed_history(since_cursor=cursor)
        return [(int(entry["cursor"]), str(entry["content"])) for entry in entries]

    def set_dream_cursor(self, cursor: int) -> None:
        self._store.set_last_dream_cursor(cursor)

    def trim(self, keep: int) -> None:
        self._store.max_history_entries = keep
        self._store.compact_history()

    def close(self) -> None:
        """``MemoryStore`` holds nothing open."""


class NanobotSessions:
    """``SessionManager``: each save rewrites the session's whole JSONL file."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._manager = self._new_manager()

    def _new_manager(self) -> SessionManager:
        return SessionManager(
            _workspace(self._root), sessions_root=self._root / "state" / "sessions"
        )

    def fill(self, key: str, count: int) -> None:
        session = self._manager.get_or_create(key)
        for index in range(count):
            role = "user" if index % 2 == 0 else "assistant"
            session.add_message(role, entry_text(f"p{index}"))
        self._manager.save(session)

    def open(self, key: str) -> None:
        self._manager.get_or_create(key)

    def persist(self, key: str, role: str, text: str) -> None:
        session = self._manager.get_or_create(key)
        session.add_message(role, text)
        self._manager.save(session)

    def contents(self, key: str) -> list[str]:
        session = self._new_manager().get_or_create(key)
        return [str(message.get("content")) for message in session.messages]

    def close(self) -> None:
        """``SessionManager`` holds nothing open between calls."""


class Nanobot:
    """nanobot, with its workspace at ``ROOT/ws`` and its session storage at ``ROOT/state``."""

    name = "nanobot"

    def version(self) -> str:
        return version("nanobot-ai")

    def history(self, root: Path) -> NanobotHistory:
        return NanobotHistory(_workspace(root))

    def sessions(self, root: Path) -> NanobotSessions:
        return NanobotSessions(root)

    def history_file(self, root: Path) -> Path:
        return root / "ws" / "memory" / "history.jsonl"


if __name__ == "__main__":
    main(Nanobot(), {**TIMED_WORKLOADS, **FAULT_WORKLOADS}, WORKERS)
