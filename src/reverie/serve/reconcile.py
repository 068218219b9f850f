"""Which of a client's messages are new: the reconciliation rule of the memory proxy.

Most OpenAI-API clients resend the whole conversation with every request; some send only the
new message; some share one session between several chats (one static header), resend a
request the proxy already answered (the SDKs' own retries), regenerate an answer, or
serialise the same message differently each time. The proxy records every message a client
sends once (DESIGN.md invariant 14), so it compares what the client sent with what the
session already holds.

**Meaning.** Two messages are the same when they mean the same: role, text as reverie stores
it (``reverie.core.inbound.clean_text``: a lone surrogate is U+FFFD on both sides; surrounding
whitespace ignored), non-text content parts (canonical JSON), tool call id, and tool calls by
id, name and canonical arguments (parsed JSON with sorted keys, no spaces, and ``2.0``
written ``2``; the raw text, stripped, when it is not JSON). Timestamps, ``name`` and extra
fields are ignored: clients drop or change them. A session message that ``forget``
tombstoned (``FORGOTTEN``: role, tool call ids and names kept, nothing of the text) stands
for any message with that role and those ids in rule 1 below, so a client that resends a
forgotten message finds it known, and neither its text nor any trace of it needs to be kept
to recognise it. (The price: a client that brings an older history into a session whose
forgotten messages line up with it, role for role, is taken to resend them.)

**The rule.** Let ``held`` be the session's messages and ``sent`` the client's conversation
(system and developer messages left out of both: they are instructions, never recorded).

1. *Known prefix.* The longest prefix of ``sent`` found in ``held`` in order, other messages
   allowed between (another chat on the same session, regenerated answers), counts up to
   its last answer or tool message: an assistant or tool message of the session is evidence
   that the client holds this conversation, a lone user message ("ok") is not.
2. *Unanswered user messages.* Of the user messages that follow, the first ones are known
   too when the session ends with them (recorded for an exchange that then failed, or whose
   answer could not be recorded); the others are new, even when equal messages exist
   earlier.
3. *Retries.* A request the client marks as a retry (``retried_at``: the SDKs'
   ``x-stainless-retry-count`` header of 1 or more) whose remaining user messages are in the
   session after the known prefix (the newest such place; without a known prefix, only as
   the session's last exchange), followed by an answer recorded within ``RETRY_WINDOW``, was
   answered: nothing is new and that answer is returned (``Reconciled.answered``), to be
   given again. A retry whose first attempt never completed finds nothing recorded and is
   new as any request, unless the same question was answered there within the window: no
   request can tell those two apart, and the answer is given again.

What follows from it:
- a whole-history client adds only what it added since the last answer;
- a client that sends only the new message: it is new (rule 2), so is a repeated "yes";
- the first request of a session: everything sent is new (a client's history comes in once);
- two chats on one session: each chat's history is found among the other's messages;
- regenerate (the client resends the conversation up to a question already answered): the
  question and the new answer are recorded, +2 (the session is append-only: the earlier
  answer stays, the question appears twice); +1 when the answer followed a tool result (it
  has an id: known, so only the new answer is recorded); the next whole-history request,
  carrying the new answer, is found past the old one;
- an answer that never completed (upstream error, client gone mid-stream) was not recorded,
  so the client's retry finds its question new;
- a client that edits an earlier message: from the edit on, what it sends is new.

This module is pure: no I/O, no engine; the only state it reads is the session's messages.
It remembers the meaning of the session messages it compared (``_HELD``, by identity: a
session store hands out the same message objects while a session is unchanged), so a request
does not redact and canonicalise the whole session again; a forgotten entry is only work
redone.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from reverie.core.inbound import clean_text, redact_message, valid_json
from reverie.core.messages import JSONValue, Message
from reverie.core.tombstones import FORGOTTEN
from reverie.errors import InputError

INSTRUCTION_ROLES = ("system", "developer")
"""Roles that carry instructions for this request only: forwarded, never recorded."""

RETRY_WINDOW = timedelta(minutes=30)
"""How recent an answer must be for a retry to find it: the SDKs retry twice by default, each
after a timeout of up to ten minutes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Reconciled:
    """The client's conversation split into what the session holds and what is new.

    ``answered`` is the recorded answer of a retried request (rule 3); ``new`` is then empty.
    """

    known: int
    new: tuple[Message, ...]
    answered: Message | None = None


