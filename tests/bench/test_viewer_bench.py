"""bench/viewer.py runs for real on a tiny history, so it cannot rot (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.bench.conftest import BENCH


def test_the_viewer_bench_prints_its_figures() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "viewer.py"), "--commits", "3"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["commits"] == 3
    assert figures["memory_lines"] == 6
    for name in ("line_origins_all_ms", "overview_ms", "timeline_ms", "commit_page_ms"):
        assert figures[name] >= 0
