"""Proxy overhead: ``reverie serve`` in front of a loopback endpoint versus the endpoint alone.

Run: .venv/bin/python bench/serve.py [--requests 200] [--sessions 8] [--per-session 25]
     [--embeddings auto|off]   (prints one JSON object)

A loopback chat-completions server (``tests/llm/loopback.py``) answers instantly. The same
client (one pooled ``httpx2.Client``) first calls it directly, then through the proxy
(``reverie.serve.create_app`` under uvicorn on 127.0.0.1, a fresh model-free folder home whose
server token reaches its default principal; sessions by ``metadata.session``), one
request at a time, each a new user message in one session, so the session grows as a real
conversation does. The overhead is the difference of the latency percentiles (p50, p95): the
proxy's own work (reconcile, record, prompt assembly with memory, the relay, the record of the
answer) plus its extra HTTP hop. The same again with a client that resends the whole
conversation every time (most do): the proxy reconciles it against the session. Then
``--sessions`` threads each send ``--per-session``
requests in their own session at once: requests per second through the proxy.
"""

from __future__ import annotations

import argparse
import json
import statistics
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

TOKEN = "bench-token"


def _timed(client: httpx2.Client, url: str, session: str, messages: list[dict[str, str]]) -> float:
    body = {"model": "chat-model", "metadata": {"session": session}, "messages": messages}
    started = time.perf_counter()
    response = client.post(url, json=body)
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    messages.append(response.json()["choices"][0]["message"])
    return elapsed * 1000


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return {"p50": round(statistics.median(ordered), 2), "p95": round(p95, 2)}


def _series(
    client: httpx2.Client, url: str, n: int, session: str, *, whole: bool = False
) -> list[float]:
    """``n`` exchanges; ``whole``: each request resends the conversation so far."""
    conversation: list[dict[str, str]] = []
    samples = []
    for i in range(n):
        if not whole:
            conversation.clear()
        conversation.append({"role": "user", "content": f"question {i}: what about the harbour?"})
        samples.append(_timed(client, url, session, conversation))
    return samples


def _concurrent(url: str, sessions: int, per_session: int) -> float:
    def worker(index: int) -> None:
        with httpx2.Client(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as client:
            _series(client, url, per_session, f"bench:{index}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(sessions)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sessions * per_session / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--per-session", type=int, default=25)
    parser.add_argument(
        "--embeddings",
        choices=("auto", "off"),
        default="auto",
        help="[recall] embeddings of the served home (auto, the default: dense recall when the "
        "embeddings extra is installed; off: lexical recall only)",
    )
    args = parser.parse_args()
    total = 4 * args.requests + 10 + args.sessions * args.per_session
    with tempfile.TemporaryDirectory() as tmp, LoopbackServer() as loopback:
        loopback.script(*[chat_text("The harbour is in Lisbon.") for _ in range(total)])
        environ = {"REVERIE_RECALL_EMBEDDINGS": args.embeddings}
        home = FolderHome(Path(tmp) / "home", openers=Openers(environ=environ))
        pool = EnginePool(home)
        upstream = Upstream(
            base_url=loopback.base_url, api_key=None, model="chat-model", timeout=30
        )
        app = create_app(pool, gate=Gate(home, TOKEN), upstream=upstream)
        with (
            ServedApp(app) as served,
            httpx2.Client(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as client,
        ):
            proxied = served.url + "/v1/chat/completions"
            direct = loopback.base_url + "/chat/completions"
            _series(client, direct, 5, "warm")
            _series(client, proxied, 5, "warm")
            direct_ms = _series(client, direct, args.requests, "direct")
            proxy_ms = _series(client, proxied, args.requests, "bench:serial")
            direct_whole = _series(client, direct, args.requests, "direct", whole=True)
            proxy_whole = _series(client, proxied, args.requests, "bench:whole", whole=True)
            rps = _concurrent(proxied, args.sessions, args.per_session)
        pool.close()
    d, p = _percentiles(direct_ms), _percentiles(proxy_ms)
    dw, pw = _percentiles(direct_whole), _percentiles(proxy_whole)
    print(
        json.dumps(
            {
                "requests": args.requests,
                "embeddings": args.embeddings,
                "direct_ms": d,
                "proxy_ms": p,
                "overhead_ms": {key: round(p[key] - d[key], 2) for key in d},
                "target_overhead_p50_ms": 8,
                "whole_history_clients": {
                    "direct_ms": dw,
                    "proxy_ms": pw,
                    "overhead_ms": {key: round(pw[key] - dw[key], 2) for key in dw},
                },
                "concurrent": {
                    "sessions": args.sessions,
                    "requests": args.sessions * args.per_session,
                    "requests_per_second": round(rps, 1),
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
