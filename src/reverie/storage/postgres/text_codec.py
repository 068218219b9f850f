"""Text that PostgreSQL can hold: a reversible escape for NUL, which ``text`` columns refuse.

reverie stores any valid ``str`` (NUL included, see ``reverie.core.inbound``); PostgreSQL's ``text``
cannot hold U+0000. ``to_db`` writes NUL as U+E000 U+E002 and a literal U+E000 as U+E000
U+E001 (both private-use characters); ``from_db`` reverses it exactly, so a round trip is
lossless for every string. Text without either character passes through unchanged, which is
nearly all text, so the common path costs one scan.
"""

from __future__ import annotations

_ESCAPE = "\ue000"
_NUL = "\x00"


def to_db(text: str) -> str:
    """Return ``text`` with NUL (and the escape character itself) escaped."""
    if _NUL not in text and _ESCAPE not in text:
        return text
    return text.replace(_ESCAPE, _ESCAPE + "\ue001").replace(_NUL, _ESCAPE + "\ue002")


def from_db(text: str) -> str:
    """Reverse ``to_db``."""
    if _ESCAPE not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == _ESCAPE and i + 1 < len(text):
            out.append(_NUL if text[i + 1] == "\ue002" else _ESCAPE)
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)
