"""Subprocess worker for the change-sequence tests of the session store.

Usage: changes_worker.py WORKSPACE KEY COUNT [GONE]
Opens the workspace, prints "ready" and waits for a line on stdin (so several start writing
at one instant), then appends COUNT messages "KEY-i" to session KEY, one transaction each.
After each it prints "changed<TAB>N", the change number its session row holds then (no
other process writes that session, so it is the number this append took), and pauses 2 ms.
With GONE, it then deletes session GONE. Every line is flushed.
"""

from __future__ import annotations

import sqlite3
import sys
import time

from reverie import Message
from reverie.storage.folder.workspace import Workspace


def main() -> None:
    """Run with the command line, in a process of its own."""
    root, key, count, *gone = sys.argv[1:]
    workspace = Workspace.open(root)
    store = workspace.sessions
    store.exists(key)  # the database is open before the race starts
    reader = sqlite3.connect(f"{store.database.as_uri()}?mode=ro", uri=True)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    sys.stdin.readline()
    for number in range(int(count)):
        store.append(key, Message(role="user", content=f"{key}-{number}"))
        (changed,) = reader.execute("SELECT changed FROM sessions WHERE key = ?", (key,)).fetchone()
        sys.stdout.write(f"changed\t{changed}\n")
        sys.stdout.flush()
        time.sleep(0.002)  # SQLite's busy wait would let one writer take every turn otherwise
    for key_gone in gone:
        store.delete(key_gone)
    reader.close()
    workspace.close()


if __name__ == "__main__":
    main()
