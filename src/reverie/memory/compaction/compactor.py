"""Token-pressure compaction: keep the next prompt under budget by compacting the oldest turns.

Before a model call, ``ensure_budget`` (or ``fit``, which also hands back the session as it
last read it, so a caller over budget builds its prompt again without another read) measures
the prompt (``AssembledPrompt.pressure`` of the one its caller assembled, else of one it
assembles itself); at or over the input budget it compacts, round by round (at most
``rounds_per_turn``), until the prompt is at or below the target (``ratio`` times the budget).
A round cuts at a turn boundary (``pick_cut``), or inside one endless turn at the last point
that keeps tool calls with their results (``last_safe_cut``), summarises
``messages[mark:cut]``, appends the summary to history tagged with the session key and the
range it covers, stores it as the session's compaction summary, then moves the mark.
The raw messages stay in the session; only the replay window moves.

Invariants.
- Progress (5): a chunk of any size is summarised in budget-sized pieces (``chunks``).
- Facts survive failures (6): when the summariser fails the capped raw transcript goes to
  history as ``kind="raw"``, the mark still advances, and this call stops compacting.
- Idempotent under crashes: an entry already in history for the same session and range (the
  process died before moving the mark) is reused, not written twice.
- One compaction per session at a time, across threads and processes (a per-session lock,
  taken only once the prompt is found over budget: most calls need no compaction);
  messages appended meanwhile stay pending, since the mark only covers the captured range.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime

from reverie.config.sections import CompactionConfig
from reverie.core.entries import HistoryEntry
from reverie.core.session import Session, lock_name
from reverie.core.token_estimate import TokenCounter
from reverie.core.turns import last_safe_cut, pick_cut, turn_boundaries, unsafe_cuts
from reverie.llm.provider import ToolSchema
from reverie.memory.compaction.attempt import SummaryFailure
from reverie.memory.compaction.chunks import ChunkSummariser
from reverie.memory.compaction.result import CompactionResult, Fitted
from reverie.memory.compaction.rounds import Measure, Plan, Progress, Step
from reverie.memory.compaction.transcript import raw_fallback
from reverie.memory.prompt import AssembledPrompt, PromptAssembler
from reverie.storage.ports import SessionLogStores

logger = logging.getLogger(__name__)

RECENT_ENTRIES_CHECKED = 200
"""How many of the newest history entries are searched for an entry a crash left behind."""


class Compactor:
    """Compacts sessions of one workspace with one summariser."""

    def __init__(
        self,
        stores: SessionLogStores,
        *,
        chunks: ChunkSummariser,
        assembler: PromptAssembler,
        input_budget: int,
        config: CompactionConfig,
        counter: TokenCounter,
    ) -> None:
        self._stores = stores
        self._chunks = chunks
        self._assembler = assembler
        self._budget = input_budget
        self._config = config
        self._counter = counter

    @property
    def budget(self) -> int:
        """The prompt's input budget in tokens."""
        return self._budget

    def ensure_budget(
        self,
        key: str,
        *,
        user_text: str | None = None,
        tools: Sequence[ToolSchema] = (),
        harder: bool = False,
        built: AssembledPrompt | None = None,
    ) -> CompactionResult:
        """Compact ``key`` if its next prompt would reach the budget (see ``fit``)."""
        return self.fit(key, user_text=user_text, tools=tools, harder=harder, built=built).result

    def fit(
        self,
        key: str,
        *,
        user_text: str | None = None,
        tools: Sequence[ToolSchema] = (),
        harder: bool = False,
        built: AssembledPrompt | None = None,
    ) -> Fitted:
        """Compact ``key`` if its next prompt would reach the budget; say what it last read.

        Args:
            key: the session.
            user_text: the new user message the prompt will end with, if not recorded yet.
            tools: the tool schemas the prompt will carry.
            harder: compact even under budget, down to half the usual target (used after a
                "context length exceeded" error from the chat model).
            built: the prompt the caller just assembled for ``key`` with these ``user_text``
                and ``tools``: its ``pressure`` is the measure, so nothing is loaded or
                assembled again unless it is over budget. Over budget, the session is read
                afresh under the lock (a record made since the caller's read counts) and
                ``Fitted.session`` is the last read, for the caller's prompt.
        """
        ratio = self._config.ratio / 2 if harder else self._config.ratio
        plan = Plan(user_text=user_text, tools=tuple(tools), target=int(self._budget * ratio))
        if not harder:
            # Most calls are under budget: say so without the lock (on a database, a lease
            # is two flushed commits). Compaction only shrinks a prompt, so a concurrent one
            # cannot turn this answer wrong; over budget, measure again under the lock.
            early = (
                Measure(tokens=built.pressure, carried=built.carried)
                if built is not None
                else self._measure(self._stores.sessions.load(key), plan)
            )
            if early.tokens < self._budget:
                return Fitted(early.unchanged())
        with self._lock(key):
            session = self._stores.sessions.load(key)
            before = self._measure(session, plan)
            if before.tokens < self._budget and not harder:
                return Fitted(before.unchanged(), session)
            return self._run(session, plan, before)

    def compact_all(self, key: str, *, reason: str = "idle") -> CompactionResult:
        """Compact every pending message of ``key``; the summary opens its next prompt."""
        plan = Plan(user_text=None, tools=(), target=0, until_end=True, why=reason)
        with self._lock(key):
            session = self._stores.sessions.load(key)
            before = self._measure(session, plan)
            if session.compacted_upto >= len(session.messages):
                return before.unchanged()
            return self._run(session, plan, before).result

    def _lock(self, key: str) -> AbstractContextManager[None]:
        return self._stores.lock(f"compact-{lock_name(key)}").hold()

    def _run(self, session: Session, plan: Plan, before: Measure) -> Fitted:
        progress = Progress(now=before)
        while progress.rounds < self._config.rounds_per_turn and (
            plan.until_end or progress.tokens > plan.target
        ):
            cut = self._cut(session, progress.tokens - plan.target, until_end=plan.until_end)
            if cut is None:
                break
            step = self._compact_range(session, cut)
            progress.add(step)
            session = self._stores.sessions.load(session.key)
            progress.now = self._measure(session, plan)
            if step.outcome == "raw_fallback" or session.compacted_upto >= len(session.messages):
                break
        logger.info(
            "compacted %s (%s): %d rounds, %d -> %d tokens, %s",
            session.key,
            plan.why,
            progress.rounds,
            before.carried,
            progress.now.carried,
            progress.outcome,
        )
        return Fitted(progress.result(before), session)

    def _cut(self, session: Session, to_remove: int, *, until_end: bool) -> int | None:
        """Where this round cuts: a turn boundary, else a safe point inside the one turn."""
        mark, end = session.compacted_upto, len(session.messages)
        if mark >= end:
            return None
        if until_end:
            unsafe = unsafe_cuts(session.messages)
            return next((c for c in range(end, mark, -1) if not unsafe[c]), None)
        cut = pick_cut(session, max(1, to_remove), counter=self._counter)
        if cut is None or cut <= mark:
            piece = max(to_remove, self._budget // 4)
            cut = last_safe_cut(session, piece, counter=self._counter)
        if cut is not None and cut > mark:
            return self._limit(session, cut)
        return None

    def _limit(self, session: Session, cut: int) -> int:
        """Shorten a round's chunk to what the summariser handles within its call cap.

        The rounds that follow (or the next turn) take the rest, so progress never stops.
        """
        cap = self._chunks.round_tokens
        mark = session.compacted_upto
        tokens = sum(self._counter.message(m) for m in session.messages[mark:cut])
        if tokens <= cap:
            return cut
        boundaries = [b for b in turn_boundaries(session.messages) if mark < b < cut]
        running, best = 0, None
        for index in range(mark, cut):
            if index in boundaries and running <= cap:
                best = index
            running += self._counter.message(session.messages[index])
        if best is not None:
            return best
        shorter = last_safe_cut(session, cap, counter=self._counter)
        return shorter if shorter is not None and shorter > mark else cut

    def _compact_range(self, session: Session, cut: int) -> Step:
        mark, key = session.compacted_upto, session.key
        chunk = session.messages[mark:cut]
        last_active = chunk[-1].timestamp or session.updated_at
        existing = self._find_existing(key, (mark, cut))
        if existing is not None:
            self._advance(key, existing.content, last_active, cut)
            return Step("summarised", existing, 0, "reused the entry a crash left behind")
        chunk_summary = self._chunks.summarise(chunk, session_key=key)
        outcome, calls = chunk_summary.outcome, chunk_summary.calls
        if isinstance(outcome, SummaryFailure):
            cap = self._config.raw_cap_chars
            text = raw_fallback(chunk, reason=outcome.reason, cap=cap)
            entry = self._append(key, text, (mark, cut), kind="raw", cap=cap, at=last_active)
            self._advance(key, entry.content, last_active, cut)
            logger.warning("compaction of %s kept the raw transcript: %s", key, outcome.reason)
            return Step("raw_fallback", entry, calls, outcome.reason)
        if outcome.nothing:
            self._stores.sessions.set_compacted_upto(key, cut)
            return Step("nothing_noteworthy", None, calls, None)
        cap = self._config.summary_cap_chars
        entry = self._append(
            key, outcome.text, (mark, cut), kind="summary", cap=cap, at=last_active
        )
        self._advance(key, entry.content, last_active, cut)
        return Step("summarised", entry, calls, None)

    def _append(
        self, key: str, text: str, source: tuple[int, int], *, kind: str, cap: int, at: datetime
    ) -> HistoryEntry:
        # The entry is dated when its last message was said, not when it was compacted, so an
        # imported conversation's history reads in its own time.
        return self._stores.history.append(
            text, session_key=key, max_chars=cap, source_range=source, kind=kind, at=at
        )

    def _advance(self, key: str, summary: str, last_active: datetime, cut: int) -> None:
        # Entry first, then summary, then mark: a crash before the mark moves is recognised
        # next time by the entry's session and range (``_find_existing``).
        self._stores.sessions.set_summary(key, summary, last_active)
        self._stores.sessions.set_compacted_upto(key, cut)

    def _find_existing(self, key: str, source: tuple[int, int]) -> HistoryEntry | None:
        history = self._stores.history
        since = max(0, history.last_cursor() - RECENT_ENTRIES_CHECKED)
        for entry in history.read_since(since):
            if entry.session_key == key and entry.range == source:
                return entry
        return None

    def _measure(self, session: Session, plan: Plan) -> Measure:
        prompt = self._assembler.assemble(session, plan.user_text, tools=plan.tools, minimal=True)
        return Measure(tokens=prompt.tokens, carried=prompt.carried)
