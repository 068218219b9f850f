"""The viewer's provenance hook: ``MemoryEngine.why`` as lines of text for one durable line.

For a line of a durable file, the hook asks ``why`` for the line's text and keeps the lines of
that file: "edited by hand" when no dream wrote it, else each history entry it came from and,
under it, the session messages (session, index, speaker, time, text). The viewer escapes every
line it shows; nothing here is HTML.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import PurePosixPath

from reverie.engine.facade import MemoryEngine
from reverie.memory.provenance import LineProvenance
from reverie.viewer.layout import ProvenanceHook
from reverie.viewer.markup import stamp

BULLET_MARKS = "-*+ \t"


def engine_provenance(engine: MemoryEngine) -> ProvenanceHook:
    """Return the hook that explains a line of ``path`` with ``engine.why``."""

    def explain(path: str, line: str) -> list[str]:
        text = line.strip().lstrip(BULLET_MARKS).strip()
        if len(text) < 2:
            return []
        wanted = PurePosixPath(path).name
        explained = engine.why(text).lines
        found = [
            item
            for item in explained
            if PurePosixPath(item.file).name == wanted and item.text.strip() == line.strip()
        ]
        return [said for item in found for said in _lines(item)]

    return explain


def _lines(item: LineProvenance) -> list[str]:
    if item.origin == "hand":
        return ["Edited by hand: no dream wrote this line."]
    said = [f"Written by dream (first {_when(item.first_written)})."]
    for entry in item.entries:
        text = entry.text if entry.text is not None else "(trimmed or forgotten since)"
        said.append(
            f"History entry #{entry.cursor} ({entry.session_key or 'no session'}, "
            f"{_when(entry.time)}): {text}"
        )
        for message in entry.messages:
            words = message.text if message.text is not None else "(no longer in the session)"
            said.append(
                f"  {message.session_key} message {message.index} ({message.role}, "
                f"{_when(message.time)}): {words}"
            )
    return said


def _when(moment: datetime | None) -> str:
    return "time unknown" if moment is None else stamp(moment)
