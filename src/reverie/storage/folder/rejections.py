"""Rejected rules: ``.reverie/rejected-rules.jsonl``, the candidate rules screening refused.

When dream's publish guard refuses a new SOUL.md line (``reverie.core.screening``), the run records
it here, one JSON line per rule: ``{"time", "file", "rule", "reason"}``. ``reverie status``
shows the latest ones, so a person who truly meant a rule can add it to SOUL.md by hand (a line
already in the file is never screened). Appends are one ``write`` under a lock; a line that
does not parse is skipped by readers. The rules were redacted before they got here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from reverie.core.screening import RecordedRejection, RejectedRule
from reverie.errors import StorageError
from reverie.storage.folder.appends import append_bytes
from reverie.storage.folder.locks import ProcessLock


class RejectionLog:
    """Append and read the rejected rules of a workspace."""

    def __init__(self, path: Path, *, lock: ProcessLock) -> None:
        self.path = path
        self._lock = lock

    def append(self, rules: Iterable[RejectedRule], *, time: datetime) -> None:
        """Record ``rules`` as refused at ``time`` (nothing for an empty iterable)."""
        lines = [
            json.dumps(
                {"time": time.isoformat(), "file": r.file, "rule": r.rule, "reason": r.reason},
                ensure_ascii=False,
            )
            + "\n"
            for r in rules
        ]
        if not lines:
            return
        data = "".join(lines).encode("utf-8")
        with self._lock.hold():
            try:
                append_bytes(self.path, data, follow_links=False)
            except OSError as exc:
                raise StorageError(f"cannot record rejected rules ({exc})", path=self.path) from exc

    def latest(self, n: int = 10) -> list[RecordedRejection]:
        """The last ``n`` refused rules, oldest first."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StorageError(f"cannot read rejected rules ({exc})", path=self.path) from exc
        found: list[RecordedRejection] = []
        for line in raw.splitlines():
            try:
                obj = json.loads(line)
                rule = RejectedRule(file=obj["file"], rule=obj["rule"], reason=obj["reason"])
                found.append(RecordedRejection(time=datetime.fromisoformat(obj["time"]), rule=rule))
            except (ValueError, KeyError, TypeError):
                continue
        return found[-n:] if n > 0 else []