@dataclass(frozen=True, slots=True)
class Meaning:
    """What a message says, as compared: ``shape`` (role and ids) and everything else."""

    shape: tuple[str, str | None, tuple[tuple[str, str], ...]]
    said: tuple[str, tuple[str, ...], tuple[str, ...]]


def meaning(message: Message) -> Meaning:
    """The comparable form of ``message`` (see "Meaning" above).

    Compared redacted: a session keeps its messages redacted, and a client resends them as
    it sent them, secrets and all.
    """
    message = redact_message(message)
    calls = message.tool_calls
    shape = (
        message.role,
        None if message.tool_call_id is None else clean_text(message.tool_call_id),
        tuple((clean_text(c.id), clean_text(c.name)) for c in calls),
    )
    return Meaning(
        shape=shape,
        said=(
            clean_text(message.text).strip(),
            _parts(message),
            tuple(canonical_arguments(c.arguments) for c in calls),
        ),
    )


def canonical_arguments(arguments: str) -> str:
    """Tool-call arguments as compared: canonical JSON, else the stripped text."""
    text = clean_text(arguments).strip()
    try:
        parsed: JSONValue = json.loads(text, parse_float=_number)
    except (ValueError, RecursionError):
        return text
    return _canonical(parsed)


def _number(text: str) -> float | int:
    """A JSON number as compared: ``2.0`` and ``2`` are one number (JavaScript writes 2)."""
    value = float(text)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def is_tombstone(message: Message) -> bool:
    """True for a session message ``forget`` replaced (``reverie.core.tombstones``)."""
    return message.content == FORGOTTEN and all(c.arguments == "{}" for c in message.tool_calls)


@dataclass(frozen=True, slots=True)
class _Held:
    """A session message as matched: its meaning, or only its shape for a tombstone."""

    message: Message
    meaning: Meaning
    forgotten: bool

    @classmethod
    def of(cls, message: Message) -> _Held:
        kept = _HELD.get(id(message))
        if kept is not None and kept.message is message:
            return kept
        held = cls(message, meaning(message), is_tombstone(message))
        if len(_HELD) >= _HELD_KEPT:
            _HELD.clear()
        _HELD[id(message)] = held  # holds the message, so its id cannot be reused meanwhile
        return held

    def fits(self, sent: Meaning, *, forgotten: bool = True) -> bool:
        """True when ``sent`` is this message (a tombstone only when ``forgotten``)."""
        if self.forgotten:
            return forgotten and self.meaning.shape == sent.shape
        return self.meaning == sent


_HELD: dict[int, _Held] = {}
_HELD_KEPT = 50_000
"""How many session messages' meanings are remembered (then forgotten all at once)."""


def reconcile(
    held: Sequence[Message], sent: Sequence[Message], *, retried_at: datetime | None = None
) -> Reconciled:
    """Apply the rule above to the session's ``held`` messages and the client's ``sent``."""
    past = [_Held.of(m) for m in held if m.role not in INSTRUCTION_ROLES]
    said = [meaning(m) for m in sent]
    known, end = _known_prefix(past, said)
    run = _user_run(said, known)
    ending = _ending(past, said[known : known + run], end)
    if ending:
        return Reconciled(known=known + ending, new=tuple(sent[known + ending :]))
    if retried_at is not None and said and known + run == len(said):
        answer = _answer(past, said[known:], end, anchored=known > 0, at=retried_at)
        if answer is not None:
            return Reconciled(known=len(sent), new=(), answered=answer)
    return Reconciled(known=known, new=tuple(sent[known:]))


