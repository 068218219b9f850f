"""A home: where every principal's workspace lives, one workspace per principal.

Two kinds, chosen by where the memory is:

- ``FolderHome``: a folder with one workspace folder per principal (``names.folder_name``),
  e.g. ``~/.reverie/`` holding ``default/`` (the single-person setup), ``alice/``,
  ``lc~3auser1/``; the home's own state (tokens) is in ``.home/``.
- ``DatabaseHome``: a PostgreSQL database with one workspace (tenant, row-level security) per
  principal, named by the principal's id.

Isolation is by construction: a principal's engine is opened on that principal's workspace
and nothing else, so no query, file or cache is shared between two principals and no filter
can be forgotten. Every engine of a home is opened with the home's settings (``Openers``):
the server's model, budgets and recall, whatever a principal's folder holds.

A home opens engines; it does not keep them (``pool.EnginePool`` does) and it never decides
who may reach which principal (``access``).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from reverie.clock import Clock, system_clock
from reverie.config import Config
from reverie.errors import WorkspaceMissingError
from reverie.owners.names import (
    DEFAULT_PRINCIPAL,
    HOME_STATE,
    check_principal,
    folder_name,
    principal_of,
)
from reverie.store.layout import MEMORY_DIR

if TYPE_CHECKING:
    from reverie.engine import MemoryEngine
    from reverie.llm.provider import Provider


@dataclass(frozen=True, slots=True, kw_only=True)
class Openers:
    """How a home opens each principal's engine: the same settings and models for all."""

    config: Config | None = None
    provider: Provider | None = None
    memory_provider: Provider | None = None
    clock: Clock = system_clock
    environ: Mapping[str, str] | None = None


class Home(Protocol):
    """Where the principals' workspaces live."""

    default: str
    """The principal a request names none for (the single-person setup's ``default``)."""

    @property
    def location(self) -> str:
        """Where the home is, for messages (a folder, or a database without its password)."""
        ...

    def principals(self) -> list[str]:
        """Every principal that has a workspace here, sorted."""
        ...

    def exists(self, principal: str) -> bool:
        """Whether ``principal`` has a workspace here."""
        ...

    def open_engine(self, principal: str, *, create: bool) -> MemoryEngine:
        """Open ``principal``'s engine (its workspace made first when ``create``).

        Raises:
            WorkspaceMissingError, DatabaseError: no such principal and ``create`` is false.
        """
        ...

    def remove(self, principal: str) -> None:
        """Delete ``principal``'s workspace whole (its engine must be closed first)."""
        ...

    def state_folder(self) -> Path | None:
        """The folder of the home's own state, when the home is a folder."""
        ...


class FolderHome:
    """A folder holding one workspace folder per principal."""

    def __init__(
        self, root: Path, *, default: str = DEFAULT_PRINCIPAL, openers: Openers | None = None
    ) -> None:
        self.root = root.expanduser()
        self.default = check_principal(default)
        self._openers = openers if openers is not None else Openers()

    @property
    def location(self) -> str:
        """The home folder."""
        return str(self.root)

    def folder(self, principal: str) -> Path:
        """The workspace folder of ``principal``."""
        return self.root / folder_name(check_principal(principal))

    def principals(self) -> list[str]:
        """The principals whose folder holds a workspace."""
        if not self.root.is_dir():
            return []
        found = []
        for child in self.root.iterdir():
            principal = principal_of(child.name)
            if principal is not None and (child / MEMORY_DIR).is_dir():
                found.append(principal)
        return sorted(found)

    def exists(self, principal: str) -> bool:
        """Whether ``principal``'s folder holds a workspace."""
        return (self.folder(principal) / MEMORY_DIR).is_dir()

    def open_engine(self, principal: str, *, create: bool) -> MemoryEngine:
        """Open the engine on ``principal``'s folder."""
        from reverie.engine import MemoryEngine  # noqa: PLC0415 (the engine imports the home)

        path = self.folder(principal)
        if not create and not self.exists(principal):
            raise WorkspaceMissingError("no workspace for this principal", path=path)
        o = self._openers
        return MemoryEngine.open(
            path,
            o.config,
            create=create,
            provider=o.provider,
            memory_provider=o.memory_provider,
            clock=o.clock,
            environ=o.environ,
        )

    def remove(self, principal: str) -> None:
        """Delete the principal's folder, git objects, index and vectors included."""
        path = self.folder(principal)
        if path.is_symlink():
            path.unlink()
        elif path.exists():
            shutil.rmtree(path)

    def state_folder(self) -> Path:
        """``<home>/.home``: the tokens (no principal's folder can be named so)."""
        return self.root / HOME_STATE


class DatabaseHome:
    """A PostgreSQL database holding one workspace per principal."""

    def __init__(
        self, url: str, *, default: str = DEFAULT_PRINCIPAL, openers: Openers | None = None
    ) -> None:
        self.url = url
        self.default = check_principal(default)
        self._openers = openers if openers is not None else Openers()

    @property
    def location(self) -> str:
        """The database, without its password."""
        from reverie.postgres.database import describe_url  # noqa: PLC0415 (postgres extra)

        return describe_url(self.url)

    def principals(self) -> list[str]:
        """The workspaces of the database."""
        from reverie.store_select import database_workspaces  # noqa: PLC0415

        return sorted(database_workspaces(self.url))

    def exists(self, principal: str) -> bool:
        """Whether the database has a workspace named ``principal``."""
        return check_principal(principal) in self.principals()

    def open_engine(self, principal: str, *, create: bool) -> MemoryEngine:
        """Open the engine on the workspace named ``principal`` (made first when ``create``)."""
        from reverie.engine import MemoryEngine  # noqa: PLC0415
        from reverie.store_select import init_database  # noqa: PLC0415

        check_principal(principal)
        if create:
            init_database(self.url, principal)
        o = self._openers
        return MemoryEngine.open(
            principal,
            o.config,
            store=self.url,
            provider=o.provider,
            memory_provider=o.memory_provider,
            clock=o.clock,
            environ=o.environ,
        )

    def remove(self, principal: str) -> None:
        """Delete the workspace named ``principal`` and every row of it."""
        from reverie.store_select import drop_database_workspace  # noqa: PLC0415

        drop_database_workspace(self.url, check_principal(principal))

    def state_folder(self) -> None:
        """A database home keeps its state in the database."""
        return
