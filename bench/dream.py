"""Benchmark dream over 1,000 pending entries with a scripted model.

Run: .venv/bin/python bench/dream.py [--postgres]   (prints one JSON object)

The scripted model makes one small edit per batch (bumps a counter line in memory/MEMORY.md)
and then gives its final answer, so each run is two model calls. Figures: runs needed, model
calls and tokens per entry (the scripted provider prices calls with the offline estimator), and
wall time excluding the time spent inside the model, in total and per run (median, max): the
cost of reverie's own work (prompt, tools, publish journal, audit commit, cursor, trim,
transcript). Defaults of DreamConfig apply (batch of 20 entries, 1,000 chars each).

With ``--postgres``, the same runs on a database workspace too (a throwaway cluster on
loopback, ``reverie.testing.local_cluster``; the same ``Dreamer``: the staging copy in memory,
one fenced transaction per publish), and the JSON has one object per backend.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from reverie import ChatReply, ChatRequest, ScriptedProvider, ToolCall
from reverie.core.token_estimate import EstimatingCounter
from reverie.llm.provider import Provider
from reverie.memory.dream.runner import Dreamer
from reverie.storage.folder.backend import FileBackend
from reverie.storage.ports import Backend

Runner = Callable[[Provider], Dreamer]

ENTRIES = 1_000
TEXT = (
    "User asked how to set up the staging database; we agreed on Postgres 16 with nightly "
    "backups to the NAS, and the user prefers short answers with code first. "
) * 2
COUNTER = re.compile(r"- batches curated: (\d+)")


class TimedProvider:
    """Delegates to a provider and adds up the seconds spent inside it."""

    def __init__(self, inner: ScriptedProvider) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.calls = 0

    def complete(self, request: ChatRequest) -> ChatReply:
        start = time.perf_counter()
        try:
            return self.inner.complete(request)
        finally:
            self.seconds += time.perf_counter() - start
            self.calls += 1


def bump_counter(request: ChatRequest) -> ChatReply:
    done = int(COUNTER.findall(request.messages[1].text)[0])
    arguments = {
        "path": "memory/MEMORY.md",
        "old_text": f"- batches curated: {done}",
        "new_text": f"- batches curated: {done + 1}",
    }
    call = ToolCall(id=f"bump-{done}", name="edit_file", arguments=json.dumps(arguments))
    return ChatReply(tool_calls=(call,), finish_reason="tool_calls")


def measure(stores: Backend, make: Runner) -> dict[str, float | int]:
    """Dream every pending entry of ``stores`` away; return the figures."""
    memory = stores.files.read("MEMORY")
    stores.files.write("MEMORY", memory + "\n- batches curated: 0\n")
    stores.audit.commit("bench: seed")
    for index in range(ENTRIES):
        stores.history.append(f"{index}: {TEXT}", session_key=f"bench:{index % 7}")
    provider = TimedProvider(ScriptedProvider(counter=EstimatingCounter()))
    dreamer = make(provider)
    runs, per_run, tokens = 0, [], 0
    started = time.perf_counter()
    while True:
        provider.inner.respond(bump_counter).reply("done")
        model_before = provider.seconds
        run_start = time.perf_counter()
        result = dreamer.run(trigger="bench")
        if result.outcome == "no_pending":
            break
        assert result.outcome == "completed", result
        per_run.append(time.perf_counter() - run_start - (provider.seconds - model_before))
        runs += 1
        tokens += result.tokens
    total = time.perf_counter() - started - provider.seconds
    assert stores.dream_cursor.read() == ENTRIES
    assert f"- batches curated: {runs}" in stores.files.read("MEMORY")
    return {
        "entries": ENTRIES,
        "runs_needed": runs,
        "model_calls": provider.calls,
        "model_calls_per_entry": round(provider.calls / ENTRIES, 4),
        "tokens_total": tokens,
        "tokens_per_entry": round(tokens / ENTRIES, 1),
        "wall_seconds_excluding_model": round(total, 3),
        "per_run_ms_excluding_model_median": round(statistics.median(per_run) * 1e3, 2),
        "per_run_ms_excluding_model_max": round(max(per_run) * 1e3, 2),
        "audit_commits": len(stores.audit.log(10_000)),
    }


def _folder(tmp: Path) -> dict[str, float | int]:
    workspace = FileBackend.open(tmp / "ws", create=True)
    try:
        return measure(workspace, lambda p: Dreamer(workspace, p, counter=EstimatingCounter()))
    finally:
        workspace.close()


def _postgres() -> dict[str, float | int]:
    from reverie.storage.postgres.backend import PgBackend
    from reverie.testing.local_cluster import LocalCluster

    with LocalCluster(durable=True) as cluster:
        backend = PgBackend.open(cluster.info.url, "bench", create=True)
        try:
            return measure(backend, lambda p: Dreamer(backend, p, counter=EstimatingCounter()))
        finally:
            backend.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = _folder(Path(tmp))
        if "--postgres" not in sys.argv[1:]:
            print(json.dumps(folder, indent=2))
            return
        figures = {"folder": folder, "postgresql": _postgres()}
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
