"""Background memory work of one engine: compact idle sessions, dream when due.

``maintain`` is one pass: it compacts every session idle past ``[compaction] idle_minutes``
(leaving the ones ``busy`` names: a turn may be running in them) and then runs dream when its
schedule says so (``MemoryEngine.dream_if_due``: pending entries, interval, cron, back-off).
Every long-running surface runs this same pass: the chat REPL and ``reverie mcp`` through a
``MaintenanceWorker``, ``reverie serve`` once per principal from its fair queue
(``reverie.engine.owners.maintenance``), and an SDK user through
``MemoryEngine.start_maintenance`` (off unless asked; ``close`` stops it).

``MaintenanceWorker`` runs a pass every ``interval`` seconds in a daemon thread. A pass that
fails is logged and handed to ``report`` (``MaintenancePass.error``), and the worker goes on:
a model that is down (a ``ReverieError``) and a bug alike, the bug with its traceback. A
dream lock held by another process is not a failure: dream says ``busy`` and the next pass
tries again. ``stop`` sets the stop event and joins the thread, which finishes the pass it is
in (a dream publish is never cut short). The thread is a daemon, and a worker still running at
interpreter exit is stopped the same way (``atexit``): the process ends once the pass is done.
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, Self

from reverie.errors import ReverieError

if TYPE_CHECKING:
    from reverie.memory.compaction.result import CompactionResult
    from reverie.memory.dream.result import DreamResult

logger = logging.getLogger(__name__)

DEFAULT_INTERVAL = 30.0
"""Seconds between two passes of a ``MaintenanceWorker``."""

QUIET_COMPACTIONS = frozenset({"not_needed", "busy"})
"""Compaction outcomes that did nothing worth telling a person."""
QUIET_DREAMS = frozenset({"no_pending", "busy"})
"""Dream outcomes that did nothing worth telling a person."""


class Maintained(Protocol):
    """What a pass works on: ``MemoryEngine`` (its two operations)."""

    def compact_idle(self, in_flight: Iterable[str] = ()) -> dict[str, CompactionResult]:
        """Compact every idle session not in ``in_flight``."""
        ...

    def dream_if_due(self) -> DreamResult | None:
        """Dream when the schedule says so; else None."""
        ...


@dataclass(frozen=True, slots=True)
class MaintenancePass:
    """What one pass did: each idle session's compaction, the dream run (None: not due).

    ``error`` is the exception a failed pass raised (what it did before is lost with it).
    """

    compactions: dict[str, CompactionResult] = field(default_factory=dict)
    dream: DreamResult | None = None
    error: Exception | None = None

    def noteworthy(self) -> tuple[dict[str, CompactionResult], DreamResult | None]:
        """The compactions and the dream run that changed something (quiet outcomes left out)."""
        compactions = {
            key: result
            for key, result in self.compactions.items()
            if result.outcome not in QUIET_COMPACTIONS
        }
        dream = self.dream
        if dream is not None and dream.outcome in QUIET_DREAMS:
            dream = None
        return compactions, dream

    def lines(self) -> list[str]:
        """Plain lines for a log (quiet when the pass did nothing)."""
        compactions, dream = self.noteworthy()
        lines = [
            f"idle compaction of {key}: {result.outcome}" for key, result in compactions.items()
        ]
        if dream is not None:
            lines.append(f"dream: {dream.outcome}")
        if self.error is not None:
            lines.append(f"failed: {self.error}")
        return lines


def maintain(engine: Maintained, *, busy: Iterable[str] = ()) -> MaintenancePass:
    """One pass: compact the idle sessions not in ``busy``, then dream if it is due.

    Raises what compaction or dream raise (``ModelConnectionError``...); the worker and the
    server's queue catch it, a caller of its own decides.
    """
    compactions = engine.compact_idle(busy)
    return MaintenancePass(compactions=compactions, dream=engine.dream_if_due())


_RUNNING: weakref.WeakSet[MaintenanceWorker] = weakref.WeakSet()


@atexit.register
def _stop_running() -> None:
    """At interpreter exit, let each running worker finish its pass (a dream publish)."""
    for worker in list(_RUNNING):
        worker.stop()


class MaintenanceWorker:
    """Runs ``maintain`` every ``interval`` seconds in a daemon thread until ``stop``."""

    def __init__(
        self,
        engine: Maintained,
        *,
        interval: float = DEFAULT_INTERVAL,
        busy: Callable[[], Iterable[str]] = tuple,
        report: Callable[[MaintenancePass], None] | None = None,
    ) -> None:
        if interval <= 0:
            raise ValueError(f"maintenance needs a positive interval, got {interval!r}")
        self._engine = engine
        self._interval = interval
        self._busy = busy
        self._report = report
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="reverie-maintenance", daemon=True)
        self.passes = 0
        """Passes run so far (failed ones included)."""

    def run_once(self) -> MaintenancePass:
        """One pass in the calling thread, failures caught, logged and reported as the thread's."""
        try:
            done = maintain(self._engine, busy=list(self._busy()))
        except ReverieError as exc:
            logger.warning("background maintenance failed: %s", exc)
            done = MaintenancePass(error=exc)
        except Exception as exc:
            # A bug must not end the worker silently (nothing would compact or dream again
            # until a restart): it is logged with its traceback and the next pass runs.
            logger.exception("background maintenance hit a bug")
            done = MaintenancePass(error=exc)
        self.passes += 1
        if self._report is not None:
            try:
                self._report(done)
            except Exception:  # a report that cannot be shown must not stop the work either
                logger.exception("background maintenance could not report a pass")
        return done

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self.run_once()

    def start(self) -> Self:
        """Start the thread, unless it was started already; return the worker.

        A worker runs once: after ``stop`` it stays stopped (start another one).
        """
        if self._thread.ident is None:
            self._thread.start()
            _RUNNING.add(self)
        return self

    def stop(self) -> None:
        """Stop after the pass in progress, if any, and wait for the thread to end."""
        self._stop.set()
        _RUNNING.discard(self)
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    @property
    def running(self) -> bool:
        """Whether the worker thread is alive."""
        return self._thread.is_alive()

    def __enter__(self) -> Self:
        """Start (``start_maintenance``'s worker is started already); leaving stops it."""
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
