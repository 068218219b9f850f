"""Subprocess for ``test_read_only``: every read command of the engine on one workspace.

Usage: ``read_only_reader.py WORKSPACE``. Opens the engine for reading and prints one JSON
line with what status, log, search, history and doctor returned (or the error of each).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from reverie.config.sections import RecallConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.errors import ReverieError


def main() -> None:
    engine = MemoryEngine.open(
        Path(sys.argv[1]),
        Config(recall=RecallConfig(embeddings="off")),  # a child process: the suite's pin
        environ={},
        create=False,
        read_only=True,
        dense="off",
    )
    calls: dict[str, Callable[[], object]] = {
        "status": lambda: engine.status().last_cursor,
        "log": lambda: len(engine.log(5)),
        "search": lambda: len(engine.search("Oslo")),
        "history": lambda: len(engine.history(limit=5)),
        "doctor": lambda: [f.check for f in engine.doctor().findings if f.severity == "problem"],
    }
    found: dict[str, object] = {}
    for name, call in calls.items():
        try:
            found[name] = call()
        except ReverieError as exc:
            found[name] = f"error: {exc}"
    engine.close()
    print(json.dumps(found))


if __name__ == "__main__":
    main()
