"""Which of a client's messages are new: the reconciliation rule of the memory proxy.

Most OpenAI-API clients resend the whole conversation with every request; some send only the
new message. The proxy must record each message once, so it compares what the client sent
with what the session already holds.

The rule. Let ``held`` be the session's messages and ``sent`` the client's conversation
(system and developer messages left out of both: they are instructions, never recorded).
The longest prefix of ``sent`` that equals the last messages of ``held``, in order, is
already known; everything after it is new. Two messages are equal when their role, their
text (surrounding whitespace ignored), their tool calls (id, name, arguments) and their tool
call id are equal; timestamps and extra fields are ignored, since clients drop them.

What follows from it:
- a client that resends everything: only what it added since the last answer is new;
- a client that sends only the new message: the message is new (a new user message cannot
  equal the assistant answer the session ends with);
- the first request of a session: everything sent is new, so a client's existing history is
  brought into the session once;
- an answer that never completed (upstream error, client gone mid-stream) was not recorded,
  so the client's retry finds its question new again;
- a client that edits or regenerates earlier messages no longer matches the session's end:
  what it sends is recorded as new. The session is append-only, so nothing is lost or
  rewritten; the edited turn appears twice in the session.

This module is pure: no I/O, no engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reverie.messages import Message

INSTRUCTION_ROLES = ("system", "developer")
"""Roles that carry instructions for this request only: forwarded, never recorded."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Reconciled:
    """The client's conversation split into what the session holds and what is new."""

    known: int
    new: tuple[Message, ...]


def same(a: Message, b: Message) -> bool:
    """True when two messages say the same thing (role, text, tool calls, tool call id)."""
    return (
        a.role == b.role
        and a.text.strip() == b.text.strip()
        and a.tool_call_id == b.tool_call_id
        and [(c.id, c.name, c.arguments.strip()) for c in a.tool_calls]
        == [(c.id, c.name, c.arguments.strip()) for c in b.tool_calls]
    )


def reconcile(held: Sequence[Message], sent: Sequence[Message]) -> Reconciled:
    """Apply the rule above: the longest prefix of ``sent`` ending ``held`` is known."""
    held = [m for m in held if m.role not in INSTRUCTION_ROLES]
    if held:
        last = held[-1]
        for known in range(min(len(held), len(sent)), 0, -1):
            # Cheap test first: the candidate prefix must end with the session's last message.
            if same(sent[known - 1], last) and all(
                same(sent[i], held[len(held) - known + i]) for i in range(known - 1)
            ):
                return Reconciled(known=known, new=tuple(sent[known:]))
    return Reconciled(known=0, new=tuple(sent))
