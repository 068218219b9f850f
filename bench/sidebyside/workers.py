"""The child processes of the fault workloads: writers, a cursor-following reader, a victim.

Owns: what each ``worker-*`` mode of a driver does. A worker opens its system, prints
``ready``, waits for the start signal (the file ``ROOT/go``) where racing matters, and prints
one acknowledgement line per completed write.

Must not: import reverie or nanobot (it runs in both virtual environments).

Invariants: an acknowledgement is printed only after the call it acknowledges returned, and is
flushed at once, so after a SIGKILL the acknowledgements are exactly the writes the system
promised to keep.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from harness import TEXT, Params, System, Worker, as_int, entry_text, tag_of

SHARED_KEY = "bench:shared"


def _say(*fields: object) -> None:
    sys.stdout.write("\t".join(str(field) for field in fields) + "\n")
    sys.stdout.flush()


def _wait_for(flag: Path) -> None:
    while not flag.exists():
        time.sleep(0.0005)


def worker_append(system: System, root: Path, params: Params) -> None:
    """Append ``count`` entries after the start signal, acknowledging each."""
    history = system.history(root)
    prefix = str(params["prefix"])
    _say("ready")
    _wait_for(root / "go")
    for index in range(as_int(params, "count")):
        cursor = history.append(entry_text(f"{prefix}{index}"))
        _say("h", f"{prefix}{index}", cursor)
    history.close()


def worker_read(system: System, root: Path, params: Params) -> None:
    """Follow the log as dream does: take the first ``batch`` entries after the cursor, then
    move the cursor to the last entry of that batch; once the writers are done, drain."""
    history = system.history(root)
    batch = as_int(params, "batch")
    _say("ready")
    _wait_for(root / "go")
    cursor, polls, seen = 0, 0, list[str]()
    while True:
        finished = (root / "done").exists()  # checked before reading, so the drain is complete
        got = history.read_after(cursor)[:batch]
        polls += 1
        if got:
            seen.extend(tag_of(text) for _cursor, text in got)
            cursor = got[-1][0]
        elif finished:
            break
        if not finished:
            time.sleep(0.002)
    history.close()
    print(json.dumps({"seen": seen, "polls": polls}))


def worker_session(system: System, root: Path, params: Params) -> None:
    """Persist ``count`` messages, ``pause_us`` apart, into the shared session."""
    sessions = system.sessions(root)
    sessions.open(SHARED_KEY)  # both processes have the conversation open, like two agents
    prefix, pause = str(params["prefix"]), as_int(params, "pause_us") / 1e6
    _say("ready")
    _wait_for(root / "go")
    for index in range(as_int(params, "count")):
        role = "user" if index % 2 == 0 else "assistant"
        sessions.persist(SHARED_KEY, role, entry_text(f"{prefix}{index}"))
        _say("s", f"{prefix}{index}")
        time.sleep(pause)  # messages arrive paced, not in one burst
    sessions.close()


def worker_kill(system: System, root: Path, params: Params) -> None:
    """Append entries (every fifth one large) and persist messages until killed."""
    history, sessions = system.history(root), system.sessions(root)
    prefix = str(params["prefix"])
    big = " ".join([TEXT] * 100)  # ~31 KB: widens the window a kill can tear
    _say("ready")
    for index in range(10**9):
        tag = f"{prefix}{index}"
        history.append(entry_text(tag, big if index % 5 == 0 else TEXT))
        _say("h", tag)
        sessions.persist(SHARED_KEY, "user" if index % 2 == 0 else "assistant", entry_text(tag))
        _say("s", tag)


WORKERS: dict[str, Worker] = {
    "worker-append": worker_append,
    "worker-read": worker_read,
    "worker-session": worker_session,
    "worker-kill": worker_kill,
}
