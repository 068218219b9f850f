"""Writing a spoken sentence as a self-contained fact: who it is about, without the chat around it.

``as_fact(sentence, subject)`` turns first person into a fact: with no subject (the one user of
a plain chat, whose facts go to USER.md) the subject is left out ("I live in Porto" → "Lives
in Porto", "My sister is a nurse" → "Sister is a nurse", "我住在波尔图" → "住在波尔图"); with a
named subject (a conversation between named people) it is named ("Caroline lives in Porto").
Later first-person words become "they"/"them"/"their", and a closing "please" goes.
``as_rule`` writes an instruction to the assistant with the user in the third person and
without its "please" ("unless I write" → "unless the user writes"). ``as_decision`` drops
"let's", "we decided to" and the like. ``unresolved`` is true for a sentence whose subject is
a bare pronoun ("They upgraded it in August."), or that ends on one ("... for that"): its
referent only the conversation knew. Pure functions, no I/O.
"""

from __future__ import annotations

import re

_ADVERB = r"(?:really|also|still|just|mostly|usually|often|always|never|rarely|sometimes|"
_ADVERB += r"generally|normally|currently|now|absolutely|definitely|totally|honestly|basically|"
_ADVERB += r"finally|recently|already|even|mainly|typically|only|seriously|kind of|sort of)"
_LEAD_I = re.compile(
    rf"^I(?P<aux>'m|'ve|'d|'ll| am| have| had| was| do| did| don't| didn't| can't| cannot| can|"
    rf" could| would| will| should| must| might| may| used to)?(?P<adv>(?: {_ADVERB})*) "
    rf"(?P<verb>[\w'-]+)",
)
_AUX: dict[str, str] = {
    "'m": "is",
    " am": "is",
    "'ve": "has",
    " have": "has",
    "'d": "would",
    "'ll": "will",
    " do": "does",
    " don't": "doesn't",
}
_PAST = frozenset(
    """
    was went grew got had made took began bought came did drove ate felt found gave knew left
    lost met paid ran said saw sold spent taught told thought wrote won built became broke
    brought caught chose fell flew forgot hid kept led meant put quit read rode sang sat slept
    spoke stood swam threw understood wore born drew grew hurt cut set hit let cost shut spread
    """.split()  # noqa: SIM905
)
_MODAL = frozenset(
    """
    can could would will should must might may shall won't can't couldn't wouldn't shouldn't
    didn't doesn't isn't wasn't
    """.split()  # noqa: SIM905
)
_SELF_NAME = re.compile(r"^I(?:'m| am) (?P<name>[A-Z][a-z]+(?: [A-Z][a-z]+)?)[.!]?$")
_WE_LEAD = re.compile(r"^[Ww]e (?!decided|agreed|will|'ll|should)")
_WE_ARE_LEAD = re.compile(r"^[Ww]e(?:'re| are) ")
# A chat line with its subject left out: "Took the boat out", "Added Tromso to the plan".
_DROPPED_SUBJECT = re.compile(r"^(?P<verb>[A-Z][a-z]{2,}(?:ed)?) (?=[\w'])")
_NOT_VERBS = frozenset("red bed need seed speed breed feed weed shed united hundred".split())  # noqa: SIM905
_MY_LEAD = re.compile(r"^(?:my|My)\s+")
_CJK_LEAD = re.compile(r"^我(?!们)(?:的)?")
_INNER = (
    (re.compile(r"\bI(?:'m| am)\b"), "{they} {are}"),
    (re.compile(r"\bI was\b"), "{they} {were}"),
    (re.compile(r"\bI've\b"), "{they} {have}"),
    (re.compile(r"\bI'd\b"), "{they} would"),
    (re.compile(r"\bI'll\b"), "{they} will"),
    (re.compile(r"\bmyself\b"), "{self}"),
    (re.compile(r"\b[Mm]y\b"), "{their}"),
    (re.compile(r"\b[Oo]ur\b"), "{our}"),
    (re.compile(r"\b[Mm]ine\b"), "{theirs}"),
    (re.compile(r"\bme\b"), "{them}"),
)
_BARE_PRONOUN = re.compile(
    r"^(?:he|she|they|it|it's|its|him|them|that's|that is|that was|this is|this was|"
    r"these are|those are|those were|these were|there)\b(?!\s+(?:is|are|was|were)\s+(?:a|an|no)\b)"
    r"|^(?:他|她|它|他们|她们|它们|这个|那个|这些|那些)",
    re.IGNORECASE,
)
# "Use the Tidewater room for that": what "that" is was said elsewhere.
_DANGLING = re.compile(
    r"\b(?:for|with|about|on|of|to|do|did|use|try|keep|like|love|need|want) (?:that|this|it|them)$",
    re.IGNORECASE,
)
_DECISION_LEAD = re.compile(
    r"\b(?:let'?s|we(?:'ve| have)? (?:decided|agreed) (?:to|on)|we(?:'ll| will| are going to|"
    r"'re going to)|i(?:'ve| have)? decided (?:to|on)|we(?:'re| are) going with|i'll|"
    r"the plan is to|decision:)\s+",
    re.IGNORECASE,
)


