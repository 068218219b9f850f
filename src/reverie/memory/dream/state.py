"""The dream schedule's memory: ``.reverie/dream-state.json``, so back-off survives restarts.

``DreamState`` records when dream last ran, how that ended, and how many runs in a row failed;
``DreamStateText`` reads and replaces it through the stores' ``dream_state``
(``reverie.storage.ports.DreamStatePort``: a file in a workspace folder, a row in a database, so
every server backs off together). Only the dream runner writes it, under the dream lock, after
each run that did model work; the schedule only reads it.

Format (UTF-8 JSON object, version 1; times are ISO 8601 with offset, or null)::

    {"format": "reverie-dream-state", "version": 1, "last_attempt": ..., "last_success": ...,
     "last_failure": ..., "last_outcome": "completed", "consecutive_failures": 0}

Invariants: the file is replaced atomically, so a crash leaves the old state or the new one.
The state is bookkeeping, not memory: an unreadable or foreign file is reported with a warning
and read as a fresh state (the worst case is one run sooner than back-off would allow), never
an error that stops dream.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from datetime import datetime

from reverie.core.clock import require_aware
from reverie.memory.dream.result import FAILED_OUTCOMES, DreamResult
from reverie.storage.ports import DreamStatePort

logger = logging.getLogger(__name__)

STATE_FORMAT = "reverie-dream-state"
STATE_VERSION = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class DreamState:
    """When dream last ran and how the recent runs ended."""

    last_attempt: datetime | None = None
    last_success: datetime | None = None
    last_failure: datetime | None = None
    last_outcome: str | None = None
    consecutive_failures: int = 0

    def after(self, result: DreamResult, now: datetime) -> DreamState:
        """Return the state after a run that did model work ended with ``result`` at ``now``."""
        require_aware(now)
        if result.outcome in FAILED_OUTCOMES:
            return replace(
                self,
                last_attempt=now,
                last_failure=now,
                last_outcome=result.outcome,
                consecutive_failures=self.consecutive_failures + 1,
            )
        return replace(
            self,
            last_attempt=now,
            last_success=now,
            last_outcome=result.outcome,
            consecutive_failures=0,
        )

    def to_json(self) -> str:
        """Return the state file's text."""
        return json.dumps(
            {
                "format": STATE_FORMAT,
                "version": STATE_VERSION,
                "last_attempt": _time_text(self.last_attempt),
                "last_success": _time_text(self.last_success),
                "last_failure": _time_text(self.last_failure),
                "last_outcome": self.last_outcome,
                "consecutive_failures": self.consecutive_failures,
            },
            indent=1,
        )

    @classmethod
    def from_json(cls, text: str) -> DreamState:
        """Parse the state file's text.

        Raises:
            ValueError: not JSON, another format or a newer version, or a field of a bad type.
        """
        document = json.loads(text)
        if not isinstance(document, dict) or document.get("format") != STATE_FORMAT:
            raise ValueError("not a reverie dream state file")
        version = document.get("version")
        if not isinstance(version, int) or version > STATE_VERSION:
            raise ValueError(f"unknown dream state version {version!r}")
        failures = document.get("consecutive_failures")
        outcome = document.get("last_outcome")
        if type(failures) is not int or failures < 0:
            raise ValueError(f"bad consecutive_failures {failures!r}")
        if outcome is not None and not isinstance(outcome, str):
            raise ValueError(f"bad last_outcome {outcome!r}")
        return cls(
            last_attempt=_parse_time(document.get("last_attempt")),
            last_success=_parse_time(document.get("last_success")),
            last_failure=_parse_time(document.get("last_failure")),
            last_outcome=outcome,
            consecutive_failures=failures,
        )


class DreamStateText:
    """Read and replace the state through the stores' ``dream_state`` (a folder or a database)."""

    def __init__(self, port: DreamStatePort) -> None:
        self.port = port

    def read(self) -> DreamState:
        """Return the stored state; a fresh one when there is none or it is invalid."""
        text = self.port.read_text()
        if text is None:
            return DreamState()
        try:
            return DreamState.from_json(text)
        except ValueError as exc:
            logger.warning("the stored dream state is invalid (%s); starting afresh", exc)
            return DreamState()

    def write(self, state: DreamState) -> None:
        """Replace the state in one step."""
        self.port.write_text(state.to_json() + "\n")


def _time_text(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _parse_time(value: object) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"a time must be ISO 8601 text, got {value!r}")
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        raise ValueError(f"a time must carry its offset, got {value!r}")
    return moment
