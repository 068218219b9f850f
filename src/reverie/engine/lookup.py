"""Search and recall through ``MemoryEngine``: finding what was remembered, model-free.

``search`` ranks history entries and every session message (compacted ones too) as recall
ranks them (``reverie.memory.recall.finder``); ``recall`` is what a prompt's "Recalled" section
holds, within its budget; ``search_text`` is the built-in agent's search tool. The ranking is
imported on the first search: ``status`` starts without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.core.inbound import check_limit, check_session_key, clean_text
from reverie.engine.results import describe_hit

if TYPE_CHECKING:
    from datetime import datetime

    from reverie.core.hits import SearchHit
    from reverie.engine.parts import Parts
    from reverie.memory.recall import RecallResult


def search(
    parts: Parts,
    query: str,
    *,
    limit: int,
    session_key: str | None,
    since: datetime | None,
    until: datetime | None,
) -> list[SearchHit]:
    """Search history entries and every session message (compacted ones too).

    Ranked as recall ranks (its lexical steps, fused with dense recall when that is on;
    ``reverie.memory.recall.finder``); a source reference (``#h12``) returns that item.
    """
    from reverie.memory.recall.finder import find  # noqa: PLC0415 (recall loads on first use)

    scope = None if session_key is None else check_session_key(session_key)
    return find(
        parts.recaller,
        parts.index,
        clean_text(query),
        limit=check_limit(limit),
        session_key=scope,
        since=since,
        until=until,
        now=parts.clock(),
    )


def recall(parts: Parts, query: str, *, session: str | None) -> RecallResult:
    """Recall the items most relevant to ``query`` (verbatim, dated, with source references).

    Model-free, as in every prompt's "Recalled" section, within ``prompt.recall_tokens``. With
    ``session``, only what that session may see (all of it: nothing is excluded as already in a
    prompt); without it, every non-internal session.
    """
    if session is not None:
        check_session_key(session)
    config = parts.config
    scope = None if session is None or config.prompt.unified_session else session
    budget = config.prompt.recall_budget(config.model.input_budget)
    return parts.recaller.recall(query, max_tokens=budget, scope=scope, now=parts.clock())


def search_text(parts: Parts, query: str, limit: int, session_key: str) -> str:
    """The built-in agent's search tool: the hits as plain lines ("no matches": none)."""
    scope = None if parts.config.prompt.unified_session else session_key
    hits = search(parts, query, limit=limit, session_key=scope, since=None, until=None)
    if not hits:
        return "no matches"
    return "\n".join(describe_hit(hit) for hit in hits)
