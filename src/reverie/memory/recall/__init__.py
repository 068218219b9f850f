"""Recall: the remembered items most relevant to a new message, quoted into its prompt.

``Recaller`` ranks this session's compacted messages and history entries (every
non-internal session's in a unified workspace) against the new message with no model:
BM25 from the search index, the question's rare names searched on their own (``entities``),
the span an event phrase anchors ("the week after the festival", ``anchors``), then key
terms, named days, the user's recent turns and near-duplicate removal (``ranking``), and the
items linked to the best hits by a rare word or name they share (``neighbours``); other
rankers (``RankedSource``, e.g. the dense extra) are fused with it by reciprocal rank
(``fusion``). ``RecallResult`` carries the
items (verbatim, dated, with a source reference ``search`` accepts) and the "Recalled"
prompt section. ``durable`` fits the durable files into their share of a prompt, choosing
lines for the message with the same lexical ranking. This package reads the search index
only; it writes nothing and does not import ``reverie.llm``. Dense recall (``dense``, the
``embeddings`` extra) is one more ranker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.core.lazy_exports import lazy_getattr

if TYPE_CHECKING:
    from reverie.memory.recall.fusion import RankedSource, fuse
    from reverie.memory.recall.items import RecalledItem, RecallResult
    from reverie.memory.recall.ranking import RecallOptions
    from reverie.memory.recall.recaller import Carried, Recaller

# Names load on first use (PEP 562): importing dense recall (``recall.dense``) or one module
# of the package does not import the recaller.
_WHERE: dict[str, str] = {
    "Carried": "reverie.memory.recall.recaller",
    "RankedSource": "reverie.memory.recall.fusion",
    "RecallOptions": "reverie.memory.recall.ranking",
    "RecallResult": "reverie.memory.recall.items",
    "RecalledItem": "reverie.memory.recall.items",
    "Recaller": "reverie.memory.recall.recaller",
    "fuse": "reverie.memory.recall.fusion",
}

__getattr__ = lazy_getattr(__name__, _WHERE, globals())

__all__ = [
    "Carried",
    "RankedSource",
    "RecallOptions",
    "RecallResult",
    "RecalledItem",
    "Recaller",
    "fuse",
]
