"""Benchmark provenance and forgetting on a workspace of a realistic size, model-free.

Run: .venv/bin/python bench/provenance.py [--sessions 40] [--turns 25] [--postgres]
(prints one JSON object: "folder", and with ``--postgres`` "postgres", a workspace in a
throwaway local cluster, as ``bench/postgres.py`` starts one)

Builds SESSIONS conversations of TURNS turns each (one distinctive fact per session), compacts
and dreams them model-free, then times: the attribution share of dream (``note_changes``), ``why``
on every line naming a bee hive, ``forget_plan`` and ``forget`` of one fact, ``forget --purge``
of another, and the sidecar's size. ``forget`` reads every history entry and every session
once (it must find every copy of the text), so its cost follows the workspace, not the fact;
``--purge`` also reads every place of the workspace back (every file, or every row).
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
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.memory.dream import runner
from reverie.storage.folder.provenance_file import DEFAULT_SIDECAR, ProvenanceFile
from reverie.storage.ports import ProvenancePort

Figures = dict[str, Any]
CONFIG = Config(model=ModelConfig(context_window=8000, max_output_tokens=500))

CITIES = ["Porto", "Braga", "Lyon", "Riga", "Oslo", "Kyoto", "Lima", "Quito", "Cork", "Bern"]


def _build(engine: MemoryEngine, sessions: int, turns: int) -> tuple[float, float]:
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
    # The dream runner calls the name it imported, ``note_changes``, on either backend.
    namespace, name = vars(runner), "note_changes"
    original = namespace[name]

    def timed(*args: Any, **kwargs: Any) -> int:
        start = time.perf_counter()
        try:
            result: int = original(*args, **kwargs)
            return result
        finally:
            spent[0] += time.perf_counter() - start

    namespace[name] = timed
    start = time.perf_counter()
    while engine.dream().outcome == "completed":
        pass
    namespace[name] = original
    return time.perf_counter() - start, spent[0]


def _timed(action: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = action()
    return (time.perf_counter() - start) * 1000, result


def _measure(engine: MemoryEngine, args: argparse.Namespace, records: ProvenancePort) -> Figures:
    dream_s, note_s = _build(engine, args.sessions, args.turns)
    said = "\n".join(entry.content for entry in engine.history())  # every friend, dreamt or not
    names = re.findall(r"friend (\w+) keeps", said, re.IGNORECASE)
    why_ms, why = _timed(lambda: engine.why("bee hive"))
    plan_ms, plan = _timed(lambda: engine.forget_plan(f"{names[0]} keeps"))
    forget_ms, _ = _timed(lambda: engine.forget(f"{names[0]} keeps"))
    purge_ms, purged = _timed(lambda: engine.forget(f"{names[1]} keeps", purge=True))
    return {
        "sessions": args.sessions,
        "messages": args.sessions * (1 + 2 * args.turns),
        "entries": len(engine.history()),
        "provenance_records": len(records.read().records),
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


def _on_postgres(args: argparse.Namespace) -> Figures:
    from reverie.storage.postgres.database import Database  # the postgres extra, on use
    from reverie.storage.postgres.provenance import PgProvenance
    from reverie.testing.local_cluster import LocalCluster

    with LocalCluster() as cluster:
        database = Database(cluster.info.url)
        try:
            database.init()
            tenant = database.tenant("bench", create=True)
            with MemoryEngine.open("bench", CONFIG, store=cluster.info.url, environ={}) as engine:
                return _measure(engine, args, PgProvenance(tenant))
        finally:
            database.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--turns", type=int, default=25)
    parser.add_argument("--postgres", action="store_true", help="also on a PostgreSQL workspace")
    args = parser.parse_args()
    results: dict[str, Figures] = {}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "ws"
        with MemoryEngine.open(root, CONFIG, environ={}) as engine:
            sidecar = ProvenanceFile(root / DEFAULT_SIDECAR)
            results["folder"] = _measure(engine, args, sidecar)
            results["folder"]["sidecar_bytes"] = sidecar.path.stat().st_size
    if args.postgres:
        results["postgres"] = _on_postgres(args)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
