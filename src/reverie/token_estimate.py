"""A fast, offline token estimate for text, used where no exact tokenizer is at hand.

It counts characters by class: CJK ideographs and kana cost about one token each, runs of
ASCII letters and digits about one token per four characters, punctuation and other symbols
about one each, whitespace mostly nothing. ``reverie.llm.tokens`` calibrates and replaces this
with exact counts where an encoding is available; this module stays dependency-free so the
store can size files without importing the model layer. No I/O.

``TokenCounter`` is the protocol every counter implements; ``EstimatingCounter`` is the
default one, built on ``estimate_tokens``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from reverie.messages import Message

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_WORD = re.compile(r"[A-Za-z0-9]+")
_SPACE = re.compile(r"\s+")


def estimate_tokens(text: str) -> int:
    """Return an estimate of the tokens ``text`` costs in a modern BPE encoding."""
    if not text:
        return 0
    cjk = len(_CJK.findall(text))
    word_chars = 0
    words = 0
    for match in _WORD.finditer(text):
        words += 1
        word_chars += len(match.group())
    spaces = sum(len(m.group()) for m in _SPACE.finditer(text))
    other = len(text) - cjk - word_chars - spaces
    word_tokens = max(words, round(word_chars / 4.2))
    return max(1, cjk + word_tokens + other)


MESSAGE_OVERHEAD_TOKENS = 4
"""Tokens a chat message costs beyond its text (role and separators), as in OpenAI's formats."""


class TokenCounter(Protocol):
    """Counts what text and messages cost in a model's prompt."""

    def text(self, text: str) -> int:
        """Return the tokens ``text`` costs."""
        ...

    def message(self, message: Message) -> int:
        """Return the tokens one chat message costs, overhead and tool calls included."""
        ...


class EstimatingCounter:
    """A ``TokenCounter`` built on ``estimate_tokens`` (offline, no dependencies)."""

    def text(self, text: str) -> int:
        """Return the estimated tokens of ``text``."""
        return estimate_tokens(text)

    def message(self, message: Message) -> int:
        """Return the estimated tokens of one message, overhead and tool calls included."""
        total = MESSAGE_OVERHEAD_TOKENS + estimate_tokens(message.text)
        for call in message.tool_calls:
            total += (
                MESSAGE_OVERHEAD_TOKENS
                + estimate_tokens(call.name)
                + estimate_tokens(call.arguments)
            )
        return total