def _known_prefix(past: Sequence[_Held], said: Sequence[Meaning]) -> tuple[int, int]:
    """Rule 1: how many of ``said`` are known, and where in ``past`` their match ends.

    Greedy in-order matching finds the longest prefix that is a subsequence of ``past``
    (taking each message at its first fit never shortens what can follow). The prefix is then
    cut after its last assistant or tool message.
    """
    known, end, at = 0, 0, 0
    for count, wanted in enumerate(said, start=1):
        at = _find(past, wanted, at)
        if at < 0:
            break
        at += 1
        if wanted.shape[0] != "user":
            known, end = count, at
    return known, end


def _find(past: Sequence[_Held], wanted: Meaning, start: int) -> int:
    for index in range(start, len(past)):
        if past[index].fits(wanted):
            return index
    return -1


def _user_run(said: Sequence[Meaning], start: int) -> int:
    """How many user messages follow position ``start``."""
    count = 0
    while start + count < len(said) and said[start + count].shape[0] == "user":
        count += 1
    return count


def _ending(past: Sequence[_Held], run: Sequence[Meaning], end: int) -> int:
    """Rule 2: the longest start of ``run`` the session ends with, after position ``end``.

    One pass of Knuth-Morris-Pratt over the session's last ``len(run)`` messages: linear in
    both, where trying every length would be quadratic (a request of 200,000 new messages).
    """
    if not run:
        return 0
    fail = _failure(run)
    state = 0
    for held in past[max(end, len(past) - len(run)) :]:
        state = _step(fail, run, state, held)
    return state


def _failure(pattern: Sequence[Meaning]) -> list[int]:
    """KMP's table: for each prefix, the longest proper prefix that is also its suffix."""
    fail = [0] * len(pattern)
    state = 0
    for index in range(1, len(pattern)):
        while state and pattern[index] != pattern[state]:
            state = fail[state - 1]
        if pattern[index] == pattern[state]:
            state += 1
        fail[index] = state
    return fail


def _step(fail: Sequence[int], pattern: Sequence[Meaning], state: int, held: _Held) -> int:
    """KMP's next state after ``held`` (a tombstone matches nothing: rules 2 and 3)."""
    while state and (state == len(pattern) or not held.fits(pattern[state], forgotten=False)):
        state = fail[state - 1]
    return state + 1 if held.fits(pattern[state], forgotten=False) else state


def _answer(
    past: Sequence[_Held], rest: Sequence[Meaning], end: int, *, anchored: bool, at: datetime
) -> Message | None:
    """Rule 3: the recent answer recorded right after ``rest``, searched from the newest.

    Without a known prefix to anchor it, only the session's last exchange is considered.
    The places ``rest`` occurs are found in one KMP pass (linear, see ``_ending``).
    """
    last = len(past) - len(rest) - 1
    low = end if anchored else last
    if last < 0:
        return None
    starts = list(range(max(low, 0), last + 1)) if not rest else _places(past, rest, low, last)
    for start in reversed(starts):
        answer = past[start + len(rest)].message
        if answer.role == "assistant" and _recent(answer, at):
            return answer
    return None


def _places(past: Sequence[_Held], rest: Sequence[Meaning], low: int, last: int) -> list[int]:
    """Where ``rest`` starts in ``past``, from ``low`` to ``last``, in one KMP pass."""
    fail = _failure(rest)
    state, starts = 0, []
    for index in range(max(low, 0), last + len(rest)):
        state = _step(fail, rest, state, past[index])
        if state == len(rest):
            starts.append(index - len(rest) + 1)
    return starts


def _recent(message: Message, at: datetime) -> bool:
    stamp = message.timestamp
    return stamp is not None and abs(at - stamp) <= RETRY_WINDOW


def _parts(message: Message) -> tuple[str, ...]:
    """The content parts that are not text, as canonical JSON (text is compared as text)."""
    if not isinstance(message.content, tuple):
        return ()
    found = []
    for part in message.content:
        if part.get("type") != "text":
            try:
                cleaned, _count = valid_json(dict(part), where="a content part")
            except InputError:  # refused when recorded; here it only has to compare
                cleaned = repr(part)
            found.append(_canonical(cleaned))
    return tuple(found)


def _canonical(value: JSONValue) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
