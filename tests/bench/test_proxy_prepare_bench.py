"""bench/proxy_prepare.py runs for real on a tiny session, so it cannot rot (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "proxy_prepare.py"


def test_the_prepare_bench_prints_its_figures_on_a_folder() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--messages", "6", "--samples", "3"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(done.stdout)
    assert (report["backend"], report["messages"], report["samples"]) == ("folder", 6, 3)
    assert set(report["prepare_ms"]) == {"p50", "cpu_p50"}
