"""The extraction rules: which sentences of a conversation are facts, and of what kind.

Each rule is a set of English and Chinese patterns over one sentence. For a user sentence the
first rule that matches wins, in this order: ``correction`` cues ("actually…", "no, I
meant…", "其实…"), ``instruction`` to the assistant ("always…", "don't…", "reply in…", "call
me…", "please answer…", "以后…", "请用…回答", "不要…"), a correcting contrast ("X now, not
Y", "not Y but X", "不是…而是…"; an instruction with "not" in it stays an instruction),
``decision`` ("let's go with…", "we decided…", "就用…吧", "决定…"), ``self`` (the speaker
about themselves: "I am…", any "I <verb>…" that is not a passing thought such as "I think",
"I guess", "I hope"; "my X is/has/works…", a sentence opening with "我") and ``specific``
(names, dates, times, numbers with units, versions, places). Questions and requests ("can
you…", "find me…", "帮我…") are never facts. Who may state which kind is decided by the
summariser, not here. A request marked as one ("Deploy on Thursday please", "Remind me to
call the dentist", "周四部署一下，谢谢") is not a fact either, and wins over an instruction
cue when it asks for a reminder ("记得提醒我…"); ``remembered`` unwraps "Remember that I
prefer Celsius" to the statement inside it ("I prefer Celsius"), which is then read as any
other sentence (with a bare "they" inside, it stays in history).

``time_bound`` says whether a sentence is about a short stretch of time ahead ("today", "this
week", "next week", "明天"; past events are dated, not ephemeral), and ``is_one_off`` whether it
is a purchase, booking, trip or outing: either makes its fact ephemeral. Everything here is
pure; the patterns are tuned for recall on plain chat and never see secrets (the summariser
filters those first).
"""

from __future__ import annotations

import re
from typing import Literal

Kind = Literal["correction", "instruction", "decision", "self", "specific"]


