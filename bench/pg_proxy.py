"""Proxy throughput with 1 and 2 ``reverie serve`` processes: a folder, then one database.

Run: .venv/bin/python bench/pg_proxy.py [--sessions 8] [--per-session 10]   (prints JSON)

Each configuration starts real ``reverie serve`` subprocesses (as a deployment runs them) in
front of the loopback model endpoint (``tests/llm/loopback.py``, answering at once), model-free
memory. ``--sessions`` client threads then send ``--per-session`` requests each, every one a
new user message in the thread's own session, spread over the servers round-robin (what a
load balancer does); the figure is exchanges per second from the first request to the last
answer (server start-up excluded). Configurations: the folder backend with 1 server; a
PostgreSQL workspace (a throwaway local cluster, fsync on) with 1 and with 2 servers.
``bench/postgres.py --proxy`` runs this too. Figures depend on the machine's cores: two
servers only help when there are cores (or machines) for both.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.llm.loopback import LoopbackServer, chat_text
from tests.reach.running import free_port

from reverie.storage.open import init_database
from reverie.testing.local_cluster import LocalCluster

TOKEN = "bench-proxy-token-" + "x" * 24


def _serve(workspace: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "reverie", "-w", workspace, "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 60
    with httpx2.Client(headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        while True:
            try:
                client.get(url + "/models").raise_for_status()
                return process, url
            except httpx2.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.1)


def _drive(urls: list[str], sessions: int, per_session: int) -> float:
    """Exchanges per second of ``sessions`` threads over ``urls`` round-robin."""
    failures: list[int] = []

    def user(index: int) -> None:
        with httpx2.Client(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as client:
            for turn in range(per_session):
                url = urls[(index + turn) % len(urls)]
                body = {
                    "model": "chat-model",
                    "metadata": {"session": f"bench:u{index}"},  # sessions of one workspace
                    "messages": [{"role": "user", "content": f"turn {turn}: I bought tea"}],
                }
                reply = client.post(url + "/chat/completions", json=body)
                if reply.status_code != 200:
                    failures.append(reply.status_code)

    threads = [threading.Thread(target=user, args=(i,)) for i in range(sessions)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    if failures:
        raise RuntimeError(f"{len(failures)} requests failed: {sorted(set(failures))}")
    return round(sessions * per_session / elapsed, 1)


def _run(workspace: str, servers: int, env: dict[str, str], args: argparse.Namespace) -> float:
    with LoopbackServer() as loopback:
        total = args.sessions * args.per_session
        loopback.script(*(chat_text("noted") for _ in range(total)))
        env = env | {"REVERIE_BASE_URL": loopback.base_url}
        started = [_serve(workspace, env) for _ in range(servers)]
        try:
            return _drive([url for _, url in started], args.sessions, args.per_session)
        finally:
            for process, _ in started:
                process.terminate()
                process.wait(timeout=30)


def proxy_figures(args: argparse.Namespace) -> dict[str, float]:
    """Exchanges per second: folder 1 server, PostgreSQL 1 and 2 servers."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    base |= {
        "REVERIE_SERVE_TOKEN": TOKEN,
        "REVERIE_MODEL": "chat-model",
        "REVERIE_API_KEY": "bench-key",
        "REVERIE_DREAM_MODE": "model-free",
        "REVERIE_IDLE_MINUTES": "0",
        "REVERIE_DREAM_INTERVAL_MINUTES": "0",
    }
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        env = base | {"HOME": folder}
        figures["folder_1_server"] = _run(str(Path(folder) / "ws"), 1, env, args)
    with LocalCluster(durable=True) as cluster, tempfile.TemporaryDirectory() as home:
        env = base | {"HOME": home, "REVERIE_STORE": cluster.info.url}
        for servers in (1, 2):
            name = f"bench-proxy-{servers}"
            init_database(cluster.info.url, name)
            figures[f"postgres_{servers}_server{'s' if servers > 1 else ''}"] = _run(
                name, servers, env, args
            )
    return figures


def parser() -> argparse.ArgumentParser:
    """The command line (``bench/postgres.py --proxy`` shares it)."""
    parsed = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parsed.add_argument("--sessions", type=int, default=8)
    parsed.add_argument("--per-session", type=int, default=10)
    return parsed


if __name__ == "__main__":
    arguments = parser().parse_args()
    result = {"exchanges_per_s": proxy_figures(arguments), **vars(arguments)}
    print(json.dumps(result, indent=2))
