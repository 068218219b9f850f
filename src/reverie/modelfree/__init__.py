"""Model-free memory: a summariser and a curator that need no model and no network.

``ModelFreeSummariser`` turns conversation turns into ``- [mark] fact`` lines by extraction
(English and Chinese rules); ``ModelFreeCurator`` routes such lines into SOUL.md, USER.md and
memory/MEMORY.md, merging near-duplicates and applying corrections. Both are deterministic and
pure; this package never imports ``reverie.llm``.
"""

from reverie.compaction.attempt import SummaryAttempt
from reverie.modelfree.curator import (
    CurationResult,
    CuratorChange,
    CuratorSettings,
    ModelFreeCurator,
    SkippedFact,
    entry_facts,
)
from reverie.modelfree.facts import NOTHING, Fact, Mark, parse_facts, render_facts
from reverie.modelfree.routing import route
from reverie.modelfree.summariser import LABEL, ModelFreeSummariser, extract_facts

__all__ = [
    "LABEL",
    "NOTHING",
    "CurationResult",
    "CuratorChange",
    "CuratorSettings",
    "Fact",
    "Mark",
    "ModelFreeCurator",
    "ModelFreeSummariser",
    "SkippedFact",
    "SummaryAttempt",
    "entry_facts",
    "extract_facts",
    "parse_facts",
    "render_facts",
    "route",
]
