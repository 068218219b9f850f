"""Subprocess worker for the multi-process and crash tests of the history log.

Usage: history_worker.py WORKSPACE COUNT TAG [BIG]
Appends COUNT entries tagged TAG and prints "cursor<TAB>content" for each acknowledged one,
flushing after every line, so a parent that SIGKILLs this process knows exactly what was
acknowledged. With BIG, every third entry is ~60,000 characters to widen the window for torn
writes.
"""

from __future__ import annotations

import sys

from reverie import Workspace


def main() -> None:
    root, count, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    big = len(sys.argv) > 4
    workspace = Workspace.open(root)
    for index in range(count):
        content = f"{tag}-{index}"
        if big and index % 3 == 0:
            content += " " + "x" * 60_000
        entry = workspace.history.append(content, session_key=f"proc:{tag}")
        sys.stdout.write(f"{entry.cursor}\t{tag}-{index}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
