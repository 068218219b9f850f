"""An agent's conversation through ``MemoryEngine``: record, prompt, remember, the built-in agent.

``record`` admits what any agent produced (``reverie.core.inbound``) and compacts when the next
prompt would not fit; ``prompt`` builds the in-budget prompt for the next model call in one
load and one assembly, compacting only when it is over budget; ``remember`` keeps a fact told on
purpose at once (record, compact, dream); ``agent`` wires the built-in agent of ``turn``. With
raw transcripts on (``engine.transcripts``), a session's own prompt reads what it really said.
The built-in agent is imported where it is made: a command that never chats starts without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Literal

from reverie.core.inbound import admit_all, check_session_key, clean_text
from reverie.core.messages import Message
from reverie.engine import jobs, lookup, transcripts
from reverie.engine.results import PromptResult, RecordResult, RememberResult
from reverie.errors import InputError
from reverie.llm.tokens import CalibratedCounter

if TYPE_CHECKING:
    from reverie.core.messages import JSONValue
    from reverie.core.session import Session
    from reverie.engine.parts import Parts
    from reverie.llm.provider import Provider, ToolSchema
    from reverie.memory.agent import ChatAgent
    from reverie.storage.ports import RawTranscriptsPort


def record(
    parts: Parts, session_key: str, messages: Iterable[Message | Mapping[str, JSONValue]]
) -> RecordResult:
    """Add messages produced by any agent, then compact if the next prompt would not fit.

    Text is stored as valid UTF-8 (``RecordResult.replaced`` counts lone surrogates replaced);
    a message that cannot be stored (too large, too deep, a naive timestamp) raises
    ``InputError`` before anything is written (see ``reverie.core.inbound``). With raw
    transcripts on, the session keeps the redacted form and the raw one is kept beside it.
    """
    raw = transcripts.raw_store(parts.stores, parts.config)
    admitted = admit_all(messages, now=parts.clock, redact=raw is None)
    kept = admitted.messages if raw is None else transcripts.redacted(admitted.messages)
    indices = parts.stores.sessions.append_many(check_session_key(session_key), kept)
    if raw is not None:
        transcripts.keep_raw(raw, session_key, indices, admitted.messages, kept)
    compaction = parts.compactor.ensure_budget(session_key)
    return RecordResult(indices=indices, compaction=compaction, replaced=admitted.replaced)


def prompt(
    parts: Parts,
    session_key: str,
    user_text: str | None,
    tools: Sequence[ToolSchema],
    *,
    loaded: Session | None,
) -> PromptResult:
    """The in-budget prompt for the next model call (``user_text`` is not recorded).

    ``loaded`` is session ``session_key`` as the caller has just read it (``session``), so this
    call does not read it again (the proxy reconciles a request against it first); what another
    writer records after that read is in the next prompt, not this one. Compaction, when the
    prompt is over budget, reads the session afresh under its lock.

    Raises:
        InputError: ``loaded`` is another session than ``session_key``.
    """
    check_session_key(session_key)
    if loaded is not None and loaded.key != session_key:
        raise InputError(f"prompt for {session_key!r} was given session {loaded.key!r}")
    user_text = None if user_text is None else clean_text(user_text)
    assembler, compactor = parts.assembler, parts.compactor
    budget = compactor.budget
    # One load and one assembly: the compactor measures the prompt built here. Only when it is
    # over budget does compaction run (reading the session under its lock), and the prompt is
    # built again on the session as compaction last read it.
    raw = transcripts.raw_store(parts.stores, parts.config)  # its own prompt reads what was said
    session = _own_session(parts, session_key, raw, loaded)
    built = assembler.assemble(session, user_text, tools=tools, budget=budget)
    fitted = compactor.fit(session_key, user_text=user_text, tools=tools, built=built)
    if fitted.session is not None:  # over budget: built again on what compaction left
        session = _own_session(parts, session_key, raw, fitted.session)
        built = assembler.assemble(session, user_text, tools=tools, budget=budget)
    return PromptResult(prompt=built, compaction=fitted.result, budget=budget)


def _own_session(
    parts: Parts, session_key: str, raw: RawTranscriptsPort | None, loaded: Session | None
) -> Session:
    """Session ``session_key`` (``loaded``, else read now) as its own prompt reads it.

    Raw text replaces the redacted one on the opt-in.
    """
    session = loaded if loaded is not None else parts.stores.sessions.load(session_key)
    return session if raw is None else transcripts.own_view(raw, session)


def remember(
    parts: Parts, text: str, *, session_key: str, author: Literal["user", "assistant"]
) -> RememberResult:
    """Keep ``text`` now: record it, compact it into history, dream it into the files.

    A fact told on purpose does not wait for idle compaction and the dream schedule. It goes
    through the same curation, screening and audit as any other: a dream that finds nothing
    durable in it writes nothing, and says so (``RememberResult.dream``).

    Raises:
        InputError: ``text`` is empty or only white space.
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError("remember needs a fact to keep, got only white space")
    recorded = record(parts, session_key, [Message(role=author, content=text.strip())])
    compaction = jobs.compact(parts, session_key)
    dream = jobs.dream(parts, trigger="remember", dry_run=False)
    return RememberResult(recorded=recorded, compaction=compaction, dream=dream)


def agent(parts: Parts, chat: Provider) -> ChatAgent:
    """The built-in agent on ``chat``, with the engine's prompt, compaction and search."""
    from reverie.memory.agent import ChatAgent  # noqa: PLC0415 (see the docstring)

    counter = parts.counter
    raw = transcripts.raw_store(parts.stores, parts.config)
    return ChatAgent(
        parts.stores,
        provider=chat,
        model=parts.config.model,
        assembler=parts.assembler,
        compactor=parts.compactor,
        search=partial(lookup.search_text, parts),
        clock=parts.clock,
        observe=counter.observe_reply if isinstance(counter, CalibratedCounter) else None,
        raw=None if raw is None else transcripts.RawKept(raw),
    )
