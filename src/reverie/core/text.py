"""Turning stored text and user queries into what the full-text index understands.

SQLite's ``unicode61`` tokenizer splits on spaces and punctuation, which suits English but
leaves a run of Chinese (or Japanese) characters as one long token, so "咖啡" could never be
found inside "我每天喝咖啡". Before text is indexed, ``segment`` puts a zero-width space
(U+200B, a separator to ``unicode61``) around every ideograph and kana, making each one its own
token; a query term is segmented the same way and searched as a phrase, so "咖啡" matches the
two characters side by side. The mark is invisible, so snippets read naturally once
``unsegment`` removes it. (The ``trigram`` tokenizer was rejected: it cannot match a query
shorter than three characters, and most Chinese words are two.)

Scripts. ``CJK`` is reverie's one definition of the scripts written without spaces between
words: kana and the CJK ideographs (extension A, the unified block, the compatibility block and
the supplementary planes). Search, recall, curation and provenance all split text with it, so
Chinese and Japanese are handled alike everywhere; Korean, written with spaces, is words.

``match_expression`` never lets user text reach FTS5's query syntax: it keeps only word
characters (and phrases the user quoted), wraps every term in double quotes and joins them
with ``OR``, so ``AND``, ``*``, ``:``, parentheses and stray quotes are plain text, never
operators. This module does no I/O.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Protocol

SEPARATOR = "\u200b"
"""The zero-width space put between CJK characters so each becomes a token."""

MAX_BODY_CHARS = 64_000
"""Text indexed per item; the rest of a longer message is not searchable."""

MAX_QUERY_TERMS = 32
"""Terms kept from one query; the rest are ignored."""

CONTEXT_CHARS = 400
"""How much of the message before a message is searched as its context (both backends)."""

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff"
"""The scripts written without spaces, as the body of a regular-expression character class."""
HANGUL = "\uac00-\ud7af"
"""Hangul syllables. Korean is written with spaces, so it is words to every splitter here; but
one syllable block is a whole syllable, so a two-sign text is already a word (``forget``'s
shortest text counts it as such)."""
CJK_CHAR = re.compile(f"[{CJK}]")
"""One character of those scripts."""
CJK_RUN = re.compile(f"[{CJK}]+")
"""A run of them (a stretch of text with no word boundaries in it)."""
_CJK_RUN = CJK_RUN
_QUOTED = re.compile(r'"([^"]*)"')
_WORD = re.compile(r"\w+")
_TOKEN = re.compile(r"[^\W_]+")


def segment(text: str) -> str:
    """Return ``text`` with a zero-width space around every CJK character."""
    return _CJK_RUN.sub(lambda run: SEPARATOR + SEPARATOR.join(run.group()) + SEPARATOR, text)


def cjk_pairs(text: str) -> str:
    """Return every overlapping two-character word of ``text``'s CJK runs, space-separated.

    A run of one character is kept as it is. Indexed as tokens (the ``grams`` table), so a
    two-character query word costs one posting list, not a phrase over two.
    """
    pairs: list[str] = []
    for run in _CJK_RUN.findall(text[:MAX_BODY_CHARS]):
        pairs.extend([run] if len(run) == 1 else (run[i : i + 2] for i in range(len(run) - 1)))
    return " ".join(pairs)


def is_cjk_pair(term: str) -> bool:
    """Whether ``term`` is two CJK characters (looked up in ``grams``, not as a phrase).

    One character is a token of its own text (``segment``), so it is found wherever it
    stands, as PostgreSQL finds it; ``grams`` holds it only where it stands alone.
    """
    return len(term) == 2 and _CJK_RUN.fullmatch(term) is not None


def unsegment(text: str) -> str:
    """Remove the marks ``segment`` added (and any zero-width space the text had)."""
    return text.replace(SEPARATOR, "")


def query_terms(query: str) -> list[str]:
    """Return the terms of a free-text query, lower-case, without duplicates, at most 32.

    Words are alternatives: an index ranks items that hold more of them higher. Text the
    user put in double quotes is one term (a phrase). Anything that is not a letter, digit or
    underscore (operators, emoji, punctuation) only separates terms. Both backends search
    what this returns (``match_expression`` here, ``storage.postgres.tsearch`` there).
    """
    terms: list[str] = []
    for index, part in enumerate(_QUOTED.split(query)):
        words = _WORD.findall(part)
        if index % 2 == 1:  # inside a pair of quotes: one phrase
            terms.extend([" ".join(words)] if words else [])
        else:
            terms.extend(words)
    return list(dict.fromkeys(term.lower() for term in terms))[:MAX_QUERY_TERMS]


def match_expression(query: str) -> str | None:
    """Return an FTS5 MATCH expression for a free-text query, or None when nothing is searchable.

    The terms of ``query_terms`` joined with ``OR``, each a quoted phrase: BM25 ranks items
    that hold more of them, and rarer ones, higher.
    """
    unique = query_terms(query)
    if not unique:
        return None
    return " OR ".join(f'"{segment(term)}"' for term in unique)


def phrase_tokens(term: str) -> tuple[str, ...]:
    """Return the tokens an index holds for ``term``, in order (lower-case).

    Its letters and digits, split at everything else (underscores too, as the indexes
    split), and every CJK character a token of its own: a term of several tokens is
    searched as a phrase of them, so "咖啡" is 咖 then 啡, side by side.
    """
    return tuple(_TOKEN.findall(segment(term.lower())))


def term_phrases(terms: Sequence[str]) -> list[str]:
    """Return each of ``terms`` (a word or a phrase) as a quoted FTS5 phrase, duplicates dropped.

    Only the word characters of each term are kept, so no FTS5 syntax can pass; a term with
    several words (or CJK characters) must match as a phrase. Join them with ``OR``.
    """
    phrases = [" ".join(_WORD.findall(term)).lower() for term in terms]
    unique = [phrase for phrase in dict.fromkeys(phrases) if phrase][:MAX_QUERY_TERMS]
    return [f'"{segment(phrase)}"' for phrase in unique]


class _Call(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def arguments(self) -> str: ...


class _Said(Protocol):
    """What ``message_body`` reads of a message: a ``Message``.

    Not imported: ``messages`` reaches ``errors``, which redacts, which splits Chinese with
    this module, and the layer test refuses that cycle.
    """

    @property
    def text(self) -> str: ...
    @property
    def tool_calls(self) -> Sequence[_Call]: ...


def message_body(message: _Said) -> str:
    """Return the searchable text of a message: its text, then each tool call's name and args."""
    parts = [message.text]
    parts.extend(f"{call.name} {call.arguments}" for call in message.tool_calls)
    return "\n".join(part for part in parts if part)[:MAX_BODY_CHARS]


def fingerprint(roles: Sequence[str], bodies: Sequence[str]) -> str:
    """Return a digest of a session's indexed messages (to notice a rewritten journal)."""
    digest = hashlib.sha256()
    for role, body in zip(roles, bodies, strict=True):
        encoded = body.encode("utf-8", "surrogatepass")
        digest.update(f"{role}\0{len(encoded)}\0".encode())
        digest.update(encoded)
    return digest.hexdigest()
