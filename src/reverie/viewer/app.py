"""``create_viewer``: the memory viewer as a Starlette application, for one engine or a home.

Every request goes through ``_seated``: a ``token`` query parameter logs in (a token the
``visitors.Memories`` accepts sets the session cookie and redirects to the same URL without
it; any other is refused); without a live session cookie the answer is a 401 page that shows
no memory; the Host header must be allowed (loopback by default); a POST must carry the
session's CSRF token and come from the viewer's own origin. Only then does the page handler
run, in a worker thread and one at a time, on the engine of the session's one principal (lent
for that page): a principal token's session shows its principal and nothing else; an admin's
session shows ``/principals`` (the list) until the admin opens one, and then that one. No
page, search result or error is built from any other principal's engine.

Every answer carries a Content-Security-Policy that allows only the viewer's own stylesheet
and script, so even text that escaped escaping could not run, and is never cached.
"""

from __future__ import annotations

import getpass
import logging
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass
from importlib.resources import files
from urllib.parse import parse_qsl, urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from reverie.engine.facade import MemoryEngine
from reverie.errors import ReverieError
from reverie.viewer import changes, forgetting, listing, overview, reading, timeline
from reverie.viewer.guard import COOKIE, Guard, Refusal, Seat
from reverie.viewer.layout import Frame, ProvenanceHook, View
from reverie.viewer.markup import Html, tag
from reverie.viewer.provenance import engine_provenance
from reverie.viewer.visitors import Memories, OneEngine

logger = logging.getLogger(__name__)

MAX_FORM_BYTES = 512 * 1024
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; script-src 'self'; "
    "img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}
NO_SESSION = "Open the link that `reverie serve` printed (it carries the token) to see this memory."
NOT_ADMIN = "Only an admin token lists the principals; this session shows one principal's memory."
UNKNOWN = "There is no such principal here."
ASSETS = {"viewer.css": "text/css", "viewer.js": "text/javascript"}

Page = Callable[[View], "Html | tuple[Html, int] | Response"]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Parts:
    """What every request of one viewer app shares."""

    memories: Memories
    guard: Guard
    serial: threading.Lock
    author: str
    provenance: ProvenanceHook | None


def create_viewer(
    memory: MemoryEngine | Memories,
    token: str | None = None,
    *,
    author: str | None = None,
    allowed_hosts: Collection[str] | None = None,
    provenance: ProvenanceHook | None = None,
) -> Starlette:
    """Return the viewer application for one engine, or for the principals of a home.

    Args:
        memory: the memory engine to show (only its public operations are used), or the
            ``Memories`` of a home (``visitors.HomeMemories``: each login sees only its
            token's principal; an admin's lists them).
        token: the secret a person must present once (``/?token=...``) for one engine.
        author: the commit author of edits made through this viewer, ``Name`` or
            ``Name <email>`` (default: the local user's login name).
        allowed_hosts: Host names to answer for (default: loopback names only; ``"*"``: any).
        provenance: ``(path, line) -> explanation lines`` (default: ``MemoryEngine.why`` of
            the shown principal's engine, through ``reverie.viewer.provenance``).
    """
    if isinstance(memory, MemoryEngine):
        if token is None:
            raise ValueError("the viewer of one engine needs its token")
        memory = OneEngine(memory, token)
    parts = _Parts(
        memories=memory,
        guard=Guard(allowed_hosts=allowed_hosts),
        serial=threading.Lock(),
        author=author or local_person(),
        provenance=provenance,
    )

    def route(path: str, page: Page, methods: tuple[str, ...] = ("GET",)) -> Route:
        async def endpoint(request: Request) -> Response:
            return await _guarded(request, parts, page)

        return Route(path, endpoint, methods=list(methods))

    async def principals(request: Request) -> Response:
        return await _listing(request, parts)

    routes = [
        route("/", overview.overview),
        route("/why", overview.why_page),
        route("/timeline", timeline.timeline),
        route("/commit/{rev}", lambda v: changes.commit_page(v, v.path["rev"])),
        route("/restore", changes.restore, ("POST",)),
        route("/edit", lambda v: changes.edit_page(v, path=v.query.get("path", ""))),
        route("/edit", changes.save_edit, ("POST",)),
        route("/forget", forgetting.confirm_page),
        route("/forget", forgetting.forget, ("POST",)),
        route("/search", reading.search_page),
        route("/sessions", reading.sessions_page),
        route("/session", reading.session_page),
        Route("/principals", principals, methods=["GET", "POST"]),
        Route("/assets/{name}", _asset_endpoint),
    ]
    return Starlette(routes=routes)


