"""Benchmark provenance and forgetting on a workspace of a realistic size, model-free.

Run: .venv/bin/python bench/provenance.py [--sessions 40] [--turns 25]   (prints one JSON object)

Builds SESSIONS conversations of TURNS turns each (one distinctive fact per session), compacts
and dreams them model-free, then times: the attribution share of dream (``note_run``), ``why``
on every line naming a bee hive, ``forget_plan`` and ``forget`` of one fact, ``forget --purge``
of another, and the sidecar's size. ``forget`` reads every history entry and every session
once (it must find every copy of the text), so its cost follows the workspace, not the fact.
Figures are on whatever machine runs this.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reverie import MemoryEngine
from reverie.config import Config, ModelConfig
from reverie.dream import runner

CITIES = ["Porto", "Braga", "Lyon", "Riga", "Oslo", "Kyoto", "Lima", "Quito", "Cork", "Bern"]


def _build(root: Path, sessions: int, turns: int) -> tuple[MemoryEngine, float, float]:
    config = Config(model=ModelConfig(context_window=8000, max_output_tokens=500))
    engine = MemoryEngine.open(root, config, environ={})
    for s in range(sessions):
        key = f"bench:{s}"
        city = f"{CITIES[s % len(CITIES)]}{s}"
        messages = [{"role": "user", "content": f"My friend {city} keeps a bee hive."}]
        for t in range(turns):
            messages += [
                {"role": "assistant", "content": f"Noted ({t})."},
                {"role": "user", "content": f"Turn {t}: we talked about topic {t} of {s}."},
            ]
        engine.record(key, messages)
        engine.compact(key)
    spent = [0.0]
    namespace = vars(runner)  # the runner calls the name it imported: time that name
    original = namespace["note_run"]

    def timed(*args: Any, **kwargs: Any) -> int:
        start = time.perf_counter()
        try:
            result: int = original(*args, **kwargs)
            return result
        finally:
            spent[0] += time.perf_counter() - start

    namespace["note_run"] = timed
    start = time.perf_counter()
    while engine.dream().outcome == "completed":
        pass
    namespace["note_run"] = original
    return engine, time.perf_counter() - start, spent[0]


def _timed(action: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = action()
    return (time.perf_counter() - start) * 1000, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--turns", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        engine, dream_s, note_s = _build(Path(folder) / "ws", args.sessions, args.turns)
        sidecar = engine.workspace.root / ".reverie" / "provenance.json"
        written = "".join(p.read_text("utf-8") for p in engine.workspace.root.glob("**/*.md"))
        names = re.findall(r"friend (\w+) keeps", written)
        why_ms, why = _timed(lambda: engine.why("bee hive"))
        plan_ms, plan = _timed(lambda: engine.forget_plan(f"{names[0]} keeps"))
        forget_ms, _ = _timed(lambda: engine.forget(f"{names[0]} keeps"))
        purge_ms, purged = _timed(lambda: engine.forget(f"{names[1]} keeps", purge=True))
        figures = {
            "sessions": args.sessions,
            "messages": args.sessions * (1 + 2 * args.turns),
            "entries": len(engine.history()),
            "sidecar_records": len(json.loads(sidecar.read_text("utf-8"))["lines"]),
            "sidecar_bytes": sidecar.stat().st_size,
            "dream_all_s": round(dream_s, 3),
            "attribution_s": round(note_s, 3),
            "why_ms": round(why_ms, 1),
            "why_lines": len(why.lines),
            "forget_plan_ms": round(plan_ms, 1),
            "forget_plan": plan.describe(),
            "forget_ms": round(forget_ms, 1),
            "forget_purge_ms": round(purge_ms, 1),
            "purge_clean": purged.purge.clean,
        }
        engine.close()
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
