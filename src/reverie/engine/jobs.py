"""The jobs of ``MemoryEngine``: compaction now or when idle, dream now or when due, ingest.

Each is one process run on the engine's parts (``engine.parts``), followed by encoding dense
recall's backlog (``index_vectors``): a background job, not a prompt, pays for the vectors. The
dream runner is one run (``reverie.memory.dream.runner.Dreamer``) on any backend's
``DreamStores``, in the engine's mode (the model, or model-free without one); on a database
workspace it runs once across servers (the ``dream`` lease) and publishes in one transaction.
Ingest and the runner are imported where they run: ``status`` starts without them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from reverie.core.inbound import check_session_key
from reverie.engine.results import NO_MODEL_HINT
from reverie.errors import ModelNotConfiguredError
from reverie.memory.ingest.guard import refuse_self

if TYPE_CHECKING:
    from pathlib import Path

    from reverie.engine.parts import Parts
    from reverie.memory.compaction.result import CompactionResult
    from reverie.memory.dream.result import DreamResult
    from reverie.memory.ingest.run import IngestReport, Progress
    from reverie.memory.recall.dense.retriever import DenseRetriever


def compact(parts: Parts, session_key: str) -> CompactionResult:
    """Compact every pending message of a session now (and encode dense recall's backlog)."""
    result = parts.compactor.compact_all(check_session_key(session_key), reason="manual")
    index_vectors(parts.dense)
    return result


def dream(parts: Parts, *, trigger: str, dry_run: bool) -> DreamResult:
    """Curate the durable files from the next batch of history (all-or-nothing).

    Raises:
        ModelNotConfiguredError: ``dream.mode`` is "model" and no memory model is configured.
    """
    if parts.config.dream.mode == "model" and parts.memory is None:
        raise ModelNotConfiguredError("dream.mode is 'model' but " + NO_MODEL_HINT)
    result = parts.dreamer().run(trigger=trigger, dry_run=dry_run)
    if not dry_run:
        index_vectors(parts.dense)
    return result


def dream_if_due(parts: Parts) -> DreamResult | None:
    """Run dream when its schedule says so (interval, cron, pending entries); else None."""
    runner = parts.dreamer()
    decision = runner.should_run()
    if not decision.run:
        return None
    result = runner.run(trigger=decision.trigger or "schedule")
    index_vectors(parts.dense)
    return result


def ingest(
    parts: Parts, paths: Sequence[Path], *, on_progress: Progress | None, wait: bool
) -> IngestReport:
    """Import conversations, compact them at their recorded pace, dream until done.

    Formats: OpenAI-style message lists, ChatGPT exports, nanobot workspaces and sessions (see
    ``reverie.memory.ingest.run``). One ingest per workspace at a time: this one waits for a
    running one, or with ``wait=False`` raises ``IngestBusyError``. Rerunning after a crash
    finishes what the crashed run left, and adds nothing twice. Runs the same on a folder and on
    a database workspace (``reverie.storage.ports.IngestStores``). A folder workspace refuses to
    ingest itself (``InputError``).
    """
    from reverie.memory.ingest.run import IngestJob, run_ingest  # noqa: PLC0415 (see the docstring)

    folder = parts.stores.local_folder
    if folder is not None:  # never the workspace into itself (``ingest.guard.refuse_self``)
        refuse_self(paths, folder)
    job = IngestJob(
        stores=parts.stores,
        compaction=parts.compactor,
        dream=lambda: dream(parts, trigger="ingest", dry_run=False),
        mode=parts.mode,
    )
    report = run_ingest(job, paths, on_progress, wait=wait)
    index_vectors(parts.dense, vector_progress(parts.dense, on_progress))
    return report


def index_vectors(
    dense: DenseRetriever | None, progress: Callable[[int], None] | None = None
) -> int:
    """Encode every indexed item dense recall has no vector for; return how many (0: off).

    Prompts encode a few new items each (``reverie.memory.recall.dense.retriever``); ``ingest``,
    ``dream`` and ``compact`` call this (a background job, not a prompt), and ``reverie index``
    does it on demand.
    """
    return dense.catch_up_all(progress) if dense is not None else 0


def vector_progress(
    dense: DenseRetriever | None, on_progress: Callable[[str, int, int], None] | None
) -> Callable[[int], None] | None:
    """``index_vectors``'s progress as ``on_progress("vectors", done, total)`` (None: off).

    Says ``0`` of the backlog at once, so a bar shows while the encoder model loads.
    """
    if on_progress is None or dense is None:
        return None
    total = dense.pending()
    if not total:
        return None
    on_progress("vectors", 0, total)
    return lambda done: on_progress("vectors", min(done, total), total)
