"""One ingest per workspace at a time, and what an interrupted ingest left to finish.

Two ingests writing one workspace at once would each see the other's half-written sessions
as new data (the duplicates of issue #14). ``hold_ingest`` takes the workspace's ``ingest``
lock for the whole run; a second ingest waits for it (polling gently, telling its caller it
waits) or, with ``wait=False``, raises ``IngestBusyError`` at once. The kernel drops the lock
of a killed process, so a crash never wedges later runs.

While it runs, an ingest keeps ``.reverie/ingest.json``: the sessions it is replaying. The file
is written before the first message is appended and removed once dream has caught up, so
when it exists and nobody holds the lock, an ingest was interrupted. The next ingest (whatever
its paths) finishes those sessions: it compacts what they left pending, then dreams.
``interrupted`` lets ``doctor`` report such a workspace without taking part in it.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from reverie.errors import IngestBusyError, LockTimeoutError, StorageError
from reverie.store import layout
from reverie.store.atomic import atomic_write_text
from reverie.store.workspace import Workspace

logger = logging.getLogger(__name__)

MARKER = Path(layout.INGEST_MARKER)
LOCK_NAME = "ingest"
_POLL_SECONDS = 0.2


@contextmanager
def hold_ingest(
    workspace: Workspace, *, wait: bool = True, on_wait: Callable[[], None] | None = None
) -> Iterator[None]:
    """Hold the workspace's ingest lock for the body of a ``with`` block.

    Raises:
        IngestBusyError: another process is ingesting and ``wait`` is False.
    """
    lock = workspace.lock(LOCK_NAME)
    with ExitStack() as stack:
        stack.callback(lock.close)
        told = False
        while True:
            try:
                stack.enter_context(lock.hold(timeout=0))
                break
            except LockTimeoutError:
                if not wait:
                    raise IngestBusyError(workspace.root) from None
                if not told and on_wait is not None:
                    on_wait()
                told = True
                time.sleep(_POLL_SECONDS)
        yield


def unfinished(workspace: Workspace) -> list[str]:
    """The sessions an interrupted ingest was replaying (empty when none was interrupted)."""
    path = workspace.root / MARKER
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except ValueError:  # a hand edit: the marker is advisory, the next ingest rewrites it
        logger.warning("ignoring an unreadable ingest marker %s", path)
        return []
    except OSError as exc:
        raise StorageError(f"unreadable ingest marker ({exc.strerror})", path=path) from exc
    sessions = loaded.get("sessions") if isinstance(loaded, dict) else None
    return [key for key in sessions or [] if isinstance(key, str)]


def begin(workspace: Workspace, sessions: list[str]) -> None:
    """Record the sessions this ingest will replay (kept until ``finish``)."""
    atomic_write_text(workspace.root / MARKER, json.dumps({"sessions": sorted(set(sessions))}))


def finish(workspace: Workspace) -> None:
    """Forget the marker: every session is compacted and dream has caught up."""
    (workspace.root / MARKER).unlink(missing_ok=True)


def interrupted(workspace: Workspace) -> list[str] | None:
    """For ``doctor``: the sessions of an interrupted ingest, or None when there is none.

    An ingest that is running now (it holds the lock) is not interrupted. When the lock
    cannot even be tried (a read-only workspace), the marker alone decides.
    """
    if not (workspace.root / MARKER).exists():
        return None
    lock = workspace.lock(LOCK_NAME)
    try:
        with lock.hold(timeout=0):
            pass
    except LockTimeoutError:
        return None
    except StorageError:
        pass  # cannot open the lock file: say what the marker says
    finally:
        lock.close()
    return unfinished(workspace)
