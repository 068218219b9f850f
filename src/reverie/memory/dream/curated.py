"""Model-free dream: the deterministic curator stands in for the model, same contract.

``curate_without_model`` applies the batch's facts to the staging copy with
``reverie.memory.modelfree.ModelFreeCurator`` and reports it as a completed loop, so the dreamer
publishes, commits (subject tagged ``(model-free)``) and advances the cursor exactly as after a
model run: all-or-nothing, diff-built commit message, cursor moved only on completion.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Final

from reverie.config.sections import DreamConfig
from reverie.core.durable import MEMORY_FILE_NAMES, RELATIVE_PATHS
from reverie.core.entries import HistoryEntry
from reverie.core.messages import Message
from reverie.memory.dream.loop import LoopResult
from reverie.memory.dream.staging import Staging

MODEL_FREE: Final = "model-free"


def curate_without_model(
    staging: Staging, entries: Sequence[HistoryEntry], *, today: date, config: DreamConfig
) -> LoopResult:
    """Stage the curator's edits for ``entries``; the transcript lists every change made."""
    # Imported on use: the model-free curator's rules cost start-up time to every command.
    from reverie.memory.modelfree.curator import CuratorSettings, ModelFreeCurator  # noqa: PLC0415

    curator = ModelFreeCurator(CuratorSettings(file_chars=config.file_chars))
    files = {name: staging.read(RELATIVE_PATHS[name]) for name in MEMORY_FILE_NAMES}
    result = curator.curate(files, entries, today=today)
    for name in result.changed:
        staging.write(RELATIVE_PATHS[name], result.new_texts[name])
    lines = [f"{c.action} {RELATIVE_PATHS[c.file]}: {c.fact}" for c in result.applied]
    lines += [f"skipped (cursor {s.cursor}): {s.fact} ({s.reason})" for s in result.skipped]
    transcript = (
        Message(role="system", content="model-free curation of history entries"),
        Message(role="assistant", content="\n".join(lines) or "nothing to change"),
    )
    return LoopResult(
        outcome="completed",
        reason="curated without a model",
        rounds=1,
        model_calls=0,
        tokens_in=0,
        tokens_out=0,
        transcript=transcript,
    )
