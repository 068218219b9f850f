"""Where an ingest test ingests: a workspace folder or a PostgreSQL workspace, one interface.

``ingest_target`` (a fixture of ``tests/conftest.py``, parametrised ``folder`` / ``postgres``)
yields a ``Target``: the engine, and the workspace's stores through the storage seam
(``reverie.storage.ports.IngestStores``), so one test checks both backends. On PostgreSQL the stores
are opened beside the engine on the same workspace (they read the same rows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.storage.folder import layout
from reverie.storage.ports import IngestStores, Stores
from reverie.testing.folders import workspace_of
from tests.conftest import StepClock

KINDS = ("folder", "postgres")


def _imported(key: str) -> bool:
    """Whether session ``key`` came from ingest (a folder's dream also keeps a transcript)."""
    return not key.startswith("dream:")


def snapshot(stores: Stores) -> object:
    """What ingest leaves: history, sessions whole, durable files, the dream cursor."""
    return (
        [
            (e.cursor, e.timestamp, e.content, e.session_key, e.range, e.kind)
            for e in stores.history.entries()
        ],
        stores.history.last_cursor(),
        [stores.sessions.load(i.key) for i in stores.sessions.list() if _imported(i.key)],
        [stores.files.read(name).strip() for name in ("SOUL", "USER", "MEMORY")],
        stores.dream_cursor.read(),
    )


@dataclass(frozen=True, slots=True)
class Target:
    """An engine on one backend and its stores."""

    kind: str
    engine: MemoryEngine
    stores: IngestStores
    reopen: Callable[[], IngestStores]
    """Open the same workspace's stores again (the caller closes them)."""

    def everything(self) -> str:
        """Every text the workspace keeps outside its sessions (history, files, the index)."""
        texts = [entry.content for entry in self.stores.history.entries()]
        texts += [self.stores.files.read(name) for name in ("SOUL", "USER", "MEMORY")]
        return "\n".join(texts)

    def drop_marks(self) -> None:
        """Lose the import marks, as a kill just before they were written would."""
        if self.kind == "folder":
            (Path(self.engine.location) / layout.IMPORTED).unlink()
            return
        from reverie.storage.postgres.backend import PgBackend

        assert isinstance(self.stores, PgBackend)
        with self.stores.tenant.transaction() as conn:
            conn.execute("DELETE FROM ingest_marks")

    def close(self) -> None:
        """Close the engine and the stores."""
        self.engine.close()
        if self.kind != "folder":
            self.stores.close()


def open_target(
    request: pytest.FixtureRequest, tmp_path: Path, clock: StepClock, config: Config
) -> Target:
    """Open an engine of ``request.param`` kind in ``tmp_path`` (or a new database workspace)."""
    if request.param == "folder":
        engine = MemoryEngine.open(tmp_path / "ws", config, clock=clock, environ={}, dense="off")
        workspace = workspace_of(engine)
        root = workspace.root

        def reopen_folder() -> IngestStores:
            from reverie.storage.folder.backend import FileBackend

            return FileBackend.open(root)

        return Target(kind="folder", engine=engine, stores=workspace, reopen=reopen_folder)
    from reverie.storage.postgres.backend import PgBackend
    from tests.postgres.conftest import new_workspace

    url = request.getfixturevalue("pg_url")
    name = new_workspace(url, "ingest")
    engine = MemoryEngine.open(name, config, store=url, clock=clock, environ={}, dense="off")

    def reopen_database() -> IngestStores:
        return PgBackend.open(url, name, clock=clock)

    return Target(kind="postgres", engine=engine, stores=reopen_database(), reopen=reopen_database)
