"""``ReverieStore``: LangGraph's long-term ``BaseStore`` over ``MemoryEngine``.

A namespace is a reverie session, ``langgraph:`` followed by the namespace as a JSON list
(``langgraph:["users","ada"]``), so an agent's memories are ordinary recorded messages that
compaction, recall and dream work on. ``put`` records the value as a user message (its
``content`` or ``text`` field when that is a string, else the value as JSON) with the item
kept beside it (``extra["langgraph_item"]``); a delete records a system note saying so. The
current items of a namespace are its messages replayed in order: the last put of a key wins,
a delete removes it, and every version stays in memory. ``search`` with a ``query`` goes to
``MemoryEngine.search`` (ranked as recall ranks) and returns the current items it hit;
without one it lists items. Filters match value fields exactly (``$eq`` and ``$ne`` too).
Principals are not namespaces: open the engine for a principal and give its store.

Needs the ``langgraph`` extra; imported only here. ``abatch`` runs ``batch`` (local calls).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from reverie.config.extras import install_hint
from reverie.core.messages import Message
from reverie.errors import InputError

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
except ImportError as missing:  # pragma: no cover (the dev install has it)
    need = f"ReverieStore needs the 'langgraph' package: {install_hint('langgraph')}"
    raise ImportError(need) from missing

if TYPE_CHECKING:
    from reverie.core.messages import JSONObject
    from reverie.engine.facade import MemoryEngine

PREFIX = "langgraph:"
KEPT = "langgraph_item"
Namespace = tuple[str, ...]


class ReverieStore(BaseStore):
    """LangGraph's key-value memory store, kept in a reverie workspace."""

    def __init__(self, memory: MemoryEngine) -> None:
        self._memory = memory

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order, each answer at its place."""
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch``, awaited."""
        return self.batch(ops)

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._items(op.namespace).get(op.key)
        if isinstance(op, PutOp):
            self._memory.record(session_of(op.namespace), [message_of(op.key, op.value)])
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return _listed(self._namespaces(), op)
        raise InputError(f"ReverieStore does not know the operation {type(op).__name__}")

    def _namespaces(self) -> list[Namespace]:
        found = [namespace_of(info.key) for info in self._memory.sessions()]
        return sorted(n for n in found if n is not None)

    def _items(self, namespace: Namespace) -> dict[str, Item]:
        key = session_of(namespace)
        if not self._memory.has_session(key):
            return {}
        return replay(namespace, self._memory.session(key).messages)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        spaces = [
            n for n in self._namespaces() if n[: len(op.namespace_prefix)] == op.namespace_prefix
        ]
        current = {(n, k): item for n in spaces for k, item in self._items(n).items()}
        ranked: list[tuple[Item, float | None]] = [(item, None) for item in current.values()]
        if op.query:
            ranked = _hits(self._memory, op.query, current, op.limit + op.offset)
        kept = [(item, score) for item, score in ranked if _matches(item.value, op.filter)]
        return [_found(item, score) for item, score in kept[op.offset : op.offset + op.limit]]


def session_of(namespace: Namespace) -> str:
    """The reverie session that holds ``namespace``."""
    return PREFIX + json.dumps(list(namespace), ensure_ascii=False, separators=(",", ":"))


def namespace_of(session_key: str) -> Namespace | None:
    """The namespace a reverie session holds (None for other sessions)."""
    if not session_key.startswith(PREFIX):
        return None
    try:
        labels = json.loads(session_key.removeprefix(PREFIX))
    except ValueError:
        return None
    ok = isinstance(labels, list) and all(isinstance(x, str) for x in labels)
    return tuple(labels) if ok else None


def message_of(key: str, value: Mapping[str, Any] | None) -> Message:
    """The message a put (``value``) or a delete (None) of ``key`` is recorded as."""
    stored = None if value is None else cast("JSONObject", dict(value))
    kept: JSONObject = {KEPT: {"key": key, "value": stored}}
    if value is None:
        return Message(role="system", content=f"stored item {key!r} deleted", extra=kept)
    text = next((value[f] for f in ("content", "text") if isinstance(value.get(f), str)), None)
    text = text or json.dumps(value, ensure_ascii=False, sort_keys=True)
    return Message(role="user", content=text, extra=kept)


def replay(namespace: Namespace, messages: Iterable[Message]) -> dict[str, Item]:
    """The current items of ``namespace``: the last put of each key, deletes applied."""
    items: dict[str, Item] = {}
    for message in messages:
        kept = message.extra.get(KEPT)
        if not isinstance(kept, dict) or not isinstance(kept.get("key"), str):
            continue
        key, value, at = str(kept["key"]), kept.get("value"), message.timestamp
        if not isinstance(value, dict) or at is None:
            items.pop(key, None)
            continue
        created = items[key].created_at if key in items else at
        items[key] = Item(
            value=value, key=key, namespace=namespace, created_at=created, updated_at=at
        )
    return items


def _hits(
    memory: MemoryEngine, query: str, current: dict[tuple[Namespace, str], Item], limit: int
) -> list[tuple[Item, float | None]]:
    found: dict[tuple[Namespace, str], tuple[Item, float | None]] = {}
    for hit in memory.search(query, limit=max(limit * 4, 20)):
        namespace = namespace_of(hit.session_key or "")
        if namespace is None or hit.message_index is None:
            continue
        message = memory.session(session_of(namespace)).messages[hit.message_index]
        kept = message.extra.get(KEPT)
        key = kept.get("key") if isinstance(kept, dict) else None
        item = current.get((namespace, str(key)))
        if item is not None and (namespace, item.key) not in found:
            found[(namespace, item.key)] = (item, hit.score)
    return list(found.values())


def _matches(value: dict[str, Any], wanted: dict[str, Any] | None) -> bool:
    for field, condition in (wanted or {}).items():
        if isinstance(condition, dict):
            unknown = set(condition) - {"$eq", "$ne"}
            if unknown:
                raise InputError(f"ReverieStore filters take $eq and $ne, not {sorted(unknown)}")
            if "$eq" in condition and value.get(field) != condition["$eq"]:
                return False
            if "$ne" in condition and value.get(field) == condition["$ne"]:
                return False
        elif value.get(field) != condition:
            return False
    return True


def _found(item: Item, score: float | None) -> SearchItem:
    return SearchItem(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
        score=score,
    )


def _listed(namespaces: list[Namespace], op: ListNamespacesOp) -> list[Namespace]:
    kept: list[Namespace] = []
    for namespace in namespaces:
        if all(_fits(namespace, c.match_type, c.path) for c in op.match_conditions or ()):
            cut = namespace if op.max_depth is None else namespace[: op.max_depth]
            if cut not in kept:
                kept.append(cut)
    return kept[op.offset : op.offset + op.limit]


def _fits(namespace: Namespace, match_type: str, path: Namespace) -> bool:
    part = namespace[: len(path)] if match_type == "prefix" else namespace[-len(path) :]
    return len(part) == len(path) and all(p in ("*", n) for p, n in zip(path, part, strict=True))
