"""A seeded generator of conversations shaped like real chat, with their ground truth.

reverie's own curation set (``dev``, ``heldout``) is tidy: one person per message, few
greetings, no names spoken. Real chat is not, so this part is generated, from a seed, by
hand-written templates (``realchat_pools``; no public benchmark was fetched or read):

- **pair**: two people who address each other by name over five sessions, as named user
  and named assistant messages; facts about each, between greetings, vocatives ("Cool,
  thanks Maria"), encouragement, photo shares, small talk and leave-takings, often in the
  same message as a fact;
- **transcript**: the same talk pasted as one unnamed user message of ``Name: ...`` lines;
- **group**: three named people in one chat;
- **assistant**: a plain user talking to an assistant: facts, requests ("Deploy on Thursday
  please", "Remember that they prefer Celsius"), "Remember that I prefer Celsius" (the fact
  "Prefers Celsius"), thanks and encouragement;
- **zh-pair**: a pair in Chinese.

Typos (lower-case starts, lost apostrophes, stretched letters) and emoji are sprinkled over
chatter and, more lightly, over facts. Each ``Conversation`` carries ``gold`` (the facts
that should become durable lines), ``chatter`` (every generated line that must not, with its
kind) and ``names``. ``generate(seed)`` is deterministic; ``CONVERSATIONS`` is seed 29.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from curationset import realchat_pools as pools
from curationset.model import Conversation, Session, Turn

_START = datetime.fromisoformat("2026-01-05T18:00:00+00:00")
_EMOJI = ("😊", "🙌", "😅", "🎉", "❤️", "👍")


@dataclass
class _Talk:
    """What one conversation has accumulated while it is generated."""

    rng: random.Random
    gold: list[str] = field(default_factory=list)
    chatter: list[tuple[str, str]] = field(default_factory=list)
    used: set[tuple[str, str]] = field(default_factory=set)

    def fact(self, who: str, templates: tuple[pools.FactTemplate, ...]) -> str | None:
        """A fact ``who`` has not said yet, with its gold noted; None when all are said."""
        fresh = [t for t in templates if (who, t[0]) not in self.used]
        if not fresh:
            return None
        said, gold = self.rng.choice(fresh)
        self.used.add((who, said))
        values = {slot: self.rng.choice(v) for slot, v in pools.VALUES.items()}
        if (noted := gold.format(who=who, **values)) not in self.gold:
            self.gold.append(noted)
        return self._typo(said.format(**values), 0.15)

    def chat(self, kinds: dict[str, tuple[str, ...]], kind: str, other: str) -> str:
        """One chatter line of ``kind`` addressed to ``other``, noted as chatter."""
        text = self._typo(self.rng.choice(kinds[kind]).format(other=other), 0.3)
        self.chatter.append((kind, text))
        return text

    def request(self, templates: tuple[str, ...]) -> str:
        """One request, noted as chatter of kind ``request``."""
        values = {slot: self.rng.choice(v) for slot, v in pools.VALUES.items()}
        text = self.rng.choice(templates).format(**values)
        self.chatter.append(("request", text))
        return text

    def _typo(self, text: str, chance: float) -> str:
        roll = self.rng.random()
        if roll < chance / 3 and text[:1].isupper() and not text.startswith("I "):
            return text[:1].lower() + text[1:]
        if roll < 2 * chance / 3:
            return text.replace("'", "") if "I'" not in text else text
        if roll < chance:
            return f"{text} {self.rng.choice(_EMOJI)}"
        return text


def _sessions(turns: list[list[Turn]], rng: random.Random) -> tuple[Session, ...]:
    start, out = _START + timedelta(days=rng.randrange(60)), []
    for session in turns:
        out.append(Session(start=start.isoformat(), turns=tuple(session)))
        start += timedelta(days=rng.randrange(5, 30))
    return tuple(out)


def _pair_session(talk: _Talk, names: tuple[str, ...], *, zh: bool) -> list[tuple[str, str]]:
    """(speaker, text) lines of one sitting of two (or more) named people."""
    kinds = pools.ZH_CHATTER if zh else pools.EN_CHATTER
    facts = pools.ZH_FACTS if zh else pools.EN_FACTS
    rng, lines = talk.rng, []
    first, second = names[0], names[1]
    lines.append((first, talk.chat(kinds, "greeting", second)))
    for _ in range(3):
        for speaker in names:
            other = rng.choice([n for n in names if n != speaker])
            kind = rng.choice(("vocative", "encouragement", "photo", "smalltalk", "vocative"))
            line = talk.chat(kinds, kind, other)
            said = talk.fact(speaker, facts) if rng.random() < 0.6 else None
            if said is not None:
                line = f"{line} {said}" if rng.random() < 0.5 else said
                if line == said:
                    lines.append((speaker, talk.chat(kinds, "smalltalk", other)))
            lines.append((speaker, line))
    lines.append((second, talk.chat(kinds, "leaving", first)))
    return lines


def _named(lines: list[tuple[str, str]], names: tuple[str, ...]) -> list[Turn]:
    """Lines as named user turns, except the second person, who is the named assistant."""
    role = dict.fromkeys(names, "user")
    if len(names) == 2:
        role[names[1]] = "assistant"
    return [(role[who], who, text) for who, text in lines]


def _pair(talk: _Talk, names: tuple[str, str], *, zh: bool) -> list[list[Turn]]:
    return [_named(_pair_session(talk, names, zh=zh), names) for _ in range(5)]


def _transcript(talk: _Talk, names: tuple[str, str]) -> list[list[Turn]]:
    sessions: list[list[Turn]] = []
    for _ in range(4):
        pasted = "\n".join(f"{who}: {text}" for who, text in _pair_session(talk, names, zh=False))
        sessions.append([("user", None, pasted), ("assistant", None, "Thanks, noted.")])
    return sessions


def _group(talk: _Talk, names: tuple[str, str, str]) -> list[list[Turn]]:
    return [_named(_pair_session(talk, names, zh=False), names) for _ in range(4)]


def _assistant(talk: _Talk) -> list[list[Turn]]:
    kinds, rng, sessions = pools.EN_CHATTER, talk.rng, []
    for _ in range(4):
        turns: list[Turn] = [("user", None, talk.chat(kinds, "greeting", "there"))]
        turns.append(("assistant", None, "Hi! What can I do for you today?"))
        for _ in range(3):
            said = talk.fact("user", pools.ASSISTANT_FACTS)
            if said is not None:
                turns.append(("user", None, said))
            turns.append(("assistant", None, "Got it. Keep it up!"))
            turns.append(("user", None, talk.request(pools.REQUESTS)))
            kind = rng.choice(("vocative", "encouragement", "smalltalk"))
            turns.append(("user", None, talk.chat(kinds, kind, "bot")))
        turns.append(("user", None, talk.chat(kinds, "leaving", "bot")))
        sessions.append(turns)
    return sessions


def _zh_assistant(talk: _Talk) -> list[Turn]:
    return [("user", None, talk.request(pools.ZH_REQUESTS)), ("assistant", None, "好的。")]


def generate(seed: int = 29) -> tuple[Conversation, ...]:
    """The real-looking set for ``seed``: eleven conversations of four or five sessions."""
    rng = random.Random(seed)
    shapes: tuple[str, ...] = ("pair", "pair", "pair", "transcript", "transcript", "group")
    shapes += ("group", "assistant", "assistant", "zh-pair", "zh-pair")
    out: list[Conversation] = []
    for number, shape in enumerate(shapes):
        talk = _Talk(rng=random.Random(rng.random()))
        zh = shape == "zh-pair"
        names = tuple(talk.rng.sample(pools.ZH_NAMES if zh else pools.EN_NAMES, 3))
        if shape in ("pair", "zh-pair"):
            turns = _pair(talk, (names[0], names[1]), zh=zh)
            if zh:
                turns[-1].extend(_zh_assistant(talk))
        elif shape == "transcript":
            turns = _transcript(talk, (names[0], names[1]))
        elif shape == "group":
            turns = _group(talk, (names[0], names[1], names[2]))
        else:
            turns, names = _assistant(talk), ()
        out.append(
            Conversation(
                id=f"real-{number}-{shape}",
                sessions=_sessions(turns, talk.rng),
                gold=tuple(talk.gold),
                chatter=tuple(talk.chatter),
                names=names if shape == "group" else names[:2],
            )
        )
    return tuple(out)


CONVERSATIONS = generate()
