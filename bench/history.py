"""Benchmark the history log: append latency, read_since at growing sizes, trim, peak RSS.

Run: .venv/bin/python bench/history.py   (prints one JSON object)
Targets (DESIGN/issue 2): append median <= 30 us; read_since(20 newest) at 50k <= 2 ms and flat
in N. Figures are medians over repeated runs on whatever machine runs this.
"""

from __future__ import annotations

import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

from reverie.storage.folder.workspace import Workspace

TEXT = "The user prefers short answers and is planning a trip to Kyoto in April. " * 4


def _append_latency(workspace: Workspace, count: int) -> list[float]:
    samples = []
    for index in range(count):
        start = time.perf_counter_ns()
        workspace.history.append(f"{index} {TEXT}", session_key="bench:append")
        samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def _fill(workspace: Workspace, total: int) -> None:
    missing = total - workspace.history.last_cursor()
    for index in range(missing):
        workspace.history.append(f"{index} {TEXT}", session_key="bench:fill")


def _read_newest(workspace: Workspace, repeats: int = 200) -> float:
    last = workspace.history.last_cursor()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        entries = workspace.history.read_since(last - 20)
        samples.append((time.perf_counter_ns() - start) / 1000)
        assert len(entries) == 20
    return statistics.median(samples)


def main() -> None:
    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Workspace.open(Path(tmp) / "ws", create=True)
        appends = _append_latency(workspace, 5000)
        figures["append_us_median"] = round(statistics.median(appends), 2)
        figures["append_us_p99"] = round(statistics.quantiles(appends, n=100)[98], 2)
        reads: dict[str, float] = {}
        for size in (1_000, 10_000, 50_000):
            _fill(workspace, size)
            reads[str(size)] = round(_read_newest(workspace), 2)
        figures["read_since_20_newest_us_median"] = reads
        figures["history_bytes_at_50k"] = workspace.history.path.stat().st_size
        workspace.dream_cursor.write(49_000)
        start = time.perf_counter()
        result = workspace.history.trim(keep=1000)
        figures["trim_50k_ms"] = round((time.perf_counter() - start) * 1000, 1)
        figures["trim_dropped"] = result.dropped
        start = time.perf_counter()
        Workspace.open(Path(tmp) / "ws").close()
        figures["reopen_after_trim_ms"] = round((time.perf_counter() - start) * 1000, 2)
        workspace.close()
    figures["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
