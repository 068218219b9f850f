"""Forgetting a line from the viewer: the "Forget this…" form, the plan to confirm, the report.

The ``/why`` page of a durable line carries a GET form, ``forget_form``, that opens
``/forget?text=...``: the line's text without its bullet mark. That page (``confirm_page``)
shows what ``MemoryEngine.forget_plan`` says would go (durable lines, history entries cut or
removed, session messages, summaries), every text escaped, and a POST form (CSRF token, same
origin, like every other form) with an optional "also purge the audit history" box. Nothing
changes on GET. The POST (``forget``) calls ``MemoryEngine.forget``, which removes it all as
one ``forget:`` audit commit (and with purge rewrites the audit history), and shows the
report with a link to that commit.
"""

from __future__ import annotations

import re

from reverie.errors import LockTimeoutError
from reverie.memory.provenance import ForgetPlan, ForgetReport, PlannedEntry
from reverie.viewer.layout import View, page
from reverie.viewer.markup import Html, join, stamp, tag

_BULLET = re.compile(r"\s*[-*+]\s+(.*)")
PURGE_HELP = (
    "Also purge the audit history: rewrite every past commit, side file and cache so that "
    "no byte of the text is left (restore can then never bring it back)."
)


def forget_text(line: str) -> str:
    """The text ``forget`` is asked for: the line without its bullet mark, trimmed."""
    bullet = _BULLET.fullmatch(line)
    return (bullet.group(1) if bullet is not None else line).strip()


def forget_form(view: View, path: str, line: str) -> Html | None:
    """The "Forget this…" button of a line's ``/why`` page (a GET: it only opens the plan)."""
    text = forget_text(line)
    if len("".join(text.split())) < 2:
        return None
    return tag(
        "form",
        tag("input", type="hidden", name="text", value=text),
        tag("input", type="hidden", name="path", value=path),
        tag("input", type="hidden", name="line", value=line),
        tag("button", "Forget this…", type="submit", class_="quiet"),
        method="get",
        action=view.url("/forget"),
        class_="inline forget",
    )


def confirm_page(view: View) -> tuple[Html, int]:
    """What forgetting ``text`` would remove, and the form that does it (nothing changes)."""
    text = view.query.get("text", "")
    try:
        plan = view.engine.forget_plan(text)
    except ValueError as exc:
        return _refused(view, str(exc)), 400
    back = _back(view)
    if plan.empty:
        said = tag("p", "Nothing in memory holds this text now; there is nothing to forget.")
        return page(view, "Forget", join([_asked(text), said, back]), here="overview"), 200
    form = view.form(
        "/forget",
        tag("input", type="hidden", name="text", value=text),
        tag(
            "p",
            tag("label", tag("input", type="checkbox", name="purge", value="yes"), " ", PURGE_HELP),
        ),
        tag("p", tag("button", "Forget all of this", type="submit"), " ", back),
    )
    intro = tag("p", f"Forgetting removes {plan.describe()}, as one commit:")
    body = join([_asked(text), intro, *_plan(plan), form])
    return page(view, "Forget this?", body, here="overview"), 200


def forget(view: View) -> tuple[Html, int]:
    """Forget the posted text (and purge when asked), then show what went."""
    text = view.form_fields.get("text", "")
    purge = bool(view.form_fields.get("purge"))
    try:
        report = view.engine.forget(text, purge=purge)
    except ValueError as exc:
        return _refused(view, str(exc)), 400
    except LockTimeoutError:
        return _refused(view, "A dream is running; nothing was forgotten. Try again."), 409
    body = join([_asked(text), _outcome(view, report), *_plan(report.plan)])
    error = ""
    if report.purge is not None and not report.purge.clean:
        error = f"The purge left the text in: {', '.join(report.purge.leftovers)}"
    notice = f"Forgot {report.plan.describe()}." if report.removed else "Nothing was forgotten."
    return page(view, "Forgotten", body, here="overview", notice=notice, error=error), 200


def _asked(text: str) -> Html:
    return tag("blockquote", text, class_="card text")


def _back(view: View) -> Html:
    path, line = view.query.get("path", ""), view.query.get("line", "")
    href = view.url("/why", path=path, line=line) if path and line else view.url("/")
    return tag("a", "Cancel", href=href, class_="button quiet")


def _refused(view: View, reason: str) -> Html:
    return page(view, "Cannot forget", tag("p", reason), here="overview")


def _outcome(view: View, report: ForgetReport) -> Html:
    said: list[Html] = []
    if report.commit is not None:
        link = tag("a", report.commit[:7], href=view.url(f"/commit/{report.commit}"), class_="mono")
        said.append(tag("p", "Recorded as commit ", link, "."))
    if report.purge is not None and report.purge.clean:
        rewritten = report.purge.commits_rewritten
        said.append(tag("p", f"Purged: {rewritten} commit(s) rewritten; no trace is left."))
    said.append(tag("p", tag("a", "Back to the overview", href=view.url("/"))))
    return join(said)


def _plan(plan: ForgetPlan) -> list[Html]:
    parts: list[Html] = []
    if plan.lines:
        rows = [
            tag(
                "tr",
                tag("td", tag("code", f"{line.file}:{line.number}")),
                tag("td", line.text.strip(), class_="text"),
                tag("td", "matches" if line.reason == "matches" else "came only from these"),
            )
            for line in plan.lines
        ]
        parts.append(_section("Durable lines", tag("table", *rows, class_="lines")))
    if plan.entries:
        parts.append(_section("History entries", *[_entry(entry) for entry in plan.entries]))
    if plan.messages:
        said = [
            tag(
                "div",
                tag("div", f"{m.session_key} message {m.index} · {m.role} · {stamp(m.time)}"),
                tag("div", m.text, class_="text"),
                class_="msg",
            )
            for m in plan.messages
        ]
        parts.append(_section("Session messages", *said))
    if plan.summaries:
        said = [tag("li", tag("code", key)) for key in plan.summaries]
        parts.append(_section("Session summaries", tag("ul", *said)))
    return parts


def _entry(entry: PlannedEntry) -> Html:
    action = "removed" if entry.removed else "cut"
    where = entry.session_key or "no session"
    kept = (
        None if entry.kept is None else tag("div", "Kept: ", tag("span", entry.kept, class_="text"))
    )
    return tag(
        "div",
        tag("div", f"#{entry.cursor} · {where} · {stamp(entry.time)} · {action}"),
        tag("div", entry.text, class_="text"),
        kept,
        class_="entry",
    )


def _section(title: str, *children: Html) -> Html:
    return tag("section", tag("h2", title), *children, class_="card")
