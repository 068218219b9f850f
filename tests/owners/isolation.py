"""Parts of the isolation property tests: generated private facts, an echoing memory model,
and the scan that finds one principal's tokens in what another principal was shown.

A *scenario* is 2-4 principals, each with 1-3 private facts (a name, a street address, a
diagnosis, a favourite cafe, a school: realistic sentences, each carrying one made-up word no
other fact, principal or prompt text holds), and the order their messages arrive in
(interleaved across principals and two sessions each). ``Facts.leaks(text, principal)`` is
every token of *another* principal found in ``text``: the isolation property is that it is
always empty.

``EchoModel`` is the shipped ``ScriptedProvider`` scripted to be the most indiscreet memory
model possible: its compaction summary and its dream edit repeat every known token the
request holds, so a token that ever reached a model call made for the wrong principal would
land in that principal's memory (and ``mixed`` records any request holding two principals'
tokens).

``opened_home`` makes a folder or a database home for one example (principal ids made unique
in the shared test database), ``maintain`` runs ``Maintenance`` and a dream for each.
"""

from __future__ import annotations

import re
import secrets
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from reverie import ChatReply, ChatRequest, ScriptedProvider
from reverie.config.settings import Config
from reverie.engine.owners import DatabaseHome, EnginePool, FolderHome, Home, Openers
from reverie.engine.owners.maintenance import Maintenance
from reverie.prompts import load
from tests.conftest import StepClock
from tests.dream.scripting import write

_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
_BOILERPLATE = " ".join(load(name) for name in ("agent", "compaction", "dream")).lower()

TEMPLATES = (
    "My name is Ada {T}, please remember it.",
    "I live at {n} {T} Street, flat {m}, near the old harbour.",
    "My doctor diagnosed me with {T} syndrome last spring.",
    "My favourite cafe is {U} on Dock Road, table {n}{m}.",
    "My daughter goes to {T} Academy on weekdays.",
)
SESSIONS = ("api:default", "chat:7")
PRINCIPAL_IDS = ("alice", "lc:user1", "Bob Smith", "ops.team")


def _token() -> st.SearchStrategy[str]:
    """A made-up ten-letter word (five syllables) that no prompt of reverie holds."""
    word = st.lists(st.sampled_from(_SYLLABLES), min_size=5, max_size=5).map("".join)
    return word.filter(lambda w: w not in _BOILERPLATE)


@dataclass(frozen=True, slots=True, kw_only=True)
class Fact:
    """One private sentence of one principal and the token that makes it findable."""

    principal: int
    token: str
    text: str
    session: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Facts:
    """Every principal's facts, in the order their messages arrive."""

    principals: tuple[str, ...]
    arrivals: tuple[Fact, ...]

    def owner(self, token: str) -> int:
        return next(fact.principal for fact in self.arrivals if fact.token == token)

    def tokens(self, principal: int | None = None) -> list[str]:
        """Tokens of ``principal`` (every principal's with None)."""
        return [f.token for f in self.arrivals if principal is None or f.principal == principal]

    def foreign(self, principal: int) -> list[str]:
        return [f.token for f in self.arrivals if f.principal != principal]

    def leaks(self, text: str, principal: int) -> set[str]:
        """The tokens of other principals found in ``text`` (case-insensitive)."""
        lowered = text.lower()
        return {token for token in self.foreign(principal) if token in lowered}

    def found(self, text: str) -> list[str]:
        lowered = text.lower()
        return [token for token in self.tokens() if token in lowered]


