"""``SearchIndex``: BM25 search over history entries and every session message, kept current.

Why SQLite FTS5 (stdlib ``sqlite3``) and not ``bm25s`` or ``rank_bm25``: those build an
in-memory matrix whose scores bake in corpus-wide statistics, so adding one document means
re-indexing everything (their maintainers say so: bm25s issues #5, #98, #129), and they add
numpy/scipy. FTS5 keeps an on-disk inverted index that takes inserts and deletes in a
transaction, computes BM25 at query time from current statistics, and ships inside CPython's
SQLite (no new dependency). Chinese and Japanese are made searchable by segmenting text before
it is indexed (see ``text``).

What it indexes: every history entry in ``memory/history.jsonl`` and every message of every
session journal, compacted or not (a session keeps all its messages; the compaction mark only
moves). It must not write anything outside its own file, and never changes a store.

Invariants.
- ``search`` first catches up incrementally (``catch_up``): cost proportional to what was
  appended, changed or deleted since the last refresh, not to the number of sessions (one
  row of the sessions database tells whether anything changed at all). Nothing is rebuilt per
  query. The index is rebuilt from nothing only when its file is missing, stale (another
  schema version), damaged, or ``rebuild`` is called.
- A refresh runs under the workspace's ``search`` lock and in one SQLite transaction, so
  processes refreshing at once never index an item twice, and a crash mid-refresh leaves the
  previous state.
- A damaged index is moved aside and rebuilt; the caller gets results, not an error.
- An index that cannot be written (a read-only or full workspace) is not an error either:
  the query runs on a scratch index built in a temporary folder, outside the workspace.
- User query text never reaches FTS5 syntax unescaped; an empty query returns no hits.
- A query that is exactly a source reference (``#h12``, ``#m45@cli:default``; see ``refs``)
  returns that item alone, so a reference quoted in a prompt can be followed.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from reverie.core.clock import require_aware
from reverie.core.hits import SOURCES, Candidate, RefreshStats, SearchHit, Source
from reverie.core.indexed import ItemsAfter
from reverie.core.refs import SourceRef, parse_ref
from reverie.core.text import is_cjk_pair, match_expression, term_phrases
from reverie.errors import StorageError
from reverie.storage.folder import layout
from reverie.storage.folder.index.candidates import CommonMemo, rare_terms, run_candidates
from reverie.storage.folder.index.catch_up import catch_up_history, catch_up_sessions, is_current
from reverie.storage.folder.index.index_file import IndexFile, is_corruption
from reverie.storage.folder.index.items import count_after, items_after, items_named
from reverie.storage.folder.index.query import Filters, run_query, run_ref
from reverie.storage.folder.index.store_state import StoreState

if TYPE_CHECKING:
    from datetime import datetime

    from reverie.storage.folder.workspace import Workspace

logger = logging.getLogger(__name__)

_T = TypeVar("_T")

INDEX_PATH = Path(layout.SEARCH_INDEX)
"""Where the index lives, relative to the workspace root."""


class SearchIndex:
    """Full-text search over one workspace's history entries and session messages."""

    def __init__(self, workspace: Workspace, *, path: Path | None = None) -> None:
        """Prepare the index of ``workspace`` (nothing is read or built until first use).

        Args:
            workspace: the open workspace to index.
            path: the index file; defaults to ``.reverie/search.sqlite`` in the workspace.
        """
        self._workspace = workspace
        self._file = IndexFile(path or workspace.root / INDEX_PATH, clock=workspace.clock)
        self._lock = workspace.lock("search")
        self._memo = CommonMemo()
        self._state = StoreState(workspace.sessions.database)
        self._scratch: SearchIndex | None = None
        self._scratch_dir: tempfile.TemporaryDirectory[str] | None = None

    @property
    def path(self) -> Path:
        """The index file."""
        return self._file.path

    def refresh(self) -> RefreshStats:
        """Index what was appended, trimmed, rewritten or deleted since the last refresh.

        Raises:
            StorageError: the index file cannot be written (a damaged file is rebuilt instead).
            LockTimeoutError: another process held the search lock too long.
        """
        with self._lock.hold():
            return self._guarded(lambda _conn, _empty: None)[0]

    def rebuild(self) -> RefreshStats:
        """Throw the index away and index everything again."""
        with self._lock.hold():
            self._file.remove()
            return self._guarded(lambda _conn, _empty: None)[0]

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        session_key: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        sources: Sequence[Source] = SOURCES,
        include_internal: bool = False,
    ) -> list[SearchHit]:
        """Return the items that best match ``query``, best first (refreshing first).

        Args:
            query: free text; words are alternatives, ``"quoted words"`` a phrase. Operators
                and punctuation are plain text. An empty or word-less query returns []. A
                source reference alone (``#h12``) returns the item it names.
            limit: at most this many hits.
            session_key: only items of this session (its messages and its history entries).
            since: only items written at or after this time (timezone-aware).
            until: only items written before this time (timezone-aware).
            sources: ``"history"``, ``"messages"`` or both.
            include_internal: also search messages of ``dream:`` and ``cron:`` sessions.

        Raises:
            ValueError: a naive ``since``/``until``, an unknown source, or ``limit`` < 1.
        """
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        unknown = set(sources) - set(SOURCES)
        if unknown:
            raise ValueError(f"unknown sources {sorted(unknown)}; use {SOURCES}")
        filters = Filters(
            sources=frozenset(sources),
            session_key=session_key,
            since=None if since is None else require_aware(since),
            until=None if until is None else require_aware(until),
            include_internal=include_internal,
        )
        ref = parse_ref(query)
        if ref is not None and sources:
            return self._run(lambda conn: run_ref(conn, ref, filters), only=session_key)
        expression = match_expression(query)
        if expression is None or not sources:
            return []
        return self._run(lambda conn: run_query(conn, expression, filters, limit), only=session_key)

    def candidates(
        self,
        terms: Sequence[str],
        *,
        limit: int,
        session_key: str | None = None,
        include_internal: bool = False,
        context_weight: float = 0.3,
        between: Sequence[tuple[datetime, datetime]] = (),
    ) -> list[Candidate]:
        """Return items matching any of ``terms`` with their whole text, best BM25 first.

        For callers that rank again (recall). Each term is a word or a phrase; only its letters
        and digits are used (no FTS5 syntax passes). No terms and no times, no candidates.

        Args:
            terms: the words and phrases to look for.
            limit: at most this many candidates.
            session_key: only items of this session.
            include_internal: also messages of ``dream:`` and ``cron:`` sessions.
            context_weight: weight of a match in an item's context (the message before it)
                against 1 for its own text; 0 ignores context.
            between: also the newest ``limit`` items written in each of these intervals
                (start included, end excluded; timezone-aware), matching or not (score 0).
        """
        pairs = [f'"{term}"' for term in dict.fromkeys(terms) if is_cjk_pair(term)]
        phrases = term_phrases([term for term in terms if not is_cjk_pair(term)])
        if (not phrases and not pairs and not between) or limit < 1:
            return []
        spans = [
            (require_aware(start).timestamp(), require_aware(end).timestamp())
            for start, end in between
        ]
        filters = Filters(
            sources=frozenset(SOURCES), session_key=session_key, include_internal=include_internal
        )
        return self._run(
            lambda conn: run_candidates(
                conn,
                phrases,
                filters,
                limit,
                context_weight=context_weight,
                between=spans,
                memo=self._memo,
                pairs=pairs,
            ),
            only=session_key,
        )

    def rare_terms(self, terms: Sequence[str], *, at_most: int) -> list[str]:
        """The ``terms`` at most ``at_most`` items of the whole index hold (``rare_terms``)."""
        return self._run(lambda conn: rare_terms(conn, terms, at_most))

    # Followers (dense recall, ``reverie.memory.recall.dense``): what was indexed after a mark,
    # items by name.
    def items_after(
        self, after: int, *, seen: str | None, limit: int, only: str | None = None
    ) -> ItemsAfter:
        """Return up to ``limit`` items indexed after row ``after`` (see ``search.items``).

        ``only``: catch up only that session (and history) first, as a scoped query does.
        """
        return self._run(lambda conn: items_after(conn, after, seen, limit), only=only)

    def count_after(self, after: int, *, seen: str | None) -> int:
        """How many items were indexed after row ``after`` (all, if the mark is stale)."""
        return self._run(lambda conn: count_after(conn, after, seen))

    def items_named(
        self, refs: Sequence[SourceRef], *, session_key: str | None = None
    ) -> list[Candidate]:
        """Return the items ``refs`` name, in that order, as candidates (score 0)."""
        filters = Filters(sources=frozenset(SOURCES), session_key=session_key)
        return self._run(lambda conn: items_named(conn, refs, filters), only=session_key)

    def _scratch_index(self) -> SearchIndex:
        """An index in a temporary folder, built once per engine (for unwritable workspaces)."""
        if self._scratch is None:
            self._scratch_dir = tempfile.TemporaryDirectory(prefix="reverie-search-")
            self._scratch = SearchIndex(
                self._workspace, path=Path(self._scratch_dir.name) / "search.sqlite"
            )
        return self._scratch

    def close(self) -> None:
        """Close the connection and the lock file (the index may be used again later)."""
        self._file.close()
        self._state.close()
        self._lock.close()
        if self._scratch is not None and self._scratch_dir is not None:
            self._scratch.close()
            self._scratch_dir.cleanup()
            self._scratch, self._scratch_dir = None, None

    def _run(self, query: Callable[[sqlite3.Connection], _T], *, only: str | None = None) -> _T:
        def then(conn: sqlite3.Connection, _empty: bool) -> _T:  # noqa: FBT001
            return query(conn)

        try:
            with self._lock.hold():
                return self._guarded(then, only=only)[1]
        except StorageError as exc:
            # A read-only or full workspace: search a scratch index outside it instead.
            logger.warning("search index cannot be written (%s); using a scratch copy", exc)
            return self._scratch_index()._guarded(then, only=only)[1]  # noqa: SLF001 -- same class

    def _guarded(
        self, then: Callable[[sqlite3.Connection, bool], _T], *, only: str | None = None
    ) -> tuple[RefreshStats, _T]:
        """Refresh, then run ``then``; a damaged index is moved aside and rebuilt once.

        ``only``: catch up that one session's messages (and history), not every session's.
        """
        try:
            return self._attempt(then, only)
        except sqlite3.DatabaseError as exc:
            if not is_corruption(exc):
                raise StorageError(f"search index failed ({exc})", path=self.path) from exc
            self._file.move_aside(reason=str(exc))
        try:
            return self._attempt(then, only)
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"search index failed ({exc})", path=self.path) from exc

    def _attempt(
        self, then: Callable[[sqlite3.Connection, bool], _T], only: str | None
    ) -> tuple[RefreshStats, _T]:
        conn, empty = self._file.open()
        stats = self._catch_up(conn, rebuilt=empty, only=None if empty else only)
        return stats, then(conn, empty)

    def _catch_up(
        self, conn: sqlite3.Connection, *, rebuilt: bool, only: str | None = None
    ) -> RefreshStats:
        if not rebuilt and is_current(
            conn, self._workspace.history, self._workspace.sessions, only=only, state=self._state
        ):
            return RefreshStats()
        conn.execute("BEGIN IMMEDIATE")
        try:
            history_added, history_removed = catch_up_history(conn, self._workspace.history)
            sessions = catch_up_sessions(
                conn, self._workspace.sessions, only=only, state=self._state
            )
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        stats = RefreshStats(
            history_added=history_added,
            history_removed=history_removed,
            messages_added=sessions.added,
            messages_removed=sessions.removed,
            sessions_reindexed=sessions.reindexed,
            rebuilt=rebuilt,
        )
        self._memo.changed(
            history_added + history_removed + sessions.added + sessions.removed, rebuilt=rebuilt
        )
        if rebuilt:
            logger.info(
                "built search index: %d entries, %d messages", history_added, sessions.added
            )
        return stats
