"""A unified diff read into rows and rendered as a table, unified or side by side.

``parse`` follows the hunk headers' line counts, so a removed line whose text starts with
``--`` is never mistaken for a file header. The side-by-side form pairs each run of removed
lines with the run of added lines after it, row by row, and puts context on both sides.
All diff text is escaped by ``markup``; a memory line in a diff is never HTML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import zip_longest
from typing import Literal

from reverie.viewer.markup import Html, join, tag

RowKind = Literal["file", "hunk", "ctx", "add", "del", "note"]
_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@.*")


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One line of a diff: its kind, its old and new line numbers, its text (sign removed)."""

    kind: RowKind
    text: str
    old: int | None = None
    new: int | None = None


def parse(diff: str) -> list[Row]:
    """Read a unified diff (several files) into rows."""
    rows: list[Row] = []
    old_left = new_left = old_no = new_no = 0
    for line in diff.splitlines():
        hunk = _HUNK.fullmatch(line)
        if old_left <= 0 and new_left <= 0:
            if line.startswith("+++ "):
                name = line[4:]
                rows.append(Row(kind="file", text=name[2:] if name.startswith("b/") else name))
                continue
            if line.startswith("--- "):
                continue
        if hunk is not None and old_left <= 0 and new_left <= 0:
            old_no, new_no = int(hunk.group(1)), int(hunk.group(3))
            old_left = int(hunk.group(2) or "1")
            new_left = int(hunk.group(4) or "1")
            rows.append(Row(kind="hunk", text=line))
        elif line.startswith("-"):
            rows.append(Row(kind="del", text=line[1:], old=old_no))
            old_no, old_left = old_no + 1, old_left - 1
        elif line.startswith("+"):
            rows.append(Row(kind="add", text=line[1:], new=new_no))
            new_no, new_left = new_no + 1, new_left - 1
        elif line.startswith(" "):
            rows.append(Row(kind="ctx", text=line[1:], old=old_no, new=new_no))
            old_no, new_no = old_no + 1, new_no + 1
            old_left, new_left = old_left - 1, new_left - 1
        else:
            rows.append(Row(kind="note", text=line))
    return rows


def unified(rows: list[Row]) -> Html:
    """The diff as one column: old number, new number, sign and text."""
    body = [_unified_row(row) for row in rows]
    return tag("table", *body, class_="diff unified")


def side_by_side(rows: list[Row]) -> Html:
    """The diff as two columns: the old version on the left, the new one on the right."""
    out: list[Html] = []
    dels: list[Row] = []
    adds: list[Row] = []

    def flush() -> None:
        for left, right in zip_longest(dels, adds):
            out.append(tag("tr", *_half(left, "del"), *_half(right, "add")))
        dels.clear()
        adds.clear()

    for row in rows:
        if row.kind == "del":
            if adds:
                flush()
            dels.append(row)
        elif row.kind == "add":
            adds.append(row)
        else:
            flush()
            out.append(_shared_row(row))
    flush()
    return tag("table", *out, class_="diff split")


def _unified_row(row: Row) -> Html:
    if row.kind in ("file", "hunk", "note"):
        return tag("tr", tag("td", row.text, colspan=3), class_=row.kind)
    sign = {"add": "+", "del": "-", "ctx": " "}[row.kind]
    return tag(
        "tr",
        tag("td", row.old, class_="n"),
        tag("td", row.new, class_="n"),
        tag("td", sign + row.text, class_="t"),
        class_=row.kind,
    )


def _shared_row(row: Row) -> Html:
    if row.kind in ("file", "hunk", "note"):
        return tag("tr", tag("td", row.text, colspan=4), class_=row.kind)
    return tag(
        "tr",
        tag("td", row.old, class_="n"),
        tag("td", row.text),
        tag("td", row.new, class_="n"),
        tag("td", row.text),
        class_="ctx",
    )


def _half(row: Row | None, kind: str) -> tuple[Html, Html]:
    if row is None:
        return tag("td", class_="n"), tag("td")
    number = row.old if kind == "del" else row.new
    return tag("td", number, class_="n"), tag("td", row.text, class_=kind)


def stat(rows: list[Row]) -> Html:
    """``+A -R`` for the rows, as small text."""
    added = sum(1 for row in rows if row.kind == "add")
    removed = sum(1 for row in rows if row.kind == "del")
    return join(
        [tag("span", f"+{added}", class_="mono"), " ", tag("span", f"-{removed}", class_="mono")]
    )
