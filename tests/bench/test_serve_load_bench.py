"""bench/serve_load.py runs for real on a tiny load, so it cannot rot (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "serve_load.py"


@pytest.mark.slow
def test_the_load_bench_prints_both_latencies_for_each_limiter() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--slow", "2", "--stall", "0.5", "--threads", "2", "8"],
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    report = json.loads(done.stdout)
    assert report["slow_sessions"] == 2
    assert report["memory_model_calls"] > 0  # the slow sessions did wait on the memory model
    for key in ("threads_2", "threads_8"):
        assert set(report[key]) == {"idle_s", "under_load_s"}