@st.composite
def scenarios(draw: st.DrawFn) -> Facts:
    """2-4 principals with 1-3 facts each, their messages interleaved at random."""
    count = draw(st.integers(2, 4))
    sizes = [draw(st.integers(1, 3)) for _ in range(count)]
    tokens = draw(st.lists(_token(), min_size=sum(sizes), max_size=sum(sizes), unique=True))
    facts = []
    for principal, size in enumerate(sizes):
        for _ in range(size):
            token = tokens.pop()
            template = draw(st.sampled_from(TEMPLATES))
            numbers = {"n": draw(st.integers(2, 999)), "m": draw(st.integers(1, 40))}
            text = template.format(T=token.title(), U=token.upper(), **numbers)
            session = draw(st.sampled_from(SESSIONS))
            facts.append(Fact(principal=principal, token=token, text=text, session=session))
    order = draw(st.permutations(facts))
    return Facts(principals=PRINCIPAL_IDS[:count], arrivals=tuple(order))


class EchoModel:
    """A ``ScriptedProvider`` whose every reply repeats the known tokens of its request."""

    CALLS = 2_000

    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.mixed: list[list[str]] = []
        self.provider = ScriptedProvider()
        for _ in range(self.CALLS):
            self.provider.respond(self._reply)

    def _reply(self, request: ChatRequest) -> ChatReply:
        found = self.facts.found("\n".join(message.text for message in request.messages))
        if len({self.facts.owner(token) for token in found}) > 1:
            self.mixed.append(found)
        lines = "".join(f"- [durable] the user mentioned {token}\n" for token in found)
        if not request.tools:  # compaction: one fact line per token
            return ChatReply(text=lines or "- [skip] small talk", finish_reason="stop")
        if request.messages[-1].role == "tool":
            return ChatReply(text="Updated USER.md.", finish_reason="stop")
        call = write("USER.md", "# User\n\nIdentity and habits.\n\n" + lines)
        return ChatReply(tool_calls=(call,), finish_reason="tool_calls")


def folder_text(root: Path) -> Iterator[tuple[Path, str]]:
    """Every file under ``root`` as text, git's zlib-packed loose objects unpacked."""
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        if ".git" in path.parts and re.fullmatch(r"[0-9a-f]{38}", path.name):
            data = zlib.decompress(data)
        yield path, data.decode("utf-8", errors="replace")


def examples(count: int) -> settings:
    """Few examples (each opens engines and dreams: seconds), and no shrinking of a failure."""
    return settings(
        max_examples=count,
        deadline=None,
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


class Ticks:
    """The maintenance queue's monotonic clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@contextmanager
def opened_home(
    kind: str, facts: Facts, root: Path, pg_url: str | None, *, model: EchoModel | None
) -> Iterator[tuple[Home, list[str], StepClock]]:
    """A home of ``kind`` and the ids its principals have there (unique per example)."""
    clock = StepClock()
    openers = Openers(
        config=Config(),
        memory_provider=None if model is None else model.provider,
        clock=clock,
        environ={},
        dense="off",
    )
    if kind == "folder":
        yield FolderHome(root / "home", openers=openers), list(facts.principals), clock
        return
    assert pg_url is not None
    run = secrets.token_hex(4)  # the test database is shared by every example and test
    ids = [f"{name}.{run}" for name in facts.principals]
    home = DatabaseHome(pg_url, openers=openers)
    try:
        yield home, ids, clock
    finally:
        for principal in ids:
            home.remove(principal)
        home.close()


def maintain(pool: EnginePool, ids: list[str], clock: StepClock) -> None:
    """Idle compaction of every principal through ``Maintenance``, then one dream each."""
    ticks = Ticks()
    work = Maintenance(pool, interval=30, clock=ticks)
    for principal in ids:
        work.touch(principal)
    clock.advance(timedelta(hours=1))
    ticks.now += 30
    reports = work.run_due()
    assert sorted(r.principal for r in reports) == sorted(ids)
    assert [r.error for r in reports if r.error is not None] == []
    for principal in ids:
        with pool.lease(principal) as engine:
            engine.dream()


@contextmanager
def engine_pool(home: Home) -> Iterator[EnginePool]:
    pool = EnginePool(home, capacity=2)
    try:
        yield pool
    finally:
        pool.close()
