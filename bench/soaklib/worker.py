"""One soak worker process: ``record``, ``turn`` and ``dream`` in a loop, acknowledging each.

The worker opens the engine on the shared workspace and, until its deadline or action count,
picks an action with a seeded RNG:

- record: a foreign agent's turn (user, a tool call, its result, an answer) into one of three
  shared sessions, so several processes append to one session and race its compaction;
- turn: the built-in agent answers in this worker's own chat session;
- dream: one dream run (often ``busy``: another worker holds the dream lock).

After each call returns, it appends an ack line (see ``acks``). A turn's messages are located
by reading the session back (only this worker writes its chat session); if they are not where
the turn put them, that is acknowledged as a violation right away. Model errors that end a
turn are expected under fault injection and acknowledged as ``turn_failed``; any other
reverie error is acknowledged as ``error`` and the supervisor reports it.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

from reverie.core.messages import Message, ToolCall
from reverie.engine.facade import MemoryEngine
from reverie.errors import ModelError, ReverieError
from soaklib.acks import Ack, AckWriter, entries_written, message_hash
from soaklib.settings import open_engine

FOREIGN_SESSIONS = 3
WORDS = [
    "postgres",
    "backup",
    "staging",
    "deploy",
    "invoice",
    "garden",
    "recipe",
    "budget",
    "travel",
    "kyoto",
    "meeting",
    "release",
    "dashboard",
    "python",
    "rust",
    "tokens",
    "lamp",
    "window",
    "river",
    "quarterly",
    "ticket",
    "onboarding",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkerOptions:
    """What one worker process was started with."""

    worker: int
    generation: int
    workspace: Path
    base_url: str
    acks: Path
    seed: int
    deadline: float
    max_actions: int
    timeout: float


def run_worker(options: WorkerOptions) -> int:
    """Loop until the deadline or the action count; return the exit status."""
    rng = random.Random(f"{options.seed}-{options.worker}-{options.generation}")
    acks = AckWriter(options.acks / f"w{options.worker}-g{options.generation}.jsonl")
    acks.write({"kind": "start", "pid": os.getpid(), "generation": options.generation})
    engine = open_engine(options.workspace, options.base_url, options.timeout)
    done = 0
    while time.time() < options.deadline and done < options.max_actions:
        action = rng.choices(("record", "turn", "dream"), weights=(5, 3, 2))[0]
        acks.write(_act(engine, action, rng, options.worker))
        done += 1
    engine.close()
    acks.write({"kind": "stop", "actions": done})
    acks.close()
    return 0


def _act(engine: MemoryEngine, action: str, rng: random.Random, worker: int) -> Ack:
    try:
        if action == "record":
            return _record(engine, rng)
        if action == "turn":
            return _turn(engine, rng, worker)
        return _dream(engine)
    except ReverieError as exc:
        if action == "turn" and isinstance(exc, ModelError):
            return {"kind": "turn_failed", "error": type(exc).__name__}
        return {"kind": "error", "action": action, "error": type(exc).__name__, "message": str(exc)}


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def foreign_turn(rng: random.Random) -> list[Message]:
    """A foreign agent's turn: user, assistant calling a tool, the tool's result, the answer."""
    tag = f"{rng.getrandbits(48):012x}"
    call = ToolCall(id=f"call-{tag}", name="lookup", arguments=f'{{"topic": "{tag}"}}')
    return [
        Message(role="user", content=f"[{tag}] Please remember: {_sentence(rng, 20)}."),
        Message(role="assistant", content=None, tool_calls=(call,)),
        Message(
            role="tool",
            tool_call_id=call.id,
            name="lookup",
            content=_sentence(rng, rng.randint(20, 160)),
        ),
        Message(role="assistant", content=f"Got it ({tag}): {_sentence(rng, 12)}."),
    ]


def _record(engine: MemoryEngine, rng: random.Random) -> Ack:
    key = f"foreign:{rng.randrange(FOREIGN_SESSIONS)}"
    messages = foreign_turn(rng)
    result = engine.record(key, messages)
    return {
        "kind": "record",
        "session": key,
        "messages": [[i, message_hash(m)] for i, m in zip(result.indices, messages, strict=True)],
        "entries": entries_written((result.compaction,)),
        "compaction": result.compaction.outcome,
    }


def _turn(engine: MemoryEngine, rng: random.Random, worker: int) -> Ack:
    key = f"chat:w{worker}"
    result = engine.turn(key, f"{_sentence(rng, rng.randint(5, 40))}?")
    stored = engine.session(key).messages
    start = len(stored) - len(result.messages)
    mine = [message_hash(m) for m in result.messages]
    found = [message_hash(m) for m in stored[max(0, start) :]]
    if start < 0 or mine != found:
        return {"kind": "violation", "what": f"turn messages of {key} are not where it put them"}
    return {
        "kind": "turn",
        "session": key,
        "messages": [[start + n, h] for n, h in enumerate(mine)],
        "entries": entries_written(result.compactions),
        "stopped_early": result.stopped_early,
    }


def _dream(engine: MemoryEngine) -> Ack:
    result = engine.dream(trigger="soak")
    return {
        "kind": "dream",
        "outcome": result.outcome,
        "tokens": result.tokens,
        "calls": result.model_calls,
        "rounds": result.rounds,
        "before": result.cursor_before,
        "after": result.cursor_after,
        "commit": result.commit,
        "recovered": result.recovered,
        "files": list(result.files_changed),
    }
