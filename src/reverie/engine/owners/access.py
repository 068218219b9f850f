"""Whose memory a request reaches: decided from its credential, never from its text alone.

``resolve`` takes the grant a request's bearer token carries and the principal the request
names (the OpenAI ``user`` field, or the ``X-Reverie-Principal`` header), and returns the
one principal the request may reach:

- a principal token reaches its own principal; a request that names another is refused
  (``AccessError``), so no field a client fills in can move it to someone else's memory;
- an app or admin token reaches the principal the request names; an app token that names
  none is refused (an app serving many people must say whose turn it is: falling back to one
  shared principal is how one person's memory reaches another); the server's own token
  (the single-person setup's) falls back to the home's default principal;
- whether a principal that has no workspace yet is made on first use or refused is the
  server's setting (``Policy.create_unknown``), checked by the caller when it opens the
  engine.

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from reverie.engine.owners.names import check_principal
from reverie.engine.owners.tokens import Grant
from reverie.errors import AccessError

PRINCIPAL_HEADER = "x-reverie-principal"
"""The header an app token names the end user with (the ``user`` field does too)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Access:
    """The principal a request reaches, and whether its token may list principals."""

    principal: str
    admin: bool = False
    named: bool = False
    """Whether the request named the principal (else it is the token's own or the default)."""


def resolve(grant: Grant, named: str | None, *, default: str | None) -> Access:
    """The principal ``grant`` lets a request that names ``named`` reach.

    Args:
        grant: the live grant of the request's token.
        named: the principal the request names, if any (``user`` field or header).
        default: the principal for a request that names none (None: it must name one).

    Raises:
        AccessError: a principal token naming another principal, or no principal at all.
        InputError: ``named`` cannot be a principal id.
    """
    if named is not None:
        named = check_principal(named, where="the named principal (user / X-Reverie-Principal)")
    if grant.kind == "principal":
        own = grant.principal
        assert own is not None  # a principal grant always names one (tokens.checked_grant)
        if named is not None and named != own:
            raise AccessError("this token belongs to another principal than the one named")
        return Access(principal=own)
    if named is not None:
        return Access(principal=named, admin=grant.kind == "admin", named=True)
    if default is None:
        raise AccessError(
            "an app token must name the end user: the OpenAI 'user' field or the "
            "X-Reverie-Principal header"
        )
    return Access(principal=default, admin=grant.kind == "admin")
