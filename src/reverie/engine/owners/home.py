"""A home: where every principal's workspace lives, one workspace per principal.

Two kinds, chosen by where the memory is:

- ``FolderHome``: a folder with one workspace folder per principal (``names.folder_name``),
  e.g. ``~/.reverie/`` holding ``default/`` (the single-person setup), ``alice/``,
  ``lc~3auser1/``; the home's own state (tokens) is in ``.home/``.
- ``database_home.DatabaseHome``: a PostgreSQL database with one workspace (tenant, row-level
  security) per principal, named by the principal's id, over one connection pool.

Isolation is by construction: a principal's engine is opened on that principal's workspace
and nothing else, so no query, file or cache is shared between two principals and no filter
can be forgotten. Every engine of a home is opened with the home's settings (``Openers``):
the server's model, budgets and recall, whatever a principal's folder holds.

A home opens engines; it does not keep them (``pool.EnginePool`` does) and it never decides
who may reach which principal (``access``). It keeps the home's token book (``tokens``, the
same as ``token_book(home)``), copies a principal out whole (``export_folder``) and deletes
one (``remove``, then ``scrub`` for what shared storage keeps; ``purge.delete_principal`` does
the whole purge in its order). A folder home's principal is always its folder: no
``$REVERIE_STORE`` or ``[store] url`` moves it into a database
(``reverie.storage.open.open_folder``).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from reverie.config.settings import Config
from reverie.core.clock import Clock, system_clock
from reverie.engine.owners.names import (
    DEFAULT_PRINCIPAL,
    HOME_STATE,
    check_principal,
    folder_name,
    principal_of,
)
from reverie.engine.owners.tokens import SqliteTokenBook, TokenBook
from reverie.errors import InputError, StorageError, WorkspaceMissingError
from reverie.storage.homes import copy_workspace, holds_workspace

if TYPE_CHECKING:
    from reverie.engine.dense_choice import Dense
    from reverie.engine.facade import MemoryEngine
    from reverie.llm.provider import Provider
    from reverie.storage.open import Opened

BOOK_FILE = "tokens.sqlite3"
"""A folder home's token book, in its state folder: ``<home>/.home/tokens.sqlite3``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Openers:
    """How a home opens each principal's engine: the same settings and models for all."""

    config: Config | None = None
    provider: Provider | None = None
    memory_provider: Provider | None = None
    clock: Clock = system_clock
    environ: Mapping[str, str] | None = None
    dense: Dense = "settings"
    """Dense recall for every engine, as ``MemoryEngine.open``'s ``dense``."""

    def engine_on(self, opened: Opened) -> MemoryEngine:
        """The engine over an opened backend with these models; the backend closed if it fails."""
        from reverie.engine.facade import MemoryEngine  # noqa: PLC0415 (the engine imports homes)

        try:
            return MemoryEngine.on_backend(
                opened,
                provider=self.provider,
                memory_provider=self.memory_provider,
                clock=self.clock,
                environ=self.environ,
                dense=self.dense,
            )
        except BaseException:
            opened.backend.close()
            raise


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

    def scrub(self) -> None:
        """Clear what deleted workspaces left in shared storage (after ``remove``)."""
        ...

    def export_folder(self, principal: str, folder: Path) -> None:
        """Copy ``principal``'s workspace whole into ``folder``, a new workspace folder.

        Raises:
            InputError: ``folder`` exists and is not empty.
            WorkspaceMissingError, DatabaseError: no such principal.
        """
        ...

    def tokens(self) -> TokenBook:
        """The home's token book."""
        ...

    def state_folder(self) -> Path | None:
        """The folder of the home's own state, when the home is a folder."""
        ...

    def close(self) -> None:
        """Release what the home keeps open (after every engine opened from it is closed)."""
        ...


def token_book(home: Home) -> TokenBook:
    """The right token book for ``home``: ``<home>/.home/tokens.sqlite3``, or its table."""
    return home.tokens()


def check_new_folder(folder: Path) -> None:
    """Refuse an export into a folder that holds anything (an export never merges)."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InputError(f"{folder} is not an empty folder; an export writes a new workspace")


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
            if principal is not None and holds_workspace(child):
                found.append(principal)
        return sorted(found)

    def exists(self, principal: str) -> bool:
        """Whether ``principal``'s folder holds a workspace."""
        return holds_workspace(self.folder(principal))

    def open_engine(self, principal: str, *, create: bool) -> MemoryEngine:
        """Open the engine on ``principal``'s folder (never a database: ``open_folder``)."""
        from reverie.storage.open import open_folder  # noqa: PLC0415

        path = self.folder(principal)
        if not create and not self.exists(principal):
            raise WorkspaceMissingError("no workspace for this principal", path=path)
        o = self._openers
        opened = open_folder(path, create=create, config=o.config, environ=o.environ, clock=o.clock)
        return o.engine_on(opened)

    def remove(self, principal: str) -> None:
        """Delete the principal's folder, git objects, index and vectors included.

        A folder that is a link is refused (``InputError``): deleting only the link would
        leave the memory where it points, and deleting there may reach far outside the home.
        """
        path = self.folder(principal)
        if path.is_symlink():
            raise InputError(
                f"{path} is a link to {path.resolve()}: delete that folder yourself, then the link"
            )
        if path.exists():
            try:
                shutil.rmtree(path)
            except OSError as exc:
                raise StorageError(f"cannot delete the workspace ({exc})", path=path) from exc

    def scrub(self) -> None:
        """Nothing: a folder home shares no storage between principals (``remove`` did all)."""

    def export_folder(self, principal: str, folder: Path) -> None:
        """Copy the principal's folder whole (git history included, its lock files not)."""
        source = self.folder(principal)
        if not self.exists(principal):
            raise WorkspaceMissingError("no workspace for this principal", path=source)
        check_new_folder(folder)
        copy_workspace(source, folder)

    def tokens(self) -> SqliteTokenBook:
        """``<home>/.home/tokens.sqlite3``."""
        return SqliteTokenBook(self.state_folder() / BOOK_FILE)

    def state_folder(self) -> Path:
        """``<home>/.home``: the tokens (no principal's folder can be named so)."""
        return self.root / HOME_STATE

    def close(self) -> None:
        """A folder home keeps nothing open."""
