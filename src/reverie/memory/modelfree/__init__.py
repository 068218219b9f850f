"""Model-free memory: a summariser and a curator that need no model and no network.

``ModelFreeSummariser`` turns messages (with their roles: only the user's words may become
rules or facts about the user) into ``- [mark] fact`` lines by extraction (English and Chinese
rules, ``rules``), dropping chatter (``chatter``) and writing facts that stand on their own
(``phrasing``, ``corrections``); ``ModelFreeCurator`` admits such lines (``intake``), routes
them into SOUL.md, USER.md and memory/MEMORY.md, merges near-duplicates, lets newer
single-valued facts supersede older ones with their dates (``slots``) and applies
corrections. Both are deterministic and pure; this package never imports ``reverie.llm``.
See docs/curation.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.core.lazy_exports import lazy_getattr

if TYPE_CHECKING:
    from reverie.core.marks import Mark
    from reverie.memory.compaction.attempt import NOTHING, Summary, SummaryFailure
    from reverie.memory.modelfree.changes import (
        CurationResult,
        CuratorChange,
        CuratorSettings,
        SkippedFact,
    )
    from reverie.memory.modelfree.curator import ModelFreeCurator, entry_facts
    from reverie.memory.modelfree.facts import Fact, parse_facts, render_facts
    from reverie.memory.modelfree.routing import route
    from reverie.memory.modelfree.summariser import LABEL, ModelFreeSummariser, extract_facts

# Names load on first use (PEP 562), so importing one module of the package does not
# import them all: start-up pays only for what a command uses.
_WHERE: dict[str, str] = {
    "CurationResult": "reverie.memory.modelfree.changes",
    "CuratorChange": "reverie.memory.modelfree.changes",
    "CuratorSettings": "reverie.memory.modelfree.changes",
    "Fact": "reverie.memory.modelfree.facts",
    "LABEL": "reverie.memory.modelfree.summariser",
    "Mark": "reverie.core.marks",
    "ModelFreeCurator": "reverie.memory.modelfree.curator",
    "ModelFreeSummariser": "reverie.memory.modelfree.summariser",
    "NOTHING": "reverie.memory.compaction.attempt",
    "SkippedFact": "reverie.memory.modelfree.changes",
    "Summary": "reverie.memory.compaction.attempt",
    "SummaryFailure": "reverie.memory.compaction.attempt",
    "entry_facts": "reverie.memory.modelfree.curator",
    "extract_facts": "reverie.memory.modelfree.summariser",
    "parse_facts": "reverie.memory.modelfree.facts",
    "render_facts": "reverie.memory.modelfree.facts",
    "route": "reverie.memory.modelfree.routing",
}

__getattr__ = lazy_getattr(__name__, _WHERE, globals())


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
    "Summary",
    "SummaryFailure",
    "entry_facts",
    "extract_facts",
    "parse_facts",
    "render_facts",
    "route",
]
