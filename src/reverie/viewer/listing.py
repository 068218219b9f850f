"""The admin's page: the principals of the served home, each with a button that opens it.

Only an admin's viewer session reaches it (``app``); a principal's session never sees another
principal's name. Opening one is a POST carrying the CSRF token, so no link on another site
can switch what an admin's session shows. Every name is escaped like all other text.
"""

from __future__ import annotations

from reverie.viewer.layout import Frame, page
from reverie.viewer.markup import Html, join, tag


def principals_page(
    frame: Frame, principals: list[str], *, error: str = "", status: int = 200
) -> tuple[Html, int]:
    """The list of ``principals``, the one shown now marked."""
    if not principals:
        body = tag("p", "No principal has a workspace here yet.", class_="empty")
        return page(frame, "Principals", body, here="principals", error=error), status
    rows = [
        tag(
            "li",
            frame.form(
                "/principals",
                tag("input", type="hidden", name="principal", value=name),
                tag("button", name, type="submit"),
                class_="inline",
            ),
            " (shown now)" if name == frame.principal else None,
        )
        for name in principals
    ]
    intro = tag("p", f"{len(principals)} principals. Open one to see its memory alone.")
    body = join([intro, tag("ul", *rows, class_="principals")])
    return page(frame, "Principals", body, here="principals", error=error), status
