"""Provenance and forgetting: where each durable line came from, and removing a fact entirely.

``record.note_run`` notes the sources of the lines a dream run writes (``attribution``) in the
sidecar (``reverie.store.provenance_file``); ``why.explain`` answers "why do you remember
this?"; ``forget`` removes a fact with everything it came from or led to, and ``purge``
also scrubs it from the audit history and every file of the workspace.
"""

from reverie.provenance.forget import ForgetReport
from reverie.provenance.plan import ForgetPlan, PlannedEntry, PlannedLine, PlannedMessage
from reverie.provenance.purge import PurgeReport
from reverie.provenance.why import LineProvenance, SourceEntry, SourceMessage, WhyReport

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
