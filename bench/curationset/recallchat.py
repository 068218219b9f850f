"""The recall bench's chat-shaped set (``recalllib.chat``) as curation conversations.

``bench/recall.py --set chat`` plays four chats written by another generator than
``realchat``'s (direct messages whose people greet each other by name, a speaker-labelled
transcript, a four-person group chat, photo shares, requests, subject-less encouragement,
small talk about the facts' topics). Curated the same way, they say how much chatter reaches
the durable files from text this set's curator was never tuned on. They carry no gold facts,
so only the chatter share, its kinds and duplicate lines are measured on them.
"""

from __future__ import annotations

from curationset.model import Conversation, Session, Turn
from recalllib import chat

ROLES = ("user", "assistant")


def conversations(seed: int = 7) -> tuple[Conversation, ...]:
    """The chat set of ``seed``, one session per day it was written."""
    found: list[Conversation] = []
    for convo in chat.build(seed):
        sessions: list[Session] = []
        turns: list[Turn] = []
        start = None
        for text, role, when in zip(convo.texts, convo.roles, convo.times, strict=True):
            if start is None or when.date() != start.date():
                if turns and start is not None:
                    sessions.append(Session(start=start.isoformat(), turns=tuple(turns)))
                start, turns = when, []
            turns.append((ROLES[role], None, text))
        if turns and start is not None:
            sessions.append(Session(start=start.isoformat(), turns=tuple(turns)))
        found.append(
            Conversation(id=convo.name, sessions=tuple(sessions), gold=(), names=convo.speakers)
        )
    return tuple(found)
