"""Who may see the viewer: a session cookie, whose memory it shows, CSRF tokens, allowed hosts.

The person opens ``/?token=<token>``; the app asks its ``visitors.Memories`` who the token
makes them, ``Guard.start`` starts a viewer session for that ``Visitor`` (a random id in an
HttpOnly, SameSite=Strict cookie) and the app redirects to the same URL without the token, so
it does not stay in the address bar or the history. Every later request needs that cookie;
without it nothing is shown. A session's principal is fixed at login (a principal's token) or
picked by an admin (``choose``, only for an admin's session): nothing a request carries can
change it otherwise. Each viewer session has its own CSRF token, put in a hidden field of
every form and checked on every POST together with the request's Origin (or Referer), which
must be the viewer's own origin.

The Host header must name a loopback host unless the app is told otherwise, so a web page
cannot reach the viewer by rebinding its own DNS name to 127.0.0.1.

Sessions live in memory (a restart asks for the token link again) and are capped; the oldest
is forgotten first. This module holds no memory data and renders nothing.
"""

from __future__ import annotations

import hmac
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace

from reverie.viewer.visitors import Visitor

COOKIE = "reverie_viewer"
MAX_SESSIONS = 256
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
"""Host names accepted by default (any port)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    """Why a request is refused: the HTTP status and a line for the person."""

    status: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Seat:
    """One viewer session: its CSRF token, and whose memory it shows."""

    csrf: str
    visitor: Visitor
    principal: str | None
    """The principal shown (an admin's is None until one is picked)."""


class Guard:
    """The viewer sessions and their CSRF tokens (see the module docstring)."""

    def __init__(self, *, allowed_hosts: Collection[str] | None = None) -> None:
        self._hosts = frozenset(h.lower() for h in (allowed_hosts or LOOPBACK_HOSTS))
        self._sessions: OrderedDict[str, Seat] = OrderedDict()
        self._lock = threading.Lock()

    def start(self, visitor: Visitor) -> str:
        """Start a viewer session for ``visitor``; return its id (the cookie's value)."""
        session = secrets.token_urlsafe(32)
        seat = Seat(csrf=secrets.token_urlsafe(32), visitor=visitor, principal=visitor.principal)
        with self._lock:
            self._sessions[session] = seat
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        return session

    def seat(self, session: str) -> Seat | None:
        """The live session ``session`` names, or None."""
        with self._lock:
            return self._sessions.get(session)

    def choose(self, session: str, principal: str) -> None:
        """Show ``principal`` in an admin's session (a principal's session cannot change)."""
        with self._lock:
            seat = self._sessions.get(session)
            if seat is None or not seat.visitor.admin:
                raise PermissionError("only an admin's viewer session may open a principal")
            self._sessions[session] = replace(seat, principal=principal)

    def csrf(self, session: str) -> str | None:
        """The CSRF token of a live session, or None when the session is unknown."""
        seat = self.seat(session)
        return seat.csrf if seat is not None else None

    def host_refusal(self, host: str) -> Refusal | None:
        """Refuse a Host header that names no allowed host (the port is ignored)."""
        if "*" in self._hosts:
            return None
        if _host_name(host) in self._hosts:
            return None
        return Refusal(status=421, reason=f"this viewer does not answer for host {host!r}")

    def post_refusal(
        self, session: str, form: Mapping[str, str], headers: Mapping[str, str], origin: str
    ) -> Refusal | None:
        """Refuse a POST whose CSRF token or Origin/Referer is not this viewer's own."""
        expected = self.csrf(session)
        offered = form.get("csrf", "")
        if expected is None or not hmac.compare_digest(offered.encode(), expected.encode()):
            return Refusal(status=403, reason="the form's CSRF token is missing or wrong")
        sent_origin = headers.get("origin")
        if sent_origin is not None:
            if sent_origin != origin:
                return Refusal(status=403, reason=f"cross-origin form post from {sent_origin}")
            return None
        referer = headers.get("referer", "")
        if referer != origin and not referer.startswith(origin + "/"):
            return Refusal(status=403, reason="a form post without a same-origin Origin header")
        return None


_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::[0-9]{1,5})?")
"""A Host header as RFC 9110 writes it: a name or a bracketed IPv6 address, then a port."""


def _host_name(host: str) -> str:
    """The host a Host header names, its port left out; anything else is kept whole.

    Only a header of the strict form loses its port, so ``127.0.0.1:1@evil.example``,
    ``127.0.0.1:80:x`` or ``127.0.0.1 evil`` name no allowed host and are refused.
    """
    lowered = host.strip().lower()
    found = _HOST.fullmatch(lowered)
    return found.group(1) if found is not None else lowered
