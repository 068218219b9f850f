"""bench/scale.py runs for real on a tiny workspace, so it cannot rot (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.bench.conftest import BENCH

FIGURES = ("prompt_ms", "record_ms", "recall_ms", "search_ms", "dream_ms")


def test_the_scale_bench_grows_a_folder_workspace_and_prints_every_figure() -> None:
    argv = [sys.executable, str(BENCH / "scale.py"), "--sizes", "200,300", "--samples", "3"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    rows = report["folder"]
    assert [row["items"] for row in rows] == [200, 300]
    for row in rows:
        for name in FIGURES:
            assert row[name]["p50"] >= 0, name
        assert row["rss_mb"] > 0
        assert isinstance(row["engine_rss_mb"], float)
    assert all(entries > 0 for row in rows for entries in row["dream_entries"])  # work to do
