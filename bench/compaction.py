"""Benchmark compaction over a long synthetic conversation with a scripted summariser.

Run: .venv/bin/python bench/compaction.py [TURNS]   (prints one JSON object)
Reports prompt tokens per turn against the budget (max, p50), compaction rounds and model calls
per 100 turns, reverie's own overhead per turn in ms (the scripted model costs ~nothing), and
the tokens sent versus sending the full history every turn.
"""

from __future__ import annotations

import itertools
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from reverie import ChatReply, ChatRequest, Message, ScriptedProvider
from reverie.config.sections import CompactionConfig, ModelConfig, PromptConfig
from reverie.core.token_estimate import EstimatingCounter
from reverie.llm.metered import MeteredModel
from reverie.memory.compaction.chunks import ChunkSummariser
from reverie.memory.compaction.compactor import Compactor
from reverie.memory.compaction.summariser import ModelSummariser
from reverie.memory.prompt import PromptAssembler
from reverie.storage.folder.workspace import Workspace

TOPICS = ["the Kyoto trip", "project atlas", "the Postgres migration", "weekend plans", "咖啡和茶"]


def _summary(request: ChatRequest) -> ChatReply:
    chars = len(request.messages[-1].text)
    return ChatReply(text=f"- [durable] discussed {TOPICS[chars % len(TOPICS)]} ({chars} chars)")


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    counter = EstimatingCounter()
    chat = ModelConfig(model="chat", context_window=16_000, max_output_tokens=2_000)
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Workspace.open(Path(tmp) / "ws", create=True)
        provider = ScriptedProvider(*itertools.repeat(_summary, turns))
        metered = MeteredModel(
            provider,
            job="compaction",
            counter=counter,
            log=workspace.ledger,
            clock=workspace.clock,
            label=chat.model,
        )
        summariser = ModelSummariser(metered, config=chat)
        assembler = PromptAssembler(workspace, config=PromptConfig(), counter=counter)
        compactor = Compactor(
            workspace,
            chunks=ChunkSummariser(summariser, counter=counter),
            assembler=assembler,
            input_budget=chat.input_budget,
            config=CompactionConfig(),
            counter=counter,
        )
        prompt_tokens: list[int] = []
        overhead_ms: list[float] = []
        full_history_tokens = 0
        rounds = 0
        history_tokens = 0
        for turn in range(turns):
            topic = TOPICS[turn % len(TOPICS)]
            user = f"Turn {turn}: about {topic}. " + "Some detail here. " * (turn % 9 + 3)
            answer = f"About {topic}: " + "a considered answer. " * (turn % 13 + 5)
            started = time.perf_counter()
            result = compactor.ensure_budget("bench:chat", user_text=user)
            session = workspace.sessions.load("bench:chat")
            prompt = assembler.assemble(session, user, budget=compactor.budget)
            workspace.sessions.append("bench:chat", Message(role="user", content=user))
            workspace.sessions.append("bench:chat", Message(role="assistant", content=answer))
            overhead_ms.append((time.perf_counter() - started) * 1000)
            rounds += result.rounds
            prompt_tokens.append(prompt.tokens)
            history_tokens += counter.text(user) + counter.text(answer) + 8
            full_history_tokens += history_tokens
        workspace.close()
    figures = {
        "turns": turns,
        "budget_tokens": compactor.budget,
        "prompt_tokens_max": max(prompt_tokens),
        "prompt_tokens_p50": statistics.median(prompt_tokens),
        "over_budget_turns": sum(1 for t in prompt_tokens if t > compactor.budget),
        "compaction_rounds_per_100_turns": round(rounds * 100 / turns, 2),
        "model_calls_per_100_turns": round(len(provider.requests) * 100 / turns, 2),
        "overhead_ms_per_turn_median": round(statistics.median(overhead_ms), 3),
        "overhead_ms_per_turn_p95": round(statistics.quantiles(overhead_ms, n=20)[18], 3),
        "overhead_ms_last_100_turns_median": round(statistics.median(overhead_ms[-100:]), 3),
        "tokens_sent_total": sum(prompt_tokens),
        "tokens_if_full_history_every_turn": full_history_tokens,
        "tokens_sent_ratio": round(sum(prompt_tokens) / full_history_tokens, 4),
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
