"""Attribution: the sources of the lines one dream run adds or rewrites, noted in the sidecar.

Called by the dream runner with the run's batch of entries and the texts it is about to
publish, under the dream lock and *before* any durable file changes (a crash after this step
leaves records for lines not yet written, which are inert: records are looked up by a line's
current text; recovery then publishes those very lines).

Rules, per changed file (model and model-free runs alike, since both go through the diff):
- A line that is new in the file is *added*. If it looks like a line the run removed (an edit
  or a supersession: ``likeness`` >= ``EDIT_LIKENESS``, the same file preferred), it carries
  that line's sources, plus the entries of the batch that support it (``similarity.pick``).
  A line with no such predecessor (or one no dream wrote) cites the supporting entries, or
  the whole batch when none stands out.
- For each cited entry with a session and a message range, the messages of that range that
  support the line are cited too (all of the range, up to ``MAX_MESSAGES``, when none stands
  out), with their index, role and time.
- Unchanged lines keep their records; removed lines keep theirs too (see ``provenance_file``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from reverie.messages import Message
from reverie.provenance.lines import content_lines
from reverie.provenance.similarity import content_tokens, likeness, pick
from reverie.store.entries import HistoryEntry
from reverie.store.provenance_file import MessageRef, Provenance, SourceRef, line_key

EDIT_LIKENESS = 0.3
"""How alike a new line and a removed line must be for the new one to be an edit of the old."""
MAX_MESSAGES = 64
"""At most this many messages are cited per entry when none stands out."""

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
        How many lines were noted.
    """
    removed = _removed_lines(old, new)
    noted = 0
    for path, text in new.items():
        before = {line_key(t) for _n, t in content_lines(old.get(path, ""))}
        for _number, line in content_lines(text):
            if line_key(line) in before:
                continue
            carried = _carried(provenance, path, line, removed)
            sources = _sources(line, entries, messages_of, fallback=not carried)
            provenance.note(path, line, (*(carried or ()), *sources), at)
            noted += 1
    return noted


def _removed_lines(old: Mapping[str, str], new: Mapping[str, str]) -> list[tuple[str, str]]:
    removed = []
    for path, text in old.items():
        after = {line_key(t) for _n, t in content_lines(new.get(path, ""))}
        removed += [(path, t) for _n, t in content_lines(text) if line_key(t) not in after]
    return removed


def _carried(
    provenance: Provenance, path: str, line: str, removed: Sequence[tuple[str, str]]
) -> tuple[SourceRef, ...] | None:
    """The sources of the removed line ``line`` edits, or None when it edits none."""
    tokens = content_tokens(line)
    best, best_score = None, EDIT_LIKENESS
    for file, text in removed:
        score = likeness(tokens, content_tokens(text)) + (0.01 if file == path else 0.0)
        if score >= best_score:
            best, best_score = (file, text), score
    if best is None:
        return None
    record = provenance.get(*best)
    return () if record is None else record.sources


def _sources(
    line: str, entries: Sequence[HistoryEntry], messages_of: MessagesOf, *, fallback: bool
) -> list[SourceRef]:
    chosen = pick(line, [entry.content for entry in entries])
    if not chosen and fallback:
        chosen = list(range(len(entries)))
    return [_source(line, entries[i], messages_of) for i in chosen]


def _source(line: str, entry: HistoryEntry, messages_of: MessagesOf) -> SourceRef:
    refs: tuple[MessageRef, ...] = ()
    if entry.session_key is not None and entry.range is not None:
        start, end = entry.range
        messages = list(messages_of(entry.session_key))[start:end]
        picked = pick(line, [m.text for m in messages]) or list(range(len(messages)))
        refs = tuple(
            MessageRef(index=start + i, role=messages[i].role, time=messages[i].timestamp)
            for i in picked[:MAX_MESSAGES]
        )
    return SourceRef(
        cursor=entry.cursor,
        session_key=entry.session_key,
        time=entry.time,
        kind=entry.kind,
        range=entry.range,
        messages=refs,
    )


def session_loader(load: Callable[[str], Sequence[Message]]) -> MessagesOf:
    """Wrap ``load`` so each session is read once per run."""
    cache: dict[str, Sequence[Message]] = {}

    def messages_of(key: str) -> Sequence[Message]:
        if key not in cache:
            cache[key] = load(key)
        return cache[key]

    return messages_of
