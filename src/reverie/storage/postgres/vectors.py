"""Dense recall on a database workspace: vector rows in PostgreSQL, and the items to follow.

Why in the database, not a per-server cache. Every server of a workspace answers from the same
vectors and encodes each item once (a per-server cache would encode every item once per
server: at 30 items/s on this machine, hours each for a large workspace), a new server starts
warm, and a purge reaches the vectors in the same transaction as the text. Each server still
holds the vectors in memory, quantised (``reverie.memory.recall.dense.vectors``), and before a
query reads only the rows written since it last looked (``vectors.seq``, one index range), so
what another server encoded is used at once. A row is 388 bytes of ``bytea`` (int8 codes and a
scale): 1M items are 0.4 GB in the table.

Tables (schema version 7, ``vectors_schema``): ``vectors`` (the workspace's rows, keyed by
the item's source reference written with the database's escape, ``text_codec``) and
``vector_meta`` (the follower's notes), both under row-level security. Every ``history`` and
``messages`` row carries ``doc`` from one sequence, given again when its text changes: the mark
``items_after`` follows (it never restarts). A trigger deletes an item's vector when its text
changes or the item is deleted (a redaction, a purge, a deleted session), so no vector outlives
the text it was made from.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, cast

from reverie.core.hits import Candidate
from reverie.core.indexed import IndexedItem, ItemsAfter, VectorRow
from reverie.core.refs import SourceRef, history_ref, message_ref
from reverie.storage.postgres.text_codec import from_db, to_db

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Tenant

_INTERNAL = "^(dream|cron):"
PAGE = 10_000
"""Vector rows read a statement: all at once, 1M rows held the result twice (libpq's and the
tuples), and the process kept 1.6 GB resident after loading them (bench/scale.py --dense)."""
_AFTER = (
    "(SELECT doc, 'history', cursor, session_key, NULL::integer, content FROM history"
    " WHERE workspace_id = %(ws)s AND doc > %(after)s ORDER BY doc LIMIT %(limit)s)"
    " UNION ALL (SELECT doc, 'message', NULL::bigint, session_key, idx, plain FROM messages"
    " WHERE workspace_id = %(ws)s AND doc > %(after)s ORDER BY doc LIMIT %(limit)s)"
    " ORDER BY 1 LIMIT %(limit)s"
)
_COUNT = (
    "SELECT (SELECT count(*) FROM history WHERE workspace_id = %(ws)s AND doc > %(after)s)"
    " + (SELECT count(*) FROM messages WHERE workspace_id = %(ws)s AND doc > %(after)s)"
)
_NAMED_HISTORY = (
    "SELECT 'history', cursor, session_key, NULL::integer, NULL::text, at, content FROM history"
    " WHERE workspace_id = %(ws)s AND cursor = ANY(%(cursors)s)"
)
_NAMED_MESSAGES = (
    "SELECT 'message', NULL::bigint, m.session_key, m.idx, m.role, m.at, m.plain"
    " FROM messages AS m JOIN unnest(%(keys)s::text[], %(idxs)s::integer[]) AS w(k, i)"
    " ON m.session_key = w.k AND m.idx = w.i WHERE m.workspace_id = %(ws)s"
)


class PgVectorRows:
    """One workspace's vector rows (``reverie.storage.ports.VectorRowsPort``)."""

    def __init__(self, tenant: Tenant) -> None:
        """Keep the rows of ``tenant``'s workspace."""
        self._tenant = tenant

    def reset(self, model: str, dim: int) -> None:
        """Empty the rows if another model or width wrote them; note these."""
        meta = self.meta()
        if meta.get("model") == model and meta.get("dim") == str(dim):
            return
        with self._tenant.transaction() as conn:
            conn.execute("DELETE FROM vectors WHERE workspace_id = %s", (self._tenant.id,))
            conn.execute("DELETE FROM vector_meta WHERE workspace_id = %s", (self._tenant.id,))
        self.put_meta({"model": model, "dim": str(dim)})

    def meta(self) -> dict[str, str]:
        """Every meta value."""
        with self._tenant.transaction() as conn:
            rows = conn.execute(
                "SELECT name, value FROM vector_meta WHERE workspace_id = %s", (self._tenant.id,)
            ).fetchall()
        return {str(name): str(value) for name, value in rows}

    def put_meta(self, values: Mapping[str, str], *, keep: bool = False) -> None:
        """Set meta values (``keep``: leave those already there)."""
        with self._tenant.transaction() as conn:
            self._put_meta(conn, values, keep=keep)

    def bump(self, name: str) -> None:
        """Add one to meta value ``name``."""
        with self._tenant.transaction() as conn:
            conn.execute(
                "INSERT INTO vector_meta VALUES (%s, %s, '1') ON CONFLICT (workspace_id, name)"
                " DO UPDATE SET value = (vector_meta.value::bigint + 1)::text",
                (self._tenant.id, name),
            )

    def drop_meta(self, names: Sequence[str]) -> None:
        """Delete meta values."""
        with self._tenant.transaction() as conn:
            conn.execute(
                "DELETE FROM vector_meta WHERE workspace_id = %s AND name = ANY(%s)",
                (self._tenant.id, list(names)),
            )

    def write(self, rows: Sequence[VectorRow], meta: Mapping[str, str]) -> None:
        """Store ``rows`` and ``meta`` in one transaction (a row again: replaced, new ``seq``)."""
        ws = self._tenant.id
        with self._tenant.transaction() as conn:
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO vectors (workspace_id, ref, session_key, hash, v)"
                    " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (workspace_id, ref) DO UPDATE"
                    " SET hash = excluded.hash, v = excluded.v, seq = nextval('vector_seq')",
                    [
                        (ws, to_db(ref), None if key is None else to_db(key), digest, blob)
                        for ref, key, digest, blob in rows
                    ],
                )
            self._put_meta(conn, meta, keep=False)

    def rows_since(self, seq: int) -> Iterator[tuple[int, VectorRow]]:
        """Rows written after ``seq``, in order, read ``PAGE`` rows a statement."""
        while True:
            with self._tenant.transaction() as conn:
                found = conn.execute(
                    "SELECT seq, ref, session_key, hash, v FROM vectors"
                    " WHERE workspace_id = %s AND seq > %s ORDER BY seq LIMIT %s",
                    (self._tenant.id, seq, PAGE),
                ).fetchall()
            for number, ref, key, digest, blob in found:
                seq = int(str(number))
                row = (from_db(str(ref)), None if key is None else from_db(str(key)), digest, blob)
                yield seq, cast("VectorRow", row)
            if len(found) < PAGE:
                return

    def clear(self) -> None:
        """Delete this workspace's vectors and meta values (one transaction)."""
        with self._tenant.transaction() as conn:
            conn.execute("DELETE FROM vectors WHERE workspace_id = %s", (self._tenant.id,))
            conn.execute("DELETE FROM vector_meta WHERE workspace_id = %s", (self._tenant.id,))

    def close(self) -> None:
        """Nothing to release (the database's pool is the backend's)."""

    def _put_meta(self, conn: object, values: Mapping[str, str], *, keep: bool) -> None:
        action = "NOTHING" if keep else "UPDATE SET value = excluded.value"
        execute = conn.cursor().executemany  # type: ignore[attr-defined]
        execute(
            "INSERT INTO vector_meta VALUES (%s, %s, %s)"
            f" ON CONFLICT (workspace_id, name) DO {action}",
            [(self._tenant.id, name, value) for name, value in values.items()],
        )


