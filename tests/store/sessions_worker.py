"""Subprocess worker for the multi-process and crash tests of the session store.

Usage: sessions_worker.py WORKSPACE KEY TAG COUNT MODE
MODE "append": appends COUNT messages "TAG-i" and prints "ack<TAB>TAG-i" after each returns;
MODE "big" does the same with every third message ~200,000 characters long, to widen the
window in which a kill tears a record.
MODE "state": per message also sets the mark and ten metadata values (printing "mark<TAB>n"
and "meta<TAB>n" once acknowledged), so most writes are state updates. Every line is flushed,
so a parent that SIGKILLs this process knows exactly what was acknowledged.
"""

from __future__ import annotations

import sys

from reverie import Message, Workspace


def _say(*fields: object) -> None:
    sys.stdout.write("\t".join(str(field) for field in fields) + "\n")
    sys.stdout.flush()


def main() -> None:
    root, key, tag, count, mode = sys.argv[1:6]
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


if __name__ == "__main__":
    main()
