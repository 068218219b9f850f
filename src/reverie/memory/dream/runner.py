"""The dream run: ``Dreamer``, the one runner, on any backend's ``DreamStores``.

``Dreamer`` is the run of DESIGN.md on the stores of ``reverie.storage.ports``, the same on a
workspace folder and a database workspace; where the files live and how a publish lands (a
folder's journal and git commit, a database's one transaction) is the backend's
(``DreamStores``). One run::

    take the dream lock without waiting         held elsewhere -> outcome "busy"
                                                (on PostgreSQL a lease: one run across servers)
    finish an interrupted publish (recovery)    a folder's journal; nothing on a database
    the instructions                            the built-in text, or the workspace's own
                                                (a folder's ``prompts/dream.md``)
    build the prompt from the dream cursor      nothing pending -> "no_pending", no model call
                                                (but secrets already in the files still go:
                                                a "(redaction)" publish at the same cursor)
    DreamLoop on the run's ``Staging`` copy     bounded: rounds, tokens, no-progress
                                                (model-free: the curator edits the overlay)
    failed / cut off / over budget              ledger line with the reason; nothing else moves
    completed, dry run                          return the overlay's diff; nothing is written
    completed                                   publish the guarded text (``guard``), the dream
                                                cursor and ONE audit commit ("dream: <trigger>",
                                                body from the real diff) as one step
                                                (``DreamStores.publish_dream``), after noting
                                                the sources of the lines it adds
                                                (``provenance.record``); a file changed since
                                                it was staged, the cursor moved or a lost
                                                lease -> "conflict", nothing published; then
                                                the refused rules, trim history and keep the
                                                transcript

Invariants 7, 8, 9 and 11: the cursor moves only with a completed run's publish; writes reach
only the writable set (``confine`` through ``DreamTools`` and the overlay); the commit message
is the audit's, built from the diff, never the model's text; every run is bounded by
``DreamLoop``. Every run that reached the model (or the curator) updates the back-off state
(``DreamState``, kept where the backend keeps it); dry runs and "busy"/"no_pending" do not.
Across servers each entry is consumed exactly once: the lease lets one run at a time, and the
publish's cursor and lease checks stop a run that lost its lease.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from reverie.config.sections import DreamConfig
from reverie.core.ledger import LedgerRecord
from reverie.errors import DreamError, LockTimeoutError
from reverie.llm.metered import MeteredModel
from reverie.llm.tokens import default_counter
from reverie.memory.dream.curated import MODEL_FREE, curate_without_model
from reverie.memory.dream.loop import DreamLoop, LoopLimits, LoopResult
from reverie.memory.dream.outlook import DreamOutlook
from reverie.memory.dream.progress import ProgressDetector
from reverie.memory.dream.prompt import DreamPrompt, build_dream_prompt, load_instructions
from reverie.memory.dream.result import DreamResult, RunMode
from reverie.memory.dream.schedule import Decision, Pending, Schedule
from reverie.memory.dream.staging import Staging
from reverie.memory.dream.state import DreamState, DreamStateText
from reverie.memory.dream.tools import DreamTools
from reverie.memory.dream.transcript import keep_transcript
from reverie.memory.provenance.record import note_changes

if TYPE_CHECKING:
    from collections.abc import Sequence

    from reverie.core.audit import CommitInfo
    from reverie.core.entries import HistoryEntry
    from reverie.core.token_estimate import TokenCounter
    from reverie.llm.provider import Provider
    from reverie.storage.ports import DreamStores

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class Published:
    """What a publish wrote: the canonical paths it changed and its commit (None: none made)."""

    changed: tuple[str, ...]
    commit: CommitInfo | None


class Dreamer:
    """Runs dream on one workspace's stores with one model, or model-free (see the docstring)."""

    def __init__(
        self,
        stores: DreamStores,
        provider: Provider | None,
        *,
        config: DreamConfig | None = None,
        counter: TokenCounter | None = None,
        max_output_tokens: int = 4_096,
        schedule: Schedule | None = None,
    ) -> None:
        """Wire a dreamer.

        Args:
            stores: the open workspace (a folder or a database workspace).
            provider: the model that curates; None runs the model-free curator instead.
            config: batch size, caps and bounds (DESIGN.md's defaults when None).
            counter: prices calls whose usage the provider does not report.
            max_output_tokens: cap asked of each reply (lowered when the budget has less left).
            schedule: the trigger rules for ``should_run`` (built from ``config`` when None).
        """
        self.stores = stores
        self.provider = provider
        self.config = config if config is not None else DreamConfig()
        self.counter = counter if counter is not None else default_counter()
        self.max_output_tokens = max_output_tokens
        self.schedule = schedule if schedule is not None else Schedule(self.config)
        self.state_store = DreamStateText(stores.dream_state)

    def state(self) -> DreamState:
        """The persisted back-off state (on a database shared by every server)."""
        return self.state_store.read()

    @contextmanager
    def _hold(self) -> Iterator[bool]:
        """The dream lock, tried once: yields whether it was taken."""
        with ExitStack() as stack:
            try:
                stack.enter_context(self.stores.lock("dream").hold(timeout=0))
            except LockTimeoutError:
                yield False
                return
            yield True

    def _note_sources(self, staging: Staging, entries: Sequence[HistoryEntry]) -> None:
        """Record where the lines a run adds came from (before publishing)."""
        changes = staging.changes()
        note_changes(
            self.stores.provenance,
            self.stores.sessions,
            old={path: staging.base(path) for path in changes},
            changes=changes,
            entries=entries,
            at=self.stores.clock(),
        )

    def _publish_staged(
        self, staging: Staging, *, expected: int, cursor: int, trigger: str
    ) -> Published:
        """Publish the staged changes, the cursor and one commit as one step.

        Raises:
            DreamError: nothing was published (a file changed meanwhile, the cursor moved
                from ``expected``, the lease was lost).
        """
        changes = staging.changes()
        commit = self.stores.publish_dream(
            changes,
            bases={path: staging.base(path) for path in changes},
            trigger=trigger,
            dream_cursor=cursor,
            expected_cursor=expected,
        )
        return Published(changed=tuple(sorted(changes)), commit=commit)

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
        """
        cursor = self.stores.dream_cursor.read()
        with self._hold() as held:
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
        return self._outlook().pending()

    def should_run(self, now: datetime | None = None, *, manual: bool = False) -> Decision:
        """Whether a dream run should start now (see ``Schedule.decide``)."""
        return self._outlook().should_run(now, manual=manual)

    def _outlook(self) -> DreamOutlook:
        return DreamOutlook(self.stores, self.state, config=self.config, schedule=self.schedule)

    def _run_locked(self, trigger: str, *, dry_run: bool) -> DreamResult:
        try:
            recovered = self.stores.finish_interrupted_publish()
        except DreamError as exc:
            cursor = self.stores.dream_cursor.read()
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
        staging = Staging(self.stores.dream_files)
        prompt = build_dream_prompt(
            self.stores, staging, self.config, instructions=load_instructions(staging.files)
        )
        cursor = self.stores.dream_cursor.read()
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
            reason = "no history entry after the dream cursor"
            return self._redact_only(staging, replace(base, reason=reason))
        return self._curate(staging, prompt, base)

    def _redact_only(self, staging: Staging, base: DreamResult) -> DreamResult:
        """With nothing pending, still take out secrets already in the files (one commit)."""
        diff = staging.diff()
        if not diff or base.dry_run:
            return replace(base, diff=diff, files_changed=tuple(staging.changes()))
        trigger = f"{base.trigger} (redaction)"
        cursor = base.cursor_before
        try:
            done = self._publish_staged(staging, expected=cursor, cursor=cursor, trigger=trigger)
        except DreamError as exc:
            return replace(base, reason=f"{base.reason}; secrets not redacted yet: {exc}")
        logger.info("dream redacted secrets already in %s", ", ".join(done.changed))
        return replace(
            base,
            reason=f"{base.reason}; redacted secrets already in the files",
            files_changed=done.changed,
            diff=diff,
            commit=None if done.commit is None else done.commit.sha,
        )

    def _curate(self, staging: Staging, prompt: DreamPrompt, base: DreamResult) -> DreamResult:
        """Run the model on the staging copy; publish what a completed, real run staged."""
        if self.provider is None:
            today = self.stores.clock().astimezone().date()
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
                log=self.stores.ledger,
                clock=self.stores.clock,
            ),
            tools=DreamTools(staging),
            detector=ProgressDetector(stall_rounds=self.config.stall_rounds),
            limits=LoopLimits(
                max_rounds=self.config.max_rounds,
                token_budget=self.config.token_budget,
                max_output_tokens=self.max_output_tokens,
            ),
            clock=self.stores.clock,
        )

    def _publish(
        self, staging: Staging, prompt: DreamPrompt, loop: LoopResult, result: DreamResult
    ) -> DreamResult:
        assert prompt.batch_last is not None
        diff = staging.diff()
        # Sources first: a record for a line not yet published is inert (see provenance).
        self._note_sources(staging, prompt.entries)
        try:
            done = self._publish_staged(
                staging,
                expected=result.cursor_before,
                cursor=prompt.batch_last,
                trigger=result.trigger,
            )
        except DreamError as exc:
            return self._record_failure(replace(result, outcome="conflict", reason=str(exc)), loop)
        self.stores.rejections.append(result.rejected, time=self.stores.clock())
        logger.info(
            "dream (%s) consumed entries through %d, changed %s",
            result.trigger,
            prompt.batch_last,
            ", ".join(done.changed) or "no file",
        )
        self.stores.history.trim(keep=self.config.keep_history)
        finished = replace(
            result,
            cursor_after=prompt.batch_last,
            files_changed=done.changed,
            diff=diff,
            commit=None if done.commit is None else done.commit.sha,
        )
        return self._record_success(finished, loop)

    def _record_success(self, result: DreamResult, loop: LoopResult) -> DreamResult:
        now = self.stores.clock()
        if result.mode == MODEL_FREE:
            record = LedgerRecord(time=now, job="dream", outcome="completed", model=MODEL_FREE)
            self.stores.ledger.append(record)
        self.state_store.write(self.state().after(result, now))
        key = keep_transcript(self.stores.sessions, loop.transcript, moment=now)
        return replace(result, transcript=key)

    def _record_failure(self, result: DreamResult, loop: LoopResult | None) -> DreamResult:
        """Ledger line with the reason; back-off state (not for dry runs); the transcript."""
        now = self.stores.clock()
        self.stores.ledger.append(
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
        self.state_store.write(self.state().after(result, now))
        if loop is None:
            return result
        key = keep_transcript(self.stores.sessions, loop.transcript, moment=now)
        return replace(result, transcript=key)
