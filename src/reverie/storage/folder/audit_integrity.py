"""Audit integrity: noticing that the audit repository went missing or was replaced.

When reverie creates (or first adopts) a workspace's ``.git`` it records the repository's root
commit in ``.reverie/audit-root``. From then on a missing ``.git`` is never re-created
silently (history would be gone without a word): ``AuditRepo.ensure`` leaves it missing,
commits fail with an error saying so, ``doctor`` reports it as a problem, and only an explicit
``reverie doctor --repair-audit`` (``AuditRepo.repair``) starts a new repository. A ``.git``
whose root commit differs from the recorded one was replaced; ``doctor`` reports that too, and
``--repair-audit`` accepts the new one. This module reads and writes the record; no git.
"""

from __future__ import annotations

from pathlib import Path

from reverie.errors import StorageError
from reverie.storage.folder.atomic import atomic_write_text


def read_root(record: Path) -> str | None:
    """The recorded root commit sha, or None when nothing is recorded."""
    try:
        text = record.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise StorageError(f"cannot read the audit record ({exc})", path=record) from exc
    return text or None


def write_root(record: Path, sha: str) -> None:
    """Record ``sha`` as the audit repository's root commit."""
    record.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(record, f"{sha}\n")
