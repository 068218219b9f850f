"""Subprocess worker for the multi-process and SIGKILL tests of the PostgreSQL store.

Usage: pg_worker.py URL WORKSPACE MODE ARGS...
- ``append COUNT TAG``: append COUNT history entries; print "cursor<TAB>content" per ack.
- ``session COUNT TAG KEY``: append COUNT messages to session KEY; print "index<TAB>text".
- ``lease NAME TTL_SECONDS HOLD_SECONDS``: try to take lease NAME; print "got TOKEN" or
  "busy", then hold it (heartbeat running) for HOLD_SECONDS and print "done".
Every line is flushed, so a parent that SIGKILLs this process knows what was acknowledged.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import timedelta

from reverie.messages import Message
from reverie.postgres.database import Database
from reverie.postgres.history import PgHistoryLog
from reverie.postgres.leases import PgLeases
from reverie.postgres.sessions import PgSessionStore


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> None:
    url, name, mode, *args = sys.argv[1:]
    database = Database(url, max_connections=2)
    tenant = database.tenant(name)
    if mode == "append":
        log = PgHistoryLog(tenant)
        for index in range(int(args[0])):
            entry = log.append(f"{args[1]}-{index}", session_key=f"proc:{args[1]}")
            _say(f"{entry.cursor}\t{entry.content}")
    elif mode == "session":
        store = PgSessionStore(tenant)
        for index in range(int(args[0])):
            text = f"{args[1]}-{index}"
            _say(f"{store.append(args[2], Message(role='user', content=text))}\t{text}")
    elif mode == "lease":
        leases = PgLeases(tenant, holder=f"pid:{os.getpid()}")
        with leases.hold(args[0], timedelta(seconds=float(args[1]))) as lease:
            _say("busy" if lease is None else f"got {lease.token}")
            if lease is not None:
                time.sleep(float(args[2]))
        _say("done")
    database.close()


if __name__ == "__main__":
    main()
