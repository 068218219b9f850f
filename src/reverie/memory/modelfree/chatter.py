"""Chatter: sentences that carry no lasting information, so no durable file ever keeps them.

A sentence is chatter when it is social noise (greetings, goodbyes, thanks, praise, apologies,
agreement, exclamations, laughter, filler such as "I see" or "let me think"), a passing mood
("I'm so excited!", "I'm super thankful."), a plan for the next hour or so ("I'm off to do
some research.", "I'll check it out later.", "今晚去吃火锅"), a compliment or remark addressed
to the other person ("You're amazing!", "Your kids are so cute."), or too thin to state a
fact: fewer than two content words (``content_words``; a run of four CJK characters counts as
two). The patterns are English and Chinese and describe kinds of sentence, not particular
conversations. Pure functions, no I/O.
"""

from __future__ import annotations

import re

from reverie.core.text import CJK, CJK_CHAR
from reverie.core.words import FACT_STOP_WORDS


def _any(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


_INTENS = r"(?:so |super |really |very |just |quite |a bit |a little |totally |truly |also )*"

_SOCIAL = _any(
    r"^(?:hi+|he+y+|hello+|yo|hiya|howdy|good (?:morning|afternoon|evening|night)|bye|goodbye|"
    r"see you|see ya|take care|cheers|talk (?:to you )?(?:soon|later)|catch you later|night|"
    r"long time no (?:see|chat|talk))\b",
    # Encouragement with no fact in it, and its subject-less copies ("Is up for the challenge").
    r"^(?:keep (?:it up|going|at it|pushing)|you got this|you can do it|go for it|"
    r"proud of you|so proud|hang in there|don'?t give up|never give up|good job|nice work|"
    r"nice one|way to go|rooting for you|fingers crossed)\b",
    r"^(?:i(?:'m| am)|(?:[A-Z][a-z]+ )?(?:is|are)) (?:so |totally |really |definitely |always )*"
    r"(?:up|down|game|ready) for (?:the|a|this|it|that)\b(?: challenge\b)?[^.]{0,20}$",
    r"^i (?:can'?t|cannot|couldn'?t|can not) believe\b",
    r"^(?:thanks|thank you|thx|ty|many thanks|much appreciated|i appreciate|appreciate it)\b",
    r"^(?:great|awesome|amazing|wonderful|fantastic|cool|nice|lovely|brilliant|perfect|"
    r"wow|whoa|omg|oh|ah|aw+|haha\w*|lol|yay|congrats|congratulations|sweet|exciting|"
    r"sounds (?:good|great|fun|amazing|lovely|like a plan)|that'?s (?:so |really |very )*"
    r"(?:great|awesome|amazing|wonderful|cool|nice|lovely|sweet|interesting|true|fair|right|"
    r"good|fun|exciting|inspiring|impressive|beautiful|kind|stunning|gorgeous|incredible|"
    r"adorable|hilarious|funny|wild|crazy)|"
    r"what a\b|how (?:nice|cool|lovely|sweet|exciting|wonderful|amazing))\b",
    r"^(?:ok(?:ay)?|sure|yes|yeah|yep|right|exactly|absolutely|definitely|indeed|agreed|"
    r"got it|makes sense|fair enough|no worries|no problem|of course|i see|i agree|me too|"
    r"same here|true|sorry|my bad|good point|good question|good luck|well done|hmm+|um+|uh+)\b"
    r"[^.]{0,30}$",
    r"^(?:let me (?:think|see|check|know)|you know|i guess|i mean|anyway|by the way)\b[^.]{0,25}$",
    r"^i(?:'m| am) " + _INTENS + r"(?:happy|glad|excited|thankful|grateful|thrilled|stoked|"
    r"sorry|tired|exhausted|sad|bored|nervous|proud|curious|relieved|impressed|touched|"
    r"flattered|okay|ok|fine|good|great|well|busy|ready|jealous|amazed|"
    r"speechless|honou?red|blessed|lucky|pumped|psyched|so happy)\b(?! (?:with|at|in|of) my\b)",
    r"^i (?:really |so |just |totally )*(?:appreciate|agree|understand|see|love that|love it|"
    r"hope|wish|can't wait|cannot wait|feel (?:so |really |very )*(?:good|great|bad|happy|sad|"
    r"tired|better|grateful|blessed))\b",
    r"^(?:you(?:'re| are)|you(?:'ve| have)|your\b|you (?:should be|look|seem|sound|did|"
    r"made|always|really))",
    r"^(?:that|this|it)(?:'s| is| was| sounds| looks| seems) " + _INTENS + r"(?:great|awesome|"
    r"amazing|wonderful|cool|nice|lovely|sweet|beautiful|interesting|fun|exciting|impressive|"
    r"inspiring|so|good|hard|tough|crazy|wild|funny|true|right|fair|stunning|gorgeous|"
    r"incredible|adorable|hilarious|pretty|cute)\b",
    r"^(?:你好|您好|嗨|哈喽|早上好|晚上好|晚安|再见|拜拜|谢谢|多谢|感谢|太棒了|太好了|真棒|好的|好吧|"
    r"没问题|没事|可以|对的|是的|明白|知道了|收到|哈哈|嗯+|哇|加油|辛苦了|不客气|恭喜|好久不见|"
    r"坚持下去|继续努力|你可以的|笑死|对啊)",
)

_PASSING_PLAN = _any(
    r"^i(?:'m| am) (?:off|heading|going|about|gonna|headed)(?: out)?(?: to| for| home|$)"
    r"(?!.*\b(?:move|moving|study|start|join|quit|learn|marry|retire)\b)",
    r"^i(?:'ll| will) (?:go |just |probably |definitely |maybe )?(?:check|look|think|try|"
    r"get back|let you know|see|have a look|read|grab|head|go(?! with)|call|text|ask|talk|do some|"
    r"be back|keep you posted|take a look)\b",
    r"^(?:gotta|got to|have to|need to) (?:go|run|head|leave|dash)\b|^brb\b|^afk\b",
    r"\b(?:right now|in a (?:bit|minute|sec|second|moment|few minutes)|later today|tonight|"
    r"this (?:morning|afternoon|evening)|for now)\b",
    r"^(?:let me|lemme) (?!correct)\w+",
    r"今晚|待会|一会儿|马上|现在就|等一下|稍后",
)

_QUOTES = "\"'\u201c\u201d\u2018\u2019"
_CJK = CJK_CHAR
_WORD = re.compile(r"[^\W\d_]+(?:'[a-z]+)?|\d+(?:[.:]\d+)*")


def content_words(text: str) -> int:
    """Return how many content words ``text`` has (stop words left out; CJK: 2 per 4 chars)."""
    latin = [w for w in _WORD.findall(_CJK.sub(" ", text.lower())) if w not in FACT_STOP_WORDS]
    return len(latin) + len(_CJK.findall(text)) // 2


def is_chatter(sentence: str) -> bool:
    """True when ``sentence`` carries no lasting information (see the module docstring)."""
    text = sentence.strip().strip(_QUOTES)
    return content_words(text) < 2 or is_social(text)


def is_social(sentence: str) -> bool:
    """True when ``sentence`` is social talk or a passing plan, whatever its length.

    A name the sentence is addressed to ("Wow Ana, that's stunning", "Cool, thanks Maria",
    "小林，好久不见") is looked past: what is left decides.
    """
    text = sentence.strip().strip(_QUOTES)
    if _social(text):
        return True
    bare = _VOCATIVE_TAIL.sub("", _VOCATIVE_LEAD.sub("", _INTERJECTION.sub("", text)))
    return bare != text and bool(bare) and _social(bare)


def _social(text: str) -> bool:
    return _SOCIAL.search(text) is not None or _PASSING_PLAN.search(text) is not None


# "Wow Ana, ...", "Haha Sam you're ...": an interjection, then the name spoken to.
_INTERJECTION = re.compile(r"^(?:oh|ah|aw+|wow|haha\w*|lol|omg|yay|hey|hi)\b[\s,!]*", re.I)
_VOCATIVE_LEAD = re.compile(
    r"^(?:[A-Z][a-z]{1,20}\s*[,!:]\s*"
    r"|[A-Z][a-z]{1,20}\s+(?=you're\b|youre\b|you are\b|thats\b|that's\b)"
    rf"|[{CJK}]{{2,3}}[，,！!]\s*)"
)
_VOCATIVE_TAIL = re.compile(r"[,，\s]+[A-Z][a-z]{1,20}[\W_]*$")
