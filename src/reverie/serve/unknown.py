"""The answer to a ``/v1`` request no route takes: an OpenAI-shaped 404 (or 405), not text.

A client of the OpenAI API (``/v1/embeddings``, ``/v1/files``...) reads the error shape
``{"error": {...}}`` and its SDK raises ``NotFoundError``; Starlette's own plain-text 404
would surface as a parse failure. ``unknown_route`` is the last route of the ``/v1`` router
and takes every path and method; a path that exists under another method gets 405 with the
methods it takes in ``Allow``.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match, Route

from reverie.serve.upstream import error_body

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def unknown_route(known: Sequence[Route]) -> Route:
    """The catch-all route after ``known`` (put it last)."""

    async def unknown(request: Request) -> Response:
        return _unknown(request, known)

    return Route("/{path:path}", unknown, methods=METHODS)


def _unknown(request: Request, known: Sequence[Route]) -> Response:
    allowed: set[str] = set()
    for route in known:
        match, _child = route.matches({**request.scope, "method": "NONE"})
        if match is Match.PARTIAL and route.methods:
            allowed |= route.methods - {"HEAD"}
    where = f"{request.method} {request.url.path}"
    if allowed:
        body = error_body(
            f"{where}: this path takes {', '.join(sorted(allowed))}",
            "invalid_request_error",
            code="method_not_allowed",
        )
        return JSONResponse(body, status_code=405, headers={"allow": ", ".join(sorted(allowed))})
    body = error_body(
        f"{where}: reverie serve has no such route (it serves /v1/chat/completions, "
        "/v1/responses, /v1/models and /v1/memories)",
        "invalid_request_error",
        code="unknown_url",
    )
    return JSONResponse(body, status_code=404)
