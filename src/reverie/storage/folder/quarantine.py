"""The quarantine: where lines that fail to parse go instead of being dropped.

Each store that reads line-oriented files (the history log, session journals) hands bad lines
to a ``Quarantine`` before removing them from the source. A record keeps the source file, the
1-based line number, the byte offset, the reason, and the original bytes (base64, plus a
best-effort text rendering for people), so nothing is ever silently lost and a person can put
a line back by hand. The quarantine file itself is append-only JSON Lines and is fsynced
before the caller rewrites the source, so a crash in between can at worst record a line twice.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from reverie.core.entries import BadLine
from reverie.errors import StorageError
from reverie.storage.folder.appends import append_bytes

logger = logging.getLogger(__name__)


class Quarantine:
    """Append-only store of bad lines, one JSON object per line."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def keep(self, bad_lines: Sequence[BadLine], *, now: datetime) -> None:
        """Record ``bad_lines`` durably and report each one once as a warning.

        Raises:
            StorageError: the quarantine file could not be written; the caller must then
                leave the source untouched.
        """
        if not bad_lines:
            return
        payload = "".join(_record(bad, now) + "\n" for bad in bad_lines).encode("utf-8")
        try:
            append_bytes(self.path, payload, sync=True)
        except OSError as exc:
            raise StorageError(f"cannot write quarantine ({exc.strerror})", path=self.path) from exc
        for bad in bad_lines:
            logger.warning("quarantined %s; original bytes kept in %s", bad.describe(), self.path)

    def records(self) -> list[BadLine]:
        """Return the quarantined lines, oldest first (empty when there are none)."""
        if not self.path.exists():
            return []
        with self.path.open(encoding="utf-8") as handle:
            return [_parse(line) for line in handle if line.strip()]


def _record(bad: BadLine, now: datetime) -> str:
    return json.dumps(
        {
            "quarantined_at": now.isoformat(),
            "source": str(bad.source),
            "line": bad.line,
            "offset": bad.offset,
            "reason": bad.reason,
            "raw_base64": base64.b64encode(bad.raw).decode("ascii"),
            "raw_text": bad.raw.decode("utf-8", errors="replace"),
        },
        ensure_ascii=False,
    )


def _parse(line: str) -> BadLine:
    obj = json.loads(line)
    return BadLine(
        source=Path(obj["source"]),
        line=int(obj["line"]),
        offset=int(obj["offset"]),
        raw=base64.b64decode(obj["raw_base64"]),
        reason=str(obj["reason"]),
    )
