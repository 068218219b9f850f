"""When the next dream is due and how the last one ended, read without the dream runner.

``DreamOutlook`` reads what the schedule needs (the entries pending after the dream cursor,
the persisted back-off state) and asks ``Schedule.decide``. The dream runners (``cycle``)
answer ``pending`` and ``should_run`` through it, and ``status`` uses it
alone: so reporting the schedule does not build the runner, nor import the tool loop, the
model-free curator, provenance or git.

It reads, never writes; only the runner writes the state, under the dream lock.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from reverie.config.sections import DreamConfig
from reverie.core.clock import parse_wall_clock
from reverie.memory.dream.schedule import Decision, Pending, Schedule
from reverie.memory.dream.state import DreamState

if TYPE_CHECKING:
    from reverie.core.entries import HistoryEntry
    from reverie.storage.ports import Stores


class DreamOutlook:
    """The dream schedule of one workspace, as read from its stores and state file."""

    def __init__(
        self,
        stores: Stores,
        read_state: Callable[[], DreamState],
        *,
        config: DreamConfig,
        schedule: Schedule | None = None,
    ) -> None:
        """Read the schedule of ``stores``.

        Args:
            stores: the workspace's stores (the history log, the dream cursor, the clock).
            read_state: reads the persisted back-off state (a folder's
                ``.reverie/dream-state.json``, a database's row).
            config: the trigger settings.
            schedule: the trigger rules (built from ``config`` when None).

        Raises:
            ConfigError: ``config.cron`` is not a valid cron expression.
        """
        self.stores = stores
        self.read_state = read_state
        self.config = config
        self.schedule = schedule if schedule is not None else Schedule(config)

    def pending(self) -> Pending:
        """What waits after the dream cursor (count capped at ``pending_trigger``)."""
        limit = max(1, self.config.pending_trigger)
        entries = self.stores.history.read_since(self.stores.dream_cursor.read(), limit)
        oldest = _entry_time(entries[0]) if entries else None
        return Pending(count=len(entries), oldest=oldest)

    def state(self) -> DreamState:
        """The persisted back-off state."""
        return self.read_state()

    def should_run(self, now: datetime | None = None, *, manual: bool = False) -> Decision:
        """Whether a dream run should start now (see ``Schedule.decide``)."""
        moment = now if now is not None else self.stores.clock()
        return self.schedule.decide(
            moment, pending=self.pending(), state=self.state(), manual=manual
        )


def _entry_time(entry: HistoryEntry) -> datetime | None:
    """The entry's precise time, else its nanobot local ``YYYY-MM-DD HH:MM`` stamp."""
    if entry.time is not None:
        return entry.time
    return parse_wall_clock(entry.timestamp)