async def _seated(request: Request, parts: _Parts) -> tuple[str, Seat, dict[str, str]] | Response:
    """The request's viewer session and form, or the refusal (host, login, cookie, CSRF)."""
    refusal = parts.guard.host_refusal(request.headers.get("host", ""))
    if refusal is not None:
        return _refused(refusal)
    if "token" in request.query_params:
        return await _login(request, parts)
    session = request.cookies.get(COOKIE, "")
    seat = parts.guard.seat(session) if session else None
    if seat is None:
        return _refused(Refusal(status=401, reason=NO_SESSION))
    form: dict[str, str] = {}
    if request.method == "POST":
        posted = await _read_post(request, parts.guard, session)
        if isinstance(posted, Response):
            return posted
        form = posted
    return session, seat, form


async def _guarded(request: Request, parts: _Parts, page: Page) -> Response:
    seated = await _seated(request, parts)
    if isinstance(seated, Response):
        return seated
    _session, seat, form = seated
    principal = seat.principal
    if principal is None:  # an admin who has not opened a principal yet
        return _redirect(request.scope.get("root_path", "") + "/principals")

    def run() -> Html | tuple[Html, int] | Response:
        with parts.serial:
            try:
                with parts.memories.lease(principal, create=seat.visitor.create) as engine:
                    return page(_view(request, parts, seat, form, engine))
            except ReverieError as exc:
                # A damaged workspace or a failing store: say so on the page, keep serving.
                logger.warning("viewer page %s failed: %s", request.url.path, exc)
                return _refused(Refusal(status=500, reason=f"reverie could not do that: {exc}"))

    return _respond(await run_in_threadpool(run))


def _view(
    request: Request, parts: _Parts, seat: Seat, form: dict[str, str], engine: MemoryEngine
) -> View:
    return View(
        engine=engine,
        query=dict(request.query_params),
        path={k: str(v) for k, v in request.path_params.items()},
        form_fields=form,
        csrf=seat.csrf,
        base=request.scope.get("root_path", ""),
        principal=seat.principal,
        admin=seat.visitor.admin,
        author=parts.author,
        provenance=parts.provenance or engine_provenance(engine),
    )


async def _listing(request: Request, parts: _Parts) -> Response:
    """``/principals``: an admin's list (GET) and opening one of them (POST)."""
    seated = await _seated(request, parts)
    if isinstance(seated, Response):
        return seated
    session, seat, form = seated
    if not seat.visitor.admin:
        return _refused(Refusal(status=403, reason=NOT_ADMIN))
    known = await run_in_threadpool(parts.memories.principals)
    base = request.scope.get("root_path", "")
    frame = Frame(csrf=seat.csrf, base=base, principal=seat.principal, admin=True)
    if request.method == "GET":
        return _respond(listing.principals_page(frame, known))
    chosen = form.get("principal", "")
    if chosen not in known:
        return _respond(listing.principals_page(frame, known, error=UNKNOWN, status=404))
    parts.guard.choose(session, chosen)
    return _redirect(base + "/")


def _redirect(target: str) -> Response:
    # One leading slash: "//host/..." would send the person to another site.
    response = RedirectResponse("/" + target.lstrip("/"), 303)
    response.headers.update(HEADERS)
    return response


async def _read_post(request: Request, guard: Guard, session: str) -> dict[str, str] | Response:
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        return _refused(Refusal(status=413, reason="the form is too large"))
    form = dict(parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True))
    origin = f"{request.url.scheme}://{request.headers.get('host', '')}"
    refusal = guard.post_refusal(session, form, request.headers, origin)
    return form if refusal is None else _refused(refusal)


def local_person() -> str:
    """The login name of the person running the viewer ("viewer" when there is none)."""
    try:
        name = getpass.getuser()
    except (OSError, KeyError):
        return "viewer"
    return name.strip() or "viewer"


async def _login(request: Request, parts: _Parts) -> Response:
    offered = request.query_params.get("token", "")
    visitor = await run_in_threadpool(parts.memories.login, offered) if offered else None
    if visitor is None:
        return _refused(Refusal(status=401, reason="That token is not this viewer's."))
    session = parts.guard.start(visitor)
    rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
    target = "/" + request.url.path.lstrip("/")
    response = _redirect(target + (f"?{urlencode(rest)}" if rest else ""))
    response.set_cookie(COOKIE, session, httponly=True, samesite="strict", path="/")
    return response


def _respond(answer: Html | tuple[Html, int] | Response) -> Response:
    if isinstance(answer, Response):
        response = answer
    elif isinstance(answer, tuple):
        response = HTMLResponse(answer[0], status_code=answer[1])
    else:
        response = HTMLResponse(answer)
    response.headers.update(HEADERS)
    return response


def _refused(refusal: Refusal) -> Response:
    body = Html(
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>reverie</title></head><body>{tag('h1', 'reverie')}"
        f"{tag('p', refusal.reason)}</body></html>"
    )
    return _respond((body, refusal.status))


async def _asset_endpoint(request: Request) -> Response:
    return _respond(_asset(str(request.path_params["name"])))


def _asset(name: str) -> Response:
    if name not in ASSETS:
        return Response("not found", status_code=404, media_type="text/plain")
    text = files("reverie.viewer").joinpath("assets", name).read_text(encoding="utf-8")
    return Response(text, media_type=ASSETS[name])
