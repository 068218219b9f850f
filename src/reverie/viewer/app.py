"""``create_viewer``: the memory viewer as a Starlette application for one engine.

Every request goes through ``_guarded``: a ``token`` query parameter logs in (a good token
sets the session cookie and redirects to the same URL without it; a wrong one is refused);
without a live session cookie the answer is a 401 page that shows no memory; the Host header
must be allowed (loopback by default); a POST must carry the session's CSRF token and come
from the viewer's own origin. Only then does the page handler run, in a worker thread and one
at a time (the engine is shared with whatever else the server does, and pages are cheap).

Every answer carries a Content-Security-Policy that allows only the viewer's own stylesheet
and script, so even text that escaped escaping could not run, and is never cached.
"""

from __future__ import annotations

import getpass
import logging
import threading
from collections.abc import Callable, Collection
from importlib.resources import files
from urllib.parse import parse_qsl, urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from reverie.engine import MemoryEngine
from reverie.errors import ReverieError
from reverie.viewer import changes, forgetting, overview, reading, timeline
from reverie.viewer.guard import COOKIE, Guard, Refusal
from reverie.viewer.layout import ProvenanceHook, View
from reverie.viewer.markup import Html, tag
from reverie.viewer.provenance import engine_provenance

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
ASSETS = {"viewer.css": "text/css", "viewer.js": "text/javascript"}

Page = Callable[[View], "Html | tuple[Html, int] | Response"]


def create_viewer(
    engine: MemoryEngine,
    token: str,
    *,
    author: str | None = None,
    allowed_hosts: Collection[str] | None = None,
    provenance: ProvenanceHook | None = None,
) -> Starlette:
    """Return the viewer application for ``engine``.

    Args:
        engine: the memory engine to show (only its public operations are used).
        token: the secret a person must present once (``/?token=...``).
        author: the commit author of edits made through this viewer, ``Name`` or
            ``Name <email>`` (default: the local user's login name).
        allowed_hosts: Host names to answer for (default: loopback names only; ``"*"``: any).
        provenance: ``(path, line) -> explanation lines`` (default: ``MemoryEngine.why``,
            through ``reverie.viewer.provenance``).
    """
    provenance = provenance or engine_provenance(engine)
    guard = Guard(token, allowed_hosts=allowed_hosts)
    person = author or local_person()
    serial = threading.Lock()

    def route(path: str, page: Page, methods: tuple[str, ...] = ("GET",)) -> Route:
        async def endpoint(request: Request) -> Response:
            return await _guarded(request, guard, serial, page, engine, person, provenance)

        return Route(path, endpoint, methods=list(methods))

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
        route("/assets/{name}", lambda v: _asset(v.path["name"])),
    ]
    return Starlette(routes=routes)


async def _guarded(
    request: Request,
    guard: Guard,
    serial: threading.Lock,
    page: Page,
    engine: MemoryEngine,
    author: str,
    provenance: ProvenanceHook | None,
) -> Response:
    refusal = guard.host_refusal(request.headers.get("host", ""))
    if refusal is not None:
        return _refused(refusal)
    if "token" in request.query_params:
        return _login(request, guard)
    session = request.cookies.get(COOKIE, "")
    csrf = guard.csrf(session) if session else None
    if csrf is None:
        return _refused(Refusal(status=401, reason=NO_SESSION))
    form: dict[str, str] = {}
    if request.method == "POST":
        posted = await _read_post(request, guard, session)
        if isinstance(posted, Response):
            return posted
        form = posted
    view = View(
        engine=engine,
        query=dict(request.query_params),
        path={k: str(v) for k, v in request.path_params.items()},
        form_fields=form,
        csrf=csrf,
        base=request.scope.get("root_path", ""),
        author=author,
        provenance=provenance,
    )

    def run() -> Html | tuple[Html, int] | Response:
        with serial:
            try:
                return page(view)
            except ReverieError as exc:
                # A damaged workspace or a failing store: say so on the page, keep serving.
                logger.warning("viewer page %s failed: %s", request.url.path, exc)
                return _refused(Refusal(status=500, reason=f"reverie could not do that: {exc}"))

    return _respond(await run_in_threadpool(run))


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


def _login(request: Request, guard: Guard) -> Response:
    session = guard.login(request.query_params.get("token", ""))
    if session is None:
        return _refused(Refusal(status=401, reason="That token is not this viewer's."))
    rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
    # One leading slash: "//host/..." would send the person to another site.
    target = "/" + request.url.path.lstrip("/")
    response = RedirectResponse(target + (f"?{urlencode(rest)}" if rest else ""), 303)
    response.set_cookie(COOKIE, session, httponly=True, samesite="strict", path="/")
    response.headers.update(HEADERS)
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


def _asset(name: str) -> Response:
    if name not in ASSETS:
        return Response("not found", status_code=404, media_type="text/plain")
    text = files("reverie.viewer").joinpath("assets", name).read_text(encoding="utf-8")
    return Response(text, media_type=ASSETS[name])
