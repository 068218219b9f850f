"""Forked worker (``tests/forkserver.py``) of the first-write race test: one session store.

``main([ROOT, GO])`` opens the session store of the workspace folder ROOT (which makes no
database yet), prints "ready", waits for the named pipe GO to be opened by the test (at most
30 s), then appends one message
to a session of its own, which creates the database if nobody has, and prints "done". Several
run side by side, released together by the kernel when the test opens the pipe, so they make
a new database at the same instant.
"""

from __future__ import annotations

import os
import select
import sys
from datetime import UTC, datetime
from pathlib import Path

from reverie import Message
from reverie.storage.folder.sessions_sqlite import SqliteSessionStore

START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def main(argv: list[str] | None = None) -> None:
    """Run with ``argv`` (default: the command line), in a process of its own."""
    root, go = (Path(arg) for arg in (sys.argv[1:] if argv is None else argv)[:2])
    store = SqliteSessionStore(root / "sessions", state_dir=root / ".reverie", clock=lambda: START)
    print("ready", flush=True)
    # Opened without blocking, then woken when the test opens and closes the write end (a
    # pipe no writer has opened yet is not readable, so select waits for exactly that). A
    # blocking open hung for good when the test had come and gone before this child got
    # here; now such a child goes on after the timeout, and the test still checks it wrote.
    fd = os.open(go, os.O_RDONLY | os.O_NONBLOCK)
    try:
        select.select([fd], [], [], 30.0)
    finally:
        os.close(fd)
    store.append(f"p{os.getpid()}", Message(role="user", content="hello"))
    store.close()
    print("done", flush=True)


if __name__ == "__main__":
    main()
