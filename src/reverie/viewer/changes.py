"""Pages that show and make changes: a commit's diff, restore, and editing a durable file.

Every change made here goes through the engine and becomes one audit commit: ``restore``
(``MemoryEngine.restore``, files and dream cursor as of a commit) and ``edit``
(``MemoryEngine.edit_file``, dream's confinement, the person as author). A refused edit is
shown again with the person's text and the reason, so nothing typed is lost; an edit made on
a version of the file that changed meanwhile is refused rather than overwriting it.
"""

from __future__ import annotations

from starlette.responses import RedirectResponse

from reverie.core.audit import CommitInfo
from reverie.errors import ConfinementError, EditError, LockTimeoutError, RevisionNotFoundError
from reverie.memory.dream.edit import text_sha256
from reverie.viewer.diffview import parse, side_by_side, unified
from reverie.viewer.layout import View, page
from reverie.viewer.markup import Html, join, stamp, tag
from reverie.viewer.timeline import commit_kind

NOTES = {
    "saved": "Saved: your edit is this new commit.",
    "restored": "Restored: the files are back as of the chosen commit, in this new commit.",
}


def commit_page(view: View, rev: str) -> tuple[Html, int]:
    """One commit: its facts, its diff (unified or side by side) and a restore button."""
    try:
        detail = view.engine.show(rev)
    except RevisionNotFoundError:
        return page(
            view, "No such commit", tag("p", f"No commit is named {rev!r}."), here="timeline"
        ), 404
    info = detail.info
    kind = commit_kind(info.subject)
    facts = tag(
        "p",
        tag("span", kind, class_=f"pill {kind}"),
        " ",
        tag("code", info.short),
        " ",
        stamp(info.time),
        " · ",
        info.author.split(" <", 1)[0],
    )
    split = view.query.get("view") == "split"
    rows = parse(detail.diff)
    diff = (
        (side_by_side(rows) if split else unified(rows))
        if rows
        else tag("p", "This commit changes no file.", class_="muted")
    )
    actions = tag("p", *_toggle(view, info.sha, split=split), " ", _restore_form(view, info))
    body = join([facts, actions, tag("div", diff, class_="card")])
    note = NOTES.get(view.query.get("note", ""), "")
    return page(view, info.subject, body, here="timeline", notice=note), 200


def _toggle(view: View, sha: str, *, split: bool) -> list[Html | str]:
    def link(label: str, *, active: bool, **params: str) -> Html:
        return tag(
            "a",
            label,
            href=view.url(f"/commit/{sha}", **params),
            class_="button" if active else "button quiet",
        )

    return [
        link("unified", active=not split),
        " ",
        link("side by side", active=split, view="split"),
    ]


def _restore_form(view: View, info: CommitInfo) -> Html:
    return view.form(
        "/restore",
        tag("input", type="hidden", name="rev", value=info.sha),
        tag("button", "Restore the files as of this commit", type="submit"),
        confirm=f"Put SOUL.md, USER.md, memory/MEMORY.md and the dream cursor back as of "
        f"{info.short}? (recorded as a new commit)",
        class_="inline restore",
    )


def restore(view: View) -> RedirectResponse | tuple[Html, int]:
    """Restore to the posted commit, then show the restore commit."""
    rev = view.form_fields.get("rev", "")
    try:
        made = view.engine.restore(rev)
    except RevisionNotFoundError:
        return page(
            view, "No such commit", tag("p", f"No commit is named {rev!r}."), here="timeline"
        ), 404
    except LockTimeoutError:
        return page(
            view, "Busy", tag("p", "A dream is running; try again in a moment."), here="timeline"
        ), 409
    return RedirectResponse(view.url(f"/commit/{made.sha}", note="restored"), status_code=303)


def edit_page(
    view: View, *, path: str, text: str | None = None, error: str = ""
) -> tuple[Html, int]:
    """The editor of one durable file (``text``/``error``: a refused save shown again).

    The version stamp is always the file's current one: after a refusal because the file
    changed, the person sees it as it is now, and saving again replaces it knowingly.
    """
    try:
        current = view.engine.read_file(path)
    except ConfinementError as exc:
        return page(view, "Cannot edit", tag("p", exc.reason), here="overview"), 400
    fields = view.form(
        "/edit",
        tag("input", type="hidden", name="path", value=path),
        tag("input", type="hidden", name="sha", value=text_sha256(current)),
        tag(
            "textarea",
            # A newline right after <textarea> is dropped by HTML parsers; give them one to drop.
            Html("\n"),
            current if text is None else text,
            name="text",
            data_editor=True,
            spellcheck="false",
            aria_label=f"text of {path}",
        ),
        tag(
            "p",
            tag("button", "Save as a commit", type="submit"),
            " ",
            tag("a", "Cancel", href=view.url("/"), class_="button quiet"),
            " ",
            tag(
                "span", f"Saved as one commit “edit: {path}”, author {view.author}.", class_="muted"
            ),
        ),
    )
    now = tag(
        "details", tag("summary", "The file as it is now"), tag("pre", current, class_="text")
    )
    body = join([fields, now if error else None])
    return page(view, f"Edit {path}", body, here="overview", error=error), 400 if error else 200


def save_edit(view: View) -> RedirectResponse | tuple[Html, int]:
    """Save the posted text through ``MemoryEngine.edit_file``."""
    form = view.form_fields
    path, text, sha = form.get("path", ""), form.get("text", ""), form.get("sha") or None
    try:
        result = view.engine.edit_file(path, text, author=view.author, expected_sha256=sha)
    except ConfinementError as exc:
        return page(view, "Cannot edit", tag("p", exc.reason), here="overview"), 400
    except EditError as exc:
        return edit_page(view, path=path, text=text, error=exc.reason)
    except LockTimeoutError:
        return edit_page(
            view,
            path=path,
            text=text,
            error="A dream is running; your text is kept, save again in a moment.",
        )
    if result.commit is None:
        return RedirectResponse(view.url("/", note="unchanged"), status_code=303)
    return RedirectResponse(view.url(f"/commit/{result.commit.sha}", note="saved"), status_code=303)
