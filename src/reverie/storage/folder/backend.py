"""``FileBackend``: the embedded backend, one workspace folder plus its SQLite search index.

It is ``Workspace`` (every store as files under one root, ``reverie.storage.folder``) with the one
thing a store may not build itself: the search index, which sits a layer above the stores
(``reverie.storage.folder.index``), and the provenance access ``why``/``forget``/``purge`` use
(``reverie.storage.ports.ProvenanceAccess``): the sidecar ``.reverie/provenance.json``, the durable
files by path (skills included; a symlink is never followed), and the purge steps over the
workspace's side files. It implements ``reverie.storage.ports.Backend``; the engine is built from a
``Backend`` and never names this class except in ``MemoryEngine.open``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from reverie.core.durable import MEMORY_FILE_NAMES, RELATIVE_PATHS
from reverie.core.needles import Needle
from reverie.storage.folder import layout
from reverie.storage.folder.atomic import atomic_write_text
from reverie.storage.folder.scrub import files_holding, scrub_jsonl
from reverie.storage.folder.vectors import VECTORS_PATH, SqliteVectorRows
from reverie.storage.folder.workspace import Workspace

if TYPE_CHECKING:
    from reverie.storage.folder.index.index import SearchIndex


class FileBackend(Workspace):
    """A workspace folder as a ``Backend`` (see ``reverie.storage.ports``)."""

    def open_index(self) -> SearchIndex:
        """Return a new search index in ``.reverie/search.sqlite`` (built on first use)."""
        # Imported here: a command that never searches (``status``) starts without it.
        from reverie.storage.folder.index.index import SearchIndex  # noqa: PLC0415

        return SearchIndex(self)

    def open_vectors(self) -> SqliteVectorRows:
        """Return dense recall's vector rows, in ``.reverie/vectors.sqlite``."""
        return SqliteVectorRows(self.root / VECTORS_PATH)

    def follower(self, index: object) -> SearchIndex:
        """Return what dense recall follows: the SQLite search index itself (``index``)."""
        return cast("SearchIndex", index)

    def durable_texts(self) -> dict[str, str]:
        """Every durable file that exists (no symlink), relative path -> text, memory first."""
        root = self.root
        paths = [RELATIVE_PATHS[name] for name in MEMORY_FILE_NAMES]
        paths += layout.skill_files(root)
        return {
            path: (root / path).read_text(encoding="utf-8", errors="replace")
            for path in paths
            if (root / path).is_file() and not (root / path).is_symlink()
        }

    def write_durable(self, path: str, text: str) -> None:
        """Replace a durable file atomically.

        Raises:
            ValueError: ``path`` is not a durable file of this workspace.
        """
        if path not in self.durable_texts():
            raise ValueError(f"{path!r} is not a durable file of {self.root}")
        atomic_write_text(self.root / path, text)

    def scrub_side_records(self, needle: Needle) -> int:
        """Drop quarantine and ledger lines holding ``needle``, moved-aside indexes, vectors."""
        sides = (self.quarantine.path, self.sessions.quarantine.path, self.ledger.path)
        dropped = sum(scrub_jsonl(path, needle) for path in sides)
        for moved in (self.root / layout.STATE).glob(layout.SEARCH_INDEX_MOVED):
            if needle.in_bytes(moved.read_bytes()):
                moved.unlink()
        # The vectors file is a cache holding each item's vector and a hash of its exact text:
        # it goes whole (refilled from the index), so neither survives for a forgotten item.
        for suffix in ("", "-wal", "-shm", "-journal"):
            (self.root / f"{layout.VECTORS}{suffix}").unlink(missing_ok=True)
        return dropped

    def places_holding(self, needle: Needle) -> list[str]:
        """Every file under the workspace (``.git`` included) whose bytes hold ``needle``."""
        return [p.relative_to(self.root).as_posix() for p in files_holding(self.root, needle)]
