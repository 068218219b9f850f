"""``/v1/memories``: the memory operations MCP has, as plain HTTP for programs in any language.

Behind the same bearer token as the proxy (``auth.BearerGuard``); the principal is the
token's own, or the one an app or admin token names in ``X-Reverie-Principal``, decided by
``proxy.admit`` (403, 404 refusals), so a principal token reaches only its own memory. Every
route uses that principal's engine, lent by the server's ``EnginePool`` in a worker thread.

- ``GET /v1/memories/lines``: every durable line (SOUL.md, USER.md, memory/MEMORY.md,
  skills) with its ``id`` and its ``why`` (origin, times, the history entries and session
  messages it came from: ``MemoryEngine.lines``); ``id`` is the first 12 hex digits of the
  SHA-256 of the file and the line's text (case and spaces folded), so it stays while the
  line says the same thing;
- ``GET /v1/memories/files/{file}``: one durable file (``SOUL.md``, ``USER.md``,
  ``MEMORY.md``);
- ``GET /v1/memories/search?q=...&limit=&session=``: search history and sessions;
- ``POST /v1/memories`` ``{"text", "session"?}``: ``MemoryEngine.remember`` (record,
  compact, dream now);
- ``POST /v1/memories/forget`` ``{"text", "purge"?}`` and ``DELETE /v1/memories/lines/{id}``:
  ``MemoryEngine.forget``, never with ``confirm_broad``: a text too broad to be one fact is
  refused (400, ``code`` ``too_broad``), as MCP refuses it; only ``reverie forget --broad``
  can confirm that;
- ``GET /v1/memories/openapi.json``: the OpenAPI 3.1 schema of these routes
  (``memories_schema``).

Errors are the OpenAI error shape (``upstream.error_body``).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from typing import TypeVar

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from reverie.core.durable import FILE_NAMES
from reverie.core.json_data import jsonable
from reverie.core.messages import JSONObject, JSONValue
from reverie.core.session import is_internal
from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import PRINCIPAL_HEADER, EnginePool
from reverie.errors import InputError, ReverieError
from reverie.serve.gate import Gate
from reverie.serve.memories_schema import schema
from reverie.serve.proxy import admit, error_response
from reverie.serve.upstream import error_body

T = TypeVar("T")
REMEMBER_SESSION = "api:memories"
BULLETS = "-*+ \t"


class RefusedError(Exception):
    """A request this API refuses: status, message, where."""

    def __init__(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.param, self.code = status, param, code


def line_id(file: str, text: str) -> str:
    """The id of a durable line: its file and its text (case and spaces folded), hashed."""
    folded = " ".join(text.casefold().split())
    return hashlib.sha256(f"{file}\n{folded}".encode()).hexdigest()[:12]


def listed_lines(engine: MemoryEngine) -> list[JSONValue]:
    """Every durable line with its id and its provenance (``MemoryEngine.lines``)."""
    found: list[JSONValue] = []
    for line in engine.lines().lines:
        said = line.to_json()
        why = {k: said[k] for k in ("origin", "first_written", "last_written", "entries")}
        found.append(
            {
                "id": line_id(line.file, line.text),
                "file": line.file,
                "line": line.number,
                "text": line.text,
                "why": why,
            }
        )
    return found


class MemoriesRoutes:
    """The ``/v1/memories`` routes over one engine pool."""

    def __init__(
        self, pool: EnginePool, gate: Gate, *, exchanged: Callable[[str], None] = lambda _p: None
    ) -> None:
        self._pool = pool
        self._gate = gate
        self._exchanged = exchanged

    def routes(self) -> list[Route]:
        """The routes, to mount under ``/v1``."""
        return [
            Route("/memories/openapi.json", self.openapi, methods=["GET"]),
            Route("/memories/lines", self._wrap(self._lines), methods=["GET"]),
            Route("/memories/lines/{id}", self._wrap(self._forget_line), methods=["DELETE"]),
            Route("/memories/files/{file}", self._wrap(self._file), methods=["GET"]),
            Route("/memories/search", self._wrap(self._search), methods=["GET"]),
            Route("/memories/forget", self._wrap(self._forget), methods=["POST"]),
            Route("/memories", self._wrap(self._remember), methods=["POST"]),
        ]

    async def openapi(self, _request: Request) -> Response:
        """The OpenAPI 3.1 schema of the memories API."""
        return JSONResponse(schema())

    def _wrap(
        self, job: Callable[[Request, JSONObject | None], Callable[[MemoryEngine], JSONObject]]
    ) -> Callable[[Request], object]:
        async def endpoint(request: Request) -> Response:
            named = request.headers.get(PRINCIPAL_HEADER, "").strip() or None
            admitted = await admit(self._gate, request.scope, named)
            if isinstance(admitted, Response):
                return admitted
            try:
                work = job(request, await _body(request))
                found = await anyio.to_thread.run_sync(
                    functools.partial(
                        self._run, admitted.principal, create=admitted.create, work=work
                    )
                )
            except RefusedError as exc:
                kind = "invalid_request_error" if exc.status < 500 else "server_error"
                return error_response(
                    exc.status, error_body(str(exc), kind, param=exc.param, code=exc.code)
                )
            except ReverieError as exc:
                return error_response(
                    500, error_body(f"memory: {exc}", "server_error", code="memory")
                )
            self._exchanged(admitted.principal)
            return JSONResponse(found)

        return endpoint

    def _run(
        self, principal: str, *, create: bool, work: Callable[[MemoryEngine], JSONObject]
    ) -> JSONObject:
        with self._pool.lease(principal, create=create) as engine:
            try:
                return work(engine)
            except InputError as exc:
                broad = "broad" in str(exc)
                raise RefusedError(
                    400, str(exc), code="too_broad" if broad else "invalid_input"
                ) from exc

    @staticmethod
    def _lines(_request: Request, _body: JSONObject | None) -> Callable[[MemoryEngine], JSONObject]:
        return lambda engine: {"lines": listed_lines(engine)}

    @staticmethod
    def _file(request: Request, _body: JSONObject | None) -> Callable[[MemoryEngine], JSONObject]:
        file = request.path_params["file"]
        name = FILE_NAMES.get(file)
        if name is None:
            raise RefusedError(
                404,
                f"unknown file {file!r}: use one of {sorted(FILE_NAMES)}",
                param="file",
                code="unknown_file",
            )
        return lambda engine: {"file": file, "text": engine.read_memory(name)}

    @staticmethod
    def _search(request: Request, _body: JSONObject | None) -> Callable[[MemoryEngine], JSONObject]:
        query = request.query_params.get("q", "").strip()
        if not query:
            raise RefusedError(400, "search needs a query: ?q=words", param="q")
        raw = request.query_params.get("limit", "10")
        if not raw.isdigit() or not 1 <= int(raw) <= 100:
            raise RefusedError(400, "limit must be a whole number from 1 to 100", param="limit")
        session = request.query_params.get("session") or None

        def run(engine: MemoryEngine) -> JSONObject:
            hits = engine.search(query, limit=int(raw), session_key=session)
            return {"hits": [_hit(hit) for hit in hits]}

        return run

    @staticmethod
    def _remember(
        _request: Request, body: JSONObject | None
    ) -> Callable[[MemoryEngine], JSONObject]:
        text = _text(body)
        session = (body or {}).get("session", REMEMBER_SESSION)
        if not isinstance(session, str) or not session.strip() or is_internal(session):
            raise RefusedError(
                400, "session must be a session key of yours (not dream:/cron:)", param="session"
            )

        def run(engine: MemoryEngine) -> JSONObject:
            done = engine.remember(text, session_key=session)
            found = jsonable(done)
            return {"session": session, "result": found, "lines": listed_lines(engine)}

        return run

    @staticmethod
    def _forget(_request: Request, body: JSONObject | None) -> Callable[[MemoryEngine], JSONObject]:
        text = _text(body)
        purge = (body or {}).get("purge", False)
        if not isinstance(purge, bool):
            raise RefusedError(400, "purge must be true or false", param="purge")
        return lambda engine: dict(engine.forget(text, purge=purge).to_json())

    @staticmethod
    def _forget_line(
        request: Request, _body: JSONObject | None
    ) -> Callable[[MemoryEngine], JSONObject]:
        wanted = request.path_params["id"]

        def run(engine: MemoryEngine) -> JSONObject:
            for line in engine.lines().lines:
                if line_id(line.file, line.text) == wanted:
                    text = line.text.strip().lstrip(BULLETS).strip()
                    return dict(engine.forget(text).to_json())
            raise RefusedError(
                404, f"no durable line has the id {wanted!r}", param="id", code="unknown_line"
            )

        return run


async def _body(request: Request) -> JSONObject | None:
    if request.method not in ("POST", "PUT"):
        return None
    try:
        found = json.loads(await request.body())
    except ValueError as exc:
        raise RefusedError(400, f"the body is not JSON: {exc}") from exc
    if not isinstance(found, dict):
        raise RefusedError(400, "the body must be a JSON object")
    return found


def _text(body: JSONObject | None) -> str:
    text = (body or {}).get("text")
    if not isinstance(text, str) or not text.strip():
        raise RefusedError(400, "'text' must be a non-empty string", param="text")
    return text


def _hit(hit: object) -> JSONValue:
    return jsonable(hit)
