"""``bench/recall.py --latency N --backend postgres`` runs end to end on a small workspace.

Not a timing (figures are the bench's to print): that the PostgreSQL latency run fills a
workspace in a throwaway cluster and every call it times finds what it should, so the script
cannot rot between the runs that feed docs/benchmarks.md.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sized

import pytest

pytest.importorskip("psycopg", reason="the postgres extra is not installed")

import recall
from recalllib import pglatency
from recalllib.filler import questions
from tests.conftest import require_postgres_binaries


def _counted(call: Callable[[int], Sized], count: int) -> dict[str, float]:
    return {"found": float(sum(len(call(number)) for number in range(count)))}


def test_the_postgres_latency_run_fills_a_workspace_and_finds_in_it() -> None:
    require_postgres_binaries()
    asked = list(questions(6, random.Random(6)))
    config = recall._config(8192, recall=True)

    figures = pglatency.latency(300, asked, config, _counted, dense=False)

    assert figures["items"] == 300
    timed = ("search", "prompt_one_session", "prompt_rotating_sessions", "recall_alone")
    assert {name: isinstance(figures[name], dict) for name in timed} == dict.fromkeys(timed, True)
    # Search and recall find remembered items (a prompt's recall may rightly find none: the
    # session's own turns are in the prompt already).
    for name in ("search", "recall_alone"):
        found = figures[name]
        assert isinstance(found, dict)
        assert found["found"] > 0, name
