"""Source references: a short, stable name for one indexed item that people and models can quote.

``#h12`` names history entry 12; ``#m45@cli:default`` names message 45 (its index in
``Session.messages``) of session ``cli:default``. Recalled items carry one, and ``search``
accepts one as its whole query and returns that item alone, so a reference read in a prompt
can be followed. A reference names an item, it grants nothing: search filters (a session,
internal sessions) still apply to it. This module does no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reverie.core.hits import SourceKind

_HISTORY = re.compile(r"#h([0-9]{1,18})")
_MESSAGE = re.compile(r"#m([0-9]{1,18})@(\S.*)")


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceRef:
    """Where one item lives: a history entry by cursor, or a session message by key and index."""

    kind: SourceKind
    cursor: int | None = None
    session_key: str | None = None
    message_index: int | None = None

    def __str__(self) -> str:
        """The reference as text (``#h12`` or ``#m45@cli:default``)."""
        if self.kind == "history":
            return f"#h{self.cursor}"
        return f"#m{self.message_index}@{self.session_key}"


def parse_ref(text: str) -> SourceRef | None:
    """Return the reference ``text`` spells (surrounding spaces allowed), else None."""
    text = text.strip()
    if (found := _HISTORY.fullmatch(text)) is not None:
        return SourceRef(kind="history", cursor=int(found.group(1)))
    if (found := _MESSAGE.fullmatch(text)) is not None:
        return SourceRef(
            kind="message", message_index=int(found.group(1)), session_key=found.group(2)
        )
    return None


def history_ref(cursor: int) -> SourceRef:
    """The reference of history entry ``cursor``."""
    return SourceRef(kind="history", cursor=cursor)


def message_ref(session_key: str, index: int) -> SourceRef:
    """The reference of message ``index`` of session ``session_key``."""
    return SourceRef(kind="message", session_key=session_key, message_index=index)
