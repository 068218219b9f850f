"""What ``doctor`` finds: one finding, and the report that collects them.

A finding is a *problem* (``doctor`` fails: non-zero exit at the CLI) or a *note* (something a
person may want to look at that reverie already handled), with the check that made it and,
when there is one, the file it is about. The report is filled by the checks over the storage
seam (``reverie.memory.doctor``) and by a backend's own checks (``Backend.doctor_checks``).

A finding says where to look (``DoctorStores.path_of``): a durable file or skill by its
canonical path (``reverie.core.durable``), every other part of a workspace by a ``Place``, and
each backend says where it keeps that (a folder: a file of its layout,
``reverie.storage.folder.doctor_checks.PLACES``; a database: nowhere a person opens). This
module does no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path


class Place(Enum):
    """A part of a workspace a finding points to that is not a durable file (see above)."""

    HISTORY = "history"
    DREAM_CURSOR = "dream cursor"
    QUARANTINE = "history quarantine"
    SESSIONS_QUARANTINE = "sessions quarantine"
    AUDIT = "audit trail"
    LEDGER = "ledger"
    INGEST_RUN = "ingest run"


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One thing doctor found: what, where, and whether it is a problem or a note."""

    severity: str
    check: str
    message: str
    path: str | None = None


@dataclass(slots=True)
class DoctorReport:
    """Every finding; ``ok`` when none of them is a problem."""

    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when there is no problem (notes are fine)."""
        return not any(f.severity == "problem" for f in self.findings)

    def problem(self, check: str, message: str, path: Path | str | None = None) -> None:
        """Record a problem."""
        self.findings.append(
            Finding(severity="problem", check=check, message=message, path=_text(path))
        )

    def note(self, check: str, message: str, path: Path | str | None = None) -> None:
        """Record a note."""
        self.findings.append(
            Finding(severity="note", check=check, message=message, path=_text(path))
        )


def _text(path: Path | str | None) -> str | None:
    return None if path is None else str(path)
