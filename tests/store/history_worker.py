"""Subprocess worker for the multi-process and crash tests of the history log.

Usage: history_worker.py WORKSPACE COUNT TAG [BIG] (or forked: ``tests/forkserver.py``)
Appends COUNT entries tagged TAG and prints "cursor<TAB>content" for each acknowledged one,
flushing after every line, so a parent that SIGKILLs this process knows exactly what was
acknowledged. With BIG, every third entry is ~60,000 characters to widen the window for torn
writes.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from reverie.storage.folder.workspace import Workspace


def main(argv: list[str] | None = None) -> None:
    """Run with ``argv`` (default: the command line), in a process of its own."""
    args = sys.argv[1:] if argv is None else argv
    root, count, tag = args[0], int(args[1]), args[2]
    big = len(args) > 3
    workspace = Workspace.open(root)
    for index in range(count):
        content = f"{tag}-{index}"
        if big and index % 3 == 0:
            content += " " + "x" * 60_000
        entry = workspace.history.append(content, session_key=f"proc:{tag}")
        sys.stdout.write(f"{entry.cursor}\t{tag}-{index}\n")
        sys.stdout.flush()


def warm() -> None:
    """Open a scratch workspace and append to it once, so forked children start warm."""
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Workspace.open(Path(scratch) / "ws", create=True)
        workspace.history.append("warm", session_key="warm:1")
        workspace.close()


if __name__ == "__main__":
    main()
