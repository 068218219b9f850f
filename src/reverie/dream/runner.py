"""The dream run: one batch of history curated into the durable files, all or nothing.

``Dreamer`` wires the parts of ``reverie.dream`` to one workspace and one model. A run::

    take the dream lock without waiting         held elsewhere -> outcome "busy"
    finish an interrupted publish (recovery)    journal -> files, cursor, commit, journal gone
    build the prompt from the dream cursor      nothing pending -> "no_pending", no model call
    DreamLoop on a Staging copy                 bounded: rounds, tokens, no-progress
    failed / cut off / over budget              ledger line with the reason; nothing else moves
    completed, dry run                          return Staging.diff(); nothing is written
    completed                                   publish the guarded text (``guard``: secrets
                                                redacted, new SOUL.md rules screened; refused
                                                ones go to the result and the rejections log),
                                                (journal carries the new cursor),
                                                write the dream cursor, ONE audit commit
                                                ("dream: <trigger>", body from the real diff)
                                                holding files and cursor, delete the journal;
                                                then trim history and keep the transcript
    (before publishing, the sources of every line the run adds go to the provenance sidecar)

Crash safety: the journal is written before any durable file changes and deleted only after the
commit, and every step after it is idempotent (rewriting a file to its journaled text, writing
the same cursor, a commit that finds nothing new), so recovery at the start of the next run
simply repeats them. Until recovery ran, the files may be new while the cursor is old; recovery
runs under the dream lock before anything reads them. ``restore`` and ``exclusive`` (a person's
edit) take the same lock and recover first, so neither is undone by a later roll-forward.

Invariants 7, 8, 9 and 11: the cursor moves only after a completed run (a completed no-op too);
writes reach only the writable set (``confine`` through ``DreamTools`` and the journal); the
commit message is the audit repository's, built from the diff, never the model's text; every
run is bounded by ``DreamLoop``. Every automatic or manual run that reached the model updates
the back-off state (``DreamStateFile``); dry runs and "busy"/"no_pending" do not.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from reverie.config import DreamConfig
from reverie.dream.curated import MODEL_FREE, curate_without_model
from reverie.dream.journal import DEFAULT_JOURNAL
from reverie.dream.locking import DreamLocking
from reverie.dream.loop import DreamLoop, LoopLimits, LoopResult
from reverie.dream.outlook import DreamOutlook
from reverie.dream.progress import ProgressDetector
from reverie.dream.prompt import DreamPrompt, build_dream_prompt
from reverie.dream.result import DreamResult, RunMode
from reverie.dream.schedule import Decision, Pending, Schedule
from reverie.dream.staging import Staging
from reverie.dream.state import DEFAULT_STATE, DreamState, DreamStateFile
from reverie.dream.tools import DreamTools
from reverie.dream.transcript import keep_transcript
from reverie.errors import DreamError, PublishConflictError
from reverie.llm.metered import MeteredModel
from reverie.llm.tokens import default_counter
from reverie.provenance.record import note_run
from reverie.store.ledger import LedgerRecord

if TYPE_CHECKING:
    from reverie.llm.provider import Provider
    from reverie.store.workspace import Workspace
    from reverie.token_estimate import TokenCounter

logger = logging.getLogger(__name__)


class Dreamer(DreamLocking):
    """Runs dream on one workspace with one model (see the module docstring)."""

    def __init__(
        self,
        workspace: Workspace,
        provider: Provider | None,
        *,
        config: DreamConfig | None = None,
        counter: TokenCounter | None = None,
        max_output_tokens: int = 4_096,
        schedule: Schedule | None = None,
    ) -> None:
        """Wire a dreamer.

        Args:
            workspace: the open workspace.
            provider: the model that curates; None runs the model-free curator instead.
            config: batch size, caps and bounds (DESIGN.md's defaults when None).
            counter: prices calls whose usage the provider does not report.
            max_output_tokens: cap asked of each reply (lowered when the budget has less left).
            schedule: the trigger rules for ``should_run`` (built from ``config`` when None).
        """
        self.workspace = workspace
        self.provider = provider
        self.config = config if config is not None else DreamConfig()
        self.counter = counter if counter is not None else default_counter()
        self.max_output_tokens = max_output_tokens
        self.journal = workspace.root / DEFAULT_JOURNAL
        self.state_file = DreamStateFile(workspace.root / DEFAULT_STATE)
        self.outlook = DreamOutlook(
            workspace, self.state_file, config=self.config, schedule=schedule
        )
        self.schedule = self.outlook.schedule

    @property
    def mode(self) -> RunMode:
        """``model`` with a provider, ``model-free`` without one."""
        return "model" if self.provider is not None else MODEL_FREE

    def run(self, *, trigger: str = "manual", dry_run: bool = False) -> DreamResult:
        """Run dream once over the next batch of history.

        Args:
            trigger: what started the run; the commit subject is ``dream: <trigger>``.
            dry_run: run the model on a staging copy and return the diff it would publish;
                publish nothing, move no cursor, commit nothing.

        Returns:
            The typed result; a failed run is a result, never an exception.

        Raises:
            StorageError, AuditError: the disk or git failed after publishing began; the
                journal stays, and the next run's recovery finishes the publish.
        """
        cursor = self.workspace.dream_cursor.read()
        with self._dream_lock() as held:
            if not held:
                return DreamResult(
                    outcome="busy",
                    mode=self.mode,
                    trigger=trigger,
                    reason="another dream run holds the workspace's dream lock",
                    dry_run=dry_run,
                    cursor_before=cursor,
                    cursor_after=cursor,
                )
            return self._run_locked(trigger, dry_run=dry_run)

    def pending(self) -> Pending:
        """What waits after the dream cursor (count capped at ``pending_trigger``)."""
        return self.outlook.pending()

    def state(self) -> DreamState:
        """The persisted back-off state."""
        return self.outlook.state()

    def should_run(self, now: datetime | None = None, *, manual: bool = False) -> Decision:
        """Whether a dream run should start now (see ``Schedule.decide``)."""
        return self.outlook.should_run(now, manual=manual)

    def _run_locked(self, trigger: str, *, dry_run: bool) -> DreamResult:
        try:
            recovered = self._recover_locked()
        except DreamError as exc:
            cursor = self.workspace.dream_cursor.read()
            result = DreamResult(
                outcome="failed",
                mode=self.mode,
                trigger=trigger,
                reason=f"an interrupted publish could not be finished: {exc}",
                dry_run=dry_run,
                cursor_before=cursor,
                cursor_after=cursor,
            )
            return self._record_failure(result, None)
        prompt = build_dream_prompt(self.workspace, self.config)
        cursor = self.workspace.dream_cursor.read()
        base = DreamResult(
            outcome="no_pending",
            mode=self.mode,
            trigger=trigger,
            dry_run=dry_run,
            cursor_before=cursor,
            cursor_after=cursor,
            entries=len(prompt.entries),
            recovered=recovered,
        )
        if prompt.batch_last is None:
            return self._redact_only(
                replace(base, reason="no history entry after the dream cursor")
            )
        return self._curate(prompt, base)

    def _redact_only(self, base: DreamResult) -> DreamResult:
        """With nothing pending, still take out secrets already in the files (one commit)."""
        staging = Staging(self.workspace.root)
        diff = staging.diff()
        if not diff or base.dry_run:
            return replace(base, diff=diff, files_changed=tuple(staging.changes()))
        trigger = f"{base.trigger} (redaction)"
        try:
            changed = staging.publish(self.journal, cursor=base.cursor_before, trigger=trigger)
        except PublishConflictError as exc:
            return replace(base, reason=f"{base.reason}; secrets not redacted yet: {exc}")
        commit = self._finish_publish(base.cursor_before, trigger)
        logger.info("dream redacted secrets already in %s", ", ".join(changed))
        return replace(
            base,
            reason=f"{base.reason}; redacted secrets already in the files",
            files_changed=changed,
            diff=diff,
            commit=None if commit is None else commit.sha,
        )

    def _curate(self, prompt: DreamPrompt, base: DreamResult) -> DreamResult:
        """Run the model on a staging copy; publish what a completed, real run staged."""
        staging = Staging(self.workspace.root)
        if self.provider is None:
            today = self.workspace.clock().astimezone().date()
            loop = curate_without_model(staging, prompt.entries, today=today, config=self.config)
            base = replace(base, trigger=f"{base.trigger} ({MODEL_FREE})")
        else:
            loop = self._loop(staging, self.provider).run(prompt.messages)
        result = replace(
            base,
            outcome=loop.outcome,
            reason=loop.reason,
            rounds=loop.rounds,
            model_calls=loop.model_calls,
            tokens_in=loop.tokens_in,
            tokens_out=loop.tokens_out,
        )
        if loop.outcome != "completed":
            return self._record_failure(result, None if base.dry_run else loop)
        result = replace(result, rejected=staging.rejected())
        if base.dry_run:
            return replace(result, diff=staging.diff(), files_changed=tuple(staging.changes()))
        return self._publish(staging, prompt, loop, result)

    def _loop(self, staging: Staging, provider: Provider) -> DreamLoop:
        return DreamLoop(
            model=MeteredModel(
                provider,
                job="dream",
                counter=self.counter,
                log=self.workspace.ledger,
                clock=self.workspace.clock,
            ),
            tools=DreamTools(staging),
            detector=ProgressDetector(stall_rounds=self.config.stall_rounds),
            limits=LoopLimits(
                max_rounds=self.config.max_rounds,
                token_budget=self.config.token_budget,
                max_output_tokens=self.max_output_tokens,
            ),
            clock=self.workspace.clock,
        )

    def _publish(
        self, staging: Staging, prompt: DreamPrompt, loop: LoopResult, result: DreamResult
    ) -> DreamResult:
        assert prompt.batch_last is not None
        diff = staging.diff()
        # Sources first: a record for a line not yet published is inert (see provenance).
        note_run(
            self.workspace.root,
            self.workspace.sessions,
            changes=staging.changes(),
            entries=prompt.entries,
            at=self.workspace.clock(),
        )
        try:
            changed = staging.publish(
                self.journal, cursor=prompt.batch_last, trigger=result.trigger
            )
        except PublishConflictError as exc:
            return self._record_failure(replace(result, outcome="conflict", reason=str(exc)), loop)
        commit = self._finish_publish(prompt.batch_last, result.trigger)
        self.workspace.rejections.append(result.rejected, time=self.workspace.clock())
        logger.info(
            "dream (%s) consumed entries through %d, changed %s",
            result.trigger,
            prompt.batch_last,
            ", ".join(changed) or "no file",
        )
        self.workspace.history.trim(keep=self.config.keep_history)
        done = replace(
            result,
            cursor_after=prompt.batch_last,
            files_changed=changed,
            diff=diff,
            commit=None if commit is None else commit.sha,
        )
        return self._record_success(done, loop)

    def _record_success(self, result: DreamResult, loop: LoopResult) -> DreamResult:
        now = self.workspace.clock()
        if result.mode == MODEL_FREE:
            record = LedgerRecord(time=now, job="dream", outcome="completed", model=MODEL_FREE)
            self.workspace.ledger.append(record)
        self.state_file.write(self.state_file.read().after(result, now))
        key = keep_transcript(self.workspace.sessions, loop.transcript, moment=now)
        return replace(result, transcript=key)

    def _record_failure(self, result: DreamResult, loop: LoopResult | None) -> DreamResult:
        """Ledger line with the reason; back-off state (not for dry runs); the transcript."""
        now = self.workspace.clock()
        self.workspace.ledger.append(
            LedgerRecord(
                time=now,
                job="dream",
                outcome=result.outcome,
                model=result.mode,
                reason=result.reason,
            )
        )
        logger.warning("dream run ended %s: %s", result.outcome, result.reason)
        if result.dry_run:
            return result
        self.state_file.write(self.state_file.read().after(result, now))
        if loop is None:
            return result
        key = keep_transcript(self.workspace.sessions, loop.transcript, moment=now)
        return replace(result, transcript=key)
