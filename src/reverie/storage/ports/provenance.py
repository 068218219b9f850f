"""The storage seam's provenance protocols: what ``why``, ``forget`` and ``purge`` need.

``ProvenancePort`` keeps the provenance records (which history entries and session messages
each dream-written line came from; ``reverie.storage.folder.provenance_file`` holds the value
types): the folder's sidecar ``.reverie/provenance.json``, or one row per workspace in PostgreSQL.
``ProvenanceAccess`` is what a backend adds to ``Stores`` for provenance: the records, every durable
file by path (skills too), and the two steps of ``forget --purge`` that only the backend can take
(scrubbing its side records, and finding what still holds a text).

Contract:
- ``ProvenancePort.write`` replaces every record at once (a reader sees the old set or the
  new); the writer holds the dream lock. ``read`` of missing or unreadable records is empty
  (provenance is bookkeeping: losing it makes lines read as hand-written).
- ``durable_texts`` lists only durable files (the three memory files, then skills), by
  workspace-relative path, as ``write_durable`` takes them back; neither reaches any other file.
- ``scrub_side_records`` drops, from the quarantines, the ledger and any store the search
  index keeps beside the data, every record that holds the needle; ``places_holding`` names
  every place of the workspace outside the audit trail that still holds it (for people).

Nothing here does anything at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from reverie.core.needles import Needle
    from reverie.core.provenance import Provenance


class ProvenancePort(Protocol):
    """The provenance records of the durable lines, read and replaced whole."""

    def read(self) -> Provenance:
        """Every record (empty when there are none or they cannot be read)."""

    def write(self, provenance: Provenance) -> None:
        """Replace every record at once."""


class ProvenanceAccess(Protocol):
    """What ``why``, ``forget`` and ``purge`` use of a backend beyond its ``Stores``."""

    @property
    def provenance(self) -> ProvenancePort:
        """The provenance records."""

    def durable_texts(self) -> dict[str, str]:
        """Every durable file that exists, workspace-relative path -> text, memory files first."""

    def write_durable(self, path: str, text: str) -> None:
        """Replace a durable file named as ``durable_texts`` names it (not audited here)."""

    def scrub_side_records(self, needle: Needle) -> int:
        """Drop every quarantine and ledger record holding ``needle``; return how many went."""

    def places_holding(self, needle: Needle) -> list[str]:
        """Every place outside the audit trail that still holds ``needle`` (for people)."""
