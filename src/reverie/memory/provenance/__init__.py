"""Provenance and forgetting: where each durable line came from, and removing a fact entirely.

``record.note_changes`` notes the sources of the lines a dream run writes (``attribution``) in
any backend's ``ProvenancePort`` (a folder's sidecar ``reverie.storage.folder.provenance_file``);
``why.explain`` answers "why do you remember this?"; ``forget`` removes a fact with everything
it came from or led to, and ``purge`` also scrubs it from the audit history and every file (or
row) of the workspace. ``why``, ``forget`` and ``purge`` take the
storage seam (``reverie.storage.ports.ProvenanceStores``), so they run on a folder and on a
PostgreSQL workspace alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.core.lazy_exports import lazy_getattr

if TYPE_CHECKING:
    from reverie.memory.provenance.forget import ForgetReport
    from reverie.memory.provenance.plan import ForgetPlan, PlannedEntry, PlannedLine, PlannedMessage
    from reverie.memory.provenance.purge import PurgeReport
    from reverie.memory.provenance.why import LineProvenance, SourceEntry, SourceMessage, WhyReport

# Names load on first use (PEP 562), so importing one module of the package does not
# import them all: start-up pays only for what a command uses.
_WHERE: dict[str, str] = {
    "ForgetPlan": "reverie.memory.provenance.plan",
    "ForgetReport": "reverie.memory.provenance.forget",
    "LineProvenance": "reverie.memory.provenance.why",
    "PlannedEntry": "reverie.memory.provenance.plan",
    "PlannedLine": "reverie.memory.provenance.plan",
    "PlannedMessage": "reverie.memory.provenance.plan",
    "PurgeReport": "reverie.memory.provenance.purge",
    "SourceEntry": "reverie.memory.provenance.why",
    "SourceMessage": "reverie.memory.provenance.why",
    "WhyReport": "reverie.memory.provenance.why",
}

__getattr__ = lazy_getattr(__name__, _WHERE, globals())


__all__ = [
    "ForgetPlan",
    "ForgetReport",
    "LineProvenance",
    "PlannedEntry",
    "PlannedLine",
    "PlannedMessage",
    "PurgeReport",
    "SourceEntry",
    "SourceMessage",
    "WhyReport",
]
