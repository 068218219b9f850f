"""Search: BM25 full-text search over history entries and session messages.

``SearchIndex(workspace)`` keeps an on-disk SQLite FTS5 index in ``.reverie/search.sqlite``,
caught up incrementally before every query. This package reads the stores; it never writes
them, and it does not import ``reverie.llm``.
"""

from reverie.search.hits import SNIPPET_CLOSE, SNIPPET_OPEN, RefreshStats, SearchHit
from reverie.search.index import SearchIndex

__all__ = ["SNIPPET_CLOSE", "SNIPPET_OPEN", "RefreshStats", "SearchHit", "SearchIndex"]