def _any(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


# A correction cue that wins over everything else ("Actually, ...", "No, I meant ...").
_CORRECTION = _any(
    r"^(?:actually|in fact)\b",
    r"^no\s*[,.!—-]\s*(?:i|it|it's|we|that|the|my|not)\b",
    r"\bi meant\b|\bwhat i meant\b|\bi misspoke\b|\bi was wrong\b|\bscratch that\b",
    r"^(?:correction|to correct|let me correct)\b",
    r"^其实|我是说|更正|纠正|说错了|搞错了|记错了",
)
# A contrast that corrects a statement, unless the sentence is an instruction ("..., not X").
_CONTRAST = _any(
    r"\b(?:now|instead),? not\b",
    r"\bnot\s+(?!only\b)[^,.;!?]{1,40}?,?\s+but\s+\S",
    r"不是.{1,30}?而是",
)

_INSTRUCTION = _any(
    r"^(?:please\s+|pls\s+)?(?:always|never|don't|do not|stop|avoid|make sure|"
    r"remember to|keep your|keep (?:\w+ )?(?:answers|replies|meal plans|it|things|suggestions))\b",
    r"^please\s+(?:answer|reply|respond|write|use|give|keep|ask|show|explain|include)\b",
    r"\b(?:reply|respond|answer|write|talk|speak)\s+(?:to me\s+)?in\s+\w+",
    r"\bcall me\b|\baddress me as\b",
    r"\b(?:from now on|going forward|in (?:the )?future|next time)\b",
    r"\bi (?:want|need|would like|'d like) you to\b",
    r"\byou (?:should|must) (?:always|never)\b",
    r"^(?:以后|今后|从现在开始|从今以后|往后)",
    r"请(?:用|以|使用).{1,10}(?:回答|回复|交流|写|说)",
    r"用\S{1,4}(?:回答|回复)我",
    r"^(?:请)?(?:不要|别|千万别|禁止|不许)",
    r"叫我|称呼我",
    r"^(?:请)?(?:总是|始终|每次都|务必|记得|记住)",
)

_DECISION = _any(
    r"\blet'?s (?:go with|use|do|pick|choose|stick with|keep|switch to|book|take|go for)\b",
    r"\bwe(?:'ve| have)? (?:decided|agreed|chose|picked|settled on)\b",
    r"\bwe(?:'ll| will| are going to|'re going to) (?:go with|use|stick with|switch to|keep|"
    r"run|store)\b",
    r"\bwe're going with\b",
    r"\bi(?:'ve| have)? (?:decided|chose|picked|settled on|went with)\b",
    r"\bi'll (?:go with|take|stick with)\b",
    r"\b(?:decision|the plan)\s*(?::|is)\s",
    r"\bgoing with\b|\bagreed\b",
    r"就(?:用|选|定|按|这么|买|订|去|做).{0,20}吧",
    r"决定|定了|就这么办|同意|我们(?:用|选|就)",
)

_SELF = _any(
    r"^i(?:'m| am)\s+(?!(?:not sure|sure|sorry|afraid|wondering|looking|trying|curious|glad|"
    r"happy to|done|back|here|ok|okay|fine|good|asking)\b)",
    # Any "I <verb> ..." that is not a passing thought ("I think", "I guess", "I hope"...).
    r"^i(?:'ve| have| had| was| used to)?\s+(?!(?:think|guess|mean|wonder|hope|feel|see|know|"
    r"need|wish|bet|agree|suppose|believe|understand|appreciate|promise|swear|forgot|remember|"
    r"heard|can|could|would|should|will|might|may|must|just|bet|love that|love it|love this|"
    r"want you|need you|got it|see|saw that|did it|am|'m)\b)[a-z]{2,}\b",
    r"^(?:my|our)\s+[\w' -]{1,30}?\s+(?:has|have|had|\w+ed|gave|got|took|went|made|works?|"
    r"lives?|runs?|teaches|plays?|owns?|loves?|hates?)\b",
    r"^我(?!们|觉得|想想|看看|知道|明白|同意|猜|希望|去吃|先)",
    r"\bi (?:really |also |still |just |mostly |\w+ly )?(?:live|lived|work|worked|prefer|like|"
    r"love|enjoy|hate|dislike|usually|often|always|"
    r"never|rarely|tend to|own|use|study|studied|speak|was born|grew up|moved|commute|drink|"
    r"eat|play|run|plan|intend|cycle|bike|walk|drive|swim|cook|travel|read|teach|volunteer|"
    r"can't stand|don't like|don't eat|don't drink|have (?:a|an|two|"
    r"three|\d+))\b",
    r"\bi'd (?:rather|prefer)\b|\bi(?:'m| am) (?:planning|going) to\b",
    r"^(?:my|our)\s+(?!question|problem|issue|point|guess|bad|pleasure)[\w' -]{1,30}?\s+"
    r"(?:is|are|was)\b",
    r"我(?:今天|明天|后天|今晚|这周|下周|周末|明年|下个月)?(?:是|叫|姓|喜欢|爱|讨厌|不喜欢|不吃|不喝|习惯|平时|通常|一般|经常|总是|从不|住在|来自|"
    r"打算|计划|准备|要去|正在学|在学)",
    r"我在\S{1,12}(?:工作|上班|上学|读书|住)|我不(?:是|能|吃|喝|喜欢|会)",
    r"我的\S{1,10}(?:是|叫|在)",
    r"我有(?:一个|一只|两个|\d)",
)

_SPECIFIC = _any(
    r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b",
    r"\b(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b",
    r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:january|february|march|april|may|june|july|"
    r"august|september|october|november|december)\b",
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    r"\bv?\d+\.\d+(?:\.\d+)?\b|\b\d{1,2}:\d{2}\b|\b\d{1,2}\s?(?:am|pm)\b",
    r"[$€£¥]\s?\d+|\b\d+(?:[.,]\d+)?\s?(?:%|km|kg|mb|gb|tb|ms|min|hours?|days?|weeks?|"
    r"months?|years?|eur|usd|euros?|dollars?)\b",
    r"\d{1,2}月\d{1,2}[日号]|(?:周|星期|礼拜)[一二三四五六日天]",
    r"\d+(?:\.\d+)?\s?(?:点|号|岁|元|块|公里|分钟|小时|天|个月|年|版)",
    r"[一二三四五六七八九十两]+(?:点钟|岁|个月|公里)",
)

# Proper names: a capitalised word after a lowercase word or comma (so not a sentence start).
_NAME = re.compile(r"(?<=[a-z,] )(?!I\b)[A-Z][a-z]+")

_TIME_BOUND = _any(
    r"\b(?:today|tonight|tomorrow|right now|at the moment|for now|later today)\b",
    r"\b(?:this|next) (?:trip|summer|winter|spring|autumn|fall)\b",
    r"\bthis (?:morning|afternoon|evening|week|weekend|month)\b",
    r"\bnext (?:week|weekend|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    r"今天|明天|后天|今晚|明早|明晚|这周|本周|下周|这个周末|本月|这个月|下个月|暂时|待会",
)

# A one-off purchase or outing: true once, not a lasting fact (it gets a date and expires).
_ONE_OFF = _any(
    r"\b(?:buy|bought|buying|purchase|purchased|order|ordered|ordering|pick up|rent|rented)\b",
    r"\b(?:book|booked|booking) (?:a |the )?(?:table|flight|ticket|room|hotel|seat|trip)\b",
    r"[$€£¥]\s?\d+|\b\d+(?:[.,]\d+)?\s?(?:eur|usd|gbp|euros?|dollars?|pounds|bucks)\b",
    r"\b(?:flying|fly|travel(?:l?ing)?|going|heading|off) to\b.*\b(?:for|on|until|back)\b",
    r"(?:买|订|租)\S|\d+\s?(?:元|块|欧|美元)|就去.{1,20}吧|去.{1,12}(?:吃|玩|旅行|出差)",
)

_QUESTION = _any(
    r"[?？]\s*$",
    r"^(?:can|could|would|should|shall|does|did|is|are|was|were|what|why|how|which|who|whose)"
    r"\b|^do\b(?!\s+not\b)|^will you\b",
    r"[吗呢]\s*[。.]?$|^(?:为什么|怎么|什么|哪|谁|是否)",
)

# A request that says it is one: a closing "please", a reminder, a closing "谢谢".
_POLITE_REQUEST = _any(
    r"\b(?:please|pls|plz|thanks|thx)[\s.!]*$",
    r"^(?:please\s+|pls\s+|can you\s+|could you\s+)?remind me\b|(?:请)?(?:记得)?提醒(?:我|一下)",
    r"[，,]\s*(?:谢谢|谢啦|多谢|麻烦了)[!！。~\uff5e]*$|一下[!！。]?$",
)
_OPENING_PLEASE = re.compile(r"^(?:please|pls|plz|kindly)\b", re.IGNORECASE)
_REMINDER = re.compile(r"^(?:please\s+|pls\s+)?remind me\b|提醒(?:我|一下)", re.IGNORECASE)
_REMEMBERED = re.compile(
    r"^(?:please\s+)?(?:remember|note|keep in mind|don't forget|do not forget)(?:\s*[,:]?\s*that)?"
    r"\s*[,:]?\s+(?!to\b)(?P<rest>\S.*)$"
    r"|^(?:请)?(?:记住|记得|记一下)[，,：:]?\s*(?P<zh>我(?!们).+)$",
    re.IGNORECASE,
)
_THE_USER = re.compile(r"^(?:the user|user)\s+", re.IGNORECASE)

_REQUEST = _any(
    r"^(?:please\s+)?(?:find|search|look up|show|tell|give|help|check|book|write|translate|"
    r"explain|summari[sz]e|fix|make|create|list|send|draft|get|compare|recommend|suggest|run)\b",
    r"^(?:请)?(?:帮我|帮忙|给我|查一下|搜一下|找一下|告诉我|推荐|翻译|写一)",
)


_USER_RULES: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    ("correction", _CORRECTION),
    ("instruction", _INSTRUCTION),
    ("correction", _CONTRAST),
    ("decision", _DECISION),
)


