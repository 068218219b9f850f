"""Attribution: the sources of the lines one dream run adds or rewrites, noted in the sidecar.

Called by the dream runner with the run's batch of entries and the texts it is about to
publish, under the dream lock and *before* any durable file changes (a crash after this step
leaves records for lines not yet written, which are inert: records are looked up by a line's
current text; recovery then publishes those very lines).

Rules, per changed file (model and model-free runs alike, since both go through the diff):
- A line that is new in the file is *added*. If it edits or supersedes a line the run removed
  (the same text moved; else the most alike removed line, ``likeness`` >= ``EDIT_LIKENESS``,
  the same file preferred; else the removed line its "before: ..." names, as in "Commutes
  by train (since ...; before: cycling)"; else the line it replaced in place), it carries
  that line's sources, plus the entries of the batch that support it (``similarity.pick``).
  A line with no such predecessor (or one no dream wrote) cites the supporting entries, or
  the whole batch when none stands out.
- For each cited entry with a session and a message range, the messages of that range that
  support the line are cited too (the user's messages of the range, up to ``MAX_MESSAGES``,
  when none stands out), with their index, role and time.
- Unchanged lines keep their records; removed lines keep theirs too (see ``provenance_file``).

Cost: every entry, message and removed line is tokenised once per run; pairing edits is
quadratic in the lines changed, so it is done only up to ``MAX_COMPARED`` removed lines (an
unchanged line moved between files is still paired, by its text), and a wholesale rewrite of
more than ``MAX_LINES`` lines is not attributed at all (with a warning): durable files are
small, and a run that rewrites thousands of lines has no line-level story to tell.
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from reverie.core.entries import HistoryEntry
from reverie.core.messages import Message
from reverie.core.provenance import EntrySource, MessageRef, Provenance, line_key
from reverie.memory.provenance.lines import content_lines
from reverie.memory.provenance.similarity import content_tokens, likeness, pick_tokens

EDIT_LIKENESS = 0.3
"""How alike a new line and a removed line must be for the new one to be an edit of the old."""
MAX_MESSAGES = 16
"""At most this many messages are cited per entry (when none stands out: the user's)."""
MAX_LINES = 2_000
"""A run adding more lines than this (a wholesale rewrite) has none of them attributed."""
MAX_COMPARED = 500
"""Edits are paired by likeness only when the run removed at most this many lines."""

logger = logging.getLogger(__name__)

_BEFORE = re.compile(r"\bbefore:\s*([^);]+)", re.IGNORECASE)

MessagesOf = Callable[[str], Sequence[Message]]
"""A session's messages, by key (the caller caches loads)."""


def attribute(
    provenance: Provenance,
    *,
    old: Mapping[str, str],
    new: Mapping[str, str],
    entries: Sequence[HistoryEntry],
    messages_of: MessagesOf,
    at: datetime,
) -> int:
    """Note in ``provenance`` the sources of every line ``new`` adds over ``old``.

    Args:
        provenance: the sidecar's records (changed in place).
        old: path -> text before the run, for every changed file.
        new: path -> text the run publishes.
        entries: the run's batch.
        messages_of: loads a session's messages.
        at: when the run happened.

    Returns:
        How many lines were noted (0 when the run added more than ``MAX_LINES``).
    """
    added = _changed_lines(new, old)
    if len(added) > MAX_LINES:
        logger.warning(
            "dream added %d lines (over %d); their provenance is not recorded",
            len(added),
            MAX_LINES,
        )
        return 0
    run = _Run(provenance, _changed_lines(old, new), entries, messages_of)
    run.pair_in_place(old, new)
    for path, line in added:
        carried = run.carried(path, line)
        sources = run.sources(line, fallback=not carried)
        provenance.note(path, line, (*(carried or ()), *sources), at)
    return len(added)


def _changed_lines(texts: Mapping[str, str], others: Mapping[str, str]) -> list[tuple[str, str]]:
    """(path, line) of every line of ``texts`` whose file in ``others`` lacks it."""
    found = []
    for path, text in texts.items():
        elsewhere = {line_key(t) for _n, t in content_lines(others.get(path, ""))}
        found += [(path, t) for _n, t in content_lines(text) if line_key(t) not in elsewhere]
    return found


class _Run:
    """One run's batch and removed lines, each tokenised once."""

    def __init__(
        self,
        provenance: Provenance,
        removed: list[tuple[str, str]],
        entries: Sequence[HistoryEntry],
        messages_of: MessagesOf,
    ) -> None:
        self._provenance = provenance
        self._removed = [(path, text, content_tokens(text)) for path, text in removed]
        self._by_key = {line_key(text): (path, text) for path, text in removed}
        self._entries = entries
        self._entry_tokens = [content_tokens(entry.content) for entry in entries]
        self._messages_of = messages_of
        self._message_tokens: dict[tuple[str, int], frozenset[str]] = {}
        self._in_place: dict[tuple[str, str], tuple[str, str]] = {}

    def pair_in_place(self, old: Mapping[str, str], new: Mapping[str, str]) -> None:
        """Pair lines a run replaced where they stood (same file, a block of the same size)."""
        for path, text in new.items():
            before = [t for _n, t in content_lines(old.get(path, ""))]
            after = [t for _n, t in content_lines(text)]
            if len(before) * len(after) > MAX_COMPARED**2:
                continue
            matcher = difflib.SequenceMatcher(
                a=[line_key(t) for t in before], b=[line_key(t) for t in after], autojunk=False
            )
            for op, i1, i2, j1, j2 in matcher.get_opcodes():
                if op == "replace" and i2 - i1 == j2 - j1:
                    for a, b in zip(before[i1:i2], after[j1:j2], strict=True):
                        self._in_place[(path, line_key(b))] = (path, a)

    def carried(self, path: str, line: str) -> tuple[EntrySource, ...] | None:
        """The sources of the removed line ``line`` edits, or None when it edits none.

        Tried in turn: the same text elsewhere (a move), the most alike removed line, the
        removed line its "before: ..." names, the line it replaced in place.
        """
        best = self._by_key.get(line_key(line))
        if best is None and len(self._removed) <= MAX_COMPARED:
            best = self._most_alike(path, content_tokens(line))
        best = best or self._named_before(line) or self._in_place.get((path, line_key(line)))
        if best is None:
            return None
        record = self._provenance.get(*best)
        return () if record is None else record.sources

    def _most_alike(self, path: str, tokens: frozenset[str]) -> tuple[str, str] | None:
        best, best_score = None, EDIT_LIKENESS
        for file, text, other in self._removed:
            score = likeness(tokens, other) + (0.01 if file == path else 0.0)
            if score >= best_score:
                best, best_score = (file, text), score
        return best

    def _named_before(self, line: str) -> tuple[str, str] | None:
        match = _BEFORE.search(line)
        if match is None:
            return None
        named = {token[:4] for token in content_tokens(match.group(1))}
        for file, text, other in self._removed:
            if named and named <= {token[:4] for token in other}:
                return (file, text)
        return None

    def sources(self, line: str, *, fallback: bool) -> list[EntrySource]:
        """The entries of the batch that support ``line`` (all of them, with ``fallback``)."""
        tokens = content_tokens(line)
        chosen = pick_tokens(tokens, self._entry_tokens)
        if not chosen and fallback:
            chosen = list(range(len(self._entries)))
        return [self._source(tokens, self._entries[i]) for i in chosen]

    def _source(self, tokens: frozenset[str], entry: HistoryEntry) -> EntrySource:
        refs: tuple[MessageRef, ...] = ()
        if entry.session_key is not None and entry.range is not None:
            key, (start, end) = entry.session_key, entry.range
            messages = list(self._messages_of(key))[start:end]
            said = [self._tokens(key, start + i, m) for i, m in enumerate(messages)]
            picked = pick_tokens(tokens, said) or [
                i for i, m in enumerate(messages) if m.role == "user"
            ]
            refs = tuple(
                MessageRef(index=start + i, role=messages[i].role, time=messages[i].timestamp)
                for i in picked[:MAX_MESSAGES]
            )
        return EntrySource(
            cursor=entry.cursor,
            session_key=entry.session_key,
            time=entry.time,
            kind=entry.kind,
            range=entry.range,
            messages=refs,
        )

    def _tokens(self, key: str, index: int, message: Message) -> frozenset[str]:
        if (key, index) not in self._message_tokens:
            self._message_tokens[(key, index)] = content_tokens(message.text)
        return self._message_tokens[(key, index)]


def session_loader(load: Callable[[str], Sequence[Message]]) -> MessagesOf:
    """Wrap ``load`` so each session is read once per run."""
    cache: dict[str, Sequence[Message]] = {}

    def messages_of(key: str) -> Sequence[Message]:
        if key not in cache:
            cache[key] = load(key)
        return cache[key]

    return messages_of
