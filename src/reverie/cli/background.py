"""The chat REPL's background worker: idle compaction and scheduled dream in one thread.

Every ``interval`` seconds ``tick`` compacts sessions idle past the TTL (skipping the sessions
``busy()`` names: the REPL's own, which the person may type into at any moment) and runs dream
when its schedule says so (``MemoryEngine.dream_if_due``). What it did is handed to ``report``
as lines; an expected error is reported the same way and the worker goes on. A bug (any other
exception) ends the thread with its traceback, visibly.

Shutdown is clean: leaving the ``with`` block sets the stop event and joins the thread, which
finishes the step it is in (a dream publish is never cut short by the REPL quitting).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Self

from rich.text import Text

from reverie.cli.failure import describe
from reverie.cli.memory_views import dream_line
from reverie.cli.record_views import compaction_line
from reverie.engine.facade import MemoryEngine
from reverie.errors import ReverieError

DEFAULT_INTERVAL = 30.0
"""Seconds between two background passes."""

_QUIET_COMPACTIONS = frozenset({"not_needed", "busy"})
_QUIET_DREAMS = frozenset({"no_pending", "busy"})


class Background:
    """Runs ``tick`` every ``interval`` seconds in a daemon thread while the block is open."""

    def __init__(
        self,
        engine: MemoryEngine,
        *,
        busy: Callable[[], Iterable[str]],
        report: Callable[[Text], None],
        interval: float = DEFAULT_INTERVAL,
    ) -> None:
        self._engine = engine
        self._busy = busy
        self._report = report
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="reverie-background", daemon=True)

    def tick(self) -> list[Text]:
        """One pass: compact idle sessions, then dream if due; return what happened."""
        lines = []
        for key, result in self._engine.compact_idle(self._busy()).items():
            if result.outcome not in _QUIET_COMPACTIONS:
                lines.append(Text("idle ") + compaction_line(key, result))
        dreamed = self._engine.dream_if_due()
        if dreamed is not None and dreamed.outcome not in _QUIET_DREAMS:
            lines.append(dream_line(dreamed))
        return lines

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                lines = self.tick()
            except ReverieError as exc:
                lines = [Text(f"background: {describe(exc)}", style="yellow")]
            for line in lines:
                self._report(line)

    @property
    def running(self) -> bool:
        """Whether the worker thread is alive."""
        return self._thread.is_alive()

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
