"""The ledger: ``memory/ledger.jsonl``, one line per model call made by a memory job.

Compaction and dream (and their model-free stand-ins) record every call here: when, which job,
which session, which model or mode, tokens in and out, how long it took, and how it ended.
Model calls arrive through ``reverie.llm.metered.MeteredModel`` (``append_call``), which also
keeps the counter's estimate of the prompt (``estimated_in``) beside the billed figure. It
is what ``status`` and ``cost`` add up, and what the soak test checks token bounds against.

Appends go through ``reverie.storage.folder.appends`` (``O_APPEND``, a short write retried until
complete) under a ``ProcessLock``, so lines from many processes never interleave. The ledger
is diagnostics, not memory: a line that does not parse is skipped by readers and counted in
``LedgerSummary.unreadable`` (``doctor`` reports it), never rewritten away. A reason (often an
error text) is redacted before it is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from reverie.core.ledger import CallFacts, LedgerRecord, LedgerSummary, summarise
from reverie.errors import StorageError
from reverie.storage.folder.appends import append_bytes
from reverie.storage.folder.layout import check_path
from reverie.storage.folder.locks import ProcessLock


class Ledger:
    """Append and read ``memory/ledger.jsonl``."""

    def __init__(self, path: Path, *, lock: ProcessLock, root: Path | None = None) -> None:
        self.path = path
        self._lock = lock
        self._root = root

    def append(self, record: LedgerRecord) -> None:
        """Append one record (one write under the lock)."""
        line = record.to_line()
        with self._lock.hold():
            if self._root is not None:  # never append through a link leading outside
                check_path(self._root, self.path.relative_to(self._root).as_posix(), write=True)
            try:
                append_bytes(self.path, line)
            except OSError as exc:
                raise StorageError(
                    f"cannot append to ledger ({exc.strerror})", path=self.path
                ) from exc

    def append_call(self, call: CallFacts) -> None:
        """Append the record of one metered model call."""
        self.append(LedgerRecord.of_call(call))

    def records(self) -> Iterator[LedgerRecord | None]:
        """Yield every record in order; None stands for a line that could not be parsed."""
        try:
            handle = self.path.open("rb")
        except FileNotFoundError:
            return
        with handle:
            for line in handle:
                if not line.strip():
                    continue
                try:
                    yield LedgerRecord.from_line(line)
                except (ValueError, KeyError, TypeError):
                    yield None

    def summary(self) -> LedgerSummary:
        """Add up the ledger by job and by local day."""
        return summarise(self.records())
