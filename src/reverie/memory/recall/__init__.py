"""Recall: the remembered items most relevant to a new message, quoted into its prompt.

``Recaller`` ranks this session's compacted messages and history entries (every
non-internal session's in a unified workspace) against the new message with no model:
BM25 from the search index, then key terms, named days, the user's recent turns and
near-duplicate removal (``ranking``); other rankers (``RankedSource``, e.g. the dense
extra) are fused with it by reciprocal rank (``fusion``). ``RecallResult`` carries the
items (verbatim, dated, with a source reference ``search`` accepts) and the "Recalled"
prompt section. This package reads the search index only; it writes nothing and does not
import ``reverie.llm``.
"""

from reverie.memory.recall.fusion import RankedSource, fuse
from reverie.memory.recall.items import RecalledItem, RecallResult
from reverie.memory.recall.ranking import RecallOptions
from reverie.memory.recall.recaller import Carried, Recaller

__all__ = [
    "Carried",
    "RankedSource",
    "RecallOptions",
    "RecallResult",
    "RecalledItem",
    "Recaller",
    "fuse",
]
