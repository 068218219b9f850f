"""Benchmark the session store: persist one message at growing lengths, load, list, peak RSS.

Run: .venv/bin/python bench/sessions.py   (prints one JSON object; docs/storage.md has the
figures that decided for SQLite, the journal store's beside them)
Target (DESIGN invariant 4, issue 3): persisting one message <= 0.3 ms and flat from 100 to
10,000 messages. For scale, nanobot rewrites the whole file per save (1.7 ms at 100 messages,
79 ms at 10k). Figures are medians on whatever machine runs this.
"""

from __future__ import annotations

import json
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from reverie import Message, ToolCall
from reverie.storage.folder.workspace import Workspace

TEXT = "The user prefers short answers and is planning a trip to Kyoto in April. " * 4


def _message(index: int) -> Message:
    if index % 4 == 1:
        call = ToolCall(id=f"call_{index}", name="web_search", arguments='{"query": "kyoto"}')
        return Message(role="assistant", tool_calls=(call,))
    if index % 4 == 2:
        return Message(role="tool", tool_call_id=f"call_{index - 1}", content=TEXT)
    return Message(role="user" if index % 4 == 0 else "assistant", content=f"{index} {TEXT}")


def _fill(workspace: Workspace, key: str, count: int) -> None:
    for start in range(0, count, 500):
        batch = [_message(i) for i in range(start, min(count, start + 500))]
        workspace.sessions.append_many(key, batch)


def _persist_ms(workspace: Workspace, length: int, samples: int = 400) -> float:
    key = f"bench:persist:{length}"
    _fill(workspace, key, length)
    timings = []
    for index in range(samples):
        message = _message(length + index)
        start = time.perf_counter_ns()
        workspace.sessions.append(key, message)
        timings.append((time.perf_counter_ns() - start) / 1e6)
    return statistics.median(timings)


def _median_ms(action: object, repeat: int) -> float:
    assert callable(action)
    timings = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        action()
        timings.append((time.perf_counter_ns() - start) / 1e6)
    return statistics.median(timings)


def _figures() -> dict[str, object]:
    folder = Path(tempfile.mkdtemp(prefix="reverie-bench-sessions-"))
    try:
        root = folder / "ws"
        workspace = Workspace.open(root, create=True)
        persist = {str(n): round(_persist_ms(workspace, n), 4) for n in (100, 1_000, 10_000)}
        workspace.close()
        cold_loads = []
        for _ in range(5):  # a new process's first load reads every message
            fresh = Workspace.open(root)
            start = time.perf_counter_ns()
            loaded = len(fresh.sessions.load("bench:persist:10000").messages)
            cold_loads.append((time.perf_counter_ns() - start) / 1e6)
            fresh.close()
        load_ms = statistics.median(cold_loads)
        fresh = Workspace.open(root)
        fresh.sessions.load("bench:persist:10000")
        fresh.sessions.append("bench:persist:10000", _message(0))
        # later loads in the same process read only what was appended since
        warm_ms = _median_ms(lambda: fresh.sessions.load("bench:persist:10000"), 5)
        fresh.close()
        lister = Workspace.open(root)
        for n in range(1_000):
            lister.sessions.append_many(f"bench:list:{n}", [_message(i) for i in range(5)])
        lister.close()
        cold = Workspace.open(root)
        start = time.perf_counter_ns()
        count = len(cold.sessions.list())
        list_cold_ms = (time.perf_counter_ns() - start) / 1e6
        cold.close()
        warm = Workspace.open(root)
        list_ms = _median_ms(warm.sessions.list, 5)
        warm.close()
        return {
            "persist_one_message_median_ms": persist,
            "persist_ratio_10k_over_100": round(persist["10000"] / persist["100"], 2),
            "load_10k_messages_cold_ms": round(load_ms, 2),
            "load_10k_messages_warm_ms": round(warm_ms, 2),
            "load_10k_messages_count": loaded,
            "list_sessions": count,
            "list_ms": round(list_ms, 2),
            "list_ms_first_in_process": round(list_cold_ms, 2),
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    figures = _figures()
    figures["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
