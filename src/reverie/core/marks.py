"""Curation marks: the ``[durable]``-style tags summaries carry, and hiding them from readers.

A summary line reads ``- [durable] User: I live in Lisbon.``; the mark (one of ``MARKS``) tells
dream how long the fact matters. It is bookkeeping for curation, not something a person or a
model should read, so every place that shows stored text (``reverie history``, search snippets,
the viewer, and the prompt's Recalled, recent-history and summary sections) passes it through
``without_marks``. The stored text keeps its marks: dream reads them. Only the five known marks
are removed, wherever they stand on a line (a snippet can start mid-line), with one space after
them; any other bracketed text is left alone. This module does no I/O.
"""

from __future__ import annotations

import re
from typing import Literal

Mark = Literal["permanent", "durable", "ephemeral", "correction", "skip"]
MARKS: tuple[Mark, ...] = ("permanent", "durable", "ephemeral", "correction", "skip")
"""The curation marks, the longest-lived first."""

# A mark may have its name in a snippet's bold (``[**durable**]``) when a search matched it.
_MARK = re.compile(r"\[(?:\*\*)?(?:" + "|".join(MARKS) + r")(?:\*\*)?\][ \t]?", re.IGNORECASE)


def without_marks(text: str) -> str:
    """Return ``text`` with every curation mark (and the one space after it) removed."""
    return _MARK.sub("", text) if "[" in text else text
