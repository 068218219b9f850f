"""The durable files within their share of the prompt: whole when they fit, else chosen lines.

``fit_durable(files, query, budget, count)`` returns one prompt section per durable file
(SOUL.md, USER.md, memory/MEMORY.md, in that order). When every file fits ``budget`` tokens
whole, each section is the file's text unchanged (a large window sends them whole, and the
prompt cache stays warm). Otherwise lines are chosen, in this order, while they fit:

1. SOUL.md's lines, in file order: the rules of how to behave always come first;
2. the identity lines of USER.md, in file order: who the user is and how to speak to them
   (their name or what to call them, pronouns, where they live or their time zone, the
   language they speak, how they prefer to be answered; ``IDENTITY``): the lines every answer
   may depend on, whatever the message is about; they take at most half of the share;
3. every other line of USER.md and MEMORY.md, ranked against the new message by the same
   lexical ranking recall uses (BM25 over the lines, then ``ranking.rank``: the share of the
   message's terms held, its key terms); lines that match nothing follow, newest (lowest in
   the file) first.

A chosen line is shown under the nearest heading above it, in file order, and a section that
leaves lines out ends with a note saying how many more are remembered and how to reach them
(reading the file, or ``search_memory`` on the conversations they were curated from). No
line is ever dropped from a file: only from the prompt. Headings and blank lines are not
counted as lines. Token counts are the caller's ``count``; the result never exceeds
``budget`` by that count. This module does no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reverie.core.hits import Candidate
from reverie.core.words import prefix_stem
from reverie.memory.recall.ranking import RecallOptions, Signals, rank
from reverie.memory.recall.terms import QueryTerms

Count = Callable[[str], int]

IDENTITY = re.compile(
    r"\b(?:name[ds]?|call(?:ed)? (?:me|them|him|her)|goes by|pronouns?|lives?|living|based"
    r"|moved|(?:is|am|'m|are|comes?) from|home ?town|time ?zone|language|speaks?|native"
    r"|prefers?|preferences?|preferred|answer|reply|address)\b"
    r"|名字|叫我|住在|来自|时区|语言|说.{0,4}语|喜欢.{0,6}(?:回答|回复)",
    re.IGNORECASE,
)
"""What makes a USER.md line an identity line (always carried while it fits)."""

NOTE = "(… {count} more {lines} of {path} remembered: read the file or search memory.)"
_RANKING = RecallOptions(dedup=False, date_boost=0, present_boost=0, expand_boost=0)


@dataclass(frozen=True, slots=True, kw_only=True)
class DurableSection:
    """One durable file as the prompt carries it.

    Attributes:
        name: the file's name (``SOUL``, ``USER``, ``MEMORY``).
        text: the section text (heading, the lines shown, the note when some are left out).
        shown: lines of the file the section carries.
        left_out: lines of the file it leaves out (0: the whole file).
    """

    name: str
    text: str
    shown: int
    left_out: int


@dataclass(frozen=True, slots=True, kw_only=True)
class _Line:
    file: int
    position: int
    text: str
    heading: int | None  # position of the nearest heading above it


@dataclass(frozen=True, slots=True, kw_only=True)
class DurableFile:
    """A durable file to fit: its name, its path in the workspace, its text."""

    name: str
    path: str
    text: str

    @property
    def whole(self) -> str:
        """The section carrying the whole file."""
        return f"## {self.path}\n\n{self.text.strip()}"


def fit_durable(
    files: Sequence[DurableFile], query: str, budget: int | None, count: Count
) -> list[DurableSection]:
    """The sections for ``files`` within ``budget`` tokens (None: whole), chosen for ``query``."""
    whole = [
        DurableSection(name=f.name, text=f.whole, shown=len(_lines(f, 0)), left_out=0)
        for f in files
    ]
    if budget is None or sum(count(s.text) + 2 for s in whole) <= budget:
        return whole
    lines = [_lines(f, number) for number, f in enumerate(files)]
    order = _priority(files, lines, query, budget, count)
    chosen: set[tuple[int, int]] = set()
    spent = sum(count(_heading(f)) + 2 for f in files)  # notes: the loop below makes room
    for line in order:
        cost = count(line.text) + 1
        if spent + cost <= budget:
            chosen.add((line.file, line.position))
            spent += cost
    sections = _render(files, lines, chosen)
    while sum(count(s.text) + 2 for s in sections) > budget and chosen:
        chosen.discard(_last_chosen(order, chosen))
        sections = _render(files, lines, chosen)
    return [s for s in sections if s.text]


def _priority(
    files: Sequence[DurableFile],
    lines: Sequence[list[_Line]],
    query: str,
    budget: int,
    count: Count,
) -> list[_Line]:
    """Every line, in the order it earns its place: SOUL, identity (half the share), relevance."""
    soul = [
        line for f, group in zip(files, lines, strict=True) if f.name == "SOUL" for line in group
    ]
    rest = [
        line for f, group in zip(files, lines, strict=True) if f.name != "SOUL" for line in group
    ]
    identity: list[_Line] = []
    room = budget // 2
    for line in rest:
        if files[line.file].name == "USER" and IDENTITY.search(line.text):
            room -= count(line.text) + 1
            if room < 0:
                break
            identity.append(line)
    taken = {(line.file, line.position) for line in identity}
    others = [line for line in rest if (line.file, line.position) not in taken]
    return [*soul, *identity, *_rank_lines(others, query)]


def _rank_lines(lines: Sequence[_Line], query: str) -> list[_Line]:
    """``lines`` best first for ``query`` (recall's lexical ranking), then the rest newest first."""
    terms = QueryTerms.of(query)
    searched = terms.searched
    scores = _bm25([line.text for line in lines], searched)
    matched = [
        Candidate(
            kind="history",
            score=score,
            text=line.text,
            timestamp=None,
            session_key=None,
            cursor=index,
            message_index=None,
            role=None,
        )
        for index, (line, score) in enumerate(zip(lines, scores, strict=True))
        if score > 0
    ]
    signals = Signals(terms=terms.terms, keys=terms.keys, names=terms.names)
    best = [lines[r.candidate.cursor or 0] for r in rank(matched, signals, _RANKING)]
    seen = {id(line) for line in best}
    unmatched = [line for line in lines if id(line) not in seen]
    unmatched.sort(key=lambda line: (-line.file, -line.position))
    return [*best, *unmatched]


def _bm25(
    texts: Sequence[str], terms: Sequence[str], k1: float = 1.2, b: float = 0.75
) -> list[float]:
    """BM25 of each text for ``terms``: a word holds a term it starts with (or its stem)."""
    if not texts or not terms:
        return [0.0] * len(texts)
    words = [re.findall(r"[^\W_]+", text.lower()) for text in texts]
    lowered = [text.lower() for text in texts]
    mean = max(1.0, sum(len(w) for w in words) / len(words))
    scores = [0.0] * len(texts)
    for term in terms:
        tf = [_tf(term, w, low) for w, low in zip(words, lowered, strict=True)]
        held = sum(1 for n in tf if n)
        if not held:
            continue
        idf = math.log(1 + (len(texts) - held + 0.5) / (held + 0.5))
        for i, n in enumerate(tf):
            if n:
                norm = n + k1 * (1 - b + b * len(words[i]) / mean)
                scores[i] += idf * n * (k1 + 1) / norm
    return scores


def _tf(term: str, words: Sequence[str], lower: str) -> int:
    if not term.isascii():
        return lower.count(term)
    root = prefix_stem(term)
    return sum(1 for word in words if word.startswith(root))


def _lines(file: DurableFile, number: int) -> list[_Line]:
    found: list[_Line] = []
    heading: int | None = None
    for position, raw in enumerate(file.text.strip().splitlines()):
        if raw.lstrip().startswith("#"):
            heading = position
        elif raw.strip():
            found.append(_Line(file=number, position=position, text=raw.rstrip(), heading=heading))
    return found


def _render(
    files: Sequence[DurableFile], lines: Sequence[list[_Line]], chosen: set[tuple[int, int]]
) -> list[DurableSection]:
    sections: list[DurableSection] = []
    for number, (f, group) in enumerate(zip(files, lines, strict=True)):
        source = f.text.strip().splitlines()
        shown = [line for line in group if (number, line.position) in chosen]
        left = len(group) - len(shown)
        if not shown:
            sections.append(DurableSection(name=f.name, text="", shown=0, left_out=left))
            continue
        body: list[str] = []
        last_heading: int | None = None
        for line in shown:
            if line.heading is not None and line.heading != last_heading:
                body.append(source[line.heading].rstrip())
                last_heading = line.heading
            body.append(line.text)
        if left:
            body.append(_note(f, left))
        text = f"{_heading(f)}\n\n" + "\n".join(body)
        sections.append(DurableSection(name=f.name, text=text, shown=len(shown), left_out=left))
    return sections


def _heading(file: DurableFile) -> str:
    return f"## {file.path}"


def _note(file: DurableFile, left: int) -> str:
    return NOTE.format(count=left, lines="line" if left == 1 else "lines", path=file.path)


def _last_chosen(order: Sequence[_Line], chosen: set[tuple[int, int]]) -> tuple[int, int]:
    for line in reversed(order):
        if (line.file, line.position) in chosen:
            return (line.file, line.position)
    raise AssertionError("chosen is not empty")


def summary_within(text: str, budget: int | None, count: Count) -> str:
    """``text`` (a session summary) cut to its first whole lines that fit ``budget`` tokens."""
    if budget is None or count(text) <= budget:
        return text
    note = "(… the rest of this summary is in history: search memory to reach it.)"
    kept: list[str] = []
    spent = count(note) + 1
    for line in text.splitlines():
        spent += count(line) + 1
        if spent > budget:
            break
        kept.append(line)
    while kept and count("\n".join([*kept, note])) > budget:
        kept.pop()
    return "\n".join([*kept, note]) if count(note) <= budget else ""
