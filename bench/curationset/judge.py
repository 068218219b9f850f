"""The bench's own judge of chatter kinds and duplicate lines in durable bullets.

Independent of ``reverie.memory.modelfree``: these are the bench's short lists, written from the
kinds the held-out check reported, not from the curator's patterns. ``chatter_kind`` names
the kind a bullet is, or None:

- ``label``: it opens with a speaker label (``Name: ...``; ``Decided:`` is not one);
- ``vocative``: social words addressed to a person by name ("Cool, thanks Maria", "Hey Sam,
  long time no chat", "Wow Ana, that's stunning", "谢谢小林");
- ``encouragement``: cheering with no fact in it ("Keep it up", "Is up for the challenge");
- ``request``: a request copied as a fact ("Deploy on Thursday please", "Remember that ...");
- ``said-chatter``: its content words all come from one generated chatter line (only for a
  conversation that carries ``chatter``, and only when it matches no gold fact).

``duplicates`` counts bullets whose content words are (nearly) those of an earlier bullet
about the same person (two people may well both have moved to Porto).
"""

from __future__ import annotations

import itertools
import re

from curationset.model import Conversation

_LABEL = re.compile(
    r"^(?!(?i:decided|decision)\b)[A-Z][\w'-]{1,20}(?: [A-Z][\w'-]{1,20})?\s*[:：]\s"
)
_SOCIAL = r"(?:thanks|thank you|thx|congrats|congratulations|hey|hi|hello|wow|cool|nice|aw+|"
_SOCIAL += r"haha\w*|oh|good morning|catch you later|night|谢谢|恭喜|哇|早上好|好久不见)"
_ENCOURAGE = re.compile(
    r"^(?:is |are )?(?:keep (?:it up|going)|up for the challenge|you got this|go for it|"
    r"proud of you|hang in there|don'?t give up|doesn'?t give up|加油|坚持|继续努力)"
    r"|^(?:is|are) up for\b",
    re.IGNORECASE,
)
_REQUEST = re.compile(
    r"\b(?:please|pls|plz)\b|^(?:remember|remind|can you|could you)\b|谢谢$|^记得|^提醒",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+|\d+")
_CJK = re.compile(r"[\u3400-\u9fff]")


def _words(text: str) -> set[str]:
    words = {w.rstrip("s") for w in _WORD.findall(_CJK.sub(" ", text.casefold())) if len(w) > 2}
    chars = _CJK.findall(text)
    return words | {a + b for a, b in itertools.pairwise(chars)}


def _vocative(bullet: str, names: tuple[str, ...]) -> bool:
    for name in names:
        who = re.escape(name)
        if re.search(rf"{_SOCIAL}\W*(?:\w+\W+)?{who}\b|^{who}\s*[,，!]", bullet, re.I):
            return True
        if _CJK.match(name) and re.search(rf"{_SOCIAL}.{{0,3}}{who}|{who}[，,]", bullet):
            return True
    return False


def chatter_kind(bullet: str, conversation: Conversation) -> str | None:
    """The chatter kind of one durable bullet in ``conversation``, or None (module doc)."""
    if _LABEL.match(bullet):
        return "label"
    if _vocative(bullet, conversation.names):
        return "vocative"
    body = re.sub(r"^(?:[A-Z][\w'-]+|[\u3400-\u9fff]{2,3}) (?=is |are )", "", bullet)
    if _ENCOURAGE.search(body):
        return "encouragement"
    if _REQUEST.search(bullet):
        return "request"
    words = _words(bullet) - {n.casefold() for n in conversation.names}
    if words and any(words <= _words(text) for _, text in conversation.chatter):
        return "said-chatter"
    return None


def duplicates(bullets: list[str], names: tuple[str, ...] = ()) -> int:
    """How many bullets say (nearly) what an earlier bullet says (about the same person)."""
    seen: list[tuple[str | None, set[str]]] = []
    count = 0
    for bullet in bullets:
        words = _words(re.sub(r"\s*\((?:since|as of)[^()]*\)\s*$", "", bullet))
        who = next((n for n in names if bullet.startswith(n)), None)
        if any(
            words
            and (who == was or None in (who, was))
            and len(words & old) / len(words | old) >= 0.75
            for was, old in seen
        ):
            count += 1
        seen.append((who, words))
    return count
