"""What a follower of the index sees: items added after a mark, and a stored vector row.

Dense recall follows the search index (``IndexedItem``: an item's row id, stable name and
text; ``ItemsAfter``: a page of them after a mark) and keeps one vector per item
(``VectorRow``). Both backends hand these out through ``storage.ports.vectors``. No I/O here.
"""

from __future__ import annotations

from dataclasses import dataclass

from reverie.core.refs import SourceRef


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexedItem:
    """One indexed item as a follower sees it.

    Attributes:
        doc: its row id in this index file (grows for new rows; restarts on a rebuild).
        ref: its stable name.
        session_key: its session (for a history entry, the one it came from, if known).
        text: its indexed text.
    """

    doc: int
    ref: SourceRef
    session_key: str | None
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ItemsAfter:
    """A page of items added after a mark; ``restarted``: the mark was stale, listed from 0."""

    items: tuple[IndexedItem, ...]
    restarted: bool


VectorRow = tuple[str, str | None, bytes, bytes]
"""One stored vector: its item's reference, session, text hash and blob (``dense.matrix``)."""
