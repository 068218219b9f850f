"""Turns of a session, where it may be cut, and the replay view prompts are built from.

A *turn* is a user message and everything after it up to the next user message. A *cut* at
index ``c`` splits ``messages[:c]`` from ``messages[c:]``. A cut is *safe* when no assistant
tool call before it has its result at or after it, so a cut never separates an assistant's
tool calls from their results. A *turn boundary* is a safe cut at a user message.

Everything here is pure (no I/O) and linear in the session length.

Invariants of ``replay``: the view starts at a user message whenever the session has one at
or after the computed start; it never contains a tool result whose call is not in the view;
it never holds a tool call without the results the session has for it; with ``max_tokens``
it keeps whole turns from the end and always at least the last turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from reverie.core.token_estimate import EstimatingCounter, TokenCounter

if TYPE_CHECKING:
    from reverie.core.messages import Message
    from reverie.core.session import Session

_DEFAULT_COUNTER = EstimatingCounter()


def unsafe_cuts(messages: Sequence[Message]) -> list[bool]:
    """Return, for every cut index ``0..len(messages)``, whether it splits a call from its result.

    A tool result belongs to the latest earlier assistant message that made a call with its
    ``tool_call_id``; a result with no such call (an orphan) constrains nothing.
    """
    callers: dict[str, int] = {}
    depth = [0] * (len(messages) + 2)
    for index, message in enumerate(messages):
        if message.role == "assistant":
            for call in message.tool_calls:
                callers[call.id] = index
        elif message.role == "tool" and message.tool_call_id in callers:
            # Cuts in (caller, index] would separate the call from this result.
            depth[callers[message.tool_call_id] + 1] += 1
            depth[index + 1] -= 1
    unsafe: list[bool] = []
    running = 0
    for cut in range(len(messages) + 1):
        running += depth[cut]
        unsafe.append(running > 0)
    return unsafe


def turn_boundaries(messages: Sequence[Message]) -> tuple[int, ...]:
    """Return the indices where a turn starts and a cut is safe, in order."""
    unsafe = unsafe_cuts(messages)
    return tuple(
        index
        for index, message in enumerate(messages)
        if message.role == "user" and not unsafe[index]
    )


def pick_cut(
    session: Session, tokens_to_remove: int, *, counter: TokenCounter = _DEFAULT_COUNTER
) -> int | None:
    """Return the turn boundary where compaction should cut.

    That is the earliest turn boundary after the mark that removes at least
    ``tokens_to_remove`` tokens, else the furthest turn boundary after the mark.

    Returns:
        A turn boundary ``c`` (compaction summarises ``messages[mark:c]``), or None when no
        turn boundary lies after the mark (the rest is one turn; see ``last_safe_cut``).
    """
    messages = session.messages
    mark = session.compacted_upto
    boundaries = set(turn_boundaries(messages))
    removed = 0
    best: int | None = None
    for index in range(mark, len(messages)):
        if index > mark and index in boundaries:
            best = index
            if removed >= tokens_to_remove:
                return index
        removed += counter.message(messages[index])
    return best


def last_safe_cut(
    session: Session,
    max_tokens: int,
    *,
    start: int | None = None,
    counter: TokenCounter = _DEFAULT_COUNTER,
) -> int | None:
    """Return the furthest safe cut after ``start`` whose piece fits in ``max_tokens``.

    This is how compaction makes progress inside one turn too large to summarise whole: it
    summarises ``messages[start:c]`` and moves the mark to ``c``, never splitting an
    assistant's tool calls from their results.

    Args:
        session: the session.
        max_tokens: the most tokens the piece ``messages[start:c]`` may cost.
        start: where the piece begins (defaults to the compaction mark).
        counter: how tokens are counted.

    Returns:
        The cut index, or None when nothing follows ``start``. When even the smallest safe
        piece is over ``max_tokens`` (one indivisible call-and-results group), that smallest
        piece's cut is returned so compaction still advances; the caller must cap its text.
    """
    messages = session.messages
    begin = session.compacted_upto if start is None else max(0, min(start, len(messages)))
    unsafe = unsafe_cuts(messages)
    tokens = 0
    best: int | None = None
    for cut in range(begin + 1, len(messages) + 1):
        tokens += counter.message(messages[cut - 1])
        if unsafe[cut]:
            continue
        if tokens > max_tokens:
            return best if best is not None else cut
        best = cut
    return best


def replay(
    session: Session,
    *,
    max_tokens: int | None = None,
    counter: TokenCounter = _DEFAULT_COUNTER,
    suffix: int = 8,
) -> tuple[Message, ...]:
    """Return the messages a prompt should replay, oldest first.

    The view runs from ``suffix`` messages before the compaction mark, extended back to the
    start of that turn, to the end. It starts at a user message (leading messages with no
    user message before them are dropped) and drops tool results whose call is not in it.

    Args:
        session: the session.
        max_tokens: when given, keep only whole turns from the end that fit, but always at
            least the last turn (even when it alone is larger).
        counter: how tokens are counted for ``max_tokens``.
        suffix: how many messages before the mark to keep for continuity.
    """
    messages = session.messages
    boundaries = turn_boundaries(messages)
    start = _view_start(boundaries, max(0, session.compacted_upto - max(0, suffix)))
    kept = _without_orphans(messages, start)
    if max_tokens is not None:
        kept = _fit_turns(messages, kept, frozenset(boundaries), max_tokens, counter)
    return tuple(messages[index] for index in kept)


def pending_view(session: Session) -> tuple[Message, ...]:
    """Return the smallest honest view: every message after the mark, nothing before it.

    Tool results whose call was compacted away are dropped (their call is summarised in
    history). Prompt assembly falls back to this view when the ``replay`` suffix does not fit
    the budget: pending messages are not in history yet, so they are never dropped.
    """
    messages = session.messages
    return tuple(messages[index] for index in _without_orphans(messages, session.compacted_upto))


def _view_start(boundaries: Sequence[int], floor: int) -> int:
    """The last turn boundary at or before ``floor``, else the first after it, else ``floor``."""
    before = [b for b in boundaries if b <= floor]
    if before:
        return before[-1]
    after = [b for b in boundaries if b > floor]
    return after[0] if after else floor


def _without_orphans(messages: Sequence[Message], start: int) -> list[int]:
    """Indices from ``start`` on, minus tool results whose call is not earlier in the view."""
    called: set[str] = set()
    kept: list[int] = []
    for index in range(start, len(messages)):
        message = messages[index]
        if message.role == "assistant":
            called.update(call.id for call in message.tool_calls)
        elif message.role == "tool" and message.tool_call_id not in called:
            continue
        kept.append(index)
    return kept


def _fit_turns(
    messages: Sequence[Message],
    kept: list[int],
    boundaries: frozenset[int],
    max_tokens: int,
    counter: TokenCounter,
) -> list[int]:
    """Keep whole turns of ``kept`` from the end while they fit; always the last turn."""
    turns: list[list[int]] = [[]]
    for index in kept:
        if index in boundaries and turns[-1]:
            turns.append([])
        turns[-1].append(index)
    chosen: list[list[int]] = []
    total = 0
    for turn in reversed(turns):
        cost = sum(counter.message(messages[index]) for index in turn)
        if chosen and total + cost > max_tokens:
            break
        chosen.append(turn)
        total += cost
    return [index for turn in reversed(chosen) for index in turn]
