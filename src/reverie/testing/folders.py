"""The folder workspace under an engine, for tests and benchmarks that need the files themselves.

A test that simulates a person's edit or a damaged file, reaches a layout path, or seeds
history and sessions below the engine's operations takes the file backend here; everything
the engine offers (``read_memory``, ``session``, ``history``, ``log``, ``location``, ...) is
read through the engine instead. The product never imports this module
(``tests/test_architecture.py`` checks it), so the engine keeps no backend branch for it.

What it must not do: change anything, or hand out a database workspace as a folder (it
raises ``StoreUnsupportedError`` before anything is touched).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.errors import StoreUnsupportedError
from reverie.storage.folder.workspace import Workspace

if TYPE_CHECKING:
    from reverie.engine.facade import MemoryEngine


def workspace_of(engine: MemoryEngine) -> Workspace:
    """The file-backed ``Workspace`` the engine runs on (the same object, not a second open).

    Raises:
        StoreUnsupportedError: the engine runs on a database workspace (nothing written).
    """
    # The engine keeps its backend in its parts and offers no accessor for it (surfaces use
    # its operations); test support may read it, since nothing of the product imports testing/.
    stores = engine._parts.stores  # noqa: SLF001
    if not isinstance(stores, Workspace):
        raise StoreUnsupportedError("workspace_of", where=stores.location)
    return stores
