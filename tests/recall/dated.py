"""A small dated chat for the recall steps' tests: sessions days apart, small talk between facts.

``play`` writes it into one session of an engine on either backend; the constants are the
turns the tests look for. Filler is numbered so no two turns are alike.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from reverie import Message
from reverie.core.messages import Role
from reverie.engine.facade import MemoryEngine

START = datetime(2026, 3, 2, 19, 0, tzinfo=UTC)
KEY = "tg:maya"
TRIP = "Off to Ghent tomorrow for the jazz festival, can't wait!"
AFTER = "Built raised beds in the back garden, finally."
LATER = "Cleared out the garage and gave half of it away."
MOVE = "Moving day is Saturday, the new flat on Heron Close is really ours!"
BEFORE = "Sold my old drum kit to a teenager down the road."
NEIGHBOUR = "Our neighbour Odile left a jar of quince jam on the doorstep."
STAYING = "My cousin Ezra is staying with us for a few weeks while he sorts himself out."
HIRED = "Good news, Ezra got hired at the bike shop on the corner!"

_PLAN: dict[int, tuple[str, ...]] = {
    0: (STAYING,),
    2: (BEFORE,),
    3: (MOVE,),
    5: (TRIP,),
    6: (AFTER,),
    7: (NEIGHBOUR, HIRED),
    9: (LATER,),
}
"""Session number: its facts (sessions are 10 days apart; sessions 6 and 9 follow the trip)."""


def day(session: int) -> datetime:
    """When ``session`` starts."""
    return START + timedelta(days=10 * session)


def play(engine: MemoryEngine, sessions: int = 12) -> None:
    """Record the chat: per session Leo's greeting to Maya, small talk, that session's facts."""
    for session in range(sessions):
        when = day(session)
        lines = [f"Hey Maya, how was week {session}?"]
        lines += [
            f"The weather was grey again, give or take (note {session}.{n})." for n in range(6)
        ]
        lines += list(_PLAN.get(session, ()))
        lines += [f"Cool, thanks Leo, talk soon ({session})."]
        messages = []
        for number, text in enumerate(lines):
            role: Role = "assistant" if number % 2 == 0 else "user"
            at = when + timedelta(minutes=number)
            messages.append(Message(role=role, content=text, timestamp=at))
        engine.record(KEY, messages)
