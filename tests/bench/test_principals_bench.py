"""bench/principals.py runs on a tiny folder home, so it cannot rot (no timing checked)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.bench.conftest import BENCH

pytestmark = pytest.mark.slow


def test_the_principals_bench_prints_its_figures() -> None:
    argv = [sys.executable, str(BENCH / "principals.py"), "--database", "0", "--folder", "4"]
    argv += ["--exchanges", "1", "--capacity", "2", "--samples", "3", "--dream", "3"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)["folder"]
    assert figures["principals"] == 4
    assert figures["resident"]["engines"] == 2
    assert figures["maintenance"]["principals"] == 3
    assert figures["maintenance"]["dreams_completed"] == 3
    assert figures["maintenance"]["failures"] == 0
    for name in ("prompt_cold_ms", "prompt_warm_ms"):
        assert figures[name]["p50"] >= 0
