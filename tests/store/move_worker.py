"""Forked worker (``tests/forkserver.py``) of the journal-move kill test: opens a workspace.

Prints "ready", opens the workspace at ``argv[0]`` (which moves an older reverie's session
journals into SQLite), closes it and prints "done".
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from reverie import Workspace


def main(argv: list[str] | None = None) -> None:
    """Run with ``argv`` (default: the command line), in a process of its own."""
    root = (sys.argv[1:] if argv is None else argv)[0]
    print("ready", flush=True)
    Workspace.open(root).close()
    print("done", flush=True)


def warm() -> None:
    """Open a scratch workspace once, so forked children start warm."""
    with tempfile.TemporaryDirectory() as scratch:
        Workspace.open(Path(scratch) / "ws", create=True).close()
        Workspace.open(Path(scratch) / "ws").close()


if __name__ == "__main__":
    main()
