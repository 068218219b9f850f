"""The frame every viewer page shares: ``View`` (what a page may use) and ``page``.

A ``View`` carries the engine of the session's one principal, the request's query and form
fields (already parsed), and its ``Frame``: the session's CSRF token, the mount prefix, whose
memory it is and whether the session is an admin's (who gets the Principals link); pages build
links with ``View.url`` and forms with ``form`` (which adds the CSRF field), so no page handles
either by hand. ``page`` wraps a body in the document: navigation, the packaged stylesheet and
script (served by the app itself, never from a network), and the title, all escaped like every
other text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from reverie.viewer.markup import Html, join, tag

if TYPE_CHECKING:
    from reverie.engine.facade import MemoryEngine

ProvenanceHook = Callable[[str, str], Sequence[str]]
"""``(path, line) -> lines of explanation`` of where a durable line came from."""

NAV = (
    ("overview", "/", "Overview"),
    ("timeline", "/timeline", "Timeline"),
    ("search", "/search", "Search"),
    ("sessions", "/sessions", "Sessions"),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Frame:
    """What every page, with or without a principal's memory, builds links and forms with.

    Attributes:
        csrf: the viewer session's CSRF token.
        base: the prefix the app is mounted under ('' at the root).
        principal: whose memory the page shows (None: none chosen yet, or one engine alone).
        admin: whether the session may list the principals and open another one.
    """

    csrf: str = ""
    base: str = ""
    principal: str | None = None
    admin: bool = False

    def url(self, path: str, /, *, fragment: str = "", **params: object) -> str:
        """A link inside the viewer; None and '' parameters are left out."""
        kept = {k: str(v) for k, v in params.items() if v is not None and v != ""}
        query = f"?{urlencode(kept)}" if kept else ""
        return f"{self.base}{path}{query}{'#' + fragment if fragment else ''}"

    def form(
        self, action: str, *children: object, confirm: str | None = None, class_: str | None = None
    ) -> Html:
        """A POST form to ``action`` carrying this session's CSRF token."""
        token = tag("input", type="hidden", name="csrf", value=self.csrf)
        return tag(
            "form",
            token,
            *children,
            method="post",
            action=self.url(action),
            data_confirm=confirm,
            class_=class_,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class View(Frame):
    """What a page handler gets: the engine and the parsed request (see the module docstring).

    Attributes:
        engine: the memory engine of the session's one principal (public operations only).
        query: the query string's fields (last value wins).
        path: the route's path parameters (``rev`` of ``/commit/{rev}``).
        form_fields: a POST's form fields (empty for GET).
        author: who edits through this viewer (the author of ``edit:`` commits).
        provenance: the hook that explains a durable line, when wired.
    """

    engine: MemoryEngine
    query: Mapping[str, str] = field(default_factory=dict)
    path: Mapping[str, str] = field(default_factory=dict)
    form_fields: Mapping[str, str] = field(default_factory=dict)
    author: str = "viewer"
    provenance: ProvenanceHook | None = None


def page(
    view: Frame, title: str, body: Html, *, here: str = "", notice: str = "", error: str = ""
) -> Html:
    """The whole document around ``body``."""
    nav = NAV if view.principal is not None or not view.admin else ()
    links = [
        tag("a", label, href=view.url(path), class_="here" if key == here else None)
        for key, path, label in nav
    ]
    if view.admin:
        here_class = "here" if here == "principals" else None
        links.append(tag("a", "Principals", href=view.url("/principals"), class_=here_class))
    whose = tag("span", view.principal, class_="whose") if view.admin and view.principal else None
    brand = tag("span", "reverie", class_="brand")
    top = tag("header", brand, whose, tag("nav", *links), class_="top")
    notes = [
        tag("div", notice, class_="notice") if notice else None,
        tag("div", error, class_="notice error", role="alert") if error else None,
    ]
    head = join(
        [
            Html('<meta charset="utf-8">'),
            tag("meta", name="viewport", content="width=device-width, initial-scale=1"),
            tag("title", f"{title} · reverie"),
            tag("link", rel="icon", href="data:,"),
            tag("link", rel="stylesheet", href=view.url("/assets/viewer.css")),
            tag("script", src=view.url("/assets/viewer.js"), defer=True),
        ]
    )
    main = tag("main", tag("h1", title), join(notes), body)
    return Html(
        f'<!doctype html>\n<html lang="en"><head>{head}</head><body>{top}{main}</body></html>'
    )
