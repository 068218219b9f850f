"""Provenance, durable files by path and the purge steps of one workspace in PostgreSQL.

Storage model. The provenance records (``reverie.storage.folder.provenance_file``) are one
``provenance`` row per workspace holding the sidecar's JSON document (``document_text``), so
both backends keep one format and ``reverie export`` can write it out as the sidecar. The
durable files are the ``files`` rows (the working copy the audit commits).

Invariants.
- ``PgProvenance.write`` replaces the document in one statement: a reader sees the old
  records or the new. The writer holds the workspace's dream lock (``forget``, a dream).
- ``write_durable`` writes only a path that is a durable file (a memory file, or a skill the
  workspace holds), never any other row.
- ``scrub_side_records`` deletes the quarantine and ledger rows that hold a forgotten text
  (a quarantined line's bytes are decoded to be checked), in one transaction;
  ``places_holding`` reads every row of the workspace that can hold memory text (history,
  messages, summaries, metadata, files, quarantine, ledger, rejected rules, provenance) and
  names those that still hold it. Row-level security keeps both inside the workspace.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from reverie.core.durable import MEMORY_FILE_NAMES, RELATIVE_PATHS
from reverie.core.inbound import clean_text
from reverie.core.provenance import Provenance, document_text, read_document
from reverie.core.writable import SKILL_FILE
from reverie.storage.postgres.files import write_path
from reverie.storage.postgres.text_codec import from_db, to_db

if TYPE_CHECKING:
    from reverie.core.needles import Needle
    from reverie.storage.postgres.database import Tenant

_MEMORY_PATHS = tuple(RELATIVE_PATHS[name] for name in MEMORY_FILE_NAMES)

_QUARANTINE_ROWS = "SELECT id, reason, raw FROM quarantine WHERE workspace_id = %s"
_LEDGER_ROWS = "SELECT id, record::text FROM ledger WHERE workspace_id = %s"

_PLACES: tuple[tuple[str, int, str], ...] = (
    ("history #{0}", 1, "SELECT cursor, content FROM history WHERE workspace_id = %s"),
    (
        "session {0} message {1}",
        2,
        "SELECT session_key, idx, body, plain FROM messages WHERE workspace_id = %s",
    ),
    (
        "session {0} summary or metadata",
        1,
        "SELECT key, summary, metadata FROM sessions WHERE workspace_id = %s",
    ),
    ("file {0}", 1, "SELECT path, content FROM files WHERE workspace_id = %s"),
    ("quarantine record {0}", 1, _QUARANTINE_ROWS),
    ("ledger record {0}", 1, _LEDGER_ROWS),
    ("rejected rule {0}", 1, "SELECT id, rule, reason FROM rejections WHERE workspace_id = %s"),
    (
        "provenance records",
        1,
        "SELECT workspace_id, document FROM provenance WHERE workspace_id = %s",
    ),
)
"""(how a place is named, how many key columns lead its rows, the query reading its rows)."""
_SCRUBBED = {"quarantine": _QUARANTINE_ROWS, "ledger": _LEDGER_ROWS}
"""The side tables ``scrub_side_records`` deletes from, and the query reading their rows."""


class PgProvenance:
    """The provenance records of one workspace, read and replaced whole."""

    def __init__(self, tenant: Tenant) -> None:
        self._tenant = tenant

    def read(self) -> Provenance:
        """Return every record (none when the row is absent; invalid: a warning, none)."""
        with self._tenant.transaction() as conn:
            row = conn.execute(
                "SELECT document FROM provenance WHERE workspace_id = %s", (self._tenant.id,)
            ).fetchone()
        if row is None:
            return Provenance()
        return read_document(from_db(str(row[0])), where=f"of {self._tenant.where}")

    def write(self, provenance: Provenance) -> None:
        """Replace every record in one statement."""
        with self._tenant.transaction() as conn:
            conn.execute(
                "INSERT INTO provenance (workspace_id, document) VALUES (%s, %s)"
                " ON CONFLICT (workspace_id) DO UPDATE SET document = excluded.document",
                (self._tenant.id, to_db(document_text(provenance))),
            )


def durable_texts(tenant: Tenant) -> dict[str, str]:
    """Every durable file of the workspace, path -> text: the memory files, then skills."""
    with tenant.transaction() as conn:
        rows = conn.execute(
            "SELECT path, content FROM files WHERE workspace_id = %s", (tenant.id,)
        ).fetchall()
    found = {str(path): from_db(str(content)) for path, content in rows}
    paths = [p for p in _MEMORY_PATHS if p in found]
    paths += sorted(p for p in found if SKILL_FILE.fullmatch(p) is not None)
    return {path: found[path] for path in paths}


def write_durable(tenant: Tenant, path: str, text: str) -> None:
    """Replace the working text of the durable file ``path`` (the audit commits it later).

    Raises:
        ValueError: ``path`` is not a durable file.
    """
    if path not in _MEMORY_PATHS and SKILL_FILE.fullmatch(path) is None:
        raise ValueError(f"{path!r} is not a durable file of {tenant.where}")
    with tenant.transaction() as conn:
        write_path(conn, tenant.id, path, clean_text(text))


def scrub_side_records(tenant: Tenant, needle: Needle) -> int:
    """Delete the quarantine and ledger rows holding ``needle``; return how many went."""
    dropped = 0
    with tenant.transaction() as conn:
        for table, query in _SCRUBBED.items():
            doomed = [
                row[0]
                for row in conn.execute(query, (tenant.id,)).fetchall()
                if _holds(needle, row[1:])
            ]
            if doomed:
                # ``table`` is one of two constant names, never input.
                conn.execute(
                    f"DELETE FROM {table} WHERE workspace_id = %s AND id = ANY(%s)",
                    (tenant.id, doomed),
                )
            dropped += len(doomed)
    return dropped


def places_holding(tenant: Tenant, needle: Needle) -> list[str]:
    """Name every row of the workspace that still holds ``needle`` (outside the audit)."""
    found: list[str] = []
    with tenant.transaction(snapshot=True) as conn:
        for name, keys, query in _PLACES:
            for row in conn.execute(query, (tenant.id,)).fetchall():
                if _holds(needle, row[keys:]):
                    found.append(name.format(*(from_db(str(k)) for k in row[:keys])))
    return found


def _holds(needle: Needle, values: tuple[object, ...]) -> bool:
    for value in values:
        if value is None:
            continue
        if isinstance(value, bytes | bytearray | memoryview):
            data = bytes(value)
            if needle.in_bytes(data) or needle.in_text(data.decode("utf-8", "replace")):
                return True
        else:
            text = from_db(str(cast("str", value)))
            if needle.in_text(text) or needle.in_bytes(text.encode("utf-8")):
                return True
    return False
