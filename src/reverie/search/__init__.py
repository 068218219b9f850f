"""Search: BM25 full-text search over history entries and session messages.

``SearchIndex(workspace)`` keeps an on-disk SQLite FTS5 index in ``.reverie/search.sqlite``,
caught up incrementally before every query. This package reads the stores; it never writes
them, and it does not import ``reverie.llm``.
"""

from reverie.search.candidates import Candidate
from reverie.search.hits import SNIPPET_CLOSE, SNIPPET_OPEN, RefreshStats, SearchHit
from reverie.search.index import SearchIndex
from reverie.search.refs import SourceRef, history_ref, message_ref, parse_ref

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
