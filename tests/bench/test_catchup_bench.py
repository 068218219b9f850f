"""bench/catchup.py runs for real on a few sessions, so it cannot rot (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.bench.conftest import BENCH


def test_the_catchup_bench_prints_both_figures_for_each_session_count() -> None:
    argv = [sys.executable, str(BENCH / "catchup.py"), "--sessions", "3,5", "--appends", "4"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [row["sessions"] for row in report["rows"]] == [3, 5]
    for row in report["rows"]:
        for name in ("refresh_ms", "level_query_ms"):
            assert row[name]["p50"] >= 0
            assert row[name]["p95"] >= row[name]["p50"]
