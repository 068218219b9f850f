"""Other sessions under load: one unrelated exchange while 40+ sessions wait on a slow memory model.

Run: .venv/bin/python bench/serve_load.py [--slow 48] [--stall 6] [--threads 40 256]
     (prints one JSON object; a benchmark, not a test)

A folder home whose default workspace has a chat model (a loopback endpoint answering at
once) and a memory model (another loopback endpoint that stalls ``--stall`` seconds on every
call), both with a 2,000-token window. ``--slow`` sessions each send one request carrying a
history over that budget, so preparing its prompt compacts the session with the memory
model: each holds one of the proxy's worker threads for the whole stall. Meanwhile an
unrelated session sends one short message (no compaction) and its latency is measured:
first with no load, then under load, once per ``--threads`` value (the proxy's own limiter,
``reverie serve --threads``; 40 is what anyio's shared default limiter gave the proxy before,
256 the default now). Every figure is measured on this machine; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.llm.loopback import LoopbackServer, chat_text
from tests.reach.running import ServedApp

from reverie.engine.owners import EnginePool, FolderHome, Openers
from reverie.serve import Gate, Upstream, create_app

TOKEN = "bench-token-0123456789abcdef0123456789"
WORDS = " ".join(f"harbour{i} boats ferries tides" for i in range(60))


def _config(chat: str, memory: str, stall: float) -> str:
    return (
        f'[model]\nbase_url = "{chat}"\nmodel = "chat-model"\ncontext_window = 2000\n'
        f'[memory_model]\nbase_url = "{memory}"\nmodel = "memory-model"\n'
        f"context_window = 2000\ntimeout_seconds = {stall + 30}\n"
    )


def _post(url: str, session: str, messages: list[dict[str, str]]) -> float:
    body = {"model": "chat-model", "metadata": {"session": session}, "messages": messages}
    started = time.perf_counter()
    with httpx2.Client(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=300) as client:
        client.post(url, json=body)
    return round(time.perf_counter() - started, 3)


def _unrelated(url: str, tag: str) -> float:
    return _post(url, f"bench:unrelated:{tag}", [{"role": "user", "content": "hello?"}])


def _history() -> list[dict[str, str]]:
    turns = [{"role": role, "content": WORDS} for role in ("user", "assistant") * 10]
    return [*turns, {"role": "user", "content": "and now?"}]


def _run(home: FolderHome, chat: LoopbackServer, *, slow: int, threads: int) -> dict[str, float]:
    pool = EnginePool(home)
    upstream = Upstream(base_url=chat.base_url, api_key=None, model="chat-model", timeout=300)
    app = create_app(pool, gate=Gate(home, TOKEN), upstream=upstream, threads=threads)
    with ServedApp(app) as served:
        url = served.url + "/v1/chat/completions"
        idle = _unrelated(url, f"idle{threads}")
        waiting = [
            threading.Thread(target=_post, args=(url, f"bench:slow:{threads}:{i}", _history()))
            for i in range(slow)
        ]
        for thread in waiting:
            thread.start()
        time.sleep(1.0)  # every slow session is waiting on the memory model by now
        loaded = _unrelated(url, f"loaded{threads}")
        for thread in waiting:
            thread.join()
    pool.close()
    return {"idle_s": idle, "under_load_s": loaded}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--slow", type=int, default=48)
    parser.add_argument("--stall", type=float, default=6.0)
    parser.add_argument("--threads", type=int, nargs="+", default=[40, 256])
    args = parser.parse_args()
    calls = (args.slow + 2) * 40 * len(args.threads)  # compaction calls the model many times
    with (
        tempfile.TemporaryDirectory() as tmp,
        LoopbackServer() as chat,
        LoopbackServer() as memory,
    ):
        chat.script(*[chat_text("Fine.") for _ in range(calls)])
        stalled = chat_text("- The harbour has boats.")
        memory.script(*[type(stalled)(**{**vars_of(stalled), "delay": args.stall})] * calls)
        home = FolderHome(Path(tmp) / "home", openers=Openers(environ={}))
        made = EnginePool(home)
        with made.lease(home.default, create=True) as engine:
            root = Path(engine.location)
        made.close()
        (root / "reverie.toml").write_text(
            _config(chat.base_url, memory.base_url, args.stall), encoding="utf-8"
        )
        results = {
            f"threads_{n}": _run(home, chat, slow=args.slow, threads=n) for n in args.threads
        }
        memory_calls = len(memory.requests)
    report = {
        "slow_sessions": args.slow,
        "memory_model_stall_s": args.stall,
        "memory_model_calls": memory_calls,
        **results,
    }
    print(json.dumps(report, indent=2))


def vars_of(response: object) -> dict[str, object]:
    """The fields of a frozen ``ScriptedResponse`` (slots: no ``__dict__``)."""
    return {name: getattr(response, name) for name in ("status", "body", "headers", "delay")}


if __name__ == "__main__":
    main()
