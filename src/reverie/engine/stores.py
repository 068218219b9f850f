"""Store administration through the facade: a database's schema, workspaces and transfers.

Moving a workspace between a folder and a database, making the schema, listing the workspaces.
Surfaces (``reverie store ...``) call these names; the storage layer does the work, and only it
names the backends. Each needs the ``postgres`` extra, imported when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.storage.open import Initialised, database_workspaces, init_database, is_store_url

if TYPE_CHECKING:
    from pathlib import Path

    from reverie.storage.transfer import TransferResult

__all__ = [
    "Initialised",
    "database_workspaces",
    "export_folder",
    "import_folder",
    "init_database",
    "is_store_url",
]


def import_folder(folder: Path, url: str, name: str) -> TransferResult:
    """Copy the workspace folder ``folder`` into the database workspace ``name`` at ``url``."""
    from reverie.storage.transfer import import_folder as copy_in  # noqa: PLC0415 (postgres extra)

    return copy_in(folder, url, name)


def export_folder(url: str, name: str, folder: Path) -> TransferResult:
    """Copy the database workspace ``name`` at ``url`` into the new workspace folder ``folder``."""
    from reverie.storage.transfer import export_folder as copy_out  # noqa: PLC0415 (postgres extra)

    return copy_out(url, name, folder)
