"""Deleting a principal: a purge that leaves no byte of its memory in the home.

``delete_principal`` does it in the one order that cannot leave a way back in:

1. the principal's tokens are deleted from the book (not merely revoked: no row names it
   afterwards), so no request can reach, or recreate, the principal with them;
2. its engine is evicted from the server's pool (``EnginePool.evict``: waits until no request
   holds it, closes it: no cache, index or open file keeps its data);
3. its workspace is deleted whole (``Home.remove``): in a folder home the folder with its git
   objects, search index, vectors, sessions database, locks and any file the tool set aside
   (a moved-away corrupt index); in a database home its ``workspaces`` row, which takes every
   row of every table with it (``ON DELETE CASCADE``);
4. with ``scrub`` (the default), shared storage is cleared of what the deleted rows left:
   a database home rewrites its tables (``VACUUM FULL``), so the deleted rows' bytes leave
   the tables' and indexes' files too (``Home.scrub``; a folder home has nothing shared).

An app token may still name the principal afterwards: with ``unknown_principals = "create"``
that makes a new, empty workspace, which holds nothing of the deleted one.

What a purge cannot reach, and so does not claim: copies made outside reverie (backups of the
disk or the database, an export written elsewhere), freed disk blocks, and PostgreSQL's own
write-ahead log until it recycles its segments (and, after a purge without ``scrub``, the
deleted rows' bytes in the tables' files until they are rewritten).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from reverie.engine.owners.names import check_principal
from reverie.errors import PrincipalMissingError

if TYPE_CHECKING:
    from reverie.engine.owners.home import Home
    from reverie.engine.owners.pool import EnginePool


@dataclass(frozen=True, slots=True, kw_only=True)
class Deleted:
    """What ``delete_principal`` removed."""

    principal: str
    location: str
    tokens: int
    scrubbed: bool


def delete_principal(
    home: Home, principal: str, *, pool: EnginePool | None = None, scrub: bool = True
) -> Deleted:
    """Delete ``principal`` from ``home`` whole: its tokens, its open engine, its workspace.

    Args:
        home: where the principal's workspace and tokens are.
        principal: whom to delete.
        pool: the server's engine pool, if one is running in this process.
        scrub: clear shared storage afterwards (``Home.scrub``: on a database, every table
            is rewritten and locked meanwhile; a server deleting many principals may pass
            False and scrub once after the last).

    Raises:
        PrincipalMissingError: the principal has no workspace and no token (nothing to do).
        InputError: a folder home's principal folder is a link (see ``FolderHome.remove``).
    """
    check_principal(principal)
    existed = home.exists(principal)
    tokens = home.tokens().forget_principal(principal)
    if not existed and tokens == 0:
        raise PrincipalMissingError(principal, where=home.location)
    if pool is not None:
        pool.evict(principal)
    home.remove(principal)
    if scrub:
        home.scrub()
    return Deleted(principal=principal, location=home.location, tokens=tokens, scrubbed=scrub)
