"""The ingest records of a workspace folder: ``.reverie/imported.json``, ``.reverie/ingest.json``.

``imported.json`` is a JSON list of content keys (the marks, ``reverie.storage.ports.ingest``): each
``add_marks`` rewrites it whole, atomically, as the union of what it held and the new keys.
``ingest.json`` is ``{"sessions": [...]}``, the sessions of the running ingest: written before
the ingest's first write, removed when it is done, so a file that outlives its ingest's lock
marks an interrupted run.

Both are written only by the ingest that holds the workspace's ``ingest`` lock, and both by
atomic replacement, so a crash leaves the old file or the new one. An unreadable marks file is
an error (a lost mark would import twice); an unreadable run file is only advisory: it is
ignored with a warning and the next ingest rewrites it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

from reverie.errors import StorageError
from reverie.storage.folder import layout
from reverie.storage.folder.atomic import atomic_write_text

logger = logging.getLogger(__name__)


class FolderIngestRecords:
    """The ingest records of the workspace at ``root`` (``storage.ports.IngestRecordsPort``)."""

    def __init__(self, root: Path) -> None:
        self.marks_path = root / layout.IMPORTED
        self.run_path = root / layout.INGEST_MARKER

    def marks(self) -> set[str]:
        """Every content key in ``imported.json`` (none when the file is absent).

        Raises:
            StorageError: the file cannot be read or is not JSON.
        """
        try:
            loaded = json.loads(self.marks_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return set()
        except (OSError, ValueError) as exc:
            raise StorageError(f"unreadable import marks ({exc})", path=self.marks_path) from exc
        if not isinstance(loaded, list):
            return set()
        return {item for item in loaded if isinstance(item, str)}

    def add_marks(self, keys: Iterable[str]) -> None:
        """Rewrite ``imported.json`` with ``keys`` added (one atomic replacement)."""
        atomic_write_text(self.marks_path, json.dumps(sorted(self.marks() | set(keys))))

    def running(self) -> list[str] | None:
        """The sessions ``ingest.json`` names (None: there is no such file)."""
        try:
            loaded = json.loads(self.run_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except ValueError:  # a hand edit: the marker is advisory, the next ingest rewrites it
            logger.warning("ignoring an unreadable ingest marker %s", self.run_path)
            return []
        except OSError as exc:
            raise StorageError(
                f"unreadable ingest marker ({exc.strerror})", path=self.run_path
            ) from exc
        sessions = loaded.get("sessions") if isinstance(loaded, dict) else None
        return [key for key in sessions or [] if isinstance(key, str)]

    def begin(self, sessions: Sequence[str]) -> None:
        """Write ``ingest.json`` naming ``sessions``."""
        atomic_write_text(self.run_path, json.dumps({"sessions": sorted(set(sessions))}))

    def finish(self) -> None:
        """Remove ``ingest.json``."""
        self.run_path.unlink(missing_ok=True)
