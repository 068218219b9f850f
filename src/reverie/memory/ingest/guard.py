"""One ingest per workspace at a time, never into itself, and what an interrupted one left.

Two ingests writing one workspace at once would each see the other's half-written sessions
as new data (the duplicates of issue #14). ``hold_ingest`` takes the workspace's ``ingest``
lock for the whole run; a second ingest waits for it (polling gently, telling its caller it
waits) or, with ``wait=False``, raises ``IngestBusyError`` at once. A crash never wedges later
runs: the kernel drops a folder's lock of a killed process, and a database lease expires
once its holder stops renewing it (``reverie.storage.postgres.locks``).

While it runs, an ingest keeps a record of the sessions it is replaying (the *run* of
``reverie.storage.ports.ingest``: ``.reverie/ingest.json`` in a folder, a row of ``ingest_runs`` in
PostgreSQL). It is recorded before the first message is appended and forgotten once dream
has caught up, so when it exists and nobody holds the lock, an ingest was interrupted. The
next ingest (whatever its paths) finishes those sessions: it compacts what they left pending,
then dreams. ``interrupted`` lets ``doctor`` report such a workspace without taking part in it.

``refuse_self`` keeps a folder workspace from ingesting itself: its own folder (by any path:
a symlink, ``ws/.reverie/..``), or a file or folder of its own layout (``memory/``,
``.reverie/``, ``sessions/``...), would come back as a second copy of every session under an
``import:`` key. A file kept elsewhere inside the workspace (``ws/exports/chat.json``) is
fine (``reverie.storage.sources.inside_own_layout`` tells them apart).

Works on any backend, through ``reverie.storage.ports.IngestStores``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from reverie.errors import IngestBusyError, InputError, LockTimeoutError, StorageError
from reverie.storage.ports import IngestStores
from reverie.storage.sources import inside_own_layout

LOCK_NAME = "ingest"
_POLL_SECONDS = 0.2


def refuse_self(paths: Sequence[Path], root: Path) -> None:
    """Refuse ingesting the workspace at ``root`` (or a part of its layout) into itself.

    Raises:
        InputError: a path is the workspace, or one of its own files or folders.
    """
    for path in paths:
        if inside_own_layout(path, root):
            raise InputError(
                f"{path} is the workspace being ingested into (or a part of it): ingesting it "
                "would copy every session into itself; ingest another workspace or an export"
            )


@contextmanager
def hold_ingest(
    stores: IngestStores, *, wait: bool = True, on_wait: Callable[[], None] | None = None
) -> Iterator[None]:
    """Hold the workspace's ingest lock for the body of a ``with`` block.

    Raises:
        IngestBusyError: another process is ingesting and ``wait`` is False.
    """
    lock = stores.lock(LOCK_NAME)
    with ExitStack() as stack:
        stack.callback(lock.close)
        told = False
        while True:
            try:
                stack.enter_context(lock.hold(timeout=0))
                break
            except LockTimeoutError:
                if not wait:
                    raise IngestBusyError(stores.location) from None
                if not told and on_wait is not None:
                    on_wait()
                told = True
                time.sleep(_POLL_SECONDS)
        yield


def unfinished(stores: IngestStores) -> list[str]:
    """The sessions an interrupted ingest was replaying (empty when none was interrupted)."""
    return stores.ingest_records.running() or []


def begin(stores: IngestStores, sessions: Sequence[str]) -> None:
    """Record the sessions this ingest will replay (kept until ``finish``)."""
    stores.ingest_records.begin(sessions)


def finish(stores: IngestStores) -> None:
    """Forget the run: every session is compacted and dream has caught up."""
    stores.ingest_records.finish()


def interrupted(stores: IngestStores) -> list[str] | None:
    """For ``doctor``: the sessions of an interrupted ingest, or None when there is none.

    An ingest that is running now (it holds the lock) is not interrupted. When the lock
    cannot even be tried (a read-only workspace), the record alone decides.
    """
    sessions = stores.ingest_records.running()
    if sessions is None:
        return None
    lock = stores.lock(LOCK_NAME)
    try:
        with lock.hold(timeout=0):
            pass
    except LockTimeoutError:
        return None
    except StorageError:
        pass  # cannot open the lock file: say what the record says
    finally:
        lock.close()
    return sessions


def interrupted_problem(stores: IngestStores) -> str | None:
    """For ``doctor``: what an interrupted ingest left (sessions, pending messages), or None."""
    keys = interrupted(stores)
    if keys is None:
        return None
    pending = 0
    for key in keys:
        session = stores.sessions.load(key)
        pending += len(session.messages) - session.compacted_upto
    return (
        f"an ingest was interrupted: {len(keys)} session(s), {pending} message(s) not yet "
        "compacted; run `reverie ingest` again (any path) to finish it"
    )
