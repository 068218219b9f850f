"""Benchmark recall: does the evidence reach the prompt, and how fast is ``prompt()``?

Run: .venv/bin/python bench/recall.py [--latency N] [--only NAME]   (prints one JSON object)
     [--set old|chat]   (the dev set: ``recalllib.devset``, the default, or ``recalllib.chat``)
     [--kinds]   (every variant broken down by question kind, not only ``all``)
     [--no-quality] [--dense quality|latency|both]   (dense recall: ``recalllib.dense``)
     [--variants all,bm25]   (only these retrieval variants: a quicker run)
     [--pad-durable N]   (N lines of small talk added to USER.md and MEMORY.md after dream)
     [--backend folder|postgres]   (where the latency run's workspace is: ``recalllib.pglatency``)

Quality. Each conversation of the seeded dev set (``recalllib.devset``: English and Chinese,
planted facts, updates, dates, distractors; questions paraphrased, with gold evidence turns;
or with ``--set chat`` ``recalllib.chat``: chat-shaped, half chatter, transcripts, a group
chat, questions of kinds single, multi, temporal, entity, inference) is played message by
message into one session through ``MemoryEngine.record``, model-free, then dream runs until
nothing is pending; this is done at 4k and 8k context windows (1,024 output tokens reserved,
so input budgets of 2,048 and 6,144). For each question and retrieval
variant it reports context recall (the fraction of gold turns whose whole text is in the
prompt ``engine.prompt(session, question)`` returns), how many prompts exceeded the budget,
and the mean prompt tokens; and per variant search R@5 and R@10 (the fraction of gold turns
among the first 5 or 10 results: recall's own ranking for each variant; ``search/plain`` is the
index's BM25 (``SearchIndex.search``, what ``search()`` was), ``search/ranked`` is ``search()``,
ranked as recall ranks).
Variants: ``off`` (recall disabled: reverie before recall), ``truncation`` (the newest messages
that fit the budget), ``bm25`` (recall with every ranking step off), each step alone on top
of bm25, ``all`` (the defaults), and ``all`` with one step added or taken away.

Latency (``--latency N``): a workspace of N items (half history entries, half messages over
50 sessions; Zipfian words, ``recalllib.filler``), indexed once, each session compacted up to
its last 8 messages and dream level with history (as a workspace in use would be), then
``prompt()`` with recall for 200 questions: p50 and p95 in one active session (the usual
case: its replay is warm), and rotating over the 50 sessions (each load reads a session of
1,000 messages), ``recall()`` alone and ``search()``. With ``--backend postgres`` the same run
on a workspace of a throwaway PostgreSQL cluster (``recalllib.pglatency``), dense included.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence, Sized
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from recalllib import chat
from recalllib.devset import Conversation, build
from recalllib.filler import fill, questions
from reverie import Config, MemoryEngine, Message
from reverie.config.sections import ModelConfig, PromptConfig, RecallConfig
from reverie.core.durable import MemoryFileName
from reverie.llm.tokens import default_counter
from reverie.memory.recall import RankedSource, RecallOptions
from reverie.testing.folders import workspace_of
from reverie.testing.parts import recaller_of

WINDOWS = (4096, 8192)
KEY = "bench:talk"
BASE = RecallOptions(
    name_query=True,
    context_weight=0,
    cover_boost=0,
    key_boost=0,
    date_boost=0,
    expand_boost=0,
    present_boost=0,
    question_penalty=0,
    dedup=False,
    link_top=0,
    link_names=False,
    entity_rare=0,
    anchors=False,
)
DEFAULT = RecallOptions()
VARIANTS: dict[str, RecallOptions] = {
    "bm25": BASE,
    "+names-out": replace(BASE, name_query=False),
    "+context": replace(BASE, context_weight=0.3),
    "+cover": replace(BASE, cover_boost=DEFAULT.cover_boost),
    "+keys": replace(BASE, key_boost=DEFAULT.key_boost),
    "+keys+names": replace(BASE, key_boost=DEFAULT.key_boost, name_keys=True),
    "+dates": replace(BASE, date_boost=DEFAULT.date_boost),
    "+expand": replace(BASE, expand_boost=DEFAULT.expand_boost),
    "+present": replace(BASE, present_boost=DEFAULT.present_boost),
    "+questions-down": replace(BASE, question_penalty=DEFAULT.question_penalty),
    "+dedup": replace(BASE, dedup=True),
    "all": DEFAULT,
    "all+context": replace(DEFAULT, context_weight=0.3),
    "all-names-out": replace(DEFAULT, name_query=True),
    "all-present": replace(DEFAULT, present_boost=0),
    "all-questions-down": replace(DEFAULT, question_penalty=0),
    "all+neighbours": replace(DEFAULT, neighbour_top=3),
    "all+neighbours5@0.7": replace(DEFAULT, neighbour_top=5, neighbour_weight=0.7),
    "all-links": replace(DEFAULT, link_top=0),
    "all+links5@0.7": replace(DEFAULT, link_top=5, link_weight=0.7),
    "all+links@0.3": replace(DEFAULT, link_weight=0.3),
    "all+links-rare3": replace(DEFAULT, link_rare=3),
    "+links": replace(BASE, link_top=DEFAULT.link_top),
    "+entities": replace(BASE, name_query=False, entity_rare=DEFAULT.entity_rare),
    "+anchors": replace(BASE, anchors=True, date_boost=DEFAULT.date_boost),
    "all-entities": replace(DEFAULT, entity_rare=0),
    "all-link-names": replace(DEFAULT, link_names=False),
    "all-anchors": replace(DEFAULT, anchors=False),
    "all+links-rare8": replace(DEFAULT, link_rare=8),
    "all+links-rare10": replace(DEFAULT, link_rare=10),
    "all+links-top5": replace(DEFAULT, link_top=5),
    "all-new": replace(DEFAULT, entity_rare=0, link_names=False, anchors=False),
}
FUSED: dict[str, tuple[RecallOptions, Callable[[MemoryEngine], Sequence[RankedSource]]]] = {}
"""Variants that fuse other rankers with recall's by reciprocal rank
(``reverie.memory.recall.fusion``).

