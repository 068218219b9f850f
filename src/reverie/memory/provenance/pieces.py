"""Cutting a forgotten fact out of a text: which pieces of an entry or message hold it.

A *piece* is a sentence of a line (lines first, then sentence ends, Chinese ones included).
A piece holds a fact when it contains the forgotten text (whitespace collapsed, case folded),
or when it says one of the forgotten durable lines: at least ``CUT_SUPPORT`` of that line's
content words are in it (``similarity.support``). ``cut`` returns the text without those
pieces, or None when nothing of substance is left (only tags such as ``[durable]``, labels
and punctuation). This module does no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from reverie.memory.provenance.similarity import content_tokens, support

CUT_SUPPORT = 0.5
"""A piece saying at least this share of a forgotten line's content words says that line."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*")
_TAG = re.compile(r"\[[^\]]*\]")


class Fact:
    """The forgotten text and the forgotten lines, ready to test pieces against."""

    def __init__(self, query: str, lines: Sequence[str]) -> None:
        self.query = " ".join(query.split()).casefold()
        self._lines = [tokens for tokens in (content_tokens(line) for line in lines) if tokens]

    def in_piece(self, piece: str) -> bool:
        """Whether ``piece`` holds the text or says one of the lines."""
        if self.query and self.query in " ".join(piece.split()).casefold():
            return True
        tokens = content_tokens(piece)
        return any(support(line, tokens) >= CUT_SUPPORT for line in self._lines)

    def cut(self, text: str) -> str | None:
        """``text`` without the pieces holding the fact (None: nothing of substance left)."""
        out: list[str] = []
        changed = False
        for line in text.splitlines():
            sentences = [piece for piece in _SENTENCE_END.split(line) if piece]
            kept = [s for s in sentences if not self.in_piece(s)]
            if len(kept) == len(sentences):
                out.append(line)
                continue
            changed = True
            if kept:
                out.append(_join(kept))
        if not changed:
            return text
        rest = "\n".join(out)
        return rest if content_tokens(_TAG.sub(" ", rest)) else None


def _join(sentences: list[str]) -> str:
    text = sentences[0]
    for sentence in sentences[1:]:
        text += sentence if text.endswith(("。", "！", "？")) else " " + sentence
    return text
