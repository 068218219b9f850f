"""What PostgreSQL's full-text search is given: segmented text and queries from ``core.text``.

PostgreSQL's parser reads a run of Chinese or Japanese characters as one word, so "咖啡" could
never be found inside "我每天喝咖啡". The indexed columns (``history.words``, ``messages.words``,
schema version 6) are therefore ``to_tsvector('simple', segmented(text))``: ``segmented`` puts
an ASCII unit separator (U+001F, a word boundary to the parser, unlike the zero-width space
the folder index uses, which a C-locale parser reads as a letter) around every character of
``core.text.CJK``, so each is a token. A query term is tokenised by ``core.text.phrase_tokens``
(the folder index's rule) and searched as a phrase of its tokens (``<->``), so "咖啡" matches
咖 then 啡, side by side, on both backends. The set of characters is ``core.text.CJK``
(built into the SQL text, never spelled here); if it changes, a new schema step must
generate the columns again.

``tsquery`` never lets user text reach ``to_tsquery``'s syntax: only letters and digits
survive, each token is quoted. This module does no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from reverie.core.text import CJK, MAX_QUERY_TERMS, phrase_tokens

SEPARATOR = "\x1f"
"""What ``segmented`` puts around each CJK character (removed from snippets by ``unsegment``)."""


def segmented(column: str) -> str:
    """The SQL expression of ``column`` (a column name or SQL text) with CJK characters split.

    Immutable, so it can generate a column; the literal CJK class is the only text built in.
    """
    return f"regexp_replace({column}, '([{CJK}])', chr(31) || '\\1' || chr(31), 'g')"


def words(column: str) -> str:
    """The SQL expression of the ``tsvector`` an indexed ``column`` is searched by."""
    return f"to_tsvector('simple'::regconfig, {segmented(column)})"


def unsegment(text: str) -> str:
    """Remove the separators ``segmented`` added (a headline is made of segmented text)."""
    return text.replace(SEPARATOR, "")


def phrases(terms: Sequence[str]) -> list[tuple[str, ...]]:
    """The phrases ``tsquery`` searches for ``terms``: each term's ``phrase_tokens``, once."""
    found = [tokens for tokens in dict.fromkeys(phrase_tokens(t) for t in terms) if tokens]
    return found[:MAX_QUERY_TERMS]


def phrase_query(tokens: Sequence[str]) -> str:
    """The ``to_tsquery`` text of one phrase (its tokens side by side)."""
    return "(" + " <-> ".join(f"'{token}'" for token in tokens) + ")"


def tsquery(terms: Sequence[str]) -> str:
    """Return a ``to_tsquery`` text matching any of ``terms`` ('' when none holds a token).

    Each term (a word, a quoted phrase, a CJK pair) is a phrase of its ``phrase_tokens``.
    """
    return " | ".join(phrase_query(tokens) for tokens in phrases(terms))
