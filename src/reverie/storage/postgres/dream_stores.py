"""What dream needs of a PostgreSQL workspace beyond its stores: skills, state, one-step publish.

``PgDreamFiles`` is ``DreamFilesPort``: the writable files as a dream stages them, by name
(the memory files) or canonical path (skills); there is no filesystem to check, no other file
the model may read (no ``prompts/``, no sessions folder: refused with a reason it can read)
and no instruction override.

Storage model. Skill files are rows of ``files`` (and ``file_versions``, like every audited
path) at their canonical path ``skills/<name>/SKILL.md``; the dream's back-off state is the
``dream_state`` text of the workspace's ``workspace_state`` row (``schema._V2_DREAM_STATE``),
the JSON ``reverie.memory.dream.state.DreamState`` reads.

``publish_dream`` is a dream's publish (``reverie.storage.ports.DreamStores.publish_dream``): one
transaction under the audit lock (``PgAudit.publish``) that first runs the fence, then writes
the files, the dream cursor and ONE commit. The fence refuses, so that nothing is written:
- when the caller's ``dream`` lock lapsed (``PgLock.fence``: its lease expired or was taken
  over, e.g. a paused server), as ``DreamError``;
- when a changed file is not the text the run staged from (``PublishConflictError``: a
  person's edit, or a restore, meanwhile);
and ``PgAudit.publish`` refuses when the dream cursor moved. A crash at any instant leaves
the old state, since a transaction commits whole or not at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from reverie.core.durable import RELATIVE_PATHS
from reverie.core.inbound import clean_text
from reverie.core.writable import SKILL_FILE
from reverie.errors import ConfinementError, DreamError, PublishConflictError
from reverie.storage.postgres.files import read_path, write_path
from reverie.storage.postgres.leases import LeaseLostError

if TYPE_CHECKING:
    from reverie.core.audit import CommitInfo
    from reverie.storage.postgres.audit import PgAudit
    from reverie.storage.postgres.database import Conn, Tenant
    from reverie.storage.postgres.files import PgMemoryFiles
    from reverie.storage.postgres.locks import PgLock

_NAMES = {path: name for name, path in RELATIVE_PATHS.items()}


def _skill_path(path: str) -> str:
    if SKILL_FILE.fullmatch(path) is None:
        raise ValueError(f"not a skill file path: {path!r} (skills/<name>/SKILL.md)")
    return path


class PgSkillFiles:
    """The skill files of one workspace (``reverie.storage.ports.SkillFilesPort``)."""

    def __init__(self, tenant: Tenant) -> None:
        self._tenant = tenant

    def paths(self) -> list[str]:
        """Every skill file, sorted."""
        with self._tenant.transaction() as conn:
            rows = conn.execute(
                "SELECT path FROM files WHERE workspace_id = %s AND path LIKE 'skills/%%'"
                " ORDER BY path",
                (self._tenant.id,),
            ).fetchall()
        return [str(row[0]) for row in rows if SKILL_FILE.fullmatch(str(row[0]))]

    def read(self, path: str) -> str:
        """A skill file's text ('' when absent)."""
        with self._tenant.transaction() as conn:
            return read_path(conn, self._tenant.id, _skill_path(path)) or ""

    def write(self, path: str, text: str) -> None:
        """Replace a skill file's text (lone surrogates as U+FFFD); not committed."""
        with self._tenant.transaction() as conn:
            write_path(conn, self._tenant.id, _skill_path(path), clean_text(text))


class PgDreamFiles:
    """The files a dream run stages on one workspace (``reverie.storage.ports.DreamFilesPort``)."""

    def __init__(self, files: PgMemoryFiles, skills: PgSkillFiles) -> None:
        self._files = files
        self._skills = skills

    def check(self, canonical: str) -> None:
        """Nothing to check beyond the text rules: there is no filesystem."""

    def read(self, canonical: str) -> str:
        """A writable file's text ('' when absent)."""
        name = _NAMES.get(canonical)
        return self._files.read(name) if name is not None else self._skills.read(canonical)

    def skill_paths(self) -> list[str]:
        """The skill files the workspace holds."""
        return self._skills.paths()

    def read_other(self, raw_path: str, max_chars: int) -> bytes:  # noqa: ARG002
        """Refuse: only the writable files exist in a database workspace."""
        raise ConfinementError(
            "not readable: this workspace lives in a database and holds only SOUL.md, USER.md, "
            "memory/MEMORY.md and skills/<name>/SKILL.md",
            path=raw_path,
        )

    def instructions(self, max_chars: int) -> str | None:  # noqa: ARG002
        """None: a database workspace has no ``prompts/dream.md``."""
        return None


class PgDreamState:
    """The dream's back-off state of one workspace (``reverie.storage.ports.DreamStatePort``)."""

    def __init__(self, tenant: Tenant) -> None:
        self._tenant = tenant

    def read_text(self) -> str | None:
        """The stored state's text (None before the first run)."""
        with self._tenant.transaction() as conn:
            row = conn.execute(
                "SELECT dream_state FROM workspace_state WHERE workspace_id = %s",
                (self._tenant.id,),
            ).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def write_text(self, text: str) -> None:
        """Replace the stored state's text."""
        with self._tenant.transaction() as conn:
            conn.execute(
                "UPDATE workspace_state SET dream_state = %s WHERE workspace_id = %s",
                (clean_text(text), self._tenant.id),
            )


def publish_dream(
    tenant: Tenant,
    audit: PgAudit,
    lock: PgLock,
    changes: Mapping[str, str],
    *,
    bases: Mapping[str, str],
    subject: str,
    dream_cursor: int,
    expected_cursor: int,
) -> CommitInfo | None:
    """Publish a dream run in one fenced transaction (see the module docstring).

    Raises:
        DreamError: nothing was written (lease lost, a file changed, the cursor moved).
    """
    texts = {path: clean_text(text) for path, text in changes.items()}

    def fence(conn: Conn) -> None:
        try:
            lock.fence(conn)
        except LeaseLostError as exc:
            raise DreamError(f"the dream lock was lost during this run ({exc})") from exc
        for path in texts:
            if (read_path(conn, tenant.id, path) or "") != bases.get(path, ""):
                raise PublishConflictError(path)

    return audit.publish(
        dict(texts),
        subject=subject,
        dream_cursor=dream_cursor,
        fence=fence,
        expected_cursor=expected_cursor,
    )
