"""Many rows in one ``INSERT`` statement: what keeps the word tables' triggers per statement.

``executemany`` sends one statement per row (pipelined, but each its own), so a statement
trigger (``terms_schema``) would run once per row. ``insert`` sends the rows as one
``VALUES`` list per statement, in chunks that stay under PostgreSQL's 65,535 parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Conn

MAX_PARAMETERS = 65_535
"""PostgreSQL's limit of parameters in one statement (a 16-bit count)."""


def insert(conn: Conn, head: str, rows: Sequence[Sequence[object]]) -> None:
    """Run ``head`` (``INSERT INTO t (a, b)``) with ``rows`` as its ``VALUES``, few statements.

    Every row must have the width of the first.
    """
    if not rows:
        return
    width = len(rows[0])
    chunk = MAX_PARAMETERS // width
    one = "(" + ", ".join(["%s"] * width) + ")"
    for start in range(0, len(rows), chunk):
        part = rows[start : start + chunk]
        values = ", ".join([one] * len(part))
        conn.execute(f"{head} VALUES {values}", [value for row in part for value in row])