def classify_user(sentence: str) -> Kind | None:
    """Return the kind of fact a user sentence states, or None when it states none."""
    if _QUESTION.search(sentence) or _REMINDER.search(sentence) or is_request(sentence):
        return None
    for kind, pattern in _USER_RULES:
        if pattern.search(sentence):
            return kind
    if _REQUEST.search(sentence):
        return None
    if _SELF.search(sentence):
        return "self"
    if _SPECIFIC.search(sentence) or _NAME.search(sentence):
        return "specific"
    return None


def is_request(sentence: str) -> bool:
    """True when the sentence asks for something and says so ("..., please", "remind me").

    A sentence that also states something about the speaker ("I'm vegetarian, so keep meal
    plans meat-free please") or tells the assistant how to behave is not only a request.
    """
    if _REMINDER.search(sentence) is not None:
        return True
    if _OPENING_PLEASE.match(sentence) is not None:
        return not is_instruction(sentence)
    if _POLITE_REQUEST.search(sentence) is None:
        return False
    return not (is_instruction(sentence) or is_about_self(sentence))


def remembered(sentence: str) -> str | None:
    """The statement inside "Remember that ..." ("the user" read as "I"), or None."""
    found = _REMEMBERED.match(sentence.strip())
    if found is None:
        return None
    inner = found["rest"] or found["zh"] or ""
    return _THE_USER.sub("I ", inner, count=1)


def is_instruction(sentence: str) -> bool:
    """True when the sentence tells the assistant how to behave."""
    return _INSTRUCTION.search(sentence) is not None


def is_about_self(sentence: str) -> bool:
    """True when the sentence is the user speaking about themselves."""
    return _SELF.search(sentence) is not None


def is_one_off(sentence: str) -> bool:
    """True when the sentence is about a one-off purchase, booking, trip or outing."""
    return _ONE_OFF.search(sentence) is not None


def time_bound(sentence: str) -> bool:
    """True when the sentence is about a short stretch of time (today, this week, 明天...)."""
    return _TIME_BOUND.search(sentence) is not None
