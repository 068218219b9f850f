"""``bench/soak.py --quick`` end to end: workers under faults and SIGKILLs break no invariant."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SOAK = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


@pytest.mark.slow
def test_quick_soak_under_faults_and_kills_keeps_every_invariant(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SOAK), "--quick", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-4_000:]
    figures = json.loads(done.stdout)
    assert figures["violations"] == []
    assert figures["kills"] > 0
    assert figures["restarts"] > 0
    assert figures["acked_messages_checked"] > 0
    assert sum(figures["faults_injected"].values()) > 0
    assert not list(tmp_path.iterdir())  # a clean run removes its workspace
