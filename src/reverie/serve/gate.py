"""Whose memory a request of ``reverie serve`` reaches: its credential, then ``owners.access``.

``Gate`` holds the server's own token (``REVERIE_SERVE_TOKEN`` or the generated one: an
admin grant whose requests that name nobody reach the home's default principal), the home's
``TokenBook`` (principal, app and admin tokens made with ``reverie token add``; None: only
the server's own token) and the ``[serve] unknown_principals`` setting. Every route of the
server (``/v1``, ``/mcp``, the viewer's login) asks it:

- ``grant(token)``: the live grant of a bearer token, or None (401);
- ``admit(grant, named)``: the principal the request reaches (``owners.access.resolve``) and
  whether its workspace may be made now. A principal token's own principal is always made on
  first use; a principal an app or admin token names is made or refused by the setting
  (``UnknownPrincipalError``, 404). ``AccessError`` (403): a principal token naming another.

The comparison with the server's own token takes constant time; the book stores only digests.
Synchronous (the book is a file or a database): the async routes call it in a worker thread.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import UTC, datetime

from reverie.config.sections import UnknownPrincipals
from reverie.engine.owners import Access, Grant, Home, TokenBook, resolve
from reverie.errors import UnknownPrincipalError

SERVER_GRANT_ID = "serve"
"""The public id of the server's own token's grant (never one of the book's 12-hex ids)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Admitted:
    """The principal a request reaches, and whether its workspace may be made now."""

    access: Access
    create: bool

    @property
    def principal(self) -> str:
        """The principal whose engine the request uses."""
        return self.access.principal


class Gate:
    """The server's credentials and its rule for principals that have no workspace yet."""

    def __init__(
        self,
        home: Home,
        token: str,
        *,
        book: TokenBook | None = None,
        unknown_principals: UnknownPrincipals = "create",
    ) -> None:
        if not token:
            raise ValueError("reverie serve needs a non-empty token")
        self.home = home
        self.book = book
        self._token = token.encode("utf-8")
        self._create_unknown = unknown_principals == "create"
        self._own = Grant(
            id=SERVER_GRANT_ID,
            kind="admin",
            principal=None,
            label="reverie serve's own token",
            created=datetime.now(UTC),
        )

    def grant(self, token: str) -> Grant | None:
        """The live grant of ``token``: the server's own, one of the book's, or None."""
        if not token:
            return None
        if hmac.compare_digest(token.encode("utf-8", "surrogatepass"), self._token):
            return self._own
        return self.book.check(token) if self.book is not None else None

    def is_own(self, grant: Grant) -> bool:
        """Whether ``grant`` is the server's own token's (it falls back to the default)."""
        return grant is self._own

    def admit(self, grant: Grant, named: str | None) -> Admitted:
        """The principal a request with ``grant`` naming ``named`` reaches.

        Raises:
            AccessError: a principal token naming another principal, or an app token naming
                none.
            UnknownPrincipalError: the principal has no workspace and the server makes none.
            InputError: ``named`` cannot be a principal id.
        """
        default = self.home.default if self.is_own(grant) else None
        access = resolve(grant, named, default=default)
        create = grant.kind == "principal" or self._create_unknown
        if not create and not self.home.exists(access.principal):
            raise UnknownPrincipalError(
                "no such principal here, and this server makes none on first use "
                "([serve] unknown_principals = 'refuse')"
            )
        return Admitted(access=access, create=create)


def bearer(authorization: str) -> str:
    """The token of an ``Authorization: Bearer <token>`` header ('' when there is none)."""
    scheme, _, token = authorization.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""
