"""The provenance sidecar: ``.reverie/provenance.json``, where every dream-written line came from.

The durable files stay plain Markdown that people and nanobot read; what each bullet came
from lives beside them, keyed by the line's file and its *normalised* text (bullet marker
dropped, whitespace collapsed, case folded: ``line_key``). A record lists the history entries
that support the line and, for each, the session messages they summarise::

    {"format": "reverie-provenance", "version": 1, "lines": [
      {"file": "USER.md", "key": "lives in porto", "first": "<iso>", "updated": "<iso>",
       "sources": [{"cursor": 7, "session_key": "cli:x", "time": "<iso>", "kind": "summary",
                    "range": [0, 12],
                    "messages": [{"index": 3, "role": "user", "time": "<iso>"}]}]}]}

Only references are kept (cursor, session key, message index, role, time), never the entry or
message text: that stays in the history log and the journals, so forgetting it there is
enough, and the sidecar holds no second copy of a conversation.

Invariants.
- The sidecar is *monotone* under dream and restore: a record is added or widened (sources
  merged) when dream writes a line, and never dropped when a line leaves a file. A line's
  provenance is looked up by its current text, so after ``restore`` a line that comes back
  finds its record again, and the sidecar is true at every commit without being versioned.
  Only ``forget`` removes records (and the sources it forgot from the others), and the
  size bound: past ``MAX_RECORDS`` the least recently written records go (a line restored
  from long ago may then read as hand-written; durable files hold a few hundred lines).
- A line with no record was written by hand (or before provenance existed).
- The file is replaced atomically; the writer holds the dream lock. An unreadable or foreign
  file is reported with a warning and read as empty (provenance is bookkeeping: losing it
  makes lines read as hand-written, never stops dream).
"""

from __future__ import annotations

import logging
from pathlib import Path

from reverie.core.provenance import Provenance, document_text, read_document
from reverie.storage.folder import layout
from reverie.storage.folder.atomic import atomic_write_text

logger = logging.getLogger(__name__)

DEFAULT_SIDECAR = Path(layout.PROVENANCE)
"""Where the sidecar lives, relative to the workspace."""


class ProvenanceFile:
    """Read and replace one workspace's provenance sidecar."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> Provenance:
        """Return every record; empty when the file is absent or unreadable (with a warning)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return Provenance()
        except (OSError, UnicodeDecodeError) as exc:
            logger.warning(
                "provenance %s is unreadable (%s); lines read as hand-written", self.path, exc
            )
            return Provenance()
        return read_document(text, where=str(self.path))

    def write(self, provenance: Provenance) -> None:
        """Replace the sidecar atomically.

        Raises:
            StorageError: the file could not be written.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, document_text(provenance))
