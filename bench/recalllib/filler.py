"""A large workspace for the latency run: generated history entries and session messages.

Words follow Zipf's law (the word of rank r appears with weight 1/r^1.07), as in real text:
a few words are everywhere and most are rare. The vocabulary is 20,000 made-up words after a
list of everyday ones; questions ask about words beyond the 50 most frequent, as people ask
about content, not about "the".
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from reverie import Message
from reverie.core.messages import Role
from reverie.storage.folder.workspace import Workspace

SESSIONS = 50
_VOCABULARY = (
    "coffee tea morning meeting project deadline budget review python deploy server database "
    "migration kyoto travel flight hotel dinner family birthday gift doctor appointment running "
    "marathon training knee garden tomatoes weather rain invoice client contract lawyer "
    "apartment rent landlord bicycle repair guitar lesson book novel chapter editor printer "
    "recipe pasta garlic oven schedule weekend puppy beagle sister wedding allergy peanuts"
)
_WORDS = _VOCABULARY.split()
_SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "sa",
    "ti",
    "vo",
    "ber",
    "dan",
    "fel",
    "gor",
    "hul",
    "jin",
    "kem",
    "lor",
    "mav",
    "nip",
    "quo",
    "rist",
]


def _vocabulary(rng: random.Random) -> tuple[list[str], list[float]]:
    made = {
        "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(30_000)
    }
    words = _WORDS + sorted(made - set(_WORDS))[:20_000]
    rng.shuffle(words)
    total, cumulative = 0.0, []
    for rank in range(1, len(words) + 1):
        total += 1 / rank**1.07
        cumulative.append(total)
    return words, cumulative


_NAMES = ("Mia", "Tom", "Lena", "Raj", "Kestrel", "Halden", "Porto", "Leeds")
_CHINESE = "用户喜欢喝咖啡每天早上开会项目截止日期预算旅行京都酒店晚餐家人生日礼物医生预约跑步训练"


def _text(rng: random.Random, vocabulary: tuple[list[str], list[float]]) -> str:
    if rng.random() < 0.1:
        return "".join(rng.choice(_CHINESE) for _ in range(40))
    words = rng.choices(vocabulary[0], cum_weights=vocabulary[1], k=rng.randint(8, 30))
    words.insert(rng.randrange(len(words)), rng.choice(_NAMES))
    if rng.random() < 0.2:
        words.append(str(rng.randint(10, 9999)))
    return " ".join(words).capitalize() + "."


def fill(workspace: Workspace, count: int, rng: random.Random) -> None:
    """Write ``count`` items: half history entries, half messages over ``SESSIONS`` sessions."""
    start = datetime(2025, 1, 1, tzinfo=UTC)
    vocabulary = _vocabulary(random.Random(1))
    half = count // 2
    for number in range(half):
        text = _text(rng, vocabulary)
        workspace.history.append(text, session_key=f"cli:s{number % SESSIONS}")
    per_session: dict[str, list[Message]] = {}
    for number in range(count - half):
        when = start + timedelta(minutes=number)
        role: Role = "user" if number % 2 == 0 else "assistant"
        message = Message(role=role, content=_text(rng, vocabulary), timestamp=when)
        per_session.setdefault(f"cli:s{number % SESSIONS}", []).append(message)
    for key, messages in per_session.items():
        for chunk in range(0, len(messages), 500):
            workspace.sessions.append_many(key, messages[chunk : chunk + 500])


def questions(count: int, rng: random.Random) -> Iterator[str]:
    """Yield ``count`` questions in the style of a user asking about the past."""
    forms = (
        "What did {name} say about the {a} and the {b}?",
        "When is the {a} with {name}?",
        "Remind me what we decided about the {a} {b} last Friday",
        "how much was the {a}?",
        "{cn}是什么时候？",
    )
    words, cumulative = _vocabulary(random.Random(1))
    content = (words[50:], [c - cumulative[49] for c in cumulative[50:]])
    for _ in range(count):
        form = rng.choice(forms)
        a, b = rng.choices(content[0], cum_weights=content[1], k=2)
        yield form.format(
            name=rng.choice(_NAMES),
            a=a,
            b=b,
            cn="".join(rng.choice(_CHINESE) for _ in range(4)),
        )
