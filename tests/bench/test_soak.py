"""``bench/soak.py --quick`` end to end: workers under faults and SIGKILLs break no invariant.

``--quick`` is scheduled by progress (``soaklib.schedule``), so what this test asserts holds
however loaded the machine is: every worker is killed and restarted once, actions are
acknowledged, and the first model request always meets a fault.
"""

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
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-4_000:]
    figures = json.loads(done.stdout)
    assert figures["violations"] == []
    assert figures["kills"] == figures["restarts"] == figures["workers"]
    assert figures["acked_messages_checked"] > 0
    assert sum(figures["faults_injected"].values()) > 0
    assert not list(tmp_path.iterdir())  # a clean run removes its workspace
