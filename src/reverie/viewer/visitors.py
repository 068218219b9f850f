"""Who logs in to the viewer, and whose memory each login may see.

A person logs in with a token; ``Memories.login`` says who that makes them (a ``Visitor``):

- a principal's token (``reverie token add --principal alice``): that principal, and no
  other, for as long as the viewer session lasts: no page, link or form can move it;
- an admin token (the server's own, or an admin token of the home's book): no principal
  yet; the session lists the principals and opens the one the admin picks;
- anything else (an app token, a wrong or revoked token): no login.

``OneEngine`` is the viewer of one engine alone (``serve_viewer``, tests, screenshots): its
one token sees that engine. ``HomeMemories`` is ``reverie serve``'s: the home's principals,
each engine lent by the server's ``EnginePool``, the tokens checked by the server's gate.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Protocol

from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import DEFAULT_PRINCIPAL, EnginePool, Grant


@dataclass(frozen=True, slots=True, kw_only=True)
class Visitor:
    """Who a login is: one principal's, or an admin's (who picks a principal)."""

    principal: str | None
    admin: bool = False
    create: bool = False
    """Whether the principal's workspace may be made on first use (its own token's)."""


class Memories(Protocol):
    """The memories a viewer can show, and who may see which."""

    def login(self, token: str) -> Visitor | None:
        """Who ``token`` makes its bearer, or None (not a viewer login)."""
        ...

    def principals(self) -> list[str]:
        """Every principal an admin may open, sorted."""
        ...

    def lease(self, principal: str, *, create: bool) -> AbstractContextManager[MemoryEngine]:
        """Lend ``principal``'s engine for one page."""
        ...


class OneEngine:
    """One engine, one token: the viewer of a single workspace."""

    def __init__(self, engine: MemoryEngine, token: str) -> None:
        if not token:
            raise ValueError("the viewer needs a non-empty token")
        self._engine = engine
        self._token = token.encode("utf-8")

    def login(self, token: str) -> Visitor | None:
        """The one principal, for the one token (compared in constant time)."""
        if hmac.compare_digest(token.encode("utf-8", "surrogatepass"), self._token):
            return Visitor(principal=DEFAULT_PRINCIPAL)
        return None

    def principals(self) -> list[str]:
        """The one principal."""
        return [DEFAULT_PRINCIPAL]

    def lease(self, principal: str, *, create: bool) -> AbstractContextManager[MemoryEngine]:
        """The engine (there is no other)."""
        del principal, create
        return nullcontext(self._engine)


class HomeMemories:
    """The principals of a served home: engines from its pool, tokens from its gate."""

    def __init__(self, pool: EnginePool, grant: Callable[[str], Grant | None]) -> None:
        self._pool = pool
        self._grant = grant

    def login(self, token: str) -> Visitor | None:
        """A principal token's principal; an admin token's list; no app token."""
        grant = self._grant(token)
        if grant is None or grant.kind == "app":
            return None
        if grant.kind == "principal":
            return Visitor(principal=grant.principal, create=True)
        return Visitor(principal=None, admin=True)

    def principals(self) -> list[str]:
        """The home's principals."""
        return self._pool.home.principals()

    def lease(self, principal: str, *, create: bool) -> AbstractContextManager[MemoryEngine]:
        """The principal's engine, lent by the pool."""
        return self._pool.lease(principal, create=create)