class PgFollower:
    """What was indexed after a mark, and items by name (``FollowedPort``), from the tables."""

    def __init__(self, tenant: Tenant) -> None:
        """Follow ``tenant``'s workspace."""
        self._tenant = tenant

    def items_after(
        self, after: int, *, seen: str | None, limit: int, only: str | None = None
    ) -> ItemsAfter:
        """Up to ``limit`` items whose ``doc`` is past ``after``, oldest first (never restarts)."""
        del seen, only  # a doc number is never given twice: a mark cannot go stale
        params = {"ws": self._tenant.id, "after": after, "limit": limit}
        with self._tenant.transaction() as conn:
            rows = conn.execute(_AFTER, params).fetchall()
        items = tuple(
            IndexedItem(
                doc=int(str(doc)),
                ref=_ref(str(kind), cursor, key, idx),
                session_key=None if key is None else from_db(str(key)),
                text=from_db(str(text)),
            )
            for doc, kind, cursor, key, idx, text in rows
        )
        return ItemsAfter(items=items, restarted=False)

    def count_after(self, after: int, *, seen: str | None) -> int:
        """How many items have a ``doc`` past ``after``."""
        del seen
        with self._tenant.transaction() as conn:
            row = conn.execute(_COUNT, {"ws": self._tenant.id, "after": after}).fetchone()
        return int(str(row[0])) if row else 0

    def items_named(
        self, refs: Sequence[SourceRef], *, session_key: str | None = None
    ) -> list[Candidate]:
        """The items ``refs`` name that exist (in ``session_key``, or outside internal sessions)."""
        cursors = [ref.cursor for ref in refs if ref.kind == "history"]
        keyed = [(to_db(r.session_key or ""), r.message_index) for r in refs if r.kind != "history"]
        params: dict[str, object] = {
            "ws": self._tenant.id,
            "cursors": cursors,
            "keys": [k for k, _ in keyed],
            "idxs": [i for _, i in keyed],
        }
        with self._tenant.transaction() as conn:
            rows = conn.execute(_NAMED_HISTORY, params).fetchall() if cursors else []
            rows += conn.execute(_NAMED_MESSAGES, params).fetchall() if keyed else []
        found: dict[str, Candidate] = {}
        for kind, cursor, key, idx, role, at, text in rows:
            plain_key = None if key is None else from_db(str(key))
            if not _in_scope(str(kind), plain_key, session_key):
                continue
            candidate = Candidate(
                kind="history" if kind == "history" else "message",
                score=0.0,
                text=from_db(str(text)),
                timestamp=cast("datetime | None", at),
                session_key=plain_key,
                cursor=None if cursor is None else int(str(cursor)),
                message_index=None if idx is None else int(str(idx)),
                role=None if role is None else str(role),
            )
            found[str(_ref(str(kind), cursor, key, idx))] = candidate
        return [found[str(ref)] for ref in refs if str(ref) in found]


def _in_scope(kind: str, key: str | None, session_key: str | None) -> bool:
    import re  # noqa: PLC0415

    if session_key is not None:
        return key == session_key
    return kind == "history" or key is None or re.match(_INTERNAL, key) is None


def _ref(kind: str, cursor: object, key: object, idx: object) -> SourceRef:
    if kind == "history":
        return history_ref(int(str(cursor)))
    return message_ref(from_db(str(key)), int(str(idx)))
