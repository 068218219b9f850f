"""Token bounds from the ledger: no dream run over its budget or step limit, no oversized call.

The ledger has one line per model call of a memory job, and no run id. Dream runs never
overlap (they hold the workspace's dream lock), so one run's ``dream`` lines are consecutive
among the dream lines. A run ends with its final reply (outcome ``final``) or the runner's own
failure line (a dream outcome such as ``over_budget``, zero tokens); a SIGKILLed run has
neither, so runs are also split wherever a worker was killed between two lines. Splitting
too often only makes the check weaker, never wrong.

Bounds checked: per dream run, prompt plus completion tokens at most ``token_budget`` and at
most ``max_rounds + 1`` model calls; per compaction call, completion tokens at most the
output cap and prompt tokens within the context window.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from reverie.config.sections import DreamConfig
from reverie.core.ledger import LedgerRecord
from reverie.memory.dream.result import FAILED_OUTCOMES
from reverie.storage.folder.ledger import Ledger

RUN_END = frozenset({"final", "completed", *FAILED_OUTCOMES})


@dataclass(slots=True)
class DreamRun:
    """The ledger lines of one dream run (as far as the ledger tells)."""

    records: list[LedgerRecord] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens of the run."""
        return sum(r.tokens_in + r.tokens_out for r in self.records)

    @property
    def calls(self) -> int:
        """Model calls of the run (the runner's own failure line is not a call)."""
        return sum(1 for r in self.records if r.outcome in ("final", "tool_calls", "error"))


def dream_runs(records: list[LedgerRecord], kill_times: list[float]) -> list[DreamRun]:
    """Group the model dream lines into runs (see the module docstring)."""
    kills = sorted(kill_times)
    runs: list[DreamRun] = []
    current = DreamRun()
    for record in records:
        if record.job != "dream" or record.model == "model-free":
            continue
        if current.records and _killed_between(kills, current.records[-1], record):
            runs.append(current)
            current = DreamRun()
        current.records.append(record)
        if record.outcome in RUN_END:
            runs.append(current)
            current = DreamRun()
    if current.records:
        runs.append(current)
    return [run for run in runs if run.calls]


def _killed_between(kills: list[float], earlier: LedgerRecord, later: LedgerRecord) -> bool:
    start = bisect.bisect_left(kills, earlier.time.timestamp())
    return start < len(kills) and kills[start] <= later.time.timestamp()


@dataclass(frozen=True, slots=True, kw_only=True)
class LedgerFigures:
    """What the ledger check measured."""

    dream_runs: int
    dream_calls: int
    max_run_tokens: int
    max_run_calls: int
    compaction_calls: int
    unreadable: int


def check_ledger(
    ledger: Ledger,
    *,
    dream: DreamConfig,
    context_window: int,
    max_output_tokens: int,
    kill_times: list[float],
) -> tuple[LedgerFigures, list[str]]:
    """Check the token bounds; return the figures and one line per violation."""
    read = list(ledger.records())
    records = [r for r in read if r is not None]
    problems: list[str] = []
    runs = dream_runs(records, kill_times)
    for run in runs:
        started = run.records[0].time.isoformat()
        if run.tokens > dream.token_budget:
            problems.append(
                f"dream run at {started} spent {run.tokens} tokens (budget {dream.token_budget})"
            )
        if run.calls > dream.max_rounds + 1:
            problems.append(f"dream run at {started} made {run.calls} calls")
    compactions = [r for r in records if r.job == "compaction" and r.model != "model-free"]
    for record in compactions:
        if record.tokens_out > max_output_tokens or record.tokens_in > context_window:
            problems.append(
                f"compaction call at {record.time.isoformat()} used {record.tokens_in} in, "
                f"{record.tokens_out} out"
            )
    figures = LedgerFigures(
        dream_runs=len(runs),
        dream_calls=sum(run.calls for run in runs),
        max_run_tokens=max((run.tokens for run in runs), default=0),
        max_run_calls=max((run.calls for run in runs), default=0),
        compaction_calls=len(compactions),
        unreadable=sum(1 for r in read if r is None),
    )
    return figures, problems
