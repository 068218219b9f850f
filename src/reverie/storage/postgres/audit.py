"""The audit trail of one workspace in PostgreSQL: versioned rows with git's semantics.

Storage model. A commit is one ``commits`` row (number 1, 2, ... per workspace, a sha-like id,
author, subject, the message built from the real diff, time) plus one ``file_versions`` row
for each audited path it changed (``content`` NULL when the file was removed). The dream
cursor is audited as the path ``memory/.dream_cursor`` holding the cursor and a newline, as
the git audit tracks the file, so ``restore`` rolls it back with the files (DESIGN.md 7).
A path's text at commit n is its version with the highest number ≤ n.

Invariants.
- Writes (``commit``, ``restore``) hold the workspace's audit lock (a transaction advisory
  lock), so commits of several servers are numbered one after another and never interleave.
- ``commit`` is a no-op (None) when the working copy equals HEAD, unless ``allow_empty``.
- The message is ``subject``, a blank line, the stat block and the capped unified diff, all
  computed from the texts being committed (DESIGN.md 9), as ``store.audit_diff`` renders them.
- ``restore`` first commits uncommitted edits as a snapshot, then puts every audited path and
  the dream cursor back as of the target and records a new commit; history is never
  rewritten, except by ``purge`` on a person's explicit ``forget --purge``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, cast

from reverie.core.audit import (
    SHORT_SHA_LENGTH,
    AuditIntegrity,
    CommitDetail,
    CommitInfo,
    LineOrigin,
    person_identity,
)
from reverie.core.clock import Clock, system_clock
from reverie.core.diff import AuditDiff, FileVersions, commit_body, render_diff
from reverie.errors import DreamError, InputError, RevisionNotFoundError
from reverie.storage.postgres.audit_rewrite import (
    holding,
    line_origin,
    rewrite_messages,
    rewrite_versions,
)
from reverie.storage.postgres.audit_rows import (
    changed_at,
    head_number,
    resolve,
    tree_at,
    working_tree,
    write_working,
)
from reverie.storage.postgres.files import write_path
from reverie.storage.postgres.text_codec import from_db, to_db

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Conn, Tenant

IDENTITY = "reverie <reverie@localhost>"
SNAPSHOT_SUBJECT = "snapshot: uncommitted changes before restore"


def _diff(old: Mapping[str, str], new: Mapping[str, str]) -> AuditDiff:
    return render_diff(
        FileVersions(
            path=path,
            old=None if path not in old else old[path].encode("utf-8"),
            new=None if path not in new else new[path].encode("utf-8"),
        )
        for path in set(old) | set(new)
    )


class PgAudit:
    """Commits, log, show, file_at and restore of one workspace's audited files."""

    def __init__(self, tenant: Tenant, *, clock: Clock = system_clock) -> None:
        self._tenant = tenant
        self._clock = clock

    def ensure(self) -> None:
        """Nothing to set up: the schema holds the audit trail (``reverie init``)."""

    def integrity(self) -> AuditIntegrity:
        """Always ``ok``: the rows cannot go missing apart from the database itself."""
        return AuditIntegrity(state="ok")

    def repair(self) -> AuditIntegrity:
        """Nothing to repair (see ``integrity``)."""
        return self.integrity()

    def commit(
        self, subject: str, *, allow_empty: bool = False, author: str | None = None
    ) -> CommitInfo | None:
        """Record the working copy as a new commit (None when it equals HEAD).

        Raises:
            InputError: the subject is blank, or the author is not ``Name [<email>]``.
        """
        line = " ".join(subject.split())
        if not line:
            raise InputError("a commit subject must not be blank")
        who = IDENTITY if author is None else person_identity(author).decode()
        with self._locked() as conn:
            return self._commit_locked(conn, line, who, allow_empty=allow_empty)

    def publish(
        self,
        changes: Mapping[str, str | None],
        *,
        subject: str,
        dream_cursor: int | None = None,
        fence: Callable[[Conn], None] | None = None,
        expected_cursor: int | None = None,
    ) -> CommitInfo | None:
        """Write files (None: remove), set the dream cursor and commit, all in one transaction.

        This is a dream's publish on a server backend: another server sees all of it or none
        of it, and a crash at any instant leaves the old state. ``fence`` runs first in the
        same transaction (``PgLeases.fence``): when the caller's lease was lost, it raises
        and nothing is written. ``expected_cursor``: publish only if the dream cursor is
        still that (the run's batch was not consumed by another run meanwhile).

        Raises:
            LeaseLostError: raised by ``fence``.
            DreamError: the dream cursor is no longer ``expected_cursor``.
        """
        line = " ".join(subject.split())
        if not line:
            raise InputError("a commit subject must not be blank")
        with self._locked() as conn:
            if fence is not None:
                fence(conn)
            if expected_cursor is not None:
                _check_cursor(conn, self._tenant.id, expected_cursor)
            for path, text in changes.items():
                write_path(conn, self._tenant.id, path, text)
            if dream_cursor is not None:
                conn.execute(
                    "UPDATE workspace_state SET dream_cursor = %s WHERE workspace_id = %s",
                    (dream_cursor, self._tenant.id),
                )
            return self._commit_locked(conn, line, IDENTITY)

    def pending_diff(self) -> AuditDiff:
        """Return the working copy's changes against HEAD."""
        with self._tenant.transaction(snapshot=True) as conn:
            ws = self._tenant.id
            return _diff(tree_at(conn, ws, head_number(conn, ws)), working_tree(conn, ws))

    def log(self, n: int = 20) -> list[CommitInfo]:
        """Return up to ``n`` commits, newest first."""
        with self._tenant.transaction(snapshot=True) as conn:
            rows = conn.execute(
                "SELECT number FROM commits WHERE workspace_id = %s ORDER BY number DESC LIMIT %s",
                (self._tenant.id, n),
            ).fetchall()
            return [self._describe(conn, int(str(row[0])))[0] for row in rows]

    def show(self, rev: str) -> CommitDetail:
        """Return one commit with its full diff (``HEAD``, ``HEAD~N`` or a sha prefix)."""
        with self._tenant.transaction(snapshot=True) as conn:
            info, diff = self._describe(conn, resolve(conn, self._tenant.id, rev))
        return CommitDetail(info=info, diff=diff.diff)

    def file_at(self, rev: str, path: str) -> bytes | None:
        """Return an audited path's bytes as of ``rev`` (None when absent there)."""
        with self._tenant.transaction(snapshot=True) as conn:
            tree = tree_at(conn, self._tenant.id, resolve(conn, self._tenant.id, rev))
        return None if path not in tree else tree[path].encode("utf-8")

    def restore(self, rev: str) -> CommitInfo:
        """Put every audited path and the dream cursor back as of ``rev``, as a new commit."""
        with self._locked() as conn:
            ws = self._tenant.id
            target = resolve(conn, ws, rev)
            self._commit_locked(conn, SNAPSHOT_SUBJECT, IDENTITY)
            write_working(conn, ws, tree_at(conn, ws, target), working_tree(conn, ws))
            info, _ = self._describe(conn, target)
            subject = f"restore: {info.short} ({info.subject})"
            made = self._commit_locked(conn, subject, IDENTITY)
            if made is not None:
                return made
            head = head_number(conn, ws)
            if head == 0:
                raise RevisionNotFoundError(rev)
            return self._describe(conn, head)[0]

    def line_origins(
        self, texts: Mapping[str, str], *, depth: int = 200
    ) -> dict[str, tuple[LineOrigin, ...]]:
        """For each line of each text, the oldest commit of the latest run that held it."""
        with self._tenant.transaction(snapshot=True) as conn:
            head = head_number(conn, self._tenant.id)
            numbers = list(range(head, max(0, head - depth), -1))
            trees = [(n, tree_at(conn, self._tenant.id, n)) for n in numbers]
            infos = {n: self._describe(conn, n)[0] for n in numbers}
        reached_root = len(numbers) < depth
        return {
            path: tuple(
                line_origin(line, path, trees, infos, reached_root=reached_root)
                for line in text.splitlines()
            )
            for path, text in texts.items()
        }

    def purge(self, scrub: Callable[[str, bytes], bytes], scrub_text: Callable[[str], str]) -> int:
        """Rewrite every stored version and message through the scrubbers; return rows changed."""
        with self._locked() as conn:
            ws = self._tenant.id
            return rewrite_versions(conn, ws, scrub) + rewrite_messages(conn, ws, scrub_text)

    def objects_holding(self, holds: Callable[[bytes], bool]) -> list[str]:
        """Return ``<sha>:<path>`` of every version (and ``<sha>`` of every message) that holds."""
        with self._tenant.transaction(snapshot=True) as conn:
            return holding(conn, self._tenant.id, holds)

    def close(self) -> None:
        """Nothing to release (connections belong to the database's pool)."""

    def _locked(self) -> _Locked:
        return _Locked(self._tenant)

    def _commit_locked(
        self, conn: Conn, subject: str, author: str, *, allow_empty: bool = False
    ) -> CommitInfo | None:
        ws = self._tenant.id
        head = head_number(conn, ws)
        old, new = tree_at(conn, ws, head), working_tree(conn, ws)
        diff = _diff(old, new)
        if not diff.changed and not allow_empty:
            return None
        number, moment = head + 1, self._clock()
        sha = hashlib.sha1(  # noqa: S324 (an id, not a security measure)
            f"{self._tenant.name}\0{number}\0{subject}\0{moment.isoformat()}".encode()
        ).hexdigest()
        message = f"{subject}\n\n{commit_body(diff)}"
        conn.execute(
            "INSERT INTO commits (workspace_id, number, sha, author, subject, message, at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (ws, number, sha, author, to_db(subject), to_db(message), moment),
        )
        for change in diff.files:
            text = new.get(change.path)
            conn.execute(
                "INSERT INTO file_versions (workspace_id, path, number, content)"
                " VALUES (%s, %s, %s, %s)",
                (ws, change.path, number, None if text is None else to_db(text)),
            )
        return self._describe(conn, number)[0]

    def _describe(self, conn: Conn, number: int) -> tuple[CommitInfo, AuditDiff]:
        row = conn.execute(
            "SELECT sha, subject, message, at, author FROM commits"
            " WHERE workspace_id = %s AND number = %s",
            (self._tenant.id, number),
        ).fetchone()
        if row is None:
            raise RevisionNotFoundError(str(number))
        sha, subject, message, at, author = row
        diff = changed_at(conn, self._tenant.id, number, _diff)
        info = CommitInfo(
            sha=str(sha),
            short=str(sha)[:SHORT_SHA_LENGTH],
            subject=from_db(str(subject)),
            message=from_db(str(message)),
            time=cast("datetime", at),
            files=diff.files,
            author=str(author),
        )
        return info, diff


class _Locked:
    """A transaction of one workspace holding its audit lock until it ends."""

    def __init__(self, tenant: Tenant) -> None:
        self._tenant = tenant
        self._context = tenant.transaction()

    def __enter__(self) -> Conn:
        conn = self._context.__enter__()
        conn.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended('reverie.audit.' || %s, 0))",
            (str(self._tenant.id),),
        )
        return conn

    def __exit__(self, *exc: object) -> None:
        self._context.__exit__(*exc)  # type: ignore[arg-type]


def _check_cursor(conn: Conn, workspace_id: int, expected: int) -> None:
    """Lock the workspace's state row; raise unless its dream cursor is ``expected``."""
    row = conn.execute(
        "SELECT dream_cursor FROM workspace_state WHERE workspace_id = %s FOR UPDATE",
        (workspace_id,),
    ).fetchone()
    found = cast("int", row[0]) if row is not None else 0
    if found != expected:
        raise DreamError(
            f"the dream cursor moved from {expected} to {found} during this run"
            " (another run consumed the batch); nothing was published"
        )
