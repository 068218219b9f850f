"""Search: BM25 full-text search over history entries and session messages.

``SearchIndex(workspace)`` keeps an on-disk SQLite FTS5 index in ``.reverie/search.sqlite``,
caught up incrementally before every query. This package reads the stores; it never writes
them, and it does not import ``reverie.llm``.
"""

from reverie.core.hits import SNIPPET_CLOSE, SNIPPET_OPEN, Candidate, RefreshStats, SearchHit
from reverie.core.refs import SourceRef, history_ref, message_ref, parse_ref
from reverie.storage.folder.index.index import SearchIndex

__all__ = [
    "SNIPPET_CLOSE",
    "SNIPPET_OPEN",
    "Candidate",
    "RefreshStats",
    "SearchHit",
    "SearchIndex",
    "SourceRef",
    "history_ref",
    "message_ref",
    "parse_ref",
]
