"""The viewer's heaviest pages on a workspace with a long audit history.

Run: ``.venv/bin/python bench/viewer.py [--commits N]``. Builds a workspace whose
memory/MEMORY.md grew over N person edits (one line each, so N commits and N lines), then
times, best of 5: ``line_origins`` of the three durable files (the overview's line ages: one
walk of up to 200 commits), the whole overview page, the timeline page and one commit's diff
page, rendered in-process (no HTTP). Prints one JSON object of milliseconds.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from reverie import MemoryEngine
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.viewer import changes, overview, timeline
from reverie.viewer.layout import View


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


def best_ms(run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return round(best * 1000, 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", type=int, default=300)
    args = parser.parse_args()
    config = Config(model=ModelConfig(context_window=8000, max_output_tokens=500))
    with tempfile.TemporaryDirectory() as tmp:
        engine = MemoryEngine.open(Path(tmp) / "ws", config, clock=Clock(), environ={})
        text = engine.read_file("memory/MEMORY.md")
        for n in range(args.commits):
            text += f"- fact number {n}: the harbour project decided something on day {n}\n"
            engine.edit_file("memory/MEMORY.md", text, author="Bench")
        view = View(engine=engine)
        figures = {
            "commits": args.commits,
            "memory_lines": len(text.splitlines()),
            "line_origins_all_ms": best_ms(engine.line_origins),
            "overview_ms": best_ms(lambda: overview.overview(view)),
            "timeline_ms": best_ms(lambda: timeline.timeline(view)),
            "commit_page_ms": best_ms(lambda: changes.commit_page(view, "HEAD")),
        }
        engine.close()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
