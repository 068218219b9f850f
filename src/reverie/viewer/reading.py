"""Pages that read: search (the CLI's search) and sessions (list, and one session to read).

Search results link to their sources: a session message to its place in the session
(``/session?key=K#m-<index>``), a history entry to its place among the session's summaries
(``#e-<cursor>``), or, without a session, to the timeline around it. A session page shows the
latest compaction summary, the session's history entries (its compactions), then every message,
with the compacted part marked: those messages live on in history, the rest is replayed.
"""

from __future__ import annotations

from reverie.core.entries import HistoryEntry
from reverie.core.hits import SNIPPET_CLOSE, SNIPPET_OPEN, SearchHit
from reverie.core.marks import without_marks
from reverie.core.messages import Message
from reverie.viewer.layout import View, page
from reverie.viewer.markup import Html, join, stamp, tag
from reverie.viewer.timeline import KIND_LABELS, entry_time

SEARCH_LIMIT = 30
TOOL_ARGS_SHOWN = 400


def search_page(view: View) -> Html:
    """The search form and, with a query, its results."""
    query = view.query.get("q", "").strip()
    session = view.query.get("session") or None
    keys = [info.key for info in view.engine.sessions()]
    options = [tag("option", "all sessions", value="")] + [
        tag("option", key, value=key, selected=key == session) for key in keys
    ]
    form = tag(
        "form",
        tag(
            "input",
            type="search",
            name="q",
            value=query,
            autofocus=True,
            placeholder="words, names, decisions…",
            aria_label="search",
        ),
        " ",
        tag("select", *options, name="session"),
        " ",
        tag("button", "Search"),
        method="get",
        action=view.url("/search"),
        class_="card",
    )
    if not query:
        return page(view, "Search", form, here="search")
    hits = view.engine.search(query, limit=SEARCH_LIMIT, session_key=session)
    found = [_hit(view, hit) for hit in hits] or [tag("p", "No match.", class_="muted")]
    listing = tag(
        "div",
        tag("p", f"{len(hits)} result(s) for ", tag("b", query)),
        *found,
        class_="card results",
    )
    return page(view, "Search", join([form, listing]), here="search")


def snippet(text: str) -> Html:
    """A search snippet with its matched terms in ``<mark>`` (the text itself escaped)."""
    pieces: list[Html] = []
    rest = text
    while SNIPPET_OPEN in rest:
        before, _, after = rest.partition(SNIPPET_OPEN)
        inside, closed, rest = after.partition(SNIPPET_CLOSE)
        if not closed:
            pieces.append(join([before, SNIPPET_OPEN, inside]))
            rest = ""
            break
        pieces.append(join([before, tag("mark", inside)]))
    pieces.append(join([rest]))
    return join(pieces)


def _hit(view: View, hit: SearchHit) -> Html:
    if hit.kind == "message" and hit.session_key is not None:
        href = view.url("/session", fragment=f"m-{hit.message_index}", key=hit.session_key)
        where = f"{hit.session_key} · message {hit.message_index} ({hit.role})"
    elif hit.session_key is not None:
        href = view.url("/session", fragment=f"e-{hit.cursor}", key=hit.session_key)
        where = f"{hit.session_key} · history #{hit.cursor}"
    else:
        href = view.url("/timeline", fragment=f"e-{hit.cursor}", cursor=hit.cursor)
        where = f"history #{hit.cursor}"
    return tag(
        "div",
        tag("a", where, href=href),
        " ",
        tag("span", stamp(hit.timestamp), class_="muted mono"),
        tag("div", snippet(hit.snippet), class_="snippet text"),
        class_="entry hit",
    )


def sessions_page(view: View) -> Html:
    """Every session with its size and compaction mark."""
    head = tag("tr", *[tag("th", h) for h in ("session", "messages", "compacted", "updated")])
    rows = [
        tag(
            "tr",
            tag("td", tag("a", info.key, href=view.url("/session", key=info.key))),
            tag("td", info.message_count),
            tag("td", info.compacted_upto),
            tag("td", stamp(info.updated_at), class_="mono"),
        )
        for info in view.engine.sessions()
    ]
    body = tag("table", head, *rows) if rows else tag("p", "No session yet.", class_="muted")
    return page(view, "Sessions", tag("div", body, class_="card"), here="sessions")


def session_page(view: View) -> tuple[Html, int]:
    """One session: its summary, its compactions, its messages (compacted part marked)."""
    key = view.query.get("key", "")
    if key not in {info.key for info in view.engine.sessions()}:
        return page(
            view, "No such session", tag("p", f"No session is named {key!r}."), here="sessions"
        ), 404
    session = view.engine.session(key)
    parts: list[Html] = []
    if session.summary is not None:
        title = f"Summary (last active {stamp(session.summary.last_active)})"
        text = tag("div", without_marks(session.summary.text), class_="text")
        parts.append(tag("div", tag("h2", title), text, class_="card"))
    entries = [_entry(e) for e in view.engine.history(session_key=key)]
    if entries:
        parts.append(tag("div", tag("h2", "Compactions into history"), *entries, class_="card"))
    messages = _messages(session.messages, session.compacted_upto)
    title = tag("h2", f"Messages ({len(session.messages)})")
    parts.append(tag("div", title, *messages, class_="card"))
    return page(view, f"Session {key}", join(parts), here="sessions"), 200


def _entry(entry: HistoryEntry) -> Html:
    kind = KIND_LABELS.get(entry.kind or "", "entry")
    return tag(
        "div",
        tag("span", stamp(entry_time(entry)), class_="mono muted"),
        " ",
        tag("span", kind, class_="pill compaction"),
        " ",
        tag("span", f"#{entry.cursor}", class_="mono"),
        tag("div", without_marks(entry.content), class_="text"),
        class_="entry",
        id=f"e-{entry.cursor}",
    )


def _messages(messages: tuple[Message, ...], compacted: int) -> list[Html]:
    out: list[Html] = []
    for index, message in enumerate(messages):
        if index == compacted and compacted:
            out.append(
                tag(
                    "div",
                    f"— compacted up to here: the {compacted} messages above live "
                    "on in history; prompts replay from here —",
                    class_="mark",
                )
            )
        calls = [
            f"→ {call.name}({call.arguments[:TOOL_ARGS_SHOWN]})" for call in message.tool_calls
        ]
        who = " · ".join(x for x in (message.role, message.name, stamp(message.timestamp)) if x)
        classes = f"msg {message.role}" + (" compacted" if index < compacted else "")
        out.append(
            tag(
                "div",
                tag("div", f"#{index} {who}", class_="who"),
                tag("div", message.text, class_="text"),
                *[tag("div", call, class_="mono") for call in calls],
                class_=classes,
                id=f"m-{index}",
            )
        )
    if compacted and compacted == len(messages):
        out.append(tag("div", "— every message above is compacted into history —", class_="mark"))
    return out
