"""The changes a person makes through ``MemoryEngine``: restore, forget, edit, redact, repair.

Restore, forget and edit make one commit each; ``redact_sessions`` rewrites the session
messages that still hold a secret (written before redaction ran on append).
A mixin of ``MemoryEngine`` (as ``MemoryReads`` holds its reads): each method is a thin
delegation to the process that owns the change (``reverie.memory.dream``,
``reverie.memory.provenance``), under dream's lock, so a person's change and a dream never
interleave.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.engine.reads import MemoryReads
from reverie.memory.dream.edit import EDIT_LOCK_TIMEOUT, EditResult, edit_file, restore

if TYPE_CHECKING:
    from reverie.core.audit import AuditIntegrity, CommitInfo
    from reverie.memory.provenance.forget import ForgetReport
    from reverie.memory.recall.dense.retriever import DenseRetriever
    from reverie.memory.session_secrets import SessionsRedacted
    from reverie.storage.ports import IndexPort


class MemoryChanges(MemoryReads):
    """Changes a person makes (``MemoryEngine`` is the class to use)."""

    dense: DenseRetriever | None

    @property
    def index(self) -> IndexPort:
        """The search index (defined by ``MemoryEngine``)."""
        raise NotImplementedError

    def restore(self, rev: str, *, force: bool = False) -> CommitInfo:
        """Put the durable files and the dream cursor back as of ``rev``, as a new commit.

        A commit older than a trim raises ``RestoreWouldLoseError`` (the entries to dream
        again are gone) unless ``force``.
        """
        return restore(self._stores, rev, force=force)

    def forget(
        self, text: str, *, purge: bool = False, confirm_broad: bool = False
    ) -> ForgetReport:
        """Remove a fact, what it came from and what it led to, as one audit commit.

        With ``purge``, also rewrite the audit history and scrub every file (or row) of the
        workspace so that no byte of ``text`` is left (see ``reverie.memory.provenance``). Runs on
        a folder and on a database workspace alike. A text too short to name a fact, or a
        plan that takes more than one fact (``ForgetPlan.broad``: a text with no word of its
        own, found inside longer words, or taking many lines or messages) is refused with an
        ``InputError`` unless ``confirm_broad``: a person's choice after reading the plan,
        which no agent tool offers.
        """
        from reverie.memory.provenance.forget import forget  # noqa: PLC0415

        report = forget(
            self._stores, text, purge=purge, index=self.index, confirm_broad=confirm_broad
        )
        if purge and self.dense is not None:  # the purge deleted vectors (file or rows): reload
            self.dense.store.close()
        return report

    def redact_sessions(self) -> SessionsRedacted:
        """Rewrite, redacted, every session message that still holds a secret.

        Messages written before redaction ran on append (``doctor`` names them). Each keeps
        its place, role, ids and time; the search index is refreshed and the vectors (a cache
        holding a vector and a hash of each item's exact text) are computed again.
        """
        from reverie.memory.session_secrets import find, rewrite  # noqa: PLC0415

        done = rewrite(self._stores.sessions, find(self._stores.sessions))
        if done.sessions:
            self.index.refresh()
            if self.dense is not None:
                self.dense.store.drop()
                self.dense.catch_up_all()
        return done

    def edit_file(
        self,
        path: str,
        text: str,
        *,
        author: str,
        expected_sha256: str | None = None,
        lock_timeout: float = EDIT_LOCK_TIMEOUT,
    ) -> EditResult:
        """A person's edit of a durable file: dream's confinement and lock, one ``edit:`` commit.

        ``expected_sha256`` (``reverie.memory.dream.edit.text_sha256`` of the text the person
        started from) refuses the edit with ``EditError`` if the file changed meanwhile; a dream
        holding the workspace longer than ``lock_timeout`` seconds raises ``LockTimeoutError``.
        """
        return edit_file(
            self._stores,
            path,
            text,
            author=author,
            expected_sha256=expected_sha256,
            timeout=lock_timeout,
        )

    def repair_audit(self) -> AuditIntegrity:
        """Start a new audit repository if ``.git`` is missing, or accept a replaced one.

        Never done implicitly: a lost audit history is reported by ``doctor`` until a person
        asks for this (``reverie doctor --repair-audit``).
        """
        return self._stores.audit.repair()
