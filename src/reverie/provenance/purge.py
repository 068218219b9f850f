"""``forget --purge``: after forgetting, leave no byte of the text anywhere in the workspace.

Run by ``forget`` under the dream lock, after the ordinary removal. In order:

1. the audit history is rewritten (``AuditRepo.purge``): every version of every durable file
   loses the lines that hold the text or were forgotten, every message is rebuilt from the
   new diff, the reflogs go, and unreachable objects are deleted (loose and packed);
2. the quarantines and the ledger lose the records that hold it (a quarantined line is
   base64: it is decoded to be checked);
3. the search index is rebuilt from nothing (SQLite keeps deleted text in free pages; a new
   file has none), and indexes moved aside as damaged that hold the text are deleted;
4. every file under the workspace, and every object in the audit repository, is checked;
   whatever still holds the text is reported in ``leftovers`` (expected empty; a file a
   person keeps there, e.g. ``reverie.toml``, is not reverie's to rewrite).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reverie.messages import JSONObject
from reverie.store import layout
from reverie.store.provenance_file import line_key
from reverie.store.scrub import Needle, files_holding, scrub_blob, scrub_jsonl

if TYPE_CHECKING:
    from reverie.ports import IndexPort
    from reverie.provenance.plan import ForgetPlan
    from reverie.store.workspace import Workspace

logger = logging.getLogger(__name__)

KEPT_AS_IS = frozenset({layout.DREAM_CURSOR})
"""Audited files that hold no memory text (a number), never scrubbed."""
REDACTED = "[forgotten]"
"""What replaces the text in a commit subject."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PurgeReport:
    """What the purge rewrote and whatever still holds the text (expected: nothing)."""

    commits_rewritten: int
    records_dropped: int
    leftovers: tuple[str, ...] = ()

    @property
    def clean(self) -> bool:
        """True when no file and no git object holds the text any more."""
        return not self.leftovers

    def to_json(self) -> JSONObject:
        """The report as plain JSON."""
        return {
            "commits_rewritten": self.commits_rewritten,
            "records_dropped": self.records_dropped,
            "leftovers": list(self.leftovers),
            "clean": self.clean,
        }


def purge_workspace(workspace: Workspace, plan: ForgetPlan, *, index: IndexPort) -> PurgeReport:
    """Scrub ``plan.query`` from the audit history, side files and caches; check everything.

    Raises:
        AuditError: git failed.
        StorageError: a file could not be rewritten.
    """
    needle = Needle(plan.query)
    keys = {key for _file, key in plan.records} | {line_key(line.text) for line in plan.lines}
    pattern = re.compile(re.escape(plan.query.strip()), re.IGNORECASE)
    rewritten = workspace.audit.purge(
        lambda path, data: data if path in KEPT_AS_IS else scrub_blob(data, needle, keys),
        lambda text: pattern.sub(REDACTED, text),
    )
    dropped = 0
    for side in (workspace.quarantine.path, workspace.sessions.quarantine.path):
        dropped += scrub_jsonl(side, needle)
    dropped += scrub_jsonl(workspace.ledger.path, needle)
    index.rebuild()
    for moved in (workspace.root / layout.STATE).glob(layout.SEARCH_INDEX_MOVED):
        if needle.in_bytes(moved.read_bytes()):
            moved.unlink()
    leftovers = _leftovers(workspace, needle)
    if leftovers:
        logger.warning("after purge, %d place(s) still hold the text", len(leftovers))
    return PurgeReport(commits_rewritten=rewritten, records_dropped=dropped, leftovers=leftovers)


def _leftovers(workspace: Workspace, needle: Needle) -> tuple[str, ...]:
    root = workspace.root
    found = [path.relative_to(root).as_posix() for path in files_holding(root, needle)]
    found += [f".git object {sha}" for sha in workspace.audit.objects_holding(needle.in_bytes)]
    return tuple(found)