The slot for dense retrieval: ``FUSED["all+dense"] = (DEFAULT, lambda engine: [source])``
with ``source`` a ``RankedSource`` over ``engine``'s items; the table then shows it beside
the lexical variants.
"""


class _Clock:
    def __init__(self) -> None:
        self.now = datetime.now().astimezone()

    def __call__(self) -> datetime:
        return self.now


SHARE: list[float] = []
"""``--share``: the recall budget as a share of the input budget (default: reverie's)."""


def _config(window: int, *, recall: bool) -> Config:
    model = ModelConfig(context_window=window, max_output_tokens=1024)
    tokens = int(model.input_budget * SHARE[0]) if SHARE else None
    return Config(
        model=model,
        prompt=PromptConfig(recall_tokens=tokens if recall else 0),
        recall=RecallConfig(embeddings="off"),  # lexical; --dense attaches its own retriever
    )


def _play(convo: Conversation, window: int, root: Path, *, recall: bool) -> MemoryEngine:
    clock = _Clock()
    engine = MemoryEngine.open(root, _config(window, recall=recall), clock=clock)
    for text, role, when in zip(convo.texts, convo.roles, convo.times, strict=True):
        clock.now = when
        message = Message(role="user" if role == 0 else "assistant", content=text, timestamp=when)
        engine.record(KEY, [message])
    for _ in range(200):
        if engine.dream(trigger="bench").outcome != "completed":
            break
    if PAD:
        _pad(engine, convo, PAD[0])
    return engine


PAD: list[int] = []
"""``--pad-durable N``: N lines of the conversation's own small talk added to the durable files."""


def _pad(engine: MemoryEngine, convo: Conversation, lines: int) -> None:
    """Add ``lines`` non-evidence turns, as bullets, half to USER.md and half to MEMORY.md.

    What real chat does to durable files (issue 29: chatter copied into USER.md took 5,251
    characters of a 4k window's prompt); no evidence turn is among them.
    """
    gold = {i for q in convo.questions for i in q.evidence}
    chatter = [f"- {t}" for i, t in enumerate(convo.texts) if i not in gold and len(t) > 30]
    files = workspace_of(engine).files
    halves: tuple[tuple[MemoryFileName, list[str]], ...] = (
        ("USER", chatter[: lines // 2]),
        ("MEMORY", chatter[lines // 2 : lines]),
    )
    for name, part in halves:
        files.write(name, files.read(name).rstrip() + "\n" + "\n".join(part) + "\n")


def _prompt_text(engine: MemoryEngine, question: str) -> tuple[str, int, int]:
    result = engine.prompt(KEY, question)
    return "\n".join(m.text for m in result.messages), result.tokens, result.budget


def _truncation(convo: Conversation, budget: int, question: str) -> str:
    counter = default_counter()
    left = budget - counter.text(question) - 50
    kept: list[str] = []
    for text in reversed(convo.texts):
        left -= counter.text(text) + 4
        if left < 0:
            break
        kept.append(text)
    return "\n".join(kept)


def _recall_at(found: list[int], gold: tuple[int, ...], k: int) -> float:
    return sum(1 for g in gold if g in found[:k]) / len(gold)


def _ranked(engine: MemoryEngine, question: str, now: datetime) -> list[int]:
    """Recall's ranking of the session's messages, no budget, asked at ``now`` as a prompt is."""
    items = recaller_of(engine).recall(question, max_tokens=10**6, scope=KEY, now=now).items
    newest_first = sorted(items, key=lambda i: -(i.timestamp.timestamp() if i.timestamp else 0))
    best = sorted(newest_first, key=lambda item: -item.score)  # stable: ties stay newest first
    return [i.ref.message_index for i in best if i.ref.message_index is not None][:10]


class _Tally:
    def __init__(self) -> None:
        self.gold = self.hit = self.over = self.prompts = self.tokens = 0
        self.r5 = self.r10 = 0.0
        self.questions = 0

    def add(self, text: str, gold: list[str], tokens: int, budget: int) -> None:
        self.gold += len(gold)
        self.hit += sum(1 for g in gold if g in text)
        self.prompts += 1
        self.tokens += tokens
        self.over += tokens > budget

    def search(self, found: list[int], gold: tuple[int, ...]) -> None:
        self.questions += 1
        self.r5 += _recall_at(found, gold, 5)
        self.r10 += _recall_at(found, gold, 10)

    def report(self) -> dict[str, float | int]:
        out: dict[str, float | int] = {
            "context_recall": round(self.hit / max(1, self.gold), 3),
            "over_budget": self.over,
            "mean_prompt_tokens": round(self.tokens / max(1, self.prompts)),
        }
        if self.questions:
            out["search_r5"] = round(self.r5 / self.questions, 3)
            out["search_r10"] = round(self.r10 / self.questions, 3)
        return out


def quality(conversations: list[Conversation]) -> dict[str, object]:
    tallies: dict[str, _Tally] = {}
    started = time.perf_counter()
    for window in WINDOWS:
        for convo in conversations:
            _window(convo, window, tallies)
    report: dict[str, object] = {f"{name}": t.report() for name, t in sorted(tallies.items())}
    report["questions"] = sum(len(c.questions) for c in conversations)
    report["gold_turns"] = sum(len(q.evidence) for c in conversations for q in c.questions)
    report["gold_twins"] = _twins(conversations)
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report


def _window(convo: Conversation, window: int, tallies: dict[str, _Tally]) -> None:
    tag = f"{window // 1024}k"
    with tempfile.TemporaryDirectory() as off_dir, tempfile.TemporaryDirectory() as on_dir:
        off = _play(convo, window, Path(off_dir), recall=False)
        on = _play(convo, window, Path(on_dir), recall=True)
        for question in convo.questions:
            gold = [convo.texts[i] for i in question.evidence]
            text, tokens, budget = _prompt_text(off, question.text)
            tallies.setdefault(f"{tag}/off", _Tally()).add(text, gold, tokens, budget)
            for name, search in (("plain", off.index.search), ("ranked", off.search)):
                hits = search(question.text, limit=10, session_key=KEY)
                found = [h.message_index for h in hits if h.message_index is not None]
                tallies.setdefault(f"search/{name}", _Tally()).search(found, question.evidence)
            trunc = _truncation(convo, budget, question.text)
            tallies.setdefault(f"{tag}/truncation", _Tally()).add(trunc, gold, budget, budget)
            for name, (options, sources) in _variants(on).items():
                recaller_of(on).options, recaller_of(on).sources = options, tuple(sources)
                text, tokens, budget = _prompt_text(on, question.text)
                kinds = (f"{tag}/{name}", f"{tag}/{name}:{question.kind}")
                found = _ranked(on, question.text, convo.times[-1])
                for key in kinds if name == "all" or KINDS else kinds[:1]:
                    tally = tallies.setdefault(key, _Tally())
                    tally.add(text, gold, tokens, budget)
                    if window == WINDOWS[0]:
                        tally.search(found, question.evidence)
        off.close()
        on.close()


def _variants(engine: MemoryEngine) -> dict[str, tuple[RecallOptions, Sequence[RankedSource]]]:
    variants: dict[str, tuple[RecallOptions, Sequence[RankedSource]]] = {
        name: (options, ()) for name, options in VARIANTS.items()
    }
    variants.update({name: (options, make(engine)) for name, (options, make) in FUSED.items()})
    if ONLY_VARIANTS:
        return {name: v for name, v in variants.items() if name in ONLY_VARIANTS}
    return variants


KINDS: list[bool] = []
"""``--kinds``: every variant's figures per question kind too (else only ``all``'s)."""
ONLY_VARIANTS: list[str] = []
"""``--variants``: run only these variants (comma-separated names; empty: all of them)."""


def _twins(conversations: list[Conversation]) -> int:
    """Gold turns whose text is said more than once in their conversation (0 for an honest set)."""
    return sum(
        1
        for c in conversations
        for q in c.questions
        for g in q.evidence
        if c.texts.count(c.texts[g]) > 1
    )


def latency(size: int, queries: int = 200, backend: str = "folder") -> dict[str, object]:
    asked = list(questions(queries, random.Random(6)))
    if backend == "postgres":
        from recalllib import pglatency

        wanted = DENSE[1:] in (["latency"], ["both"])
        return pglatency.latency(size, asked, _config(8192, recall=True), _timed, dense=wanted)
    with tempfile.TemporaryDirectory() as folder:
        engine = MemoryEngine.open(Path(folder), _config(8192, recall=True))
        workspace = workspace_of(engine)
        started = time.perf_counter()
        fill(workspace, size, random.Random(5))
        for info in workspace.sessions.list():
            workspace.sessions.set_compacted_upto(info.key, max(0, info.message_count - 8))
        workspace.dream_cursor.write(workspace.history.last_cursor())
        filled = time.perf_counter() - started
        started = time.perf_counter()
        engine.index.refresh()
        indexed = time.perf_counter() - started
        one = _timed(lambda n: engine.prompt("cli:s7", asked[n]).recalled, len(asked))
        rotating = _timed(lambda n: engine.prompt(f"cli:s{n % 50}", asked[n]).recalled, len(asked))
        alone = _timed(lambda n: engine.recall(asked[n], session="cli:s7").items, len(asked))
        search = _timed(lambda n: engine.search(asked[n]), len(asked))
        dense = _dense_latency(engine, asked) if DENSE[1:] in (["latency"], ["both"]) else None
        engine.close()
    return {
        "items": size,
        "fill_seconds": round(filled, 1),
        "index_seconds": round(indexed, 1),
        "prompt_one_session": one,
        "prompt_rotating_sessions": rotating,
        "recall_alone": alone,
        "search": search,
        **({"dense": dense} if dense else {}),
    }


def _timed(call: Callable[[int], Sized], count: int) -> dict[str, float]:
    """Wall-clock p50/p95 (the target) and this process's CPU p50/p95 (steady on a busy machine)."""
    samples, cpu, recalled = [], [], 0
    for number in range(count):
        started, used = time.perf_counter(), time.process_time()
        recalled += len(call(number))
        samples.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - used) * 1000)
    samples.sort()
    cpu.sort()
    return {
        "p50_ms": round(statistics.median(samples), 2),
        "p95_ms": round(samples[int(len(samples) * 0.95) - 1], 2),
        "cpu_p50_ms": round(statistics.median(cpu), 2),
        "cpu_p95_ms": round(cpu[int(len(cpu) * 0.95) - 1], 2),
        "mean_items": round(recalled / count, 1),
    }


DENSE: list[str] = []
"""``--dense``: the cache path and what to run (``recalllib.dense``); empty: no dense run."""


def _dense_quality(conversations: list[Conversation]) -> dict[str, object]:
    from recalllib import dense

    return dense.quality(
        conversations,
        windows=WINDOWS,
        play=_play,
        prompt_text=_prompt_text,
        ranked=_ranked,
        tally=_Tally,
        cache=Path(DENSE[0]),
        base=BASE,
    )


def _dense_latency(engine: MemoryEngine, asked: list[str]) -> dict[str, object]:
    from recalllib import dense

    return dense.latency(engine, asked, _timed)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=int, default=0, help="items for the latency run")
    parser.add_argument("--no-quality", action="store_true", help="skip the dev-set run")
    parser.add_argument("--only", default=None, help="only this conversation (e.g. en-1)")
    parser.add_argument("--share", type=float, default=None, help="recall share of the budget")
    parser.add_argument("--pad-durable", type=int, default=0, help="chatter lines in the files")
    parser.add_argument("--variants", default="", help="only these variants (e.g. all,bm25)")
    parser.add_argument("--set", choices=("old", "chat"), default="old", help="which dev set")
    parser.add_argument("--kinds", action="store_true", help="every variant by question kind")
    parser.add_argument("--table", action="store_true", help="also print the variants as Markdown")
    parser.add_argument(
        "--dense",
        choices=("quality", "latency", "both"),
        default=None,
        help="dense recall (the embeddings extra): its own table, its latency, or both",
    )
    parser.add_argument("--backend", choices=("folder", "postgres"), default="folder")
    parser.add_argument("--dense-cache", default="/tmp/reverie-bench-e5.npz", help="vectors memo")
    args = parser.parse_args(argv)
    if args.dense:
        DENSE.extend((args.dense_cache, args.dense))
    if args.share is not None:
        SHARE.append(args.share)
    if args.pad_durable:
        PAD.append(args.pad_durable)
    ONLY_VARIANTS.extend(name for name in args.variants.split(",") if name)
    if args.kinds:
        KINDS.append(True)
    report: dict[str, object] = {"set": args.set}
    built = chat.build() if args.set == "chat" else build()
    conversations = [c for c in built if args.only in (None, c.name)]
    if not args.no_quality:
        report["quality"] = quality(conversations)
    if args.dense in ("quality", "both"):
        report["dense"] = _dense_quality(conversations)
    if args.latency:
        report["latency"] = latency(args.latency, backend=args.backend)
    print(json.dumps(report, indent=2))
    if args.table and "quality" in report:
        print(table(report["quality"]))


def table(quality: object) -> str:
    """The quality report's variants side by side, as a Markdown table."""
    assert isinstance(quality, dict)
    rows = ["| variant | recall 4k | recall 8k | prompt tokens 4k / 8k | R@5 | R@10 |"]
    rows.append("| --- | --- | --- | --- | --- | --- |")
    names = [key.split("/", 1)[1] for key in quality if key.startswith("4k/")]
    shown = {"plain": "search() plain BM25", "ranked": "search() ranked like recall"}
    for name in [*names, *shown]:
        small, large = quality.get(f"4k/{name}", {}), quality.get(f"8k/{name}", {})
        ranked = small if name not in shown else quality.get(f"search/{name}", {})
        tokens = f"{small.get('mean_prompt_tokens', '')} / {large.get('mean_prompt_tokens', '')}"
        rows.append(
            f"| `{shown.get(name, name)}` | {small.get('context_recall', '')}"
            f" | {large.get('context_recall', '')} | {tokens if small else ''}"
            f" | {ranked.get('search_r5', '-')} | {ranked.get('search_r10', '-')} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    main(sys.argv[1:])