def third_singular(verb: str) -> str:
    """Return the third-person singular present of an English verb ("go" → "goes")."""
    lower = verb.lower()
    irregular = {"be": "is", "am": "is", "have": "has", "do": "does", "don't": "doesn't"}
    if lower in irregular:
        return irregular[lower]
    if (
        lower in _MODAL
        or lower in _PAST
        or lower.endswith("ed")
        or (lower.endswith("s") and not lower.endswith("ss"))
    ):
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return verb + "es"
    if re.search(r"[^aeiou]y$", lower):
        return verb[:-1] + "ies"
    return verb + "s"


def as_fact(sentence: str, subject: str | None) -> str:
    """Return a first-person sentence as a fact about ``subject`` (None: left out)."""
    sentence = sentence.strip()
    name = _SELF_NAME.match(sentence)
    if name is not None:
        return f"Name is {name['name']}" if subject is None else f"{subject} is {name['name']}"
    sentence = _WE_ARE_LEAD.sub(f"{subject or 'The user'} and others are ", sentence)
    sentence = _WE_LEAD.sub(f"{subject or 'The user'} and others ", sentence)
    if subject:
        sentence = _with_subject(sentence, subject)
    text = _lead(_FILLER_TAIL.sub("", _PLEASE_TAIL.sub("", sentence)), subject)
    if subject and not text.startswith(subject):
        # "Last year I ran a marathon": the subject is named where the first "I" was.
        text = re.sub(r"\bI ([\w']+)", lambda m: f"{subject} {third_singular(m[1])}", text, count=1)
    return _tidy(_inner(text, they="they", singular=False))


def _with_subject(sentence: str, subject: str) -> str:
    """A named person's line that leaves its subject out, with it: "Took X" -> "Ava took X"."""
    found = _DROPPED_SUBJECT.match(sentence)
    if found is None:
        return sentence
    verb = found["verb"].lower()
    past = verb in _PAST or (verb.endswith("ed") and len(verb) > 4 and verb not in _NOT_VERBS)
    return f"{subject} {verb} {sentence[found.end() :]}" if past else sentence


def as_rule(sentence: str) -> str:
    """Return an instruction to the assistant with the user in the third person."""
    text = re.sub(r"^(?:please|pls|kindly)\s*,?\s+", "", sentence.strip(), flags=re.IGNORECASE)
    text = _PLEASE_TAIL.sub("", text)
    text = re.sub(r"(?<=[，,。；])请", "", text) if text.startswith("请") else text
    text = re.sub(r"我(?!们)", "用户", text)
    return _tidy(_inner(text, they="the user", singular=True))


def as_decision(sentence: str) -> str:
    """Return a decision without its "let's"/"we decided to" lead-in."""
    text = _DECISION_LEAD.sub("", sentence.strip(), count=1)
    text = _inner(text, they="the user", singular=True)
    return _tidy(text[:1].upper() + text[1:])


def unresolved(sentence: str) -> bool:
    """True when the sentence's subject, or its closing object, is a bare pronoun."""
    text = sentence.strip().rstrip(" .!。！")
    return _BARE_PRONOUN.search(text) is not None or _DANGLING.search(text) is not None


def _lead(text: str, subject: str | None) -> str:
    found = _LEAD_I.match(text)
    if found is not None:
        aux, adverbs, verb = found["aux"], found["adv"] or "", found["verb"]
        if aux is None:
            head = f"{adverbs.strip()} {third_singular(verb)}".strip()
        else:
            head = f"{_AUX.get(aux, aux.strip())}{adverbs} {verb}"
        rest = text[found.end() :]
        return f"{subject} {head}{rest}" if subject else head[:1].upper() + head[1:] + rest
    if (found := _MY_LEAD.match(text)) is not None:
        rest = text[found.end() :]
        return f"{subject}'s {rest}" if subject else rest[:1].upper() + rest[1:]
    if (found := _CJK_LEAD.match(text)) is not None:
        rest = text[found.end() :]
        joiner = "的" if found.group().endswith("的") else ""
        return f"{subject}{joiner}{rest}" if subject else rest
    return text


def _inner(text: str, *, they: str, singular: bool) -> str:
    if _ANY_FIRST_PERSON.search(text) is None:
        return text
    words = {
        "they": they,
        "are": "is" if singular else "are",
        "were": "was" if singular else "were",
        "have": "has" if singular else "have",
        "self": "themselves",
        "their": f"{they}'s" if singular else "their",
        "theirs": f"{they}'s" if singular else "theirs",
        "them": they if singular else "them",
        "our": f"{they}'s" if singular else "their",
    }
    for pattern, template in _INNER:
        text = pattern.sub(template.format(**words), text)
    if singular:
        text = re.sub(r"\bI ([\w']+)", lambda m: f"{they} {third_singular(m[1])}", text)
    return re.sub(r"\bI\b", they, text)


_PLEASE_TAIL = re.compile(r"[,\s]+(?:please|pls|plz)(?=[.!\s]*$)", re.IGNORECASE)
_ANY_FIRST_PERSON = re.compile(r"\b(?:I|[Mm]y|me|[Mm]ine|myself|[Oo]ur)\b")
_FILLER_TAIL = re.compile(
    r",?\s+(?:just so you know|by the way|btw|lol|haha|honestly|you know|I guess|I think)"
    r"(?=[\s,.;!]*$|,)",
    re.IGNORECASE,
)


def _tidy(text: str) -> str:
    text = " ".join(text.split()).rstrip(" .。!！;；,，")
    return text[:1].upper() + text[1:] if text[:1].isascii() else text
