"""Importers: existing conversations and workspaces read into values reverie can ingest.

``load(path)`` detects the format (``detect``), reads it, and returns an ``ImportBatch`` of
``ImportedConversation`` values (stable keys, timestamped messages), ``ImportProblem`` values
for records it skipped, and for a nanobot workspace an ``ImportedWorkspace``. ``new_messages``
and ``message_hash`` let the caller add only what a session does not hold yet, so importing
the same data again adds nothing. Nothing here writes to a workspace.
"""

from reverie.memory.ingest.importers.content_hash import message_hash, new_messages
from reverie.memory.ingest.importers.conversation import (
    FORMATS,
    Format,
    ImportBatch,
    ImportedConversation,
    ImportedWorkspace,
    ImportProblem,
    ProgressCallback,
)
from reverie.memory.ingest.importers.detection import detect
from reverie.memory.ingest.importers.loader import load
from reverie.memory.ingest.importers.tool_pairs import pair_tool_calls

__all__ = [
    "FORMATS",
    "Format",
    "ImportBatch",
    "ImportProblem",
    "ImportedConversation",
    "ImportedWorkspace",
    "ProgressCallback",
    "detect",
    "load",
    "message_hash",
    "new_messages",
    "pair_tool_calls",
]
