"""Which durable file a fact belongs in: USER.md, SOUL.md or memory/MEMORY.md.

USER.md holds facts about the user (identity, preferences, habits, plans, the name they want
to be called); SOUL.md holds instructions to the assistant (rules, tone, language, things to
do or avoid); memory/MEMORY.md holds everything else (projects, decisions, dates, the world).

Facts written by the model-free summariser carry a prefix that says whose words they are and
so where they may go: ``User rule:`` goes to SOUL, ``User:`` to USER, ``Decided:`` and
``Noted:`` to MEMORY. Older summaries used ``User instruction:`` (SOUL, except "call me…",
which is the user's name), ``User:`` and ``User correction:`` on first-person sentences (USER
when the sentence is about the user) and ``Assistant agreed:`` (MEMORY). Facts written by a
model have no such prefix; they are routed by their wording ("The user prefers…", "用户…",
"Always reply…", "Assistant should…"). No I/O.
"""

from __future__ import annotations

import re

from reverie.core.durable import MemoryFileName
from reverie.memory.modelfree.rules import is_about_self, is_instruction

_SPEAKER = re.compile(
    r"^(?P<who>user instruction|user correction|user rule|user|decided|decision|assistant agreed|"
    r"noted)\s*[:：]\s*"
    r"(?P<body>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_FIXED: dict[str, MemoryFileName] = {
    "decided": "MEMORY",
    "decision": "MEMORY",
    "assistant agreed": "MEMORY",
    "noted": "MEMORY",
    "user rule": "SOUL",
}
_FIRST_PERSON = re.compile(r"\b(?:I|my|me)\b|我(?!们)")
_NAME_WISH = re.compile(r"\bcall me\b|\baddress me as\b|叫我|称呼我", re.IGNORECASE)
_ABOUT_USER = re.compile(r"^(?:the )?user(?:'s)?\b|^用户", re.IGNORECASE)
_TO_ASSISTANT = re.compile(
    r"^(?:the )?(?:assistant|agent|you)\s+(?:should|must|will|never|always)\b"
    r"|\b(?:asks?|wants?|expects?|prefers?) (?:the )?(?:assistant|agent|you) to\b"
    r"|助手|回答时|回复时",
    re.IGNORECASE,
)


def route(text: str) -> MemoryFileName:
    """Return the file a fact belongs in (see the module docstring)."""
    speaker = _SPEAKER.match(text.strip())
    if speaker is None:
        return _route_unprefixed(text.strip())
    who, body = speaker["who"].lower(), speaker["body"]
    fixed = _FIXED.get(who)
    if fixed is not None:
        return fixed
    if _NAME_WISH.search(body):
        return "USER"
    if who == "user instruction" or is_instruction(body):
        return "SOUL"
    if who == "user" and not _FIRST_PERSON.search(body):
        return "USER"  # written in the third person: already known to be about the user
    return "USER" if is_about_self(body) else "MEMORY"


def _route_unprefixed(text: str) -> MemoryFileName:
    if _NAME_WISH.search(text):
        return "USER"
    if _TO_ASSISTANT.search(text):
        return "SOUL"
    if _ABOUT_USER.search(text) or is_about_self(text):
        return "USER"
    return "SOUL" if is_instruction(text) else "MEMORY"
