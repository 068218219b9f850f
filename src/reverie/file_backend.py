"""``FileBackend``: the embedded backend, one workspace folder plus its SQLite search index.

It is ``Workspace`` (every store as files under one root, ``reverie.store``) with the one
thing a store may not build itself: the search index, which sits a layer above the stores
(``reverie.search``). It implements ``reverie.ports.Backend``; the engine is built from a
``Backend`` and never names this class except in ``MemoryEngine.open``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.store.workspace import Workspace

if TYPE_CHECKING:
    from reverie.search.index import SearchIndex


class FileBackend(Workspace):
    """A workspace folder as a ``Backend`` (see ``reverie.ports``)."""

    def open_index(self) -> SearchIndex:
        """Return a new search index in ``.reverie/search.sqlite`` (built on first use)."""
        # Imported here: a command that never searches (``status``) starts without it.
        from reverie.search.index import SearchIndex  # noqa: PLC0415

        return SearchIndex(self)
