"""Subprocess worker for the multi-process search test.

Usage: search_worker.py WORKSPACE TAG ROUNDS
Each round appends one history entry and one message (session ``cli:TAG``), both holding the
word ``TAG-i``, then refreshes the index; after each refresh it prints
``stats<TAB>history_added<TAB>messages_added``. Other workers do the same at the same time.
"""

from __future__ import annotations

import sys

from reverie import Message
from reverie.storage.folder.index import SearchIndex
from reverie.storage.folder.workspace import Workspace


def main() -> None:
    root, tag, rounds = sys.argv[1:4]
    workspace = Workspace.open(root)
    index = SearchIndex(workspace)
    for number in range(int(rounds)):
        word = f"{tag}x{number}"
        workspace.history.append(f"entry {word} shared")
        workspace.sessions.append(f"cli:{tag}", Message(role="user", content=f"msg {word} shared"))
        stats = index.refresh()
        sys.stdout.write(f"stats\t{stats.history_added}\t{stats.messages_added}\n")
        sys.stdout.flush()
    index.close()
    workspace.close()


if __name__ == "__main__":
    main()
