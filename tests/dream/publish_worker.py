"""Subprocess worker for the dream publish crash test.

Usage: publish_worker.py WORKSPACE (or forked from a parent: ``tests/forkserver.py``)
Publishes generation after generation of four writable files (each ~100 KB, so a SIGKILL can
land inside any step), then advances a stand-in cursor (``memory/.dream_cursor``) and finishes
the journal, printing each finished generation. Prints "ready" once imports are done.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from reverie.memory.dream.staging import Staging
from reverie.storage.folder.cursors import DreamCursor
from reverie.storage.folder.dream_files import FolderDreamFiles
from reverie.storage.folder.dream_journal import DEFAULT_JOURNAL, finish_publish
from reverie.storage.folder.workspace import Workspace
from tests.dream.staged import publish

PATHS = ("SOUL.md", "USER.md", "memory/MEMORY.md", "skills/crash/SKILL.md")


def content(path: str, generation: int) -> str:
    """The text of ``path`` at ``generation`` (the first line names both).

    The file is named by number: a new SOUL.md line naming a memory file would be screened.
    """
    head = f"file {PATHS.index(path)} generation {generation}\n"
    return head + f"{generation:08d} filler line\n" * 5_000


def main(argv: list[str] | None = None) -> None:
    """Run with ``argv`` (default: the command line), in a process of its own."""
    root = Path((sys.argv[1:] if argv is None else argv)[0])
    journal = root / DEFAULT_JOURNAL
    cursor = DreamCursor(root / "memory" / ".dream_cursor")
    generation = cursor.read()
    print("ready", flush=True)
    while True:
        generation += 1
        staging = Staging(FolderDreamFiles(root))
        for path in PATHS:
            staging.write(path, content(path, generation))
        publish(staging, journal, cursor=generation, trigger="crash-test")
        cursor.write(generation)
        finish_publish(journal)
        print(generation, flush=True)


def warm() -> None:
    """Publish once in a scratch workspace, so forked children start warm."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "ws"
        Workspace.open(root, create=True).close()
        staging = Staging(FolderDreamFiles(root))
        staging.write("USER.md", "warm\n")
        publish(staging, root / DEFAULT_JOURNAL, cursor=1, trigger="warm")
        finish_publish(root / DEFAULT_JOURNAL)


if __name__ == "__main__":
    main()
