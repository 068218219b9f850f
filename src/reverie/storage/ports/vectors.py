"""What dense recall needs of a backend: rows of vectors to keep, and an index to follow.

Dense recall (``reverie.memory.recall.dense``) keeps one vector per indexed item. The vectors
are a cache derived from the items' text: a backend may empty them at any time and they are
made again. Each backend keeps them its own way, behind ``VectorRowsPort`` (a folder:
``.reverie/vectors.sqlite``, ``reverie.memory.recall.dense.vectors``; PostgreSQL: a table of
the workspace's rows, ``reverie.storage.postgres.vectors``), and says what was indexed since a
mark through ``FollowedPort`` (a folder: its SQLite search index; PostgreSQL: a sequence
number every indexed row carries).

Contract.
- ``VectorRowsPort.write`` stores rows and meta values in one transaction; writing a
  reference again replaces its row. ``rows_since(seq)`` returns every row written after
  sequence number ``seq`` (with its number), so a process sees what another one wrote by
  asking for what is past the last number it read.
- ``reset(model, dim)`` empties the rows and meta when they were made by another model.
- A purge of a text removes every vector made from it (both backends: the folder deletes the
  file; PostgreSQL deletes the rows of changed or deleted items in the same transaction).
- ``FollowedPort.items_after`` lists items past a mark, oldest first; a stale mark (a rebuilt
  index) lists from the start and says so (``restarted``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from reverie.core.indexed import VectorRow

if TYPE_CHECKING:  # ``status`` imports the ports and must not load the search index
    from reverie.core.hits import Candidate
    from reverie.core.indexed import ItemsAfter
    from reverie.core.refs import SourceRef

__all__ = ["FollowedPort", "VectorRow", "VectorRowsPort"]


class VectorRowsPort(Protocol):
    """Where one workspace's vectors are kept (a cache: it may be emptied at any time)."""

    def reset(self, model: str, dim: int) -> None:
        """Empty the rows and meta if they were made by another model or width; note these."""
        ...

    def meta(self) -> dict[str, str]:
        """Every meta value (the follower's mark, the deferred notes)."""
        ...

    def put_meta(self, values: Mapping[str, str], *, keep: bool = False) -> None:
        """Set meta values (``keep``: leave a value already there)."""
        ...

    def bump(self, name: str) -> None:
        """Add one to the count in meta value ``name`` (0 when missing)."""
        ...

    def drop_meta(self, names: Sequence[str]) -> None:
        """Delete meta values."""
        ...

    def write(self, rows: Sequence[VectorRow], meta: Mapping[str, str]) -> None:
        """Store ``rows`` (by reference, replacing) and ``meta`` in one transaction."""
        ...

    def rows_since(self, seq: int) -> Iterator[tuple[int, VectorRow]]:
        """Rows written after sequence number ``seq``, with their numbers, in order."""
        ...

    def clear(self) -> None:
        """Delete every row and meta value, so no byte of an old vector stays readable."""
        ...

    def close(self) -> None:
        """Release the connection (the next call opens it again)."""
        ...


class FollowedPort(Protocol):
    """What dense recall needs of the search index it follows."""

    def items_after(
        self, after: int, *, seen: str | None, limit: int, only: str | None = None
    ) -> ItemsAfter:
        """Items indexed after a mark, oldest first."""
        ...

    def count_after(self, after: int, *, seen: str | None) -> int:
        """How many items were indexed after a mark."""
        ...

    def items_named(
        self, refs: Sequence[SourceRef], *, session_key: str | None = None
    ) -> list[Candidate]:
        """Items by reference, in the order given (those that exist and are in scope)."""
        ...
