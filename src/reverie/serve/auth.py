"""Who may talk to ``reverie serve``: bearer tokens, and where the server may listen.

The server's own token is ``REVERIE_SERVE_TOKEN`` when set, else a random one made at start
and printed once (as Jupyter does); the home's token book adds principal, app and admin
tokens (``gate.Gate``). ``BearerGuard`` wraps each of the server's own routes (``/v1``,
``/mcp``): a request without ``Authorization: Bearer <token>`` of a live grant gets 401 with
an OpenAI-style body, so the OpenAI SDKs raise ``AuthenticationError`` (their ``api_key`` is
the token). Apps mounted beside the routes (the viewer) bring their own login and are not
wrapped.

Binding to an address other than loopback without ``REVERIE_SERVE_TOKEN`` is refused
(``token_for``): a token that exists only on one terminal's screen is no protection for a
server others can reach, and one that is not set cannot be given to the clients either. A
token shorter than ``MIN_TOKEN_CHARS`` (32) is refused for such a bind too: it can be guessed.
"""

from __future__ import annotations

import ipaddress
import json
import secrets
from collections.abc import Mapping

import anyio.to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

from reverie.engine.owners import Grant
from reverie.serve.gate import Gate, bearer
from reverie.serve.upstream import error_body

TOKEN_VARIABLE = "REVERIE_SERVE_TOKEN"  # noqa: S105 (the name of a variable, not a secret)
MIN_TOKEN_CHARS = 32
"""Shortest ``REVERIE_SERVE_TOKEN`` accepted for a bind other than loopback."""


class ServeRefusedError(Exception):
    """The server must not start as asked; the text says why and what to do."""


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def token_for(host: str, environ: Mapping[str, str]) -> tuple[str, bool]:
    """The token to require and whether it was generated here (so it must be printed).

    Raises:
        ServeRefusedError: ``host`` is not loopback and no token is set, or one shorter
            than ``MIN_TOKEN_CHARS``.
    """
    token = environ.get(TOKEN_VARIABLE, "").strip()
    if token and not is_loopback(host) and len(token) < MIN_TOKEN_CHARS:
        raise ServeRefusedError(
            f"refusing to listen on {host} with a {TOKEN_VARIABLE} of {len(token)} characters: "
            f"a server others can reach needs at least {MIN_TOKEN_CHARS} (for example "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    if token:
        return token, False
    if not is_loopback(host):
        raise ServeRefusedError(
            f"refusing to listen on {host} without {TOKEN_VARIABLE}: set it to a long random "
            "secret and give it to the clients, or bind 127.0.0.1"
        )
    return secrets.token_urlsafe(24), True


GRANT_KEY = "reverie.grant"
"""Where ``BearerGuard`` leaves the request's grant in the ASGI scope for the routes."""


class BearerGuard:
    """An ASGI wrapper that lets through only requests whose bearer token has a live grant.

    The grant (``Gate.grant``: the server's own token, or one of the home's token book) is
    put in the scope under ``GRANT_KEY``; the route decides the principal from it.
    """

    def __init__(self, app: ASGIApp, gate: Gate) -> None:
        self._app = app
        self._gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass an authorised request on; answer any other with 401."""
        if scope["type"] not in ("http", "websocket"):
            await self._app(scope, receive, send)
            return
        headers = dict(scope.get("headers", ()))
        token = bearer(headers.get(b"authorization", b"").decode("latin-1"))
        grant = await anyio.to_thread.run_sync(self._gate.grant, token) if token else None
        if grant is None:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await _unauthorised(send)
            return
        await self._app({**scope, GRANT_KEY: grant}, receive, send)


def scope_grant(scope: Scope) -> Grant:
    """The grant ``BearerGuard`` found for this request."""
    grant = scope.get(GRANT_KEY)
    if not isinstance(grant, Grant):
        raise RuntimeError("the route is not behind BearerGuard")
    return grant


async def _unauthorised(send: Send) -> None:
    body = json.dumps(
        error_body(
            f"missing or wrong bearer token (the token {TOKEN_VARIABLE} names, or the one "
            "reverie serve printed at start)",
            "authentication_error",
            code="invalid_api_key",
        )
    ).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", b'Bearer realm="reverie"'),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})
