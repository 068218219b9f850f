"""The changes a person makes through ``MemoryEngine``: restore, forget, edit (one commit each).

A mixin of ``MemoryEngine`` (as ``MemoryReads`` holds its reads): each method is a thin
delegation to the process that owns the change (``reverie.memory.dream``,
``reverie.memory.provenance``), under dream's lock, so a person's change and a dream never
interleave.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reverie.engine.reads import MemoryReads
from reverie.memory.dream.edit import EDIT_LOCK_TIMEOUT, EditResult, edit_file

if TYPE_CHECKING:
    # The database side of each change (``reverie.memory.dream.shared``) is imported where it runs.
    from reverie.memory.dream.runner import Dreamer
    from reverie.memory.provenance.forget import ForgetReport
    from reverie.memory.recall.dense.retriever import DenseRetriever
    from reverie.storage.folder.audit import CommitInfo
    from reverie.storage.ports import IndexPort


class MemoryChanges(MemoryReads):
    """Changes a person makes (``MemoryEngine`` is the class to use)."""

    dense: DenseRetriever | None

    @property
    def index(self) -> IndexPort:
        """The search index (defined by ``MemoryEngine``)."""
        raise NotImplementedError

    def dreamer(self) -> Dreamer:
        """The dream runner (defined by ``MemoryEngine``)."""
        raise NotImplementedError

    def restore(self, rev: str, *, force: bool = False) -> CommitInfo:
        """Put the durable files and the dream cursor back as of ``rev``, as a new commit.

        A commit older than a trim raises ``RestoreWouldLoseError`` (the entries to dream
        again are gone) unless ``force``.
        """
        if not self.on_folder:
            from reverie.memory.dream.shared import restore_on_stores  # noqa: PLC0415

            return restore_on_stores(self._stores, rev, force=force)
        return self.dreamer().restore(rev, force=force)

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
        if self.on_folder:  # finish an interrupted publish first (a database has none)
            self.dreamer().recover()
        from reverie.memory.provenance.forget import forget  # noqa: PLC0415

        report = forget(
            self._stores, text, purge=purge, index=self.index, confirm_broad=confirm_broad
        )
        if purge and self.dense is not None:  # the purge deleted vectors (file or rows): reload
            self.dense.store.close()
        return report

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
        if not self.on_folder:
            from reverie.memory.dream.shared import edit_on_stores  # noqa: PLC0415

            return edit_on_stores(
                self._stores,
                path,
                text,
                author=author,
                expected_sha256=expected_sha256,
                timeout=lock_timeout,
            )
        exclusive = self.dreamer().exclusive(timeout=lock_timeout)
        return edit_file(
            self.workspace,
            path,
            text,
            author=author,
            exclusive=exclusive,
            expected_sha256=expected_sha256,
        )
