"""Dates a query speaks of, resolved to days against the time it is asked.

"What did I do last Friday?" asked on Tuesday 2026-05-12 means 2026-05-08; "three days ago",
"yesterday", "last week", "in March", "on 3 May", "2026-05-03", 昨天, 前天, 上周五, 三天前,
5月3日 are
resolved the same way. Ranking favours items written on those days. Only the past is meant
(a memory is asked about what happened), so a bare weekday or month is the latest one not
after ``now``. Unrecognised wording resolves to nothing: a question without a date is ranked
on its words alone. ``without_dates`` removes the wording that resolved, so "June 17" is not
also searched as the words "june" and "17" (which match "as of 2025-08-17" and "June 1").
This module does no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_CN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7}
_CN_NUMBER = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8}
_NUMBER_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}

_MONTH = "(" + "|".join(m[:3] + "[a-z]*" for m in MONTHS) + ")"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("day_month", re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b", re.I)),
    ("month_day", re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b", re.I)),
    ("ago", re.compile(r"\b(\d+|a|one|two|three|four|five|six)\s+(day|week)s?\s+ago\b", re.I)),
    ("weekday", re.compile(r"\b(?:last|on|this past)\s+(" + "|".join(WEEKDAYS) + r")\b", re.I)),
    ("word", re.compile(r"\b(yesterday|today|last week|last weekend|last month)\b", re.I)),
    ("cn_date", re.compile(r"(\d{1,2})月(\d{1,2})[日号]")),
    ("cn_weekday", re.compile("(?:上|这)(?:周|星期|礼拜)([一二三四五六日天])")),
    ("cn_word", re.compile("(昨天|前天|今天|上周|上个?星期|上个?月)")),
    ("cn_ago", re.compile("([一二两三四五六七八])(天|周|个?星期)前")),
    ("month", re.compile(rf"\bin\s+{_MONTH}\b", re.I)),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class DaySpan:
    """Days ``first`` to ``last`` inclusive (local calendar days of ``now``)."""

    first: date
    last: date

    def holds(self, day: date) -> bool:
        """Whether ``day`` falls in the span."""
        return self.first <= day <= self.last


def without_dates(text: str, now: datetime) -> str:
    """Return ``text`` with every date expression that resolves to a day span left out."""
    today = now.date()
    for kind, pattern in _PATTERNS:

        def blank(found: re.Match[str], kind: str = kind) -> str:
            return " " if _span(kind, found.groups(), today) is not None else found.group()

        text = pattern.sub(blank, text)
    return text


def resolve(text: str, now: datetime) -> tuple[DaySpan, ...]:
    """Return the day spans ``text`` speaks of, resolved against ``now`` (oldest kind first)."""
    today = now.date()
    spans: list[DaySpan] = []
    for kind, pattern in _PATTERNS:
        for found in pattern.finditer(text):
            span = _span(kind, found.groups(), today)
            if span is not None:
                spans.append(span)
    return tuple(dict.fromkeys(spans))


def _span(kind: str, groups: tuple[str, ...], today: date) -> DaySpan | None:  # noqa: PLR0911
    if kind == "iso":
        return _day(int(groups[0]), int(groups[1]), int(groups[2]))
    if kind == "cn_date":
        return _past_day(int(groups[1]), int(groups[0]), today)
    if kind in ("day_month", "month_day"):
        day, name = (groups[0], groups[1]) if kind == "day_month" else (groups[1], groups[0])
        return _past_day(int(day), _month_number(name), today)
    if kind == "ago":
        count = int(groups[0]) if groups[0].isdigit() else _NUMBER_WORDS[groups[0].lower()]
        days = count * (7 if groups[1].lower() == "week" else 1)
        return _around(today - timedelta(days=days), 1 if days < 7 else 3)
    if kind == "weekday":
        return _last_weekday(WEEKDAYS.index(groups[0].lower()), today)
    if kind == "word":
        return _word(groups[0].lower(), today)
    if kind == "cn_weekday":
        return _last_weekday(_CN_DIGITS[groups[0]] - 1, today)
    if kind == "cn_word":
        return _word(_CN_WORDS[groups[0][:2]], today)
    if kind == "cn_ago":
        unit = 1 if groups[1] == "天" else 7
        return _around(today - timedelta(days=_CN_NUMBER[groups[0]] * unit), 1)
    month = _month_number(groups[0])
    year = today.year if month <= today.month else today.year - 1
    end = date(year + (month == 12), month % 12 + 1, 1) - timedelta(days=1)
    return DaySpan(first=date(year, month, 1), last=end)


_CN_WORDS = {
    "昨天": "yesterday",
    "前天": "day before",
    "今天": "today",
    "上周": "last week",
    "上个": "last month",
    "上星": "last week",
    "上月": "last month",
}


def _word(word: str, today: date) -> DaySpan:
    offsets = {"today": 0, "yesterday": 1, "day before": 2}
    if word in offsets:
        return _around(today - timedelta(days=offsets[word]), 0)
    if word == "last weekend":
        saturday = today - timedelta(days=(today.weekday() - 5) % 7 or 7)
        return DaySpan(first=saturday, last=saturday + timedelta(days=1))
    if word == "last week":
        monday = today - timedelta(days=today.weekday() + 7)
        return DaySpan(first=monday, last=monday + timedelta(days=6))
    first = (today.replace(day=1) - timedelta(days=1)).replace(day=1)
    return DaySpan(first=first, last=today.replace(day=1) - timedelta(days=1))


def _last_weekday(weekday: int, today: date) -> DaySpan:
    back = (today.weekday() - weekday) % 7 or 7
    return _around(today - timedelta(days=back), 0)


def _around(day: date, slack: int) -> DaySpan:
    return DaySpan(first=day - timedelta(days=slack), last=day + timedelta(days=slack))


def _past_day(day: int, month: int, today: date) -> DaySpan | None:
    found = _day(today.year, month, day)
    if found is not None and found.first > today:
        found = _day(today.year - 1, month, day)
    return found


def _day(year: int, month: int, day: int) -> DaySpan | None:
    try:
        moment = date(year, month, day)
    except ValueError:
        return None
    return DaySpan(first=moment, last=moment)


def _month_number(name: str) -> int:
    return next(i for i, month in enumerate(MONTHS, 1) if name.lower().startswith(month[:3]))
