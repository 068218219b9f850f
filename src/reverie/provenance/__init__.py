"""Provenance and forgetting: where each durable line came from, and removing a fact entirely.

``record.note_run`` notes the sources of the lines a dream run writes (``attribution``) in the
sidecar (``reverie.store.provenance_file``), ``record.note_changes`` in any backend's
``ProvenancePort``; ``why.explain`` answers "why do you remember this?"; ``forget`` removes a
fact with everything it came from or led to, and ``purge`` also scrubs it from the audit
history and every file (or row) of the workspace. ``why``, ``forget`` and ``purge`` take the
storage seam (``reverie.ports.ProvenanceStores``), so they run on a folder and on a
PostgreSQL workspace alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.lazy_exports import lazy_getattr

if TYPE_CHECKING:
    from reverie.provenance.forget import ForgetReport
    from reverie.provenance.plan import ForgetPlan, PlannedEntry, PlannedLine, PlannedMessage
    from reverie.provenance.purge import PurgeReport
    from reverie.provenance.why import LineProvenance, SourceEntry, SourceMessage, WhyReport

# Names load on first use (PEP 562), so importing one module of the package does not
# import them all: start-up pays only for what a command uses.
_WHERE: dict[str, str] = {
    "ForgetPlan": "reverie.provenance.plan",
    "ForgetReport": "reverie.provenance.forget",
    "LineProvenance": "reverie.provenance.why",
    "PlannedEntry": "reverie.provenance.plan",
    "PlannedLine": "reverie.provenance.plan",
    "PlannedMessage": "reverie.provenance.plan",
    "PurgeReport": "reverie.provenance.purge",
    "SourceEntry": "reverie.provenance.why",
    "SourceMessage": "reverie.provenance.why",
    "WhyReport": "reverie.provenance.why",
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
