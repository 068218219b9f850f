"""When a ``forget`` text is too broad to be meant, and what it takes to go ahead anyway.

``forget`` matches a text anywhere (case folded, whitespace collapsed), so a short or common
one removes far more than a fact: ``forget("in")`` took 13 of 22 durable lines and 40 of 56
messages of the demo workspace. Two rules:

- **too short** (``check_query``, an ``InputError``, nothing can override it): fewer than
  ``MIN_LETTERS`` letters or digits (a number such as "120" may be the fact), or
  ``MIN_LETTERS_UNSPACED`` when the text is written in a script without spaces between words
  (Chinese, Japanese, Thai...), where one word is two signs.
- **broad** (``broad_reason``): the plan removes things that are not *that* fact: the text
  has no content word (only words such as "in" or "the and"), or it occurs inside a longer
  word in something it would remove ("port" in "Portugal"), or the plan takes more than
  ``BROAD_LINES`` durable lines or ``BROAD_MESSAGES`` session messages. A broad plan runs only
  with ``confirm_broad=True``: a person's explicit choice (the CLI's ``--broad``). The MCP
  tool has no such argument, so an agent can never confirm a broad forget by itself.

Pure functions over the plan's values; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from reverie.core.text import CJK, HANGUL
from reverie.errors import InputError
from reverie.memory.provenance.similarity import content_tokens

MIN_LETTERS = 3
"""Letters or digits a text must hold (``str.isalnum``: any alphabet)."""
MIN_LETTERS_UNSPACED = 2
"""Letters enough in a script written without spaces (one CJK word is often two signs)."""
BROAD_LINES = 8
"""More durable lines than this is more than one fact."""
BROAD_MESSAGES = 30
"""More session messages than this is more than one fact."""

_UNSPACED = re.compile(f"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff{CJK}{HANGUL}]")
"""Thai, Lao, Myanmar and Khmer (written without spaces), the CJK scripts and Hangul."""


def check_query(query: str) -> None:
    """Refuse a text too short to name a fact.

    Raises:
        InputError: it holds fewer than ``MIN_LETTERS`` letters or digits
            (``MIN_LETTERS_UNSPACED`` in a script without spaces).
    """
    letters = [char for char in query if char.isalnum()]
    needed = MIN_LETTERS_UNSPACED if any(_UNSPACED.match(c) for c in letters) else MIN_LETTERS
    if len(letters) < needed:
        raise InputError(
            f"forget needs a text of at least {needed} letters or digits (got {query.strip()!r}): "
            "a shorter one matches nearly everything"
        )


def broad_reason(query: str, removed: Iterable[str], *, lines: int, messages: int) -> str | None:
    """Why a plan takes more than one fact, or None when it does not.

    Args:
        query: the text to forget.
        removed: the texts the plan removes because they hold ``query``.
        lines: how many durable lines it removes.
        messages: how many session messages it removes.
    """
    if not content_tokens(query):
        return f"{query!r} holds no word of its own (only words such as 'in' or 'the')"
    inside = _inside_a_word(query, removed)
    if inside is not None:
        return f"{query!r} occurs inside the longer word {inside!r}"
    if lines > BROAD_LINES:
        return f"it takes {lines} durable lines (more than {BROAD_LINES})"
    if messages > BROAD_MESSAGES:
        return f"it takes {messages} session messages (more than {BROAD_MESSAGES})"
    return None


def broad_message(query: str, reason: str, *, removes: str) -> str:
    """The refusal of a broad plan: why, how much (``removes``), and what to do instead."""
    return (
        f"forget {query!r} is too broad to be meant: {reason}; it would remove {removes}. "
        "Give the whole fact (a longer text), or, as a person who has read the plan, "
        "confirm it (`reverie forget --broad`)"
    )


def _inside_a_word(query: str, removed: Iterable[str]) -> str | None:
    """The first longer word ``query`` sits inside, in any of the ``removed`` texts."""
    wanted = " ".join(query.split()).casefold()
    word = r"[^\W_]*"  # letters and digits: what a word is made of, in any script
    left = "" if _UNSPACED.match(wanted[0]) else word
    right = "" if _UNSPACED.match(wanted[-1]) else word
    pattern = re.compile(left + re.escape(wanted) + right)
    for text in removed:
        folded = " ".join(text.split()).casefold()
        for found in pattern.finditer(folded):
            if found.group() != wanted:
                return found.group()
    return None
