"""Subprocess worker for the multi-process and crash tests of the session store.

Usage: sessions_worker.py WORKSPACE KEY TAG COUNT MODE (or forked: ``tests/forkserver.py``)
MODE "append": appends COUNT messages "TAG-i" and prints "ack<TAB>TAG-i" after each returns;
MODE "big" does the same with every third message ~200,000 characters long, to widen the
window in which a kill tears a record.
MODE "state": per message also sets the mark and ten metadata values (printing "mark<TAB>n"
and "meta<TAB>n" once acknowledged), so most writes are state updates. Every line is flushed,
so a parent that SIGKILLs this process knows exactly what was acknowledged.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from reverie import Message
from reverie.storage.folder.workspace import Workspace


def _say(*fields: object) -> None:
    sys.stdout.write("\t".join(str(field) for field in fields) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> None:
    """Run with ``argv`` (default: the command line), in a process of its own."""
    root, key, tag, count, mode = (sys.argv[1:] if argv is None else argv)[:5]
    workspace = Workspace.open(root)
    store = workspace.sessions
    for index in range(int(count)):
        text = f"{tag}-{index}"
        content = text + " " + "y" * 200_000 if mode == "big" and index % 3 == 0 else text
        message = Message(role="user", content=content)
        if index % 2:
            message = Message(role="assistant", content=content)
        position = store.append(key, message)
        _say("ack", text)
        if mode == "state":
            store.set_compacted_upto(key, position)
            _say("mark", position)
            for field in "abcdefghij":
                store.update_metadata(key, {field: index, "pad": "x" * 200})
            _say("meta", index)


def warm() -> None:
    """Open a scratch workspace and write to it once, so forked children start warm."""
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Workspace.open(Path(scratch) / "ws", create=True)
        workspace.sessions.append("warm:1", Message(role="user", content="warm"))
        workspace.sessions.set_compacted_upto("warm:1", 1)
        workspace.sessions.update_metadata("warm:1", {"a": 1})
        workspace.close()


if __name__ == "__main__":
    main()
