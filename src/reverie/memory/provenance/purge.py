"""``forget --purge``: after forgetting, leave no byte of the text anywhere in the workspace.

Run by ``forget`` under the dream lock, after the ordinary removal, on the storage seam
(``reverie.storage.ports.ProvenanceStores``), folder and database alike. In order:

1. the audit history is rewritten (``AuditPort.purge``): every version of every durable file
   loses the lines that hold the text or were forgotten, and every commit subject naming it
   says ``[forgotten]``. In git (``AuditRepo.purge``) every message is rebuilt from the new
   diff, the reflogs go, and unreachable objects are deleted (loose and packed); in
   PostgreSQL (``PgAudit.purge``, ``postgres.audit_rewrite``) the versioned rows and the
   commit messages are updated in place, in one transaction under the audit lock;
2. the backend's side records lose the ones that hold it (``scrub_side_records``): the
   quarantines (a quarantined line is base64 on files, bytes in a row: decoded to be
   checked) and the ledger; a folder also deletes search indexes moved aside as damaged;
3. the search index is rebuilt from nothing (SQLite keeps deleted text in free pages; a new
   file has none; PostgreSQL's index is its tables, already without the text);
4. every place of the workspace (``places_holding``: each file of a folder, each row of a
   database workspace) and every object of the audit is checked; whatever still holds the
   text is reported in ``leftovers`` (expected empty; a file a person keeps there, e.g.
   ``reverie.toml``, is not reverie's to rewrite). A database may keep old row versions
   until its autovacuum reclaims them; no query reaches them.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reverie.core.durable import DREAM_CURSOR
from reverie.core.messages import JSONObject
from reverie.core.needles import Needle, scrub_blob
from reverie.core.provenance import line_key

if TYPE_CHECKING:
    from reverie.memory.provenance.plan import ForgetPlan
    from reverie.storage.ports import IndexPort, ProvenanceStores

logger = logging.getLogger(__name__)

KEPT_AS_IS = frozenset({DREAM_CURSOR})
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


def purge_stores(stores: ProvenanceStores, plan: ForgetPlan, *, index: IndexPort) -> PurgeReport:
    """Scrub ``plan.query`` from the audit history, side records and caches; check everything.

    Raises:
        AuditError: git failed.
        StorageError, DatabaseError: a file or a row could not be rewritten.
    """
    needle = Needle(plan.query)
    keys = {key for _file, key in plan.records} | {line_key(line.text) for line in plan.lines}
    pattern = re.compile(re.escape(plan.query.strip()), re.IGNORECASE)
    rewritten = stores.audit.purge(
        lambda path, data: data if path in KEPT_AS_IS else scrub_blob(data, needle, keys),
        lambda text: pattern.sub(REDACTED, text),
    )
    dropped = stores.scrub_side_records(needle)
    index.rebuild()
    leftovers = [*stores.places_holding(needle)]
    leftovers += [f"audit object {name}" for name in stores.audit.objects_holding(needle.in_bytes)]
    if leftovers:
        logger.warning("after purge, %d place(s) still hold the text", len(leftovers))
    return PurgeReport(
        commits_rewritten=rewritten, records_dropped=dropped, leftovers=tuple(leftovers)
    )
