"""Single-valued facts: where someone lives, how they commute, their job, name and age.

Most facts add up (liking tea and liking tofu are both true), but some hold one value at a
time: a person lives in one place, commutes one way, works at one employer, has one name and
one age. ``slot_of`` reads such a fact as a ``Slot`` (whose, which slot, the value), so the
curator can tell that "Commutes by train" replaces "Cycles 12 km to work every day" and
record the old value ("before: cycling"). Facts are in the curator's phrasing: the subject
left out ("Lives in Porto") or named first ("Caroline lives in Porto"); English and Chinese.
Pure functions, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reverie.core.text import CJK
from reverie.core.words import verb_stem

_VALUE = r"(?P<value>[^,.;:()!?，。；]{1,60}?)"
_END = r"(?=\s+(?:since|now|with|for|and|but|because|as|after|before|last|this|next|in|on|"
_END += r"from|until|a|an|the)\b|[,.;:()!?，。；]|\s*$)"
# The subject is a capitalised name (case-sensitive, even inside an IGNORECASE pattern).
_WHO = r"^(?:(?-i:(?P<who>(?!Is |Has |Was )[A-Z][\w'-]*(?: [A-Z][\w'-]*)?)) )?"
_SLOTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "home",
        re.compile(
            _WHO + r"(?:now |currently |still )?(?:lives|is living|has moved|moved|is based|"
            r"resides|relocated)(?: back)? (?:in|to) (?=(?-i:[A-Z])|"
            f"[{CJK}])" + _VALUE + _END,
            re.IGNORECASE,
        ),
    ),
    (
        "home",
        re.compile(
            r"^(?:(?P<who>[A-Z][\w'-]*)\s*)?[^\s，。]{0,6}?(?:住在|搬到了?|搬去了?)" + _VALUE + _END
        ),
    ),
    (
        "commute",
        re.compile(
            r"^(?:(?P<who>[A-Z][\w'-]*)\s*)?.{0,12}?(?P<value>骑\S{1,4}?|坐\S{1,4}?|开车|步行|走路)上班"
        ),
    ),
    (
        "commute",
        re.compile(
            _WHO + r"(?:now |usually |still )?commutes (?:to work )?(?:by|on) "
            r"(?:the |a |an )?" + _VALUE + _END,
            re.IGNORECASE,
        ),
    ),
    (
        "commute",
        re.compile(
            _WHO + r"(?:now |usually |still )?(?P<value>cycles|bikes|walks|drives|runs|rides "
            r"(?:a |the |his |her |their )?\w+|takes the \w+)\b.{0,40}\bto (?:work|the office)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "employer",
        re.compile(
            _WHO + r"(?:now |currently |still )?works (?:at|for) " + _VALUE + _END,
            re.IGNORECASE,
        ),
    ),
    (
        "name",
        re.compile(
            _WHO + r"(?:name is|wants to be called|goes by|is called) (?P<value>[\w'-]+)",
            re.IGNORECASE,
        ),
    ),
    ("age", re.compile(_WHO + r"is (?P<value>\d{1,3}) years old\b", re.IGNORECASE)),
    ("age", re.compile(r"^(?:(?P<who>[A-Z][\w'-]*)\s*)?(?:今年)?(?P<value>\d{1,3})岁")),
    (
        "often",
        re.compile(
            _WHO + r"(?:is |are )?(?P<verb>[a-z]+) (?:only |now |still )*"
            r"(?P<value>\w+ times|once|twice) (?:a|per|every) (?:day|week|month)\b",
            re.IGNORECASE,
        ),
    ),
)
_MODES = {
    "cycles": "cycling",
    "bikes": "cycling",
    "walks": "walking",
    "drives": "driving",
    "runs": "running",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Slot:
    """A single-valued fact: whose (lowercase name, "" for the user), which slot, what value."""

    who: str
    key: str
    value: str

    def same_slot(self, other: Slot) -> bool:
        """True when both facts are the same slot of the same person."""
        return self.key == other.key and self.who == other.who


def slot_of(text: str) -> Slot | None:
    """Return the slot a fact fills, or None for a fact that is not single-valued."""
    text = text.strip()
    for key, pattern in _SLOTS:
        found = pattern.search(text)
        if found is not None:
            who = (found["who"] or "").strip().lower()
            if who in ("the user", "user", "用户"):
                who = ""
            name = f"often:{verb_stem(found['verb'].lower())}" if key == "often" else key
            return Slot(who=who, key=name, value=_value(found["value"]))
    return None


def _value(raw: str) -> str:
    value = " ".join(raw.split())
    lower = value.lower()
    if lower in _MODES:
        return _MODES[lower]
    if lower.startswith("takes the "):
        return value[len("takes the ") :]
    return value
