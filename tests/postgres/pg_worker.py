"""Subprocess worker for the multi-process and SIGKILL tests of the PostgreSQL store.

Usage: pg_worker.py URL WORKSPACE MODE ARGS...
- ``append COUNT TAG``: append COUNT history entries; print "cursor<TAB>content" per ack.
- ``session COUNT TAG KEY``: append COUNT messages to session KEY; print "index<TAB>text".
- ``lease NAME TTL_SECONDS HOLD_SECONDS``: try to take lease NAME; print "got TOKEN" or
  "busy", then hold it (heartbeat running) for HOLD_SECONDS and print "done".
- ``dream TTL_SECONDS``: run dreams (lease ``dream``, the next 5 entries after the dream cursor
  appended to MEMORY.md, published with the cursor in one fenced transaction) until none is
  left, waiting up to three ttls for a lease another holder keeps; print
  "dream<TAB>first<TAB>last" per published dream.
Every line is flushed, so a parent that SIGKILLs this process knows what was acknowledged.
The tests fork it from a parent that imported it once (``tests/forkserver.py``).
"""

from __future__ import annotations

import functools
import os
import sys
import time
from datetime import timedelta
from typing import TYPE_CHECKING

from reverie.core.messages import Message
from reverie.storage.postgres.audit import PgAudit
from reverie.storage.postgres.database import Database, Tenant
from reverie.storage.postgres.files import PgMemoryFiles
from reverie.storage.postgres.history import PgHistoryLog
from reverie.storage.postgres.leases import Lease, PgLeases
from reverie.storage.postgres.sessions import PgSessionStore

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Conn


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> None:
    """Run with ``argv`` (default: the command line), in a process of its own."""
    url, name, mode, *args = sys.argv[1:] if argv is None else argv
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
    elif mode == "dream":
        _dream(tenant, timedelta(seconds=float(args[0])))
    database.close()


def _dream(tenant: Tenant, ttl: timedelta) -> None:
    leases = PgLeases(tenant, holder=f"pid:{os.getpid()}")
    log, files, audit = PgHistoryLog(tenant), PgMemoryFiles(tenant), PgAudit(tenant)
    idle = 0
    # Another holder may have been killed holding the lease: wait for it to expire (well past
    # its ttl) before giving up, or a survivor forked at once would leave its entries undreamt.
    patience = time.monotonic() + 3 * ttl.total_seconds()
    while idle < 20 and time.monotonic() < patience:
        with leases.hold("dream", ttl) as lease:
            if lease is None:
                time.sleep(0.05)
                continue
            entries = log.read_since(log.dream_cursor(), limit=5)
            if not entries:
                idle += 1
                continue
            idle = 0
            patience = time.monotonic() + 3 * ttl.total_seconds()
            text = files.read("MEMORY") + "".join(f"- {e.content}\n" for e in entries)
            time.sleep(0.02)  # widen the window a kill can land in
            first, last = entries[0].cursor, entries[-1].cursor
            audit.publish(
                {"memory/MEMORY.md": text},
                subject=f"dream: {first}-{last}",
                dream_cursor=last,
                fence=functools.partial(_fence, leases, lease),
            )
            _say(f"dream\t{first}\t{last}")


def _fence(leases: PgLeases, lease: Lease, conn: Conn) -> None:
    leases.fence(conn, lease)


if __name__ == "__main__":
    main()
